package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The replies of pushes and pops, which learn a list's length (and a push its end) from the last
 * change while no other was published ({@link KnownList}), against a model ({@code LinkedList}s)
 * through every other command that changes a list's length (LTRIM, LREM, LINSERT, LMOVE, DEL,
 * MULTI/EXEC), from two clients, with a second store of the same directory (as another process)
 * publishing changes of its own between them; and a shape that is stale or wrong.
 */
class ListLengthModelTest {

    private static final String[] KEYS = {"a", "b"};

    @Test
    void pushAndPopRepliesMatchTheModelWhateverChangedTheListsBetween(@TempDir Path data) throws Exception {
        try (KvServer server = KvServer.builder().port(0).httpPort(-1).dataDirectory(data).start();
             RespClient one = new RespClient(server.port());
             RespClient two = new RespClient(server.port());
             CollectionStore other = new CollectionStore(new DataDirectory(data), null)) {
            // A transaction's commands run inside one change: their pushes and pops count the list.
            assertEquals(1L, one.call("RPUSH", "t", "x"));
            assertEquals("OK", one.call("MULTI"));
            assertEquals("QUEUED", one.call("RPUSH", "t", "y"));
            assertEquals("QUEUED", one.call("LPOP", "t"));
            assertEquals(List.of(2L, "x"), one.call("EXEC"));
            assertEquals(2L, one.call("RPUSH", "t", "z"));
            Map<String, LinkedList<String>> model = new TreeMap<>();
            for (String k : KEYS) {
                model.put(k, new LinkedList<>());
            }
            Random r = new Random(11);
            for (int step = 0; step < 3_000; step++) {
                RespClient c = r.nextInt(3) == 0 ? two : one;
                String k = KEYS[r.nextInt(KEYS.length)];
                LinkedList<String> list = model.get(k);
                String v = "v" + r.nextInt(20);
                String where = "step " + step;
                switch (r.nextInt(12)) {
                    case 0, 1, 2 -> {
                        int n = 1 + r.nextInt(3);
                        boolean left = r.nextBoolean();
                        List<String> cmd = new ArrayList<>(List.of(left ? "LPUSH" : "RPUSH", k));
                        for (int i = 0; i < n; i++) {
                            cmd.add(v + "." + i);
                            if (left) {
                                list.addFirst(v + "." + i);
                            } else {
                                list.addLast(v + "." + i);
                            }
                        }
                        assertEquals((long) list.size(), c.call(cmd.toArray(String[]::new)), where + " " + cmd);
                    }
                    case 3, 4 -> {
                        boolean left = r.nextBoolean();
                        if (r.nextBoolean()) {
                            String expected = list.isEmpty() ? null : left ? list.removeFirst() : list.removeLast();
                            assertEquals(expected, c.call(left ? "LPOP" : "RPOP", k), where);
                        } else {
                            int n = 1 + r.nextInt(3);
                            List<String> expected = new ArrayList<>();
                            for (int i = 0; i < n && !list.isEmpty(); i++) {
                                expected.add(left ? list.removeFirst() : list.removeLast());
                            }
                            Object reply = c.call(left ? "LPOP" : "RPOP", k, String.valueOf(n));
                            assertEquals(expected.isEmpty() ? null : expected, reply, where);
                        }
                    }
                    case 5 -> {
                        int start = r.nextInt(3);
                        int stop = -1 - r.nextInt(3);
                        assertEquals("OK", c.call("LTRIM", k, String.valueOf(start), String.valueOf(stop)), where);
                        List<String> kept = new ArrayList<>();
                        int size = list.size();
                        for (int i = start; i <= size + stop; i++) {
                            kept.add(list.get(i));
                        }
                        list.clear();
                        list.addAll(kept);
                    }
                    case 6 -> {
                        String victim = list.isEmpty() ? "none" : list.get(r.nextInt(list.size()));
                        long removed = list.stream().filter(victim::equals).count();
                        list.removeIf(victim::equals);
                        assertEquals(removed, c.call("LREM", k, "0", victim), where);
                    }
                    case 7 -> {
                        if (!list.isEmpty()) {
                            String pivot = list.get(r.nextInt(list.size()));
                            list.add(list.indexOf(pivot), v + ".in");
                            assertEquals((long) list.size(), c.call("LINSERT", k, "BEFORE", pivot, v + ".in"), where);
                        }
                    }
                    case 8 -> {
                        String to = k.equals("a") ? "b" : "a";
                        String moved = list.isEmpty() ? null : list.removeFirst();
                        if (moved != null) {
                            model.get(to).addLast(moved);
                        }
                        assertEquals(moved, c.call("LMOVE", k, to, "LEFT", "RIGHT"), where);
                    }
                    case 9 -> {
                        if (r.nextInt(4) == 0) {
                            assertEquals(list.isEmpty() ? 0L : 1L, c.call("DEL", k), where);
                            list.clear();
                        }
                    }
                    case 10 -> {
                        assertEquals("OK", c.call("MULTI"), where);
                        assertEquals("QUEUED", c.call("RPUSH", k, v + ".m"));
                        assertEquals("QUEUED", c.call("LPOP", k));
                        list.addLast(v + ".m");
                        long pushed = list.size();
                        String popped = list.removeFirst();
                        assertEquals(List.of(pushed, popped), c.call("EXEC"), where);
                    }
                    default -> {
                        // Another store of the directory changes the tree: a published change that is not this server's.
                        byte[] member = CollectionLayout.idBytes(step);
                        other.locked(() -> other.change(() -> other.put(999_999, member, new byte[0])));
                    }
                }
                for (String key : KEYS) {
                    assertEquals((long) model.get(key).size(), one.call("LLEN", key), where + ", LLEN " + key);
                }
                if (step % 50 == 0) {
                    for (String key : KEYS) {
                        assertEquals(model.get(key), one.call("LRANGE", key, "0", "-1"), where + ", LRANGE " + key);
                    }
                }
            }
        }
    }
    @Test
    void aSizeNotedIsForgottenOnceAnotherStoreOfTheDirectoryPublishesAChange(@TempDir Path data) {
        try (CollectionStore mine = new CollectionStore(new DataDirectory(data), null);
             CollectionStore theirs = new CollectionStore(new DataDirectory(data), null)) {
            long id = 5;
            mine.locked(() -> mine.change(() -> {
                mine.put(id, ListStore.position(1), new byte[] {1});
                mine.noteList(id, KnownList.Shape.EMPTY.withSize(1));
                return null;
            }));
            assertEquals(1L, mine.locked(() -> mine.change(() -> mine.knownList(id).size())));
            assertEquals(-1L, mine.locked(() -> mine.change(() -> mine.knownList(id + 1).size())), "another collection");
            assertEquals(1L, mine.locked(() -> mine.change(() -> mine.knownList(id).size())), "a change that changed nothing");
            theirs.locked(() -> theirs.change(() -> theirs.put(id, ListStore.position(2), new byte[] {2})));
            assertEquals(-1L, mine.locked(() -> mine.change(() -> mine.knownList(id).size())), "the other store published a change");
            assertEquals(2L, mine.size(id));
            mine.locked(() -> mine.change(() -> {
                mine.put(id, ListStore.position(3), new byte[] {3});
                mine.noteList(id, KnownList.Shape.EMPTY.withSize(3));
                return null;
            }));
            assertEquals(3L, mine.locked(() -> mine.change(() -> mine.knownList(id).size())));
            assertThrows(IllegalStateException.class, () -> mine.locked(() -> mine.change(() -> {
                mine.put(id, ListStore.position(4), new byte[] {4});
                mine.noteList(id, KnownList.Shape.EMPTY.withSize(4));
                throw new IllegalStateException("a change that fails");
            })));
            mine.locked(() -> mine.change(() -> mine.remove(id, ListStore.position(1))));
            assertEquals(-1L, mine.locked(() -> mine.change(() -> mine.knownList(id).size())),
                    "a change that noted nothing: the failed change's note is not taken for it");
            assertEquals(2L, mine.size(id));
        }
    }

