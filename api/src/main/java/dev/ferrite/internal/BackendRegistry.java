package dev.ferrite.internal;

import dev.ferrite.BackendUnavailableException;
import dev.ferrite.spi.MemoryBackend;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Discovers backends once with {@link ServiceLoader}. A provider that cannot be loaded (compiled for
 * a newer JDK, missing a class) is kept as an unavailable backend with the error as its reason, so
 * discovery never breaks.
 */
public final class BackendRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(BackendRegistry.class);

    private BackendRegistry() {
    }

    private static final class Holder {
        static final List<MemoryBackend> ALL = discover();
    }

    /** @return every backend found, highest priority first; an unmodifiable list */
    public static List<MemoryBackend> all() {
        return Holder.ALL;
    }

    /**
     * @param name a backend name, compared without case
     * @return the available backend of that name
     * @throws BackendUnavailableException if unknown or unavailable
     */
    public static MemoryBackend byName(String name) {
        String wanted = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        for (MemoryBackend b : all()) {
            if (b.name().equals(wanted)) {
                if (!b.isAvailable()) {
                    throw new BackendUnavailableException("backend '" + wanted + "' is unavailable: "
                            + b.unavailableReason() + "; available: " + availableNames());
                }
                return b;
            }
        }
        throw new BackendUnavailableException("no backend named '" + name + "'; available: " + availableNames()
                + (all().isEmpty() ? " (put a ferrite-backend-* jar on the class path)" : ""));
    }

    /**
     * @return the available backend of highest priority
     * @throws BackendUnavailableException if none is available
     */
    public static MemoryBackend defaultBackend() {
        for (MemoryBackend b : all()) {
            if (b.isAvailable()) {
                return b;
            }
        }
        throw new BackendUnavailableException("no available backend; found: " + describeAll()
                + " (put a ferrite-backend-* jar on the class path)");
    }

    /** @return the names of the available backends, comma separated, or "none" */
    public static String availableNames() {
        String names = all().stream().filter(MemoryBackend::isAvailable).map(MemoryBackend::name)
                .collect(Collectors.joining(", "));
        return names.isEmpty() ? "none" : names;
    }

    private static String describeAll() {
        if (all().isEmpty()) {
            return "none";
        }
        return all().stream().map(b -> b.name() + (b.isAvailable() ? "" : " (" + b.unavailableReason() + ")"))
                .collect(Collectors.joining(", "));
    }

    private static List<MemoryBackend> discover() {
        List<MemoryBackend> found = new ArrayList<>();
        Iterator<MemoryBackend> it = ServiceLoader.load(MemoryBackend.class, BackendRegistry.class.getClassLoader())
                .iterator();
        while (true) {
            try {
                if (!it.hasNext()) {
                    break;
                }
                MemoryBackend b = it.next();
                if (found.stream().noneMatch(f -> f.name().equals(b.name()))) {
                    found.add(b);
                }
            } catch (ServiceConfigurationError | LinkageError e) {
                LOG.debug("a Ferrite backend could not be loaded", e);
                found.add(new UnloadableBackend(e));
            }
        }
        found.sort(Comparator.comparingInt(MemoryBackend::priority).reversed()
                .thenComparing(MemoryBackend::name));
        return List.copyOf(found);
    }
}
