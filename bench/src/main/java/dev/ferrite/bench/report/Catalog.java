package dev.ferrite.bench.report;

import java.util.HashMap;
import java.util.Map;

/** The report's entry for every benchmark method, by {@code Class.method}. */
final class Catalog {

    static final String MIX = "Mix (seed 000): out[i] = a[i] + b[i]";
    static final String RANDOM = "Random reads (seed 000)";
    static final String STORE = "1 KiB chunk store (seed 001)";
    static final String IO = "Mapped vs stream I/O (seed 002)";
    static final String CHURN = "Pool churn";
    static final String QUEUE = "Queue throughput (seed 004)";
    static final String PING_PONG = "Queue ping-pong latency (seed 004)";
    static final String MAP = "Off-heap map, 16 B keys, 100 B values (seed 003)";
    static final String SORTED = "Sorted map, 16 B keys, 100 B values";
    static final String DOORS = "KV server database, in-process and over RESP";

    private static final Map<String, Entry> ENTRIES = new HashMap<>();

    static {
        String mix = "mix";
        add("Mix.perElement", new Entry(MIX, mix, "Ferrite, per element (asDoubles)", true, false, "size", 1, "element"));
        add("Mix.perChunk", new Entry(MIX, mix, "Ferrite, per chunk (regions)", true, false, "size", 1, "element"));
        add("MixUnchecked.perElement", new Entry(MIX, mix, "Ferrite unsafe, per element (asDoubles), checks off", true, false,
                "size", 1, "element"));
        add("MixUnchecked.perChunk", new Entry(MIX, mix, "Ferrite unsafe, per chunk (regions), checks off", true, false, "size",
                1, "element"));
        add("MixPeers.doubleArray", new Entry(MIX, mix, "double[]", false, true, "size", 1, "element"));
        add("MixPeers.byteBufferChunks", new Entry(MIX, mix, "ByteBuffer[] chunks, per element", false, false, "size", 1,
                "element"));
        add("MixPeers.chronicleMapped", new Entry(MIX, mix, "Chronicle MappedBytes", false, false, "size", 1, "element"));
        add("MixPeers.chronicleNative", new Entry(MIX, mix, "Chronicle native BytesStore", false, false, "size", 1,
                "element"));
        add("MixPeers.agronaUnsafeBuffer", new Entry(MIX, mix, "Agrona UnsafeBuffer (direct ByteBuffer)", false, false,
                "size", 1, "element"));
        add("MixPeers.agronaUnsafeBufferShm", new Entry(MIX, mix, "Agrona UnsafeBuffer (unlinked /dev/shm file, as Ferrite's)",
                false, false, "size", 1, "element"));

        String read = "read at a random index";
        long reads = 1 << 20;
        add("RandomRead.perElement", new Entry(RANDOM, read, "Ferrite, per element (asDoubles)", true, false, null, reads,
                "read"));
        add("RandomReadPeers.doubleArray", new Entry(RANDOM, read, "double[]", false, true, null, reads, "read"));
        add("RandomReadPeers.byteBufferChunks", new Entry(RANDOM, read, "ByteBuffer[] chunks", false, false, null, reads,
                "read"));
        add("RandomReadPeers.chronicleMapped", new Entry(RANDOM, read, "Chronicle MappedBytes", false, false, null, reads,
                "read"));
        add("RandomReadPeers.chronicleNative", new Entry(RANDOM, read, "Chronicle native BytesStore", false, false, null,
                reads, "read"));
        add("RandomReadPeers.agronaUnsafeBuffer", new Entry(RANDOM, read, "Agrona UnsafeBuffer", false, false, null, reads,
                "read"));

        add("ChunkStore.put", new Entry(STORE, "put", "Ferrite copyFrom", true, false, null, 1, "chunk"));
        add("ChunkStore.get", new Entry(STORE, "get", "Ferrite copyTo", true, false, null, 1, "chunk"));
        for (String op : new String[] {"Put", "Get"}) {
            String o = op.toLowerCase(java.util.Locale.ROOT);
            add("ChunkStorePeers.heap" + op, new Entry(STORE, o, "heap ByteBuffer", false, false, null, 1, "chunk"));
            add("ChunkStorePeers.direct" + op, new Entry(STORE, o, "direct ByteBuffer", false, false, null, 1, "chunk"));
            add("ChunkStorePeers.fileChannel" + op, new Entry(STORE, o, "RandomAccessFile channel", false, false, null, 1,
                    "chunk"));
            add("ChunkStorePeers.mappedFile" + op, new Entry(STORE, o, "MappedByteBuffer, file", false, false, null, 1,
                    "chunk"));
            add("ChunkStorePeers.mappedShm" + op, new Entry(STORE, o, "MappedByteBuffer, /dev/shm", false, false, null, 1,
                    "chunk"));
            add("ChunkStorePeers.unsafeCopy" + op, new Entry(STORE, o, "raw Unsafe.copyMemory", false, true, null, 1,
                    "chunk"));
        }

        add("StreamVsMapped.write", new Entry(IO, "write", "Ferrite mapped pool", true, false, null, 1, "pass"));
        add("StreamVsMapped.read", new Entry(IO, "read", "Ferrite mapped pool", true, false, null, 1, "pass"));
        add("StreamVsMapped.readModifyWrite", new Entry(IO, "read-modify-write", "Ferrite mapped pool", true, false, null,
                1, "pass"));
        add("StreamIo.write", new Entry(IO, "write", "DataOutputStream", false, true, null, 1, "pass"));
        add("StreamIo.read", new Entry(IO, "read", "DataInputStream", false, true, null, 1, "pass"));
        add("StreamIo.readModifyWrite", new Entry(IO, "read-modify-write", "RandomAccessFile seek/read/write", false, true,
                null, 1, "pass"));

        String send = "send a message";
        add("QueueThroughput.offer", new Entry(QUEUE, send, "Ferrite offer", true, false, null, 1, "message"));
        add("QueueThroughput.offerBatch", new Entry(QUEUE, send, "Ferrite offerBatch of 32", true, false, null, 1,
                "message"));
        add("QueueThroughputMany.offerMany", new Entry(QUEUE, send, "Ferrite offer, many-producer queue", true, false,
                null, 1, "message"));
        add("QueueThroughputPeers.agronaOneToOne", new Entry(QUEUE, send, "Agrona OneToOneRingBuffer.write", false,
                true, null, 1, "message"));
        add("QueueThroughputPeers.agronaOneToOneNoChecks", new Entry(QUEUE, send,
                "Agrona OneToOneRingBuffer.write, bounds checks off", false, false, null, 1, "message"));
        add("QueueThroughputLocalPeers.agronaManyToOne", new Entry(QUEUE, send, "Agrona ManyToOneRingBuffer.write",
                false, false, null, 1, "message"));
        add("QueueThroughputLocalPeers.jctoolsSpsc", new Entry(QUEUE, send, "JCTools SpscArrayQueue (references)",
                false, false, null, 1, "message"));
        add("QueueThroughputLocalPeers.jctoolsMpsc", new Entry(QUEUE, send, "JCTools MpscArrayQueue (references)",
                false, false, null, 1, "message"));
        add("PingPong.roundTrip", new Entry(PING_PONG, "round trip", "Ferrite", true, false, null, 1, "round trip"));
        add("PingPongPeers.agronaOneToOne", new Entry(PING_PONG, "round trip", "Agrona OneToOneRingBuffer", false, true,
                null, 1, "round trip"));
        add("PingPongLocalPeers.jctoolsSpsc", new Entry(PING_PONG, "round trip", "JCTools SpscArrayQueue (references)",
                false, false, null, 1, "round trip"));

        String[][] mapOps = {
            {"getHit", "get, hit"}, {"getHit2Threads", "get, hit, 2 threads (per thread)"}, {"getMiss", "get, miss"},
            {"put", "put, overwrite"}, {"insertRemove", "insert + remove"}};
        for (String[] op : mapOps) {
            add("MapOps." + op[0], new Entry(MAP, op[1], "FerriteMap", true, false, null, 1, "op"));
            add("Chm." + op[0], new Entry(MAP, op[1], "ConcurrentHashMap (heap)", false, true, null, 1, "op"));
            add("Chronicle." + op[0], new Entry(MAP, op[1], "Chronicle Map (file)", false, false, null, 1, "op"));
            add("Ohc." + op[0], new Entry(MAP, op[1], "OHC (off-heap, not persistent)", false, false, null, 1, "op"));
            add("Lmdb." + op[0], new Entry(MAP, op[1], "LMDB (file, NOSYNC)", false, false, null, 1, "op"));
        }
        add("MapOps.getHitInPlace", new Entry(MAP, "get, hit", "FerriteMap readValue (zero-copy bytes)", true, false,
                null, 1, "op"));
        add("MapOps.getHitInto", new Entry(MAP, "get, hit", "FerriteMap get(key, into), no value allocated", true,
                false, null, 1, "op"));
        add("MapOps.getHitVerified", new Entry(MAP, "get, hit", "FerriteMap, verifyReads(true)", true, false,
                null, 1, "op"));
        String update = "update a long field of a value";
        add("MapOps.updateInPlace", new Entry(MAP, update, "FerriteMap updateValue (in place)", true, false, null, 1,
                "op"));
        add("Chm.update", new Entry(MAP, update, "ConcurrentHashMap computeIfPresent (copy)", false, true, null, 1, "op"));
        add("Chronicle.update", new Entry(MAP, update, "Chronicle Map computeIfPresent (copy)", false, false, null, 1,
                "op"));
        String batch = "get, hit, batches of 16 (per get)";
        add("MapBatch.getHitBatch", new Entry(MAP, batch, "FerriteMap readValue, one after another", true, true, null, 1,
                "op"));
        add("MapBatch.getHitBatchPrefetched", new Entry(MAP, batch, "FerriteMap readValue after prefetch(keys)", true,
                false, null, 1, "op"));
        add("MapBatch.getAll", new Entry(MAP, batch, "FerriteMap getAll(keys), values copied out", true, false, null, 1,
                "op"));
        add("Chm.keyFetch", new Entry(MAP, "a random lookup key's fetch alone (part of every get and put)",
                "String[] of the keys, last char read; no map", false, true, null, 1, "op"));
        add("MapReopen.openGetClose", new Entry(MAP, "reopen after a clean close", "FerriteMap", true, false, null, 1,
                "open"));
        add("Chronicle.openGetClose", new Entry(MAP, "reopen after a clean close", "Chronicle Map (file)", false, true,
                null, 1, "open"));

        String[][] sortedOps = {{"get", "get, hit"}, {"put", "put, overwrite"}, {"scan100", "range scan, 100 entries"}};
        for (String[] op : sortedOps) {
            add("FerriteSorted." + op[0], new Entry(SORTED, op[1], "FerriteSortedMap (file)", true, false, null, 1, "op"));
            add("SkipList." + op[0], new Entry(SORTED, op[1], "ConcurrentSkipListMap (heap)", false, true, null, 1, "op"));
            add("LmdbSorted." + op[0], new Entry(SORTED, op[1], "LMDB (file, NOSYNC)", false, false, null, 1, "op"));
        }

        String[][] doorOps = {{"Get", "GET"}, {"Hget", "HGET"}, {"Zscore", "ZSCORE"}, {"Hset", "HSET, overwrite"}};
        for (String[] op : doorOps) {
            add("InProcessDatabase.database" + op[0], new Entry(DOORS, op[1], "KvDatabase (in-process)", true, false, null, 1,
                    "call"));
            add("InProcessDatabase.resp" + op[0], new Entry(DOORS, op[1], "RESP request over loopback, unpipelined", false,
                    true, null, 1, "call"));
        }

        add("PoolChurn.freeAndAllocate", new Entry(CHURN, "free one, allocate 1-64 chunks", "Ferrite", true, false, null,
                1, "operation"));
    }

    private Catalog() {
    }

    private static void add(String key, Entry e) {
        ENTRIES.put(key, e);
    }

    /**
     * @param benchmark a JMH benchmark name, {@code package.Class.method}
     * @return its entry, or a generic one for a benchmark the catalog does not know
     */
    static Entry of(String benchmark) {
        String[] parts = benchmark.split("\\.");
        String key = parts[parts.length - 2] + "." + parts[parts.length - 1];
        Entry e = ENTRIES.get(key);
        return e != null ? e : new Entry("Other", key, key, false, false, null, 1, "op");
    }

    /** @return how many benchmark methods the catalog knows */
    static int size() {
        return ENTRIES.size();
    }
}
