package dev.ferrite.internal;

import dev.ferrite.BackendUnavailableException;
import dev.ferrite.ChunkPool;
import dev.ferrite.PoolSpec;
import dev.ferrite.spi.MemoryBackend;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Stands in for a backend whose provider class failed to load; always unavailable. */
final class UnloadableBackend implements MemoryBackend {

    private static final Pattern BACKEND_CLASS = Pattern.compile("dev\\.ferrite\\.backend\\.(\\w+)\\.");

    private final String name;
    private final String reason;

    UnloadableBackend(Throwable error) {
        String text = String.valueOf(error.getMessage());
        Matcher m = BACKEND_CLASS.matcher(text);
        this.name = m.find() ? m.group(1).toLowerCase(Locale.ROOT) : "unloadable";
        Throwable root = error;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        this.reason = "its classes cannot load on Java " + Runtime.version().feature() + ": "
                + root.getClass().getSimpleName() + ": " + root.getMessage();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean isAvailable() {
        return false;
    }

    @Override
    public String unavailableReason() {
        return reason;
    }

    @Override
    public int priority() {
        return Integer.MIN_VALUE;
    }

    @Override
    public boolean isChecked() {
        return false;
    }

    @Override
    public boolean supports(PoolSpec.Kind kind) {
        return false;
    }

    @Override
    public ChunkPool createPool(PoolSpec spec) {
        throw unavailable();
    }

    @Override
    public ChunkPool openPool(PoolSpec spec) {
        throw unavailable();
    }

    @Override
    public boolean deletePool(PoolSpec spec) {
        throw unavailable();
    }

    private BackendUnavailableException unavailable() {
        return new BackendUnavailableException("backend '" + name + "' is unavailable: " + reason);
    }
}
