package dev.ferrite.kv;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A second process on a map, for the multi-process tests: {@code writer} puts values and prints
 * an acknowledgement after each put returns, until killed, and counts its own counter key
 * {@code n<id>} up in place ({@code updateValue}) each time; {@code merger} counts with
 * {@code merge}; {@code stuck} tears the value of key {@code stuck} inside an in-place update,
 * prints {@code torn} and never returns (to be killed there). Arguments: mode, backend, where
 * ({@code file:PATH} or {@code shm:NAME}), then the mode's own (writer: id, keys, first sequence
 * number; merger: count).
 */
public final class MapPeer {

    /** Bytes of each value the writer stores. */
    static final int VALUE_BYTES = 120;

    private MapPeer() {
    }

    /**
     * @param args mode backend where [writer: id keys first] [merger: count]
     */
    public static void main(String[] args) {
        String mode = args[0];
        FerriteMapBuilder<String, byte[]> b = FerriteMap.builder(Codec.utf8(), Codec.bytes()).backend(args[1]);
        String where = args[2];
        if (where.startsWith("file:")) {
            b.file(Path.of(where.substring(5)));
        } else {
            b.shm(where.substring(4));
        }
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        try (FerriteMap<String, byte[]> map = b.open()) {
            out.println("open");
            out.flush();
            if (mode.equals("writer")) {
                int id = Integer.parseInt(args[3]);
                int keys = Integer.parseInt(args[4]);
                for (long i = Long.parseLong(args[5]); ; i++) {
                    String key = "w" + id + "-" + (i % keys);
                    map.put(key, value(i));
                    out.println(key + " " + i);
                    if ((i & 63) == 0) {
                        out.flush();
                    }
                    if (i % 1000 == 999) {
                        map.remove("w" + id + "-gone-" + (i / 1000)); // removes too
                    }
                    map.put("w" + id + "-gone-" + (i / 1000 + 1), value(i));
                    byte[] counter = ("n" + id).getBytes(StandardCharsets.UTF_8);
                    long next = i;
                    if (!map.updateValue(counter, (seg, off, len) -> seg.copyFrom(value(next), 0, off, len))) {
                        map.put("n" + id, value(i));
                    }
                    out.println("n" + id + " " + i);
                }
            } else if (mode.equals("stuck")) {
                map.updateValue("stuck".getBytes(StandardCharsets.UTF_8), (seg, off, len) -> {
                    seg.fill(off, len / 2, (byte) 0x5A);
                    out.println("torn");
                    out.flush();
                    while (true) {
                        try {
                            Thread.sleep(60_000);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                });
            } else if (mode.equals("merger")) {
                int count = Integer.parseInt(args[3]);
                for (int i = 0; i < count; i++) {
                    map.merge("counter", value(1), (a, c) -> value(sequence(a) + sequence(c)));
                }
                out.println("done");
            }
        }
        out.flush();
    }

    /** @return a value that carries a number and bytes derived from it, so a torn value shows */
    static byte[] value(long i) {
        ByteBuffer b = ByteBuffer.allocate(VALUE_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(i);
        while (b.hasRemaining()) {
            b.put((byte) (i * 31 + b.position()));
        }
        return b.array();
    }

    /** @return the number a value carries, after checking every byte of it */
    static long sequence(byte[] v) {
        if (v.length != VALUE_BYTES) {
            throw new AssertionError("value of " + v.length + " bytes");
        }
        ByteBuffer b = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN);
        long i = b.getLong();
        while (b.hasRemaining()) {
            int p = b.position();
            if (b.get() != (byte) (i * 31 + p)) {
                throw new AssertionError("torn value: byte " + p + " does not belong to value " + i);
            }
        }
        return i;
    }
}
