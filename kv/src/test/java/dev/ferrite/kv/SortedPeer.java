package dev.ferrite.kv;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A second process on a sorted map, for the multi-process tests: {@code writer} puts values (one in
 * five long enough for overflow pages), removes keys, and prints an acknowledgement after each put
 * returns, until killed; {@code merger} adds 1 to key {@code count} with {@code merge}, a given
 * number of times; {@code batcher} puts one sequence number's value under {@link #BATCH} keys in
 * one atomic change (and, through a view, removes the keys of the batch before), printing the number after each,
 * until killed. Arguments: mode, backend, where ({@code file:PATH} or {@code shm:NAME}), then the
 * mode's own (writer: id, keys, first sequence number; merger: count; batcher: first sequence number).
 */
public final class SortedPeer {

    /** Keys a batcher's atomic change puts. */
    static final int BATCH = 40;

    private SortedPeer() {
    }

    /**
     * @param args mode backend where [writer: id keys first] [merger: count]
     */
    public static void main(String[] args) {
        String mode = args[0];
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        if (mode.equals("merger")) {
            try (FerriteSortedMap<String, Long> map = builder(Codec.int64(), args[1], args[2]).open()) {
                out.println("open");
                out.flush();
                for (int i = Integer.parseInt(args[3]); i > 0; i--) {
                    map.merge("count", 1L, Long::sum);
                }
            }
            return;
        }
        if (mode.equals("batcher")) {
            try (FerriteSortedMap<String, byte[]> map = builder(Codec.bytes(), args[1], args[2]).open()) {
                for (long i = Long.parseLong(args[3]); ; i++) {
                    long seq = i;
                    map.atomically(() -> {
                        map.subMap("old-", "old-~").clear();
                        for (int j = 0; j < BATCH; j++) {
                            map.put(batchKey(j), value(seq));
                            map.put("old-" + (seq * BATCH + j), value(seq));
                        }
                    });
                    out.println("batch " + seq);
                    out.flush();
                }
            }
        }
        try (FerriteSortedMap<String, byte[]> map = builder(Codec.bytes(), args[1], args[2]).open()) {
            out.println("open");
            out.flush();
            int id = Integer.parseInt(args[3]);
            int keys = Integer.parseInt(args[4]);
            for (long i = Long.parseLong(args[5]); ; i++) {
                String key = key(id, (int) (i % keys));
                map.put(key, value(i));
                out.println(key + " " + i);
                if ((i & 63) == 0) {
                    out.flush();
                }
                map.put("gone-" + id + "-" + (i % 97), value(i));
                map.remove("gone-" + id + "-" + ((i + 50) % 97));
            }
        }
    }

    static <V> FerriteSortedMapBuilder<String, V> builder(Codec<V> values, String backend, String where) {
        FerriteSortedMapBuilder<String, V> b = FerriteSortedMap.builder(Codec.utf8(), values).backend(backend).capacity(4L << 30);
        return where.startsWith("file:") ? b.file(Path.of(where.substring(5))) : b.shm(where.substring(4));
    }

    static String batchKey(int j) {
        return "batch-" + String.format("%03d", j);
    }

    static String key(int writer, int index) {
        return "w" + writer + "-" + String.format("%05d", index);
    }

    /** @return a value that names its sequence number and checks itself: 100 bytes, or 5,000 for one in five */
    static byte[] value(long seq) {
        byte[] b = new byte[seq % 5 == 0 ? 5000 : 100];
        ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        buf.putLong(seq);
        for (int i = 8; i < b.length; i++) {
            b[i] = (byte) (seq * 31 + i);
        }
        return b;
    }

    /**
     * @return the sequence number a value names
     * @throws IllegalStateException if its bytes are not those {@link #value} wrote (torn or damaged)
     */
    static long sequence(byte[] b) {
        long seq = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong();
        if (b.length != (seq % 5 == 0 ? 5000 : 100)) {
            throw new IllegalStateException("value of sequence " + seq + " is " + b.length + " bytes long");
        }
        for (int i = 8; i < b.length; i++) {
            if (b[i] != (byte) (seq * 31 + i)) {
                throw new IllegalStateException("value of sequence " + seq + " is torn at byte " + i);
            }
        }
        return seq;
    }
}
