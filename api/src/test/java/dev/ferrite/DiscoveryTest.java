package dev.ferrite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferrite.spi.MemoryBackend;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Discovery with only a broken provider on the class path (this module's test resources register
 * a class that does not exist): it is listed as unavailable with the reason, and nothing throws
 * until a backend is asked for.
 */
class DiscoveryTest {

    @Test
    void aProviderThatCannotLoadIsListedAsUnavailableWithItsReason() {
        List<MemoryBackend> all = Ferrite.backends();
        assertEquals(1, all.size(), all.toString());
        MemoryBackend broken = all.get(0);
        assertEquals("missing", broken.name());
        assertFalse(broken.isAvailable());
        assertTrue(broken.unavailableReason().contains("MissingBackend"), broken.unavailableReason());
        assertThrows(BackendUnavailableException.class, () -> broken.createPool(PoolSpec.anonymous().build()));
    }

    @Test
    void askingForItNamesTheReason() {
        BackendUnavailableException e = assertThrows(BackendUnavailableException.class, () -> Ferrite.backend("missing"));
        assertTrue(e.getMessage().contains("unavailable") && e.getMessage().contains("available: none"), e.getMessage());
    }

    @Test
    void withNoAvailableBackendTheDefaultFailsClearly() {
        BackendUnavailableException e = assertThrows(BackendUnavailableException.class, Ferrite::backend);
        assertTrue(e.getMessage().contains("no available backend") && e.getMessage().contains("missing"), e.getMessage());
    }

    @Test
    void anUnknownNameListsWhatIsAvailable() {
        BackendUnavailableException e = assertThrows(BackendUnavailableException.class, () -> Ferrite.backend("nope"));
        assertTrue(e.getMessage().contains("'nope'") && e.getMessage().contains("available: none"), e.getMessage());
    }
}
