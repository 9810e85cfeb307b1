package dev.ferrite.kv;

import dev.ferrite.FerriteException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a newcomer meets first: a map that is closed says so by every method, opening a missing map
 * says there is no map there, and creating over an existing one names the builder's own
 * {@code overwrite(true)}, which works.
 */
class MapMessagesTest {

    @TempDir
    Path dir;

    @Test
    void everyMethodOfAClosedMapSaysTheMapIsClosed() {
        Path file = dir.resolve("closed.map");
        FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).file(file).create();
        map.put("k", "v");
        map.close();
        List<Executable> calls = List.of(
                () -> map.get("k"), () -> map.put("k", "w"), () -> map.remove("k"), () -> map.containsKey("k"),
                () -> map.size(), () -> map.isEmpty(), () -> map.keySet().iterator().next(),
                () -> map.putIfAbsent("x", "y"), () -> map.getBytes("k".getBytes()), () -> map.clear(),
                () -> map.force());
        for (int i = 0; i < calls.size(); i++) {
            FerriteException e = assertThrows(FerriteException.class, calls.get(i), "call " + i);
            assertTrue(e.getMessage().startsWith("map ") && e.getMessage().contains(" is closed"), "call " + i + ": " + e.getMessage());
            assertTrue(e.getMessage().contains(file.toString()), "call " + i + ": " + e.getMessage());
        }
    }

    @Test
    void openingAMissingMapSaysThereIsNoMapThere() {
        Path file = dir.resolve("missing.map");
        FerriteException e = assertThrows(FerriteException.class,
                () -> FerriteMap.builder(Codec.utf8(), Codec.utf8()).file(file).open());
        assertTrue(e.getMessage().startsWith("no map at " + file), e.getMessage());
        FerriteException shm = assertThrows(FerriteException.class,
                () -> FerriteMap.builder(Codec.utf8(), Codec.utf8()).shm("ferrite-test-no-such-map-" + ProcessHandle.current().pid()).open());
        assertTrue(shm.getMessage().startsWith("no map at "), shm.getMessage());
    }

    @Test
    void createOverAnExistingMapNamesOverwriteWhichReplacesIt() throws Exception {
        Path file = dir.resolve("again.map");
        try (FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).file(file).create()) {
            map.put("old", "1");
        }
        FerriteException e = assertThrows(FerriteException.class,
                () -> FerriteMap.builder(Codec.utf8(), Codec.utf8()).file(file).create());
        assertTrue(e.getMessage().contains("overwrite(true)"), e.getMessage());
        try (FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).file(file).overwrite(true).create()) {
            assertEquals(0, map.size());
            map.put("new", "2");
        }
        try (FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).file(file).open()) {
            assertEquals("2", map.get("new"));
            assertEquals(1, map.size());
        }
        assertTrue(Files.exists(file));
    }
}
