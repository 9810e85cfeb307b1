package dev.ferrite.internal.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The warning of a pool opened after a crash stays one short line however many segments the crash
 * touched: the count of notes and the first few, not all of them.
 */
class RecoverySummaryTest {

    @Test
    void manyNotesAreCountedAndTheFirstFewQuoted() {
        List<String> notes = new ArrayList<>();
        for (int i = 0; i < 257; i++) {
            notes.add("named segment 'map.s" + i + ".g1' (directory slot " + i + "): dead processes' handles dropped");
        }
        String line = PoolStore.summary(notes, PoolStore.NOTES_LOGGED);
        assertTrue(line.startsWith("257 notes, the first 3: named segment 'map.s0.g1'"), line);
        assertTrue(line.endsWith("; and 254 more (RecoveryReport.notes() lists them)"), line);
        assertTrue(line.length() < 400, line.length() + " characters");
    }

    @Test
    void fewNotesAreAllQuoted() {
        assertEquals("1 note: a", PoolStore.summary(List.of("a"), 3));
        assertEquals("3 notes: a; b; c", PoolStore.summary(List.of("a", "b", "c"), 3));
        assertEquals("no notes", PoolStore.summary(List.of(), 3));
    }
}
