package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The collection store's keys and values exactly as docs/FORMAT.md ("KV server collections, version 1") gives them. */
class CollectionLayoutTest {

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void keysBeginWithTheIdBigEndianThenTheKind() {
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 1, 2, 0}, CollectionLayout.header(0x0102));
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 7, 1, 'm'}, CollectionLayout.element(7, ascii("m")));
        assertArrayEquals(new byte[9], CollectionLayout.NEXT_ID);
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5}, CollectionLayout.finished(5));
    }

    @Test
    void aHeaderListsItsOwnersByDatabaseFileAndKey() {
        byte[] header = CollectionLayout.owners(List.of(new CollectionLayout.Owner("db0", ascii("k"))));
        assertArrayEquals(new byte[] {3, 'd', 'b', '0', 0, 0, 0, 1, 'k'}, header);
        assertEquals(List.of(new CollectionLayout.Owner("db0", ascii("k"))), CollectionLayout.owners(header));
    }

    @Test
    void aSortedSetMemberIsKeptByMemberWithItsScoreAndByScore() {
        // 1.5 is 0x3FF8000000000000: a score >= 0 has its sign bit flipped, a negative one every bit
        assertArrayEquals(new byte[] {0x3F, (byte) 0xF8, 0, 0, 0, 0, 0, 0}, CollectionLayout.scoreValue(1.5));
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 3, 2, (byte) 0xBF, (byte) 0xF8, 0, 0, 0, 0, 0, 0, 'a'},
                CollectionLayout.scoreKey(3, 1.5, ascii("a")));
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 3, 2, 0x40, 0x07, -1, -1, -1, -1, -1, -1, 'a'},
                CollectionLayout.scoreKey(3, -1.5, ascii("a")));
        assertArrayEquals(CollectionLayout.scoreKey(3, 0.0, ascii("a")), CollectionLayout.scoreKey(3, -0.0, ascii("a")),
                "-0 is written as 0");
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 3, 2, (byte) 0x80, 0, 0, 0, 0, 0, 0, 0},
                CollectionLayout.scoreFrom(3, CollectionLayout.order(0.0)));
    }
}
