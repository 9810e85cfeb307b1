package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.RedisMessage;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * MEMORY USAGE key [SAMPLES count] and MEMORY HELP. The usage is an estimate, as Redis's is: a
 * string's key and stored value with a bucket's overhead; a collection's elements, from the
 * average of the first {@code count} (default 5, 0 for all) times their number. Stateless.
 */
final class MemoryCommand {

    /** Bytes of a map entry beyond its key and value (bucket word, lengths, checksum). */
    private static final int ENTRY_OVERHEAD = 24;
    /** Bytes of a collection element beyond its member and value (prefix, entry header, slot). */
    private static final int ELEMENT_OVERHEAD = CollectionLayout.PREFIX + 9;
    private static final int DEFAULT_SAMPLES = 5;

    private MemoryCommand() {
    }

    static void register(CommandTable.Registry r) {
        r.add("memory", -2, MemoryCommand::memory);
    }

    private static RedisMessage memory(ServerContext c, ClientSession s, byte[][] a) {
        String sub = Args.lower(a[1]);
        if (sub.equals("help")) {
            return Replies.array(List.of(Replies.simple("MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"),
                    Replies.simple("USAGE <key> [SAMPLES <count>]"), Replies.simple("HELP")));
        }
        if (!sub.equals("usage")) {
            return Replies.unknownSubcommand(a[1], "MEMORY");
        }
        if (a.length != 3 && a.length != 5) {
            return a.length < 3 ? Replies.arity("memory|usage") : Replies.SYNTAX;
        }
        long samples = DEFAULT_SAMPLES;
        if (a.length == 5) {
            Long n = Args.parseLong(a[4]);
            if (!Args.lower(a[3]).equals("samples")) {
                return Replies.SYNTAX;
            }
            if (n == null || n < 0) {
                return Replies.NOT_INTEGER;
            }
            samples = n == 0 ? Long.MAX_VALUE : n;
        }
        byte[] stored = c.keyspace(s).live(a[2]);
        if (stored == null) {
            return Replies.NIL;
        }
        long bytes = ENTRY_OVERHEAD + a[2].length + stored.length;
        if (ValueLayout.isCollection(stored)) {
            CollectionStore store = c.databases.collections();
            long id = ValueLayout.id(stored);
            long size = store.size(id);
            long seen = 0;
            long sum = 0;
            for (Iterator<Map.Entry<byte[], byte[]>> it = store.elements(id).entrySet().iterator(); it.hasNext() && seen < samples; seen++) {
                Map.Entry<byte[], byte[]> e = it.next();
                sum += ELEMENT_OVERHEAD + e.getKey().length + e.getValue().length;
            }
            bytes += seen == 0 ? 0 : sum * size / seen;
        }
        return Replies.integer(bytes);
    }
}
