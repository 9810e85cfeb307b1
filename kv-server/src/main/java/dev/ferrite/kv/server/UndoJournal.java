package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import dev.ferrite.kv.Codec;
import dev.ferrite.kv.FerriteMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Makes a command that changes several entries all-or-nothing across a crash and a failure: before
 * it writes, the entries it may change are saved as they are (their stored values, or their
 * absence) in a small map of their own, {@code journal.ferrite}; once it is done they are dropped.
 * A start after a crash puts every entry a saved record names back as it was, newest record first,
 * so a command killed midway is found not to have run. Correct only while no other command changes
 * those entries meanwhile: callers run under {@link CommandGate#exclusive}.
 *
 * <p>A record is its head, under its id (8 bytes, big-endian), written last: the record is
 * complete once the head is there, and a record without one never was (its command had not
 * written yet). The head holds {@code [parts i32]} then entries {@code [db u8][key length i32][key]
 * [value length i32, -1 for absent][value]}; a record of more than {@link #PART_BYTES} has its
 * first entries in parts under {@code (id, part)} keys (12 bytes), each {@code [0 i32]} then
 * entries, written before the head. A one-part record costs one put and one remove. Thread-safe.
 */
final class UndoJournal implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(UndoJournal.class);
    /** Most bytes of entries per part: a part is one map value. */
    static final int PART_BYTES = 16 << 20;
    /** The journal's file name in the data directory. */
    static final String FILE = "journal.ferrite";

    /** An entry a command may change: a key of a database. */
    record Entry(int db, byte[] key) {
    }

    private final FerriteMap<byte[], byte[]> map;
    private final AtomicLong nextId = new AtomicLong(1);

    /**
     * Opens (or makes) the journal in the data directory.
     *
     * @param directory the data directory
     * @param backend   the Ferrite backend, or null for the default
     */
    UndoJournal(DataDirectory directory, String backend) {
        Path file = directory.file(FILE);
        if (!java.nio.file.Files.exists(file)) { // made whole under a temporary name: a crash leaves none
            Path made = DataDirectory.inProgress(file);
            directory.drop(made);
            try (FerriteMap<byte[], byte[]> fresh = builder(made, backend).create()) {
                fresh.force();
            }
            directory.publish(made, file);
        }
        map = builder(file, backend).open();
    }

    private static dev.ferrite.kv.FerriteMapBuilder<byte[], byte[]> builder(Path file, String backend) {
        var b = FerriteMap.builder(Codec.bytes(), Codec.bytes()).file(file).sections(1);
        return backend == null ? b : b.backend(backend);
    }

    /** Forces the journal to disk (under {@link FsyncPolicy#ALWAYS}, before a saved command writes). */
    void force() {
        map.pool().force();
    }

    /**
     * Saves the entries as they are now.
     *
     * @return the record's id, for {@link #drop} or {@link #undo}
     */
    long save(List<Entry> entries, Databases databases) {
        long id = nextId.getAndIncrement();
        List<byte[]> parts = new ArrayList<>();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        try {
            out.writeInt(0); // room for the head's part count
            for (Entry e : entries) {
                FerriteMap<byte[], byte[]> db = databases.ifOpen(e.db());
                byte[] value = db == null ? null : db.getBytes(e.key());
                out.writeByte(e.db());
                out.writeInt(e.key().length);
                out.write(e.key());
                out.writeInt(value == null ? -1 : value.length);
                if (value != null) {
                    out.write(value);
                }
                if (bytes.size() >= PART_BYTES) {
                    parts.add(bytes.toByteArray());
                    bytes.reset();
                    out.writeInt(0);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[] last = bytes.toByteArray();
        // The head (the id's own key) is written last: the record is complete from then on. It holds
        // the last entries itself, and the count of the parts written before it under (id, part).
        for (int p = 0; p < parts.size(); p++) {
            map.putBytes(key(id, p), parts.get(p));
        }
        ByteBuffer.wrap(last).putInt(0, parts.size());
        map.putBytes(head(id), last);
        return id;
    }

    /** Drops a record once its command is done: the head first, then the parts. */
    void drop(long id) {
        byte[] head = map.getBytes(head(id));
        map.removeBytes(head(id));
        int parts = head == null ? 0 : ByteBuffer.wrap(head).getInt();
        for (int p = 0; p < parts; p++) {
            map.removeBytes(key(id, p));
        }
    }

    /** Puts back what a record saved (a command that failed midway), then drops it. */
    void undo(long id, Databases databases) {
        restore(id, databases);
        drop(id);
    }

    /**
     * At start, before any command: undoes every complete record whose command did not finish,
     * newest first, and drops every part left.
     *
     * @param finished whether a record's command finished (its changes of the collection store
     *                 were published with a mark of it, {@link CollectionStore#finished}): not undone
     * @return how many records were undone
     */
    int recover(Databases databases, java.util.function.LongPredicate finished) {
        TreeMap<Long, Boolean> ids = new TreeMap<>();
        List<byte[]> all = new ArrayList<>();
        long cursor = 0;
        do {
            cursor = map.scan(cursor, 1024, (k, v) -> {
                all.add(k);
                if (k.length == 8 || k.length == 12) {
                    ids.merge(ByteBuffer.wrap(k).getLong(), k.length == 8, Boolean::logicalOr);
                }
            });
        } while (cursor != 0);
        int undone = 0;
        for (Map.Entry<Long, Boolean> e : ids.descendingMap().entrySet()) {
            if (e.getValue() && !finished.test(e.getKey())) {
                restore(e.getKey(), databases);
                undone++;
                LOG.warn("undid a multi-key command a crash interrupted (journal record {})", e.getKey());
            }
        }
        all.forEach(map::removeBytes);
        nextId.set(ids.isEmpty() ? 1 : ids.lastKey() + 1);
        return undone;
    }

    private void restore(long id, Databases databases) {
        byte[] head = map.getBytes(head(id));
        if (head == null) {
            return;
        }
        int parts = ByteBuffer.wrap(head).getInt();
        for (int p = 0; p < parts; p++) {
            byte[] part = map.getBytes(key(id, p));
            if (part == null) {
                throw new FerriteException("journal record " + id + " lacks part " + p + " of " + parts);
            }
            restoreEntries(id, part, databases);
        }
        restoreEntries(id, head, databases);
    }

    /** Puts back the entries of one part (or the head), after its 4-byte count. */
    private static void restoreEntries(long id, byte[] part, Databases databases) {
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(part))) {
            in.readInt();
            while (in.available() > 0) {
                int db = in.readUnsignedByte();
                byte[] key = in.readNBytes(in.readInt());
                int length = in.readInt();
                byte[] value = length < 0 ? null : in.readNBytes(length);
                if (db >= Databases.COUNT) {
                    throw new FerriteException("journal record " + id + " names database " + db);
                }
                if (value == null) {
                    FerriteMap<byte[], byte[]> m = databases.ifOpen(db);
                    if (m != null) {
                        m.removeBytes(key);
                    }
                } else {
                    databases.get(db).putBytes(key, value);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] head(long id) {
        return ByteBuffer.allocate(8).putLong(id).array();
    }

    private static byte[] key(long id, int part) {
        return ByteBuffer.allocate(12).putLong(id).putInt(part).array();
    }

    @Override
    public void close() {
        map.close();
    }
}
