package dev.ferrite.bench.server;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The server bench's arguments: each server must go first in as many rounds as the other. */
class ServerVsRedisTest {

    @Test
    void roundsMustBeEvenSoThatNeitherServerGoesFirstMoreOften() {
        for (int odd : new int[] {1, 3, 5}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ServerVsRedis.checkRounds(odd));
            assertTrue(e.getMessage().contains("--rounds " + odd), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> ServerVsRedis.checkRounds(0));
        assertThrows(IllegalArgumentException.class, () -> ServerVsRedis.checkRounds(-2));
        assertDoesNotThrow(() -> ServerVsRedis.checkRounds(2));
        assertDoesNotThrow(() -> ServerVsRedis.checkRounds(6));
    }

    @Test
    void anOddRoundCountIsRefusedBeforeAnyServerStarts() {
        PrintStream out = new PrintStream(new ByteArrayOutputStream());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ServerVsRedis.run(new String[] {"--rounds", "5"}, out));
        assertTrue(e.getMessage().contains("must be even"), e.getMessage());
    }
}
