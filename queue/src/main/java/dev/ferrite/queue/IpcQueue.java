package dev.ferrite.queue;

import dev.ferrite.ChunkPool;
import dev.ferrite.CorruptFileException;
import dev.ferrite.Ferrite;
import dev.ferrite.FerriteException;
import dev.ferrite.PoolSpec;
import dev.ferrite.Segment;
import dev.ferrite.spi.MemoryBackend;

import java.util.ArrayList;
import java.util.List;

/**
 * A bounded queue of variable-length messages between threads or processes: a ring of records in
 * one named segment of a file or shm pool, on whichever backend is configured
 * ({@code ferrite.backend}, or {@link QueueSpec.Builder#backend(String)}).
 *
 * <pre>{@code
 * QueueSpec spec = QueueSpec.shm("orders").capacity(1 << 20).build();
 * try (IpcQueue queue = IpcQueue.create(spec); Producer producer = queue.producer()) {
 *     producer.offer("hello".getBytes(UTF_8));
 * }
 * // in another process
 * try (IpcQueue queue = IpcQueue.open(spec); Consumer consumer = queue.consumer()) {
 *     consumer.poll((segment, offset, length, type) -> ..., 100);
 * }
 * }</pre>
 *
 * <p>A queue object is thread-safe; its producers and its consumer each belong to one thread.
 * Closing the queue closes its producers and consumer. The layout is in {@link QueueLayout},
 * {@link RecordLayout} and {@code docs/FORMAT.md}.
 */
public final class IpcQueue implements AutoCloseable {

    /** Name of the queue's segment in its pool. */
    public static final String SEGMENT_NAME = "ferrite.queue";

    private final ChunkPool pool;
    private final boolean ownsPool;
    private final Segment segment;
    private final Ring ring;
    private final QueueSpec spec;
    private final List<AutoCloseable> endpoints = new ArrayList<>();
    private boolean closed;

    private IpcQueue(ChunkPool pool, boolean ownsPool, Segment segment, Ring ring, QueueSpec spec) {
        this.pool = pool;
        this.ownsPool = ownsPool;
        this.segment = segment;
        this.ring = ring;
        this.spec = spec;
    }

    /**
     * Creates a queue in a new pool of its own at the spec's path or shm name.
     *
     * @param spec where and how big
     * @return the open queue
     * @throws FerriteException if the pool exists (and the spec does not say overwrite), or the
     *                          backend cannot make it
     */
    public static IpcQueue create(QueueSpec spec) {
        MemoryBackend backend = backend(spec);
        long chunk = spec.capacity();
        long chunks = (QueueLayout.segmentSize(spec.capacity()) + chunk - 1) / chunk;
        PoolSpec.Builder pool = location(spec).chunkSize(chunk).capacity(chunks * chunk).overwrite(spec.overwrite());
        if (chunks * chunk <= 1L << 30) {
            pool.extentSize(Long.highestOneBit(chunks * chunk - 1) << 1); // one mapping: a contiguous segment
        }
        ChunkPool created = backend.createPool(pool.build());
        try {
            return create(created, true, SEGMENT_NAME, spec);
        } catch (RuntimeException e) {
            created.close();
            throw e;
        }
    }

    /**
     * Creates a queue as a named segment of an existing pool (any kind, any backend). Accesses are
     * fastest when the segment's chunks are contiguous, as a fresh pool hands them out.
     *
     * @param pool the pool; stays the caller's to close, after the queue
     * @param name segment name for the queue
     * @param spec capacity, message limit and producer mode (its location is ignored)
     * @return the open queue
     */
    public static IpcQueue create(ChunkPool pool, String name, QueueSpec spec) {
        return create(pool, false, name, spec);
    }

    private static IpcQueue create(ChunkPool pool, boolean ownsPool, String name, QueueSpec spec) {
        Segment segment = pool.allocate(name, QueueLayout.segmentSize(spec.capacity()));
        try {
            Ring ring = Ring.format(segment, describe(pool, name), spec);
            pool.force();
            return new IpcQueue(pool, ownsPool, segment, ring, spec);
        } catch (RuntimeException e) {
            segment.close();
            pool.delete(name);
            throw e;
        }
    }

