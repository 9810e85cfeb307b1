package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import dev.ferrite.kv.FerriteMap;

import java.util.function.BiFunction;

/**
 * A database's keys as {@link CollectionWrite} finds and names collections in them, for a
 * {@link KvDatabase}: what the server's {@link Keyspace} does, without its events and statistics.
 * One call's; not thread-safe.
 */
final class DatabaseKeys implements CollectionWrite.Keys {

    private final FerriteMap<byte[], byte[]> map;
    /** The call's key as its caller gave it, for messages. */
    private final String key;
    private final DatabaseFile file;
    /** Checks a stored value against the value layout (key, value), returning it. */
    private final BiFunction<String, byte[], byte[]> checked;

    DatabaseKeys(FerriteMap<byte[], byte[]> map, String key, DatabaseFile file, BiFunction<String, byte[], byte[]> checked) {
        this.map = map;
        this.key = key;
        this.file = file;
        this.checked = checked;
    }

    @Override
    public byte[] collection(byte[] k, byte type) {
        byte[] stored = map.get(k);
        stored = stored == null ? null : Keyspace.liveAt(checked.apply(key, stored), System.currentTimeMillis());
        if (stored != null && ValueLayout.type(stored) != type) {
            throw new WrongType();
        }
        return stored;
    }

    @Override
    public CollectionLayout.Owner owner(byte[] k) {
        String name = file.name();
        if (name == null) {
            throw new FerriteException(file + " was dropped while a call ran");
        }
        return new CollectionLayout.Owner(name, k);
    }

    @Override
    public void publishCollection(byte[] k, byte[] stored) {
        long now = System.currentTimeMillis();
        map.compute(k, (x, current) -> {
            if (current != null && Keyspace.liveAt(current, now) != null) {
                throw new WrongType();
            }
            return stored;
        });
    }

    @Override
    public boolean dropCollection(byte[] k, byte[] stored) {
        return map.remove(k, stored);
    }

    @Override
    public void abandoned(long id) {
        // the server's sweep finds it: its header names a key that names another value
    }
}
