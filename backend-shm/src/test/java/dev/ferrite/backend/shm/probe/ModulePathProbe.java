package dev.ferrite.backend.shm.probe;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.Segment;
import dev.ferrite.spi.MemoryBackend;
import java.util.stream.Collectors;

/**
 * Runs in a child JVM for {@code ModulePathTest}, on the class path, using Ferrite from the module
 * path. In a package of its own: the backend's package belongs to its named module there, so a class
 * of that package on the class path would not be found.
 */
public final class ModulePathProbe {

    private ModulePathProbe() {
    }

    /**
     * @param args the names of the modules that must be in the boot layer
     */
    public static void main(String[] args) {
        System.out.println("api module: " + Ferrite.class.getModule().getName());
        for (String m : args) {
            if (ModuleLayer.boot().findModule(m).isEmpty()) {
                System.out.println("missing module " + m);
                System.exit(2);
            }
        }
        System.out.println("backends: " + Ferrite.backends().stream().filter(MemoryBackend::isAvailable)
                .map(MemoryBackend::name).sorted().collect(Collectors.toList()));
        try (ChunkPool pool = Ferrite.backend().createPool(PoolSpec.anonymous().capacity(1 << 20).build());
             Segment s = pool.allocate(64)) {
            s.putLong(8, 42);
            System.out.println("value=" + s.getLong(8));
        }
    }
}
