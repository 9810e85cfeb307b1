package dev.ferrite.bench.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Runs every mode of the path-length program briefly (no callgrind: the operations themselves), so
 * that none rots: each must find what the map holds.
 */
class MapPathLengthTest {

    private static final int ENTRIES = 2_000;
    private static final long OPERATIONS = 3_200;

    @Test
    void everyModeFindsEveryKeyItLooksUpOrReplacesAndNoneItMisses() throws Exception {
        long keyLength = MapData.key(0).length();
        assertEquals(OPERATIONS * keyLength, MapPathLength.measure("loop", "unsafe", ENTRIES, 100, OPERATIONS));
        for (String mode : new String[] {"chm-get", "get", "get-into", "chm-put", "put", "get-text", "put-text"}) {
            assertEquals(OPERATIONS * MapData.VALUE_BYTES, MapPathLength.measure(mode, "unsafe", ENTRIES, 100, OPERATIONS), mode);
        }
        assertEquals(OPERATIONS, MapPathLength.measure("contains", "unsafe", ENTRIES, 100, OPERATIONS));
        assertEquals(0, MapPathLength.measure("miss", "unsafe", ENTRIES, 100, OPERATIONS), "miss found keys");
        // each absent key put (new: 1) then removed (its value's length)
        assertEquals(OPERATIONS * (1 + MapData.VALUE_BYTES), MapPathLength.measure("insert", "unsafe", ENTRIES, 100, OPERATIONS));
        // a value's last byte is 0 for about one key in 256: some, not all
        long zeroLast = MapPathLength.measure("read-value", "unsafe", ENTRIES, 100, OPERATIONS);
        assertTrue(zeroLast >= 0 && zeroLast < OPERATIONS / 16, "read-value found " + zeroLast);
        // 16 random keys a call: a key drawn twice in one call is one entry of the result
        long found = MapPathLength.measure("get-all", "unsafe", ENTRIES, 100, OPERATIONS);
        assertTrue(found > OPERATIONS * 9 / 10 && found <= OPERATIONS, "get-all found " + found);
    }

    @Test
    void theScriptRunsEveryMode() throws Exception {
        String script = Files.readString(Path.of("tools/path-length.sh"));
        Matcher m = Pattern.compile("modes=\\(([a-z -]+)\\)").matcher(script);
        assertTrue(m.find(), "no default modes=(...) in path-length.sh");
        assertEquals(MapPathLength.MODES, List.of(m.group(1).split(" ")));
    }
}
