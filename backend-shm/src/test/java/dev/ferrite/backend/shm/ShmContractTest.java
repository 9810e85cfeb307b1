package dev.ferrite.backend.shm;

import dev.ferrite.Ferrite;
import dev.ferrite.spi.MemoryBackend;
import dev.ferrite.testkit.BulkContract;
import dev.ferrite.testkit.CloseRaceContract;
import dev.ferrite.testkit.ChunkPoolContract;
import dev.ferrite.testkit.CorruptionContract;
import dev.ferrite.testkit.FullFileSystemContract;
import dev.ferrite.testkit.LargeSegmentContract;
import dev.ferrite.testkit.LeakDetectionContract;
import dev.ferrite.testkit.ModelPropertyContract;
import dev.ferrite.testkit.MultiProcessContract;
import dev.ferrite.testkit.PersistentPoolContract;
import dev.ferrite.testkit.SafetyContract;
import dev.ferrite.testkit.SegmentAccessContract;

/** The {@code shm} backend against the whole contract suite. */
class ShmContractTest implements SegmentAccessContract, BulkContract, ChunkPoolContract, ModelPropertyContract,
        LargeSegmentContract, LeakDetectionContract, PersistentPoolContract, CorruptionContract, MultiProcessContract, SafetyContract, CloseRaceContract, FullFileSystemContract {

    @Override
    public MemoryBackend backend() {
        return Ferrite.backend("shm");
    }
}
