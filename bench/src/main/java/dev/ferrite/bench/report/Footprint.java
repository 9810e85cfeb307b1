package dev.ferrite.bench.report;

/**
 * Bytes per entry one map library used for the map experiment's data, measured outside JMH (see
 * {@code dev.ferrite.bench.map.MapFootprint}).
 *
 * @param library       {@code ferrite}, {@code ferrite-load-F} (a map built with {@code loadFactor(F)}),
 *                      {@code chm}, {@code chronicle}, {@code ohc} or {@code lmdb}
 * @param backend       the Ferrite backend, "" for a peer
 * @param entries       entries the map held
 * @param bytesPerEntry bytes it used divided by {@code entries}
 */
public record Footprint(String library, String backend, long entries, double bytesPerEntry) {

    /** The start of the library name of a Ferrite map built with a load factor of its own. */
    public static final String LOAD_PREFIX = "ferrite-load-";

    /** @return the report's entry for this library: the map experiment, Chronicle Map the baseline */
    Entry entry() {
        String operation = "bytes per entry";
        if (library.startsWith(LOAD_PREFIX)) {
            return new Entry(Catalog.MAP, operation, "FerriteMap, loadFactor(" + library.substring(LOAD_PREFIX.length()) + ")",
                    true, false, null, 1, "entry");
        }
        return switch (library) {
            case "ferrite" -> new Entry(Catalog.MAP, operation, "FerriteMap", true, false, null, 1, "entry");
            case "chm" -> new Entry(Catalog.MAP, operation, "ConcurrentHashMap (heap)", false, false, null, 1, "entry");
            case "chronicle" -> new Entry(Catalog.MAP, operation, "Chronicle Map (file, sized exactly)", false, true,
                    null, 1, "entry");
            case "ohc" -> new Entry(Catalog.MAP, operation, "OHC (off-heap, not persistent)", false, false, null, 1,
                    "entry");
            case "lmdb" -> new Entry(Catalog.MAP, operation, "LMDB (file, NOSYNC)", false, false, null, 1, "entry");
            default -> throw new IllegalArgumentException("unknown library " + library);
        };
    }
}