    @Test
    void anEndNotedIsForgottenOnceAnotherStorePushesToTheList(@TempDir Path data) {
        try (CollectionStore mine = new CollectionStore(new DataDirectory(data), null);
             CollectionStore theirs = new CollectionStore(new DataDirectory(data), null)) {
            long id = 7;
            pushNoted(mine, id, true, "b");
            pushNoted(mine, id, true, "a"); // the first end from the note: no descent
            assertEquals(KnownList.Shape.FIRST | KnownList.Shape.LAST, mine.locked(() -> mine.change(() -> mine.knownList(id).ends())));
            theirs.locked(() -> theirs.change(() -> {
                ListStore.pushOne(theirs, id, true, bytes("their"));
                ListStore.pushOne(theirs, id, false, bytes("tail"));
                return null;
            }));
            assertEquals(KnownList.Shape.UNKNOWN, mine.locked(() -> mine.change(() -> mine.knownList(id))));
            pushNoted(mine, id, true, "first");
            pushNoted(mine, id, false, "last");
            assertEquals(List.of("first", "their", "a", "b", "tail", "last"), values(mine, id));
        }
    }

    @Test
    void aShapeThatDisagreesWithTheTreeCostsADescentNotAnElement(@TempDir Path data) {
        try (CollectionStore store = new CollectionStore(new DataDirectory(data), null)) {
            long id = 8;
            pushNoted(store, id, false, "a");
            KnownList.Shape real = pushNoted(store, id, false, "b");
            // Its first end one step after the real one: the push's position is the first element's.
            KnownList.Shape wrong = new KnownList.Shape(2, KnownList.Shape.FIRST, real.first() + ListStore.STEP, 0);
            store.locked(() -> store.change(() -> ListStore.pushOne(store, id, true, bytes("c"), wrong)));
            assertEquals(List.of("c", "a", "b"), values(store, id));
        }
    }

    /** Pushes one element with the shape the store noted, and notes the shape after it. */
    private static KnownList.Shape pushNoted(CollectionStore store, long id, boolean left, String value) {
        return store.locked(() -> store.change(() -> {
            KnownList.Shape after = ListStore.pushOne(store, id, left, bytes(value), store.knownList(id));
            store.noteList(id, after);
            return after;
        }));
    }

    private static List<String> values(CollectionStore store, long id) {
        List<String> out = new ArrayList<>();
        for (byte[] v : store.elements(id).values()) {
            out.add(new String(v, java.nio.charset.StandardCharsets.UTF_8));
        }
        return out;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}
