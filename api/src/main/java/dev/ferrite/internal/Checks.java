package dev.ferrite.internal;

/**
 * Whether segments, regions and typed views check every single access: bounds, closed handles,
 * closed pools. On unless the JVM runs with {@code -Dferrite.checks=false} (or
 * {@code FERRITE_CHECKS=false}), read once when this class initialises, so the JIT folds the
 * checks away entirely when they are off — Agrona's {@code agrona.disable.bounds.checks}: the user
 * promises never to be wrong.
 *
 * <p>Never turned off, whatever the setting: writes to a read-only pool are refused on every path,
 * and bulk copies, {@code fill}, {@code regions} and volatile, ordered and atomic accesses check
 * their ranges and alignment (their cost is per call, not per byte).
 */
public final class Checks {

    /** The setting's key: {@code ferrite.checks} / {@code FERRITE_CHECKS}. */
    public static final String SETTING = "checks";

    /** Whether single accesses are checked; true unless the user opted out. */
    public static final boolean ENABLED = Settings.flag(SETTING, true);

    private Checks() {
    }
}
