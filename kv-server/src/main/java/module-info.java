/** Ferrite's maps served over the Redis protocol (RESP2) and HTTP/1.1, on Netty. */
module dev.ferrite.kv.server {
    requires transitive dev.ferrite.kv;
    requires io.netty.buffer;
    requires io.netty.codec;
    requires io.netty.codec.http;
    requires io.netty.codec.redis;
    requires io.netty.common;
    requires io.netty.handler;
    requires io.netty.transport;
    requires io.netty.transport.classes.epoll;
    requires java.management;
    requires jdk.management;

    exports dev.ferrite.kv.server;
}
