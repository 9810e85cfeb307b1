package dev.ferrite.kv;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code get} and {@code containsKey} encode a string key into a per-thread buffer: the same bytes
 * as {@code String.getBytes(UTF_8)} (which {@code put} uses) for every string, and no allocation
 * for one of Latin-1 characters. A {@code byte[]} key of the bytes codec is read where it is: not
 * copied, never written.
 */
class LookupKeyTest {

    @Test
    void aLookupFindsWhatAPutStoredForStringsOfEveryRange() {
        Random random = new Random(3);
        // Keyed as the codec sees them: a lone surrogate is '?' in UTF-8, so two such strings are one key.
        Map<String, String> model = new HashMap<>();
        Map<String, String> asked = new HashMap<>();
        try (FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).maxKeySize(1024).create()) {
            for (int i = 0; i < 3000; i++) {
                String key = randomString(random, i % 6);
                String encoded = new String(key.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
                model.put(encoded, "v" + i);
                asked.put(key, encoded);
                map.put(key, "v" + i);
            }
            for (Map.Entry<String, String> e : asked.entrySet()) {
                assertEquals(model.get(e.getValue()), map.get(e.getKey()), "get of " + codePoints(e.getKey()));
                assertTrue(map.containsKey(e.getKey()), "containsKey of " + codePoints(e.getKey()));
            }
            assertEquals(model.size(), map.size());
            // getAll encodes keys on its own path: the same bytes, batch after batch
            List<String> keys = new ArrayList<>(asked.keySet());
            keys.add("absent, then more keys after it");
            Map<String, String> all = map.getAll(keys);
            assertEquals(asked.size(), all.size());
            for (Map.Entry<String, String> e : asked.entrySet()) {
                assertEquals(model.get(e.getValue()), all.get(e.getKey()), "getAll of " + codePoints(e.getKey()));
            }
            assertEquals(keys.subList(0, asked.size()), new ArrayList<>(all.keySet()), "in the keys' order");
        }
    }

    @Test
    void aLatin1KeyIsLookedUpWithoutAllocating() {
        com.sun.management.ThreadMXBean threads = allocationCounter();
        try (FerriteMap<String, Long> map = FerriteMap.builder(Codec.utf8(), Codec.int64()).create()) {
            String key = "café-key-0000001";
            map.put(key, 1L);
            long perCall = allocatedPerCall(threads, () -> map.containsKey(key));
            assertTrue(perCall < 8, "containsKey of a Latin-1 key allocated " + perCall + " bytes per call");
        }
    }

    @Test
    void aByteArrayKeyIsLookedUpWhereItIsWithoutAllocating() {
        com.sun.management.ThreadMXBean threads = allocationCounter();
        try (FerriteMap<byte[], Long> map = FerriteMap.builder(Codec.bytes(), Codec.int64()).create()) {
            byte[] key = "bytes-key-000001".getBytes(StandardCharsets.US_ASCII);
            map.put(key, 1L);
            byte[] into = new byte[8];
            long perCall = allocatedPerCall(threads, () -> map.containsKey(key) && map.get(key, into) == 8);
            assertTrue(perCall < 8, "containsKey and get(key, into) of a byte[] key allocated " + perCall + " bytes a call");
        }
    }

    @Test
    void aByteArrayKeyIsNeverWrittenByTheLookupsThatFollowOnItsThread() {
        try (FerriteMap<byte[], String> bytes = FerriteMap.builder(Codec.bytes(), Codec.utf8()).create();
             FerriteMap<String, String> strings = FerriteMap.builder(Codec.utf8(), Codec.utf8()).create()) {
            byte[] key = new byte[128]; // room for the 42-char string below at 3 bytes a char: a buffer a lookup could reuse
            Arrays.fill(key, (byte) 7);
            byte[] copy = key.clone();
            bytes.put(key, "seven");
            assertEquals("seven", bytes.get(key));
            assertNull(strings.get("a key of forty-two characters, all of them")); // encoded on this thread next
            assertFalse(strings.containsKey("x"));
            assertArrayEquals(copy, key, "a lookup wrote into the caller's key");
            assertEquals("seven", bytes.get(copy));
            assertEquals(Map.of(key, "seven"), bytes.getAll(java.util.List.of(key, new byte[] {1})));
            assertFalse(bytes.containsKey(new byte[0]));
        }
    }

    @Test
    void aByteArrayKeyOverTheLimitIsRefusedAsAnyOther() {
        try (FerriteMap<byte[], String> map = FerriteMap.builder(Codec.bytes(), Codec.utf8()).maxKeySize(64).create()) {
            byte[] key = new byte[65];
            for (java.util.function.Consumer<byte[]> lookup : java.util.List.<java.util.function.Consumer<byte[]>>of(
                    map::get, map::containsKey, k -> map.get(k, new byte[4]), k -> map.getAll(java.util.List.of(k)))) {
                dev.ferrite.FerriteException e = assertThrows(dev.ferrite.FerriteException.class, () -> lookup.accept(key));
                assertTrue(e.getMessage().contains("65") && e.getMessage().contains("64"), e.getMessage());
            }
            assertThrows(ClassCastException.class, () -> map.get((Object) "a string"));
        }
    }

    private static com.sun.management.ThreadMXBean allocationCounter() {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "this JVM does not count allocated bytes");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
                "this JVM does not count allocated bytes");
        return threads;
    }

    /** @return bytes allocated per call of a lookup that finds its key, after four rounds of warm-up */
    private static long allocatedPerCall(com.sun.management.ThreadMXBean threads, java.util.function.BooleanSupplier lookup) {
        int calls = 200_000;
        boolean found = true;
        long perCall = 0;
        for (int round = 0; round < 5; round++) {
            long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
            for (int i = 0; i < calls; i++) {
                found &= lookup.getAsBoolean();
            }
            perCall = (threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before) / calls;
        }
        assertTrue(found);
        return perCall;
    }

    /** @return a string of 1 to 40 chars of one kind: ASCII, Latin-1, Greek, CJK, emoji (pairs), lone surrogates */
    private static String randomString(Random random, int kind) {
        int n = 1 + random.nextInt(40);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            switch (kind) {
                case 0 -> b.append((char) (0x20 + random.nextInt(0x5F)));
                case 1 -> b.append((char) (0x20 + random.nextInt(0xE0)));
                case 2 -> b.append((char) (0x370 + random.nextInt(0x90)));
                case 3 -> b.append((char) (0x4E00 + random.nextInt(0x5000)));
                case 4 -> b.appendCodePoint(0x1F600 + random.nextInt(0x50));
                default -> b.append(random.nextBoolean() ? (char) (0xD800 + random.nextInt(0x800)) : 'x');
            }
        }
        return b.toString();
    }

    private static String codePoints(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().forEach(c -> b.append(Integer.toHexString(c)).append(' '));
        return b.toString().trim();
    }
}
