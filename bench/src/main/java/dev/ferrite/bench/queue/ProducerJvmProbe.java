package dev.ferrite.bench.queue;

import dev.ferrite.queue.IpcQueue;
import dev.ferrite.queue.Producer;

import java.util.Arrays;
import java.util.Locale;

/**
 * Tells which JVM sets a queue's speed: one producer JVM (this one) sends to a fresh consumer JVM on
 * a fresh queue in each trial, so speeds that agree within a run and differ between runs belong to
 * the producer's JVM (its compiled code), and speeds that change from trial to trial belong to the
 * consumer's JVM or the ring. Not a JMH benchmark: a diagnostic, as used in docs/PERFORMANCE.md.
 *
 * <p>Usage: {@code java -cp bench/target/ferrite-bench.jar dev.ferrite.bench.queue.ProducerJvmProbe
 * BACKEND MESSAGE_BYTES TRIALS [SECONDS [CONSUMER_BACKEND]]}; each trial warms up for one second,
 * then prints the mean nanoseconds per {@code offer} of each following second (default 4). The
 * consumer JVMs use the producer's backend unless {@code CONSUMER_BACKEND} names another: both
 * map the same queue file, so this tells which side's backend sets the speed.
 */
public final class ProducerJvmProbe {

    private static final long SECOND = 1_000_000_000L;

    private ProducerJvmProbe() {
    }

    /**
     * Runs the trials.
     *
     * @param args backend, message bytes, trials, optionally seconds measured per trial and the
     *             consumers' backend
     * @throws Exception if a consumer JVM does not start
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: ProducerJvmProbe BACKEND MESSAGE_BYTES TRIALS [SECONDS [CONSUMER_BACKEND]]");
            System.exit(2);
        }
        String backend = args[0];
        int size = Integer.parseInt(args[1]);
        int trials = Integer.parseInt(args[2]);
        int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 4;
        String consumerBackend = args.length > 4 ? args[4] : backend;
        byte[] message = new byte[size];
        Arrays.fill(message, (byte) 7);
        for (int t = 0; t < trials; t++) {
            String name = QueueRigs.uniqueName("probe");
            try (IpcQueue queue = QueueRigs.createFerrite(backend, name, false);
                 PeerProcess consumer = PeerProcess.start("ferrite-consume", consumerBackend, name);
                 Producer producer = queue.producer()) {
                send(producer, message, SECOND);
                StringBuilder line = new StringBuilder("trial " + t + ", ns per offer:");
                for (int s = 0; s < seconds; s++) {
                    line.append(String.format(Locale.ROOT, " %.2f", send(producer, message, SECOND)));
                }
                System.out.println(line);
            } finally {
                IpcQueue.delete(QueueRigs.ferriteSpec(backend, name, false));
            }
        }
    }

    /** Offers the message for about {@code nanos}, spinning while the ring is full; returns ns per offer. */
    private static double send(Producer producer, byte[] message, long nanos) {
        long start = System.nanoTime();
        long end = start + nanos;
        long sent = 0;
        while (System.nanoTime() < end) {
            for (int i = 0; i < QueueRigs.BURST; i++) {
                while (!producer.offer(message, 0, message.length, 1)) {
                    Thread.onSpinWait();
                }
            }
            sent += QueueRigs.BURST;
        }
        return (System.nanoTime() - start) / (double) sent;
    }
}
