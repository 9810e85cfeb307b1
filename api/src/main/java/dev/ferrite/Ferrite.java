package dev.ferrite;

import dev.ferrite.internal.BackendRegistry;
import dev.ferrite.internal.Settings;
import dev.ferrite.spi.MemoryBackend;
import java.util.List;

/**
 * The entry point: finds memory backends and picks one.
 *
 * <p>The backend is chosen by the system property {@code -Dferrite.backend=NAME}, else the
 * environment variable {@code FERRITE_BACKEND}, else the default: the available backend with the
 * highest {@link MemoryBackend#priority()}, which is the fastest one that makes the JVM print no
 * warning on the running JDK. Thread-safe.
 */
public final class Ferrite {

    /** The setting that names the backend: {@code ferrite.backend} / {@code FERRITE_BACKEND}. */
    public static final String BACKEND_SETTING = "backend";

    private Ferrite() {
    }

    /**
     * The configured backend, resolved anew on every call.
     *
     * @return the backend named by configuration, else the default
     * @throws BackendUnavailableException if the configured name is unknown or unavailable, or no
     *                                     backend is available; the message lists the available names
     */
    public static MemoryBackend backend() {
        String configured = Settings.get(BACKEND_SETTING);
        if (configured != null && !configured.isBlank()) {
            return backend(configured.trim());
        }
        return BackendRegistry.defaultBackend();
    }

    /**
     * The backend with this name.
     *
     * @param name a backend name, e.g. {@code unsafe}, {@code bytebuffer}, {@code shm}
     * @return the backend, available
     * @throws BackendUnavailableException if no backend has the name or it cannot run here; the
     *                                     message gives the reason and lists the available names
     */
    public static MemoryBackend backend(String name) {
        return BackendRegistry.byName(name);
    }

    /** @return every backend found on the class path, available or not, highest priority first */
    public static List<MemoryBackend> backends() {
        return BackendRegistry.all();
    }
}
