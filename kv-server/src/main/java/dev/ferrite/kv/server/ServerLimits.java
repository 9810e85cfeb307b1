package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;

/**
 * The bounds a client's requests must keep; a request over one is a protocol error that closes its
 * connection before the bytes are buffered. Defaults are Redis's where Redis has one.
 *
 * @param maxBulkBytes   longest bulk string (one argument) in bytes; Redis's {@code proto-max-bulk-len}
 *                       is 512 MiB, Ferrite's default is the map's largest value, 64 MiB
 * @param maxArguments   most arguments in one request (Redis: 1,048,576)
 * @param maxInlineBytes longest inline command line, and longest count line, in bytes (Redis: 64 KiB)
 * @param maxRequestBytes most bytes of all arguments of one request together (Redis bounds a
 *                       client's query buffer at 1 GiB); Ferrite's default is 256 MiB
 * @param maxClientsRequestBytes most bytes all clients' unfinished requests hold together (RESP
 *                       arguments, HTTP bodies), Redis's {@code maxmemory-clients}; a client whose
 *                       request would pass it is disconnected. Default 1 GiB
 */
public record ServerLimits(int maxBulkBytes, int maxArguments, int maxInlineBytes, long maxRequestBytes,
                           long maxClientsRequestBytes) {

    /** The default of {@link #maxClientsRequestBytes}: 1 GiB. */
    public static final long DEFAULT_CLIENTS_REQUEST_BYTES = 1L << 30;

    /**
     * The defaults: 64 MiB bulk strings, 1,048,576 arguments, 64 KiB inline lines, 256 MiB requests,
     * 1 GiB of all clients' unfinished requests.
     */
    public static final ServerLimits DEFAULTS = new ServerLimits(64 << 20, 1 << 20, 64 << 10, 256L << 20,
            DEFAULT_CLIENTS_REQUEST_BYTES);

    /**
     * @throws FerriteException if a limit is below 1, an inline line below 16 bytes, or a request
     *                          below one bulk string, or all clients' requests below one request
     */
    public ServerLimits {
        if (maxBulkBytes < 1 || maxArguments < 1 || maxInlineBytes < 16 || maxRequestBytes < maxBulkBytes
                || maxClientsRequestBytes < maxRequestBytes) {
            throw new FerriteException("server limits must be positive, inline lines at least 16 bytes, a request"
                    + " at least one bulk string and all clients' requests at least one request: bulk " + maxBulkBytes
                    + ", arguments " + maxArguments + ", inline " + maxInlineBytes + ", request " + maxRequestBytes
                    + ", all clients' requests " + maxClientsRequestBytes);
        }
    }

    /**
     * The limits with the default bound on all clients' unfinished requests ({@value #DEFAULT_CLIENTS_REQUEST_BYTES}
     * bytes, or one request if that is more).
     */
    public ServerLimits(int maxBulkBytes, int maxArguments, int maxInlineBytes, long maxRequestBytes) {
        this(maxBulkBytes, maxArguments, maxInlineBytes, maxRequestBytes,
                Math.max(DEFAULT_CLIENTS_REQUEST_BYTES, maxRequestBytes));
    }
}
