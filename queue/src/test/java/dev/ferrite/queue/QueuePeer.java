package dev.ferrite.queue;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * A second JVM for the process tests: a producer that writes self-checking messages.
 *
 * <p>Arguments: {@code backend kind location many producerId count mode progressFile}; kind is
 * file or shm; mode is offer, mixed (offers, claims and batches) or hang (offers {@code count}
 * messages, then claims one, prints CLAIMED and never commits). After every commit the number of
 * messages committed so far is stored in the progress file, so a test that kills this process
 * knows what was acknowledged.
 */
public final class QueuePeer {

    private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private QueuePeer() {
    }

    static QueueSpec spec(String backend, String kind, String location, boolean many) {
        QueueSpec.Builder b = kind.equals("file") ? QueueSpec.file(Path.of(location)) : QueueSpec.shm(location);
        return b.backend(backend).manyProducers(many).build();
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        QueueSpec spec = spec(args[0], args[1], args[2], Boolean.parseBoolean(args[3]));
        int producerId = Integer.parseInt(args[4]);
        long count = Long.parseLong(args[5]);
        String mode = args[6];
        try (FileChannel ch = FileChannel.open(Path.of(args[7]), StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            MappedByteBuffer progress = ch.map(FileChannel.MapMode.READ_WRITE, 0, 8);
            try (IpcQueue queue = IpcQueue.open(spec); Producer producer = queue.producer()) {
                long seq = 0;
                while (seq < count) {
                    seq += mode.equals("mixed") ? sendMixed(producer, producerId, seq, count)
                            : send(producer, producerId, seq);
                    LONG.setRelease(progress, 0, seq);
                }
                if (mode.equals("hang")) {
                    Claim claim;
                    while ((claim = producer.tryClaim(40, 1)) == null) {
                        Thread.onSpinWait();
                    }
                    claim.segment().putLong(claim.offset(), -1L);
                    System.out.println("CLAIMED");
                    System.out.flush();
                    Thread.sleep(Duration.ofMinutes(5).toMillis());
                }
                System.out.println("DONE " + seq);
            }
        }
    }

    private static int send(Producer producer, int id, long seq) {
        byte[] m = Messages.make(seq, id, Messages.lengthFor(seq, 44));
        while (!producer.offer(m, 0, m.length, id)) {
            Thread.onSpinWait();
        }
        return 1;
    }

    /** One offer, one claim, or a batch of up to 8, chosen by the sequence number. */
    private static int sendMixed(Producer producer, int id, long seq, long count) {
        int pick = (int) Long.remainderUnsigned(Messages.mix(seq), 3);
        if (pick == 0) {
            return send(producer, id, seq);
        }
        if (pick == 1) {
            byte[] m = Messages.make(seq, id, Messages.lengthFor(seq, 44));
            Claim claim;
            while ((claim = producer.tryClaim(m.length, id)) == null) {
                Thread.onSpinWait();
            }
            claim.segment().copyFrom(m, 0, claim.offset(), m.length);
            claim.commit();
            return 1;
        }
        int n = (int) Math.min(1 + Long.remainderUnsigned(seq, 8), count - seq);
        byte[][] batch = new byte[n][];
        for (int i = 0; i < n; i++) {
            batch[i] = Messages.make(seq + i, id, Messages.lengthFor(seq + i, 44));
        }
        while (!producer.offerBatch(batch, 0, n, id)) {
            Thread.onSpinWait();
        }
        return n;
    }
}
