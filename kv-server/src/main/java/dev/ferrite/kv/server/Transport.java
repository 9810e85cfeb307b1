package dev.ferrite.kv.server;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;

/**
 * The Netty transport the server runs on: native epoll where it loads (Linux with Netty's native
 * library for the platform), NIO otherwise, or NIO when {@code -Dferrite.server.transport=nio}
 * asks. Stateless.
 */
enum Transport {
    EPOLL, NIO;

    /** @return epoll if it is available and not refused by the property, else NIO */
    static Transport pick() {
        String wanted = System.getProperty("ferrite.server.transport", System.getenv("FERRITE_SERVER_TRANSPORT"));
        if ("nio".equalsIgnoreCase(wanted)) {
            return NIO;
        }
        return Epoll.isAvailable() ? EPOLL : NIO;
    }

    /** @return why epoll is not used, or null if it is available */
    static String epollUnavailableReason() {
        Throwable cause = Epoll.unavailabilityCause();
        return cause == null ? null : String.valueOf(cause.getMessage());
    }

    EventLoopGroup group(int threads) {
        return this == EPOLL ? new EpollEventLoopGroup(threads) : new NioEventLoopGroup(threads);
    }

    Class<? extends ServerChannel> serverChannel() {
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
