package dev.ferrite.queue;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A second JVM for {@link JitHintsTest}: on a new file queue in the directory given as its first
 * argument, opens two producers, one after the other, or (second argument {@code consumer}) only a
 * consumer; then prints what {@link JitHints#install()} answers and the JVM's compiler directives
 * ({@code jcmd PID Compiler.directives_print}).
 */
public final class JitHintsProbe {

    private JitHintsProbe() {
    }

    public static void main(String[] args) throws Exception {
        QueueSpec spec = QueueSpec.file(Path.of(args[0], "hints.queue")).backend("unsafe").capacity(4096).build();
        try (IpcQueue queue = IpcQueue.create(spec)) {
            if (args.length > 1 && args[1].equals("consumer")) {
                try (Consumer consumer = queue.consumer()) {
                    if (consumer.poll((segment, offset, length, type) -> { }, 1) != 0) {
                        throw new IllegalStateException("a message in a new queue");
                    }
                }
            } else {
                for (int i = 0; i < 2; i++) {
                    try (Producer producer = queue.producer()) {
                        if (!producer.offer(new byte[] {1, 2, 3})) {
                            throw new IllegalStateException("offer to an empty queue refused");
                        }
                    }
                }
            }
        }
        Files.delete(Path.of(args[0], "hints.queue"));
        System.out.println("installed=" + JitHints.install());
        System.out.println(JitHints.diagnosticCommand("compilerDirectivesPrint"));
    }
}
