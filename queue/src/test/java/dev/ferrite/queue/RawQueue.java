package dev.ferrite.queue;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.Segment;

/** Test access to a queue's bytes without the header checks, to damage and repair them. */
final class RawQueue implements AutoCloseable {

    private final ChunkPool pool;
    private final Segment segment;

    private RawQueue(ChunkPool pool, Segment segment) {
        this.pool = pool;
        this.segment = segment;
    }

    static RawQueue open(QueueSpec spec) {
        PoolSpec ps = (spec.kind() == QueueSpec.Kind.FILE ? PoolSpec.file(spec.path()) : PoolSpec.shm(spec.shmName())).build();
        ChunkPool pool = Ferrite.backend(spec.backend()).openPool(ps);
        return new RawQueue(pool, pool.open(IpcQueue.SEGMENT_NAME).orElseThrow());
    }

    Segment segment() {
        return segment;
    }

    @Override
    public void close() {
        segment.close();
        pool.close();
    }
}
