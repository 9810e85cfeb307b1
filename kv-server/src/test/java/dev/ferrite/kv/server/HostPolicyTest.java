package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which Host and Origin values pass, for a loopback-bound server and for configured names. */
class HostPolicyTest {

    @Test
    void loopbackNamesAndAddressesPassAndOtherNamesDoNot() throws Exception {
        HostPolicy p = new HostPolicy(InetAddress.getByName("127.0.0.1"), Set.of());
        for (String ok : new String[] {"localhost", "LOCALHOST:8080", "localhost.", "api.localhost:1", "127.0.0.1",
            "127.0.0.1:8080", "127.4.5.6", "[::1]", "[::1]:8080"}) {
            assertTrue(p.allowsHostHeader(ok), ok);
        }
        for (String bad : new String[] {"evil.example", "evil.example:8080", "localhost.evil.example", "10.0.0.1",
            "127.0.0.1:80:80", "127.0.0.1:x", "::1", "[::1", "[evil.example]", "", ":8080", "0x7f.1"}) {
            assertFalse(p.allowsHostHeader(bad), bad);
        }
        assertTrue(p.allowsOrigin("http://localhost:3000"));
        assertTrue(p.allowsOrigin("http://127.0.0.1"));
        assertTrue(p.allowsOrigin("http://[::1]:8080"));
        assertFalse(p.allowsOrigin("null"));
        assertFalse(p.allowsOrigin("https://evil.example"));
        assertFalse(p.allowsOrigin("not a uri"));
    }

    @Test
    void configuredNamesAndTheBoundAddressPass() throws Exception {
        HostPolicy p = new HostPolicy(InetAddress.getByName("192.0.2.7"), Set.of("Kv.Internal", "10.1.2.3"));
        assertTrue(p.allowsHostHeader("kv.internal:8080"));
        assertTrue(p.allowsHostHeader("192.0.2.7:8080"));
        assertTrue(p.allowsHostHeader("10.1.2.3"));
        assertTrue(p.allowsOrigin("https://KV.internal"));
        assertFalse(p.allowsHostHeader("other.internal"));
        assertFalse(p.allowsHostHeader("192.0.2.8"));
        HostPolicy any = new HostPolicy(InetAddress.getByName("127.0.0.1"), Set.of("*"));
        assertTrue(any.allowsHostHeader("anything.example"));
        assertTrue(any.allowsOrigin("null"));
    }
}
