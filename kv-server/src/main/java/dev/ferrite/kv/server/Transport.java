package dev.ferrite.kv.server;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.SelectStrategyFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.channels.spi.SelectorProvider;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The Netty transport the server runs on: native epoll where it loads (Linux with Netty's native
 * library for the platform, and on JDK 24+ native access enabled), NIO otherwise, or NIO when
 * {@code -Dferrite.server.transport=nio} asks. Stateless.
 */
enum Transport {
    EPOLL, NIO;

    /**
     * @return epoll if it is available, allowed to load its native library without a JVM warning
     *         and not refused by the property, else NIO
     */
    static Transport pick() {
        String wanted = System.getProperty("ferrite.server.transport", System.getenv("FERRITE_SERVER_TRANSPORT"));
        if ("nio".equalsIgnoreCase(wanted) || !nativeAccessAllowed()) {
            return NIO;
        }
        return Epoll.isAvailable() ? EPOLL : NIO;
    }

    /**
     * On JDK 24+ loading a native library from the class path warns unless native access is enabled
     * ({@code --enable-native-access=ALL-UNNAMED}, or the runnable jar's {@code Enable-Native-Access}
     * manifest entry); without it the server stays on NIO rather than make the JVM warn.
     *
     * @return whether this code may load native libraries without a warning
     */
    static boolean nativeAccessAllowed() {
        if (Runtime.version().feature() < 24) {
            return true;
        }
        try {
            Module module = Transport.class.getModule();
            return (Boolean) Module.class.getMethod("isNativeAccessEnabled").invoke(module);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    /** @return why epoll is not used, or null if it is */
    static String epollUnavailableReason() {
        if (!nativeAccessAllowed()) {
            return "native access is not enabled (--enable-native-access=ALL-UNNAMED on JDK 24+)";
        }
        Throwable cause = Epoll.unavailabilityCause();
        return cause == null ? null : String.valueOf(cause.getMessage());
    }

    /**
     * @param name            the threads' name, {@code ferrite-...}: they are daemons named
     *                        {@code name-N-M}
     * @param threads         event-loop threads, at least 1
     * @param busyPollMicros  how long each loop keeps polling after its last work before it sleeps
     *                        ({@link BusyPoll}); 0 for Netty's usual wait
     * @return a new event-loop group of this transport
     */
    EventLoopGroup group(String name, int threads, int busyPollMicros) {
        ThreadFactory daemons = new DefaultThreadFactory(name, true);
        if (busyPollMicros == 0) {
            return this == EPOLL ? new EpollEventLoopGroup(threads, daemons) : new NioEventLoopGroup(threads, daemons);
        }
        long window = TimeUnit.MICROSECONDS.toNanos(busyPollMicros);
        SelectStrategyFactory strategy = () -> new BusyPoll(window, System::nanoTime);
        return this == EPOLL ? new EpollEventLoopGroup(threads, daemons, strategy)
                : new NioEventLoopGroup(threads, daemons, SelectorProvider.provider(), strategy);
    }

    Class<? extends ServerChannel> serverChannel() {
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
