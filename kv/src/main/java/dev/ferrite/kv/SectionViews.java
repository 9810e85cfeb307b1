package dev.ferrite.kv;

import dev.ferrite.CorruptFileException;
import dev.ferrite.Segment;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Optional;

import static dev.ferrite.kv.MapLayout.LINE_GENERATION;

/**
 * This process's cache of each section's current data segment: the view of the generation the
 * section's line names, opened on first use and replaced (the old handle closed) when a rebuild
 * moves the section on. Thread-safe: lookups read the array (a get plainly, the rest with volatile
 * semantics); opening and replacing a section's view hold that section's monitor.
 */
final class SectionViews {

    private static final VarHandle VIEW = MethodHandles.arrayElementVarHandle(SectionView[].class);

    private final MapStore store;
    private final SectionView[] views;
    private final Object[] monitors;

    SectionViews(MapStore store) {
        this.store = store;
        this.views = new SectionView[store.sectionCount];
        this.monitors = new Object[store.sectionCount];
        for (int i = 0; i < monitors.length; i++) {
            monitors[i] = new Object();
        }
    }

    /** @return the view of a section cached now (of any generation), or null */
    SectionView cached(int section) {
        // Plain: a view's fields are final, and one of an older generation fails the reader's check.
        return views[section];
    }

    /** @return the view of a section's current generation, opening it if this process has not yet */
    SectionView current(int section) {
        while (true) {
            long g = store.header.getLongVolatile(MapLayout.line(section) + LINE_GENERATION);
            SectionView v = view(section, g);
            if (v != null) {
                return v;
            }
        }
    }

    /** @return the view of that generation, or null if the section has moved past it meanwhile */
    SectionView view(int section, long generation) {
        SectionView v = (SectionView) VIEW.getVolatile(views, section);
        if (v != null && v.generation == generation) {
            return v;
        }
        return refresh(section, generation);
    }

    private SectionView refresh(int section, long generation) {
        synchronized (monitors[section]) {
            store.checkOpen();
            SectionView v = (SectionView) VIEW.getVolatile(views, section);
            if (v != null && v.generation == generation) {
                return v;
            }
            String n = MapLayout.sectionName(store.name, section, generation);
            Optional<Segment> s = store.pool.open(n);
            if (s.isEmpty()) {
                if (store.header.getLongVolatile(MapLayout.line(section) + LINE_GENERATION) != generation) {
                    return null;
                }
                throw new CorruptFileException("map '" + store.name + "' section " + section + ": its generation "
                        + generation + " names a segment '" + n + "' the pool does not have");
            }
            SectionView nv;
            try {
                nv = SectionView.open(s.get(), section, generation, store.maxKey, store.maxValue, store.reaches);
            } catch (RuntimeException e) {
                s.get().close();
                throw e;
            }
            install(section, nv, v);
            return nv;
        }
    }

    /** Caches the view of a section's new generation (a rebuild's) and closes the one it replaces. */
    void replace(int section, SectionView nv) {
        synchronized (monitors[section]) {
            install(section, nv, (SectionView) VIEW.getVolatile(views, section));
        }
    }

    /** Puts a view in the cache and closes the one it replaces; the caller holds the section's monitor. */
    private void install(int section, SectionView nv, SectionView old) {
        VIEW.setVolatile(views, section, nv);
        if (old != null) {
            old.segment.close();
        }
    }

    /** Drops every cached view without closing it (the map is closing, and its pool closes the handles). */
    void forgetAll() {
        for (int s = 0; s < monitors.length; s++) {
            synchronized (monitors[s]) {
                VIEW.setVolatile(views, s, null);
            }
        }
    }

    /** Closes every cached view (the map is closing). */
    void closeAll() {
        for (int s = 0; s < monitors.length; s++) {
            synchronized (monitors[s]) {
                SectionView v = (SectionView) VIEW.getAndSet(views, s, null);
                if (v != null) {
                    v.segment.close();
                }
            }
        }
    }
}
