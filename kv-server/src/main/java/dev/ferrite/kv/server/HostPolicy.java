package dev.ferrite.kv.server;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which names an HTTP request may give in its {@code Host} and {@code Origin} headers: the guard
 * against DNS rebinding, where a web page on a name the attacker controls points that name at the
 * server's address and then reads and writes keys as a page of its own origin. Allowed are
 * {@code localhost} and names under {@code .localhost} (browsers resolve them to loopback
 * themselves), loopback addresses, the address the server is bound to (when bound to the wildcard
 * address, any address of this machine's interfaces), and the names configured. No name is ever
 * looked up in DNS: that would be what rebinding fools. Immutable, thread-safe.
 */
final class HostPolicy {

    private static final Pattern IPV4 = Pattern.compile("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:.]+(%[0-9A-Za-z._-]+)?");

    private final InetAddress bound;
    /** Lower-case names allowed besides the built-in ones; "*" allows every name. */
    private final Set<String> configured;

    /**
     * @param bound      the address the HTTP port listens on
     * @param configured the extra names allowed (matched case-insensitively, without port); "*"
     *                   allows any name, turning the guard off
     */
    HostPolicy(InetAddress bound, Set<String> configured) {
        this.bound = bound;
        this.configured = configured.stream().map(n -> n.toLowerCase(Locale.ROOT)).collect(java.util.stream.Collectors
                .toUnmodifiableSet());
    }

    /**
     * @param hostHeader a {@code Host} header's value: a name or address with an optional port
     * @return whether a request naming that host may run
     */
    boolean allowsHostHeader(String hostHeader) {
        String host = hostHeader.strip();
        if (host.startsWith("[")) {
            int close = host.indexOf(']');
            if (close < 0 || close + 1 < host.length() && !validPort(host.substring(close + 1))) {
                return false;
            }
            return allowsAddressLiteral(host.substring(1, close), true);
        }
        int colon = host.indexOf(':');
        if (colon >= 0) {
            if (host.indexOf(':', colon + 1) >= 0 || !validPort(host.substring(colon))) {
                return false; // an unbracketed IPv6 address, or junk
            }
            host = host.substring(0, colon);
        }
        return allowsHost(host);
    }

    /**
     * @param origin an {@code Origin} header's value ({@code scheme://host[:port]}, or {@code null})
     * @return whether a request from that origin may run: its host passes as a {@code Host} would
     */
    boolean allowsOrigin(String origin) {
        if (configured.contains("*")) {
            return true;
        }
        URI uri;
        try {
            uri = new URI(origin.strip());
        } catch (URISyntaxException e) {
            return false;
        }
        String host = uri.getHost();
        if (host == null || uri.getScheme() == null) {
            return false; // "null" (a sandboxed page, a file) or junk
        }
        return host.startsWith("[") ? allowsAddressLiteral(host.substring(1, host.length() - 1), true)
                : allowsHost(host);
    }

    private boolean allowsHost(String hostWithoutPort) {
        String host = hostWithoutPort.toLowerCase(Locale.ROOT);
        if (host.endsWith(".")) {
            host = host.substring(0, host.length() - 1); // the absolute form of the same name
        }
        if (host.isEmpty()) {
            return false;
        }
        if (configured.contains("*") || configured.contains(host)) {
            return true;
        }
        if (host.equals("localhost") || host.endsWith(".localhost")) {
            return true;
        }
        return IPV4.matcher(host).matches() && allowsAddressLiteral(host, false);
    }

    /** @return whether a literal address is loopback, the bound address, or (bound to any) one of this machine's */
    private boolean allowsAddressLiteral(String literal, boolean v6) {
        if (configured.contains("*") || configured.contains(literal.toLowerCase(Locale.ROOT))) {
            return true;
        }
        if (v6 && !IPV6.matcher(literal).matches()) {
            return false; // never let getByName see a name: it would look it up
        }
        InetAddress address;
        try {
            address = InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            return false;
        }
        if (address.isLoopbackAddress() || address.equals(bound)) {
            return true;
        }
        if (bound.isAnyLocalAddress()) {
            try {
                return NetworkInterface.getByInetAddress(address) != null;
            } catch (SocketException e) {
                return false;
            }
        }
        return false;
    }

    private static boolean validPort(String colonAndPort) {
        if (colonAndPort.length() < 2 || colonAndPort.length() > 6 || colonAndPort.charAt(0) != ':') {
            return false;
        }
        for (int i = 1; i < colonAndPort.length(); i++) {
            char c = colonAndPort.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }
}
