package dev.ferrite.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferrite.FerriteException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The {@code utf8} codec's fast paths (the JDK's decoder with a strict second look, the JDK's
 * encoder) against a model: the JDK's strict {@code CharsetDecoder} and an encoder written out
 * here code point by code point, on random bytes and strings built to hit every kind of sequence.
 */
class Utf8CodingTest {

    /** Pieces that random inputs are made of: valid sequences of every length, and damage. */
    private static final byte[][] PIECES = {
        {'a'}, {'Z'}, {0}, {0x7F},
        {(byte) 0xC3, (byte) 0xA9},                                  // é
        {(byte) 0xE2, (byte) 0x82, (byte) 0xAC},                     // €
        {(byte) 0xEF, (byte) 0xBF, (byte) 0xBD},                     // U+FFFD itself, valid
        {(byte) 0xF0, (byte) 0x9F, (byte) 0x98, (byte) 0x80},        // an emoji, a surrogate pair
        {(byte) 0xC3},                                               // truncated
        {(byte) 0x80},                                               // a lone continuation byte
        {(byte) 0xC0, (byte) 0x80},                                  // overlong NUL
        {(byte) 0xED, (byte) 0xA0, (byte) 0x80},                     // an encoded surrogate
        {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},        // above U+10FFFF
        {(byte) 0xFF},
    };

    @Test
    void decodingAgreesWithTheStrictDecoderOnRandomBytes() {
        Random r = new Random(11);
        int malformed = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] b = randomBytes(r);
            String expected = strict(b);
            if (expected == null) {
                malformed++;
                FerriteException e = assertThrows(FerriteException.class, () -> Codecs.utf8(b, 0, b.length, "String"),
                        () -> hex(b));
                assertTrue(e.getMessage().contains(b.length + " bytes of a String are not UTF-8"), e.getMessage());
            } else {
                assertEquals(expected, Codecs.utf8(b, 0, b.length, "String"), () -> hex(b));
                assertEquals(expected, Codecs.decode(Codec.utf8(), b, false));
            }
        }
        assertTrue(malformed > 2_000 && malformed < 18_000, "both kinds drawn: " + malformed + " malformed");
    }

    @Test
    void aBufferIsReadFromItsPositionAndMovedPastTheBytes() {
        byte[] text = "..grüße..".getBytes(StandardCharsets.UTF_8);
        ByteBuffer heap = ByteBuffer.wrap(text, 1, text.length - 1).slice(); // array offset 1
        heap.position(1);
        assertEquals("grüße", Codecs.getUtf8(heap, 7, "String"));
        assertEquals(8, heap.position());
        ByteBuffer direct = ByteBuffer.allocateDirect(text.length).put(text).position(2);
        assertEquals("grüße", Codecs.getUtf8(direct, 7, "String"));
        assertEquals(9, direct.position());
        assertThrows(BufferUnderflowException.class, () -> Codecs.getUtf8(ByteBuffer.wrap(text, 0, 3), 4, "String"));
        ByteBuffer readOnly = ByteBuffer.wrap(text).asReadOnlyBuffer(); // no array to read in place
        readOnly.position(2);
        assertEquals("grüße", Codecs.getUtf8(readOnly, 7, "String"));
    }

    @Test
    void encodingAgreesWithTheCodecOnRandomStrings() {
        Random r = new Random(12);
        char[] kinds = {'a', '~', 'é', 'ÿ', 'Ω', '€', '\uFFFD', '日', '\uD83D', '\uDE00'};
        for (int i = 0; i < 20_000; i++) {
            char[] c = new char[r.nextInt(40)];
            for (int j = 0; j < c.length; j++) {
                c[j] = kinds[r.nextInt(kinds.length)];
            }
            String s = new String(c);
            byte[] model = modelUtf8(s);
            assertArrayEquals(model, Codecs.bytesOf(Codec.utf8(), s), s);
            // The codec's own encode, checked against its size() by Codecs.encode.
            assertArrayEquals(model, Codecs.encode(Codec.utf8(), s, Codec.utf8().size(s)), s);
        }
    }

    @Test
    void aMapOfStringsKeepsEveryCharAndRefusesBytesThatAreNoUtf8() {
        try (FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).create()) {
            String tricky = "\uFFFD grüße \uD83D\uDE00 " + "x".repeat(200);
            map.put("k", tricky);
            assertEquals(tricky, map.get("k"));
            map.put("lone", "a\uD800");
            assertEquals("a?", map.get("lone"), "an unpaired surrogate is '?'");
            map.putBytes("bad".getBytes(StandardCharsets.UTF_8), new byte[] {'o', 'k', (byte) 0xC3});
            FerriteException e = assertThrows(FerriteException.class, () -> map.get("bad"));
            assertTrue(e.getMessage().contains("3 bytes of a String are not UTF-8"), e.getMessage());
        }
    }

    /** UTF-8 by the book, an unpaired surrogate written as {@code '?'}. */
    private static byte[] modelUtf8(String s) {
        ByteBuffer out = ByteBuffer.allocate(4 * s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                out.put((byte) c);
            } else if (c < 0x800) {
                out.put((byte) (0xC0 | c >> 6)).put((byte) (0x80 | c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                out.put((byte) (0xF0 | cp >> 18)).put((byte) (0x80 | cp >> 12 & 0x3F))
                        .put((byte) (0x80 | cp >> 6 & 0x3F)).put((byte) (0x80 | cp & 0x3F));
            } else if (Character.isSurrogate(c)) {
                out.put((byte) '?');
            } else {
                out.put((byte) (0xE0 | c >> 12)).put((byte) (0x80 | c >> 6 & 0x3F)).put((byte) (0x80 | c & 0x3F));
            }
        }
        byte[] b = new byte[out.position()];
        out.flip().get(b);
        return b;
    }

    private static byte[] randomBytes(Random r) {
        ByteBuffer out = ByteBuffer.allocate(200);
        int pieces = r.nextInt(30);
        boolean damage = r.nextBoolean();
        for (int i = 0; i < pieces; i++) {
            byte[] p = PIECES[r.nextInt(damage ? PIECES.length : 8)];
            out.put(p);
        }
        byte[] b = new byte[out.position()];
        out.flip().get(b);
        return b;
    }

    /** @return the strict decoding, or null if the bytes are no UTF-8 */
    private static String strict(byte[] b) {
        try {
            CharBuffer c = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b));
            return c.toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(String.format("%02x ", x));
        }
        return s.toString();
    }
}
