package dev.ferrite.bench.queue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Starts {@link QueuePeerMain} in a second JVM with this JVM's class path and flags. */
final class PeerProcess implements AutoCloseable {

    private final Process process;

    private PeerProcess(Process process) {
        this.process = process;
    }

    static PeerProcess start(String... args) throws IOException {
        List<String> cmd = dev.ferrite.bench.JvmFlags.forkCommand();
        cmd.removeIf(f -> f.startsWith("-Xms")); // a peer allocates next to nothing: its heap starts small
        String agronaChecksOff = System.getProperty("agrona.disable.bounds.checks");
        if (agronaChecksOff != null) {
            cmd.add("-Dagrona.disable.bounds.checks=" + agronaChecksOff); // the consumer runs like the producer
        }
        String ferriteChecks = System.getProperty("ferrite.checks");
        if (ferriteChecks != null) {
            cmd.add("-Dferrite.checks=" + ferriteChecks);
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(QueuePeerMain.class.getName());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        Process p = dev.ferrite.bench.ChildProcesses.start(pb);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        if (!"READY".equals(line)) {
            p.destroyForcibly();
            throw new IllegalStateException("queue peer did not start: " + line + " from " + cmd);
        }
        return new PeerProcess(p);
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