    /**
     * Opens an existing queue at the spec's path or shm name; its geometry comes from its header.
     *
     * @param spec where, and the per-process settings
     * @return the open queue
     * @throws CorruptFileException if the pool or the queue header is damaged
     * @throws FerriteException     if there is no queue there
     */
    public static IpcQueue open(QueueSpec spec) {
        ChunkPool pool = backend(spec).openPool(location(spec).build());
        try {
            return open(pool, true, SEGMENT_NAME, spec);
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    /**
     * Opens a queue kept as a named segment of a pool.
     *
     * @param pool the pool; stays the caller's to close, after the queue
     * @param name the queue's segment name
     * @param spec per-process settings (geometry and location are ignored)
     * @return the open queue
     */
    public static IpcQueue open(ChunkPool pool, String name, QueueSpec spec) {
        return open(pool, false, name, spec);
    }

    private static IpcQueue open(ChunkPool pool, boolean ownsPool, String name, QueueSpec spec) {
        String described = describe(pool, name);
        Segment segment = pool.open(name).orElseThrow(() -> new FerriteException(
                "no queue named " + name + " in " + pool.spec().describe() + "; segments there: " + pool.segmentNames()));
        try {
            return new IpcQueue(pool, ownsPool, segment, Ring.attach(segment, described), spec);
        } catch (RuntimeException e) {
            segment.close();
            throw e;
        }
    }

    /**
     * Removes a queue's pool (its file or shm file). Nothing may have it open.
     *
     * @param spec where
     * @return whether there was something to remove
     */
    public static boolean delete(QueueSpec spec) {
        return backend(spec).deletePool(location(spec).build());
    }

    private static MemoryBackend backend(QueueSpec spec) {
        return spec.backend() == null ? Ferrite.backend() : Ferrite.backend(spec.backend());
    }

    private static PoolSpec.Builder location(QueueSpec spec) {
        return spec.kind() == QueueSpec.Kind.FILE ? PoolSpec.file(spec.path()) : PoolSpec.shm(spec.shmName());
    }

    private static String describe(ChunkPool pool, String name) {
        return name.equals(SEGMENT_NAME) ? pool.spec().describe() : name + " in " + pool.spec().describe();
    }

    /**
     * Opens the producing side. With one producer (the default), only one producer may be open
     * at a time across all processes; if the last one died, the new one takes over its place and
     * delivers or repairs what it left. With many producers, up to 64 at once. If the user turned on
     * {@code ferrite.queue.jitHints} (off by default), the first producer or consumer opened in a JVM
     * adds the queue's compiler directive, which takes about 0.1 s once.
     *
     * @return a producer for the calling thread
     * @throws FerriteException if a live process holds the (only, or every) producer place
     */
    public synchronized Producer producer() {
        checkOpen();
        JitHints.install();
        long liveness = spec.livenessTimeout().toMillis();
        int slots = ring.manyProducers ? QueueLayout.PRODUCER_SLOTS : 1;
        for (int i = 0; i < slots; i++) {
            EndpointSlot slot = EndpointSlot.tryTake(ring, QueueLayout.producerSlot(i), liveness);
            if (slot != null) {
                try {
                    RingProducer producer = RingProducer.of(this, ring, slot, i, spec);
                    endpoints.add(producer);
                    return producer;
                } catch (RuntimeException e) {
                    slot.release();
                    throw e;
                }
            }
        }
        throw new FerriteException(ring + " already has " + (slots == 1 ? "a live producer" : slots + " live producers")
                + (slots == 1 ? " (pid " + EndpointSlot.holderPid(ring, 0) + ")" : "")
                + (ring.manyProducers ? "" : "; create the queue with manyProducers(true) for several"));
    }

    /**
     * Opens the consuming side: one at a time across all processes; a dead consumer's place is
     * taken over. With {@code ferrite.queue.jitHints} on, the first producer or consumer opened in
     * a JVM adds the queue's compiler directive (see {@link #producer()}).
     *
     * @return the consumer, for the calling thread
     * @throws FerriteException if a live consumer holds the queue
     */
    public synchronized Consumer consumer() {
        checkOpen();
        JitHints.install();
        EndpointSlot slot = EndpointSlot.tryTake(ring, QueueLayout.CONSUMER_SLOT_OFFSET, spec.livenessTimeout().toMillis());
        if (slot == null) {
            throw new FerriteException(ring + " already has a live consumer");
        }
        try {
            Consumer consumer = RingConsumer.of(this, ring, slot, spec);
            endpoints.add(consumer);
            return consumer;
        } catch (RuntimeException e) {
            slot.release();
            throw e;
        }
    }

    synchronized void endpointClosed(AutoCloseable endpoint) {
        endpoints.remove(endpoint);
    }

    private void checkOpen() {
        if (closed) {
            throw new FerriteException(ring + " is closed");
        }
    }

    /** @return ring capacity in bytes */
    public long capacity() {
        return ring.capacity;
    }

    /** @return the largest message payload in bytes */
    public int maxMessageLength() {
        return ring.maxMessage;
    }

    /** @return whether several producers may write at once */
    public boolean manyProducers() {
        return ring.manyProducers;
    }

    /**
     * Ring bytes claimed and not yet consumed (records, their headers and padding, claims in
     * progress): a snapshot, exact when neither side moves during the call. Thread-safe. With one
     * producer, whose stored tail may lag (see {@link QueueLayout#tailLag}), the records past it
     * are counted by following their headers.
     *
     * @return bytes in use, from 0 to the capacity
     */
    public long bytesInUse() {
        long head = ring.head();
        long tail = ring.tail();
        if (!ring.manyProducers) {
            tail = ring.claimedEnd(Math.max(tail, head), head + ring.capacity);
        }
        return Math.max(0, Math.min(ring.capacity, tail - head));
    }

    /** @return the spec the queue was created or opened with */
    public QueueSpec spec() {
        return spec;
    }

    /** @return the queue's segment (read-only use: writing into it corrupts the queue) */
    public Segment segment() {
        return segment;
    }

    /** Flushes the queue's bytes to its file (msync); a no-op for shm. */
    public void force() {
        pool.force();
    }

    /**
     * Closes the producers and the consumer opened here, then the segment, or the pool if the
     * queue made it (which closes the segment). Idempotent; never throws for what other threads
     * do meanwhile.
     *
     * <p>A producer or consumer another thread uses meanwhile ends its call or throws
     * {@link FerriteException}, and none crashes the JVM: a pool the queue made stays mapped until
     * the collector finds the queue's handle unreachable (to have the memory back at once, give
     * the queue a pool, {@link #create(ChunkPool, String, QueueSpec)}, and close it after the
     * queue, once no thread uses the queue). Nothing sent is lost: an offer or commit that
     * returned stays in the queue, an open claim is aborted (its commit then throws), and a poll
     * cut short delivers its messages again to the next consumer (delivery is at least once). One
     * limit: an offer whose thread stalls inside it for longer than the abandon timeout may find
     * its record skipped as abandoned.
     */
    @Override
    public void close() {
        List<AutoCloseable> open;
        synchronized (this) {
            if (closed) {
                return;
            }
            open = new ArrayList<>(endpoints);
        }
        for (AutoCloseable endpoint : open) {
            try {
                endpoint.close();
            } catch (Exception e) {
                throw new FerriteException("closing " + endpoint + " failed", e);
            }
        }
        synchronized (this) {
            closed = true;
        }
        if (ownsPool) {
            // The pool closes the handle: a pool closed with handles open unmaps their memory only
            // once they are collected, so a producer or consumer another thread runs at that
            // instant ends without touching unmapped memory.
            pool.close();
        } else {
            segment.close();
        }
    }

    @Override
    public String toString() {
        return ring.toString();
    }
}
