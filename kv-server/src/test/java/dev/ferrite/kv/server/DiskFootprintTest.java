package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A small database costs a few MB of disk and of mapped memory, and grows with its data: the
 * sparse map file is charged only for the pages written, and the pages the kernel reads around
 * them stay few. Disk is what {@code du} reports (allocated blocks, not file lengths); mapped
 * memory is this JVM's {@code RssFile} from {@code /proc/self/status}.
 */
class DiskFootprintTest extends ServerFixture {

    private static final long MB = 1 << 20;

    @Test
    void aDatabaseHoldingOneKeyCostsAFewMegabytes() throws Exception {
        long rssBefore = rssFileBytes();
        startServer(b -> b.threads(1));
        try (RespClient c = new RespClient(server.port())) {
            assertEquals("OK", c.call("SET", "k", "v"));
            assertEquals("OK", c.call("SELECT", "3"));
            assertEquals("OK", c.call("SET", "k", "v"));
        }
        long twoDatabases = diskBytes(data);
        assertTrue(twoDatabases <= 24 * MB, "two databases of one key take " + twoDatabases / MB
                + " MB of disk, over 24 MB");
        long rssAfter = rssFileBytes();
        if (rssBefore >= 0 && rssAfter >= 0) {
            assertTrue(rssAfter - rssBefore <= 48 * MB, "two databases of one key map "
                    + (rssAfter - rssBefore) / MB + " MB more of files in memory, over 48 MB");
        }
    }

    @Test
    void aDatabaseGrowsWithItsData() throws Exception {
        startServer(b -> b.threads(1));
        int keys = 20_000;
        String value = "v".repeat(100);
        try (RespClient c = new RespClient(server.port())) {
            for (int i = 0; i < keys; i += 100) {
                String[] mset = new String[201];
                mset[0] = "MSET";
                for (int j = 0; j < 100; j++) {
                    mset[1 + 2 * j] = "key:" + (i + j);
                    mset[2 + 2 * j] = value;
                }
                assertEquals("OK", c.call(mset));
            }
            assertEquals((long) keys, c.call("DBSIZE"));
        }
        // 20,000 entries of about 130 bytes each are 2.6 MB of data
        long disk = diskBytes(data);
        assertTrue(disk <= 32 * MB, "a database of 20,000 keys of 100 B takes " + disk / MB
                + " MB of disk, over 32 MB");
    }

    /**
     * A flushed database's file is deleted and its map closed once no command runs on it: then no
     * mapping of the deleted file is left in this JVM to hold its disk blocks.
     */
    @Test
    void aFlushedDatabaseLeavesNoMappingOfItsDeletedFile() throws Exception {
        Path maps = Path.of("/proc/self/maps");
        assumeTrue(Files.isReadable(maps), "no /proc/self/maps here");
        startServer(b -> b.threads(1));
        try (RespClient c = new RespClient(server.port())) {
            assertEquals("OK", c.call("SELECT", "3"));
            assertEquals("OK", c.call("SET", "k", "v"));
            System.gc(); // the map's objects old, as in a server that ran a while: no young collection frees them
            assertEquals("OK", c.call("FLUSHALL"));
        }
        String dir = data.toAbsolutePath().toString();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<String> deleted;
        do {
            Thread.sleep(50); // the dropped map is closed off the event loop
            deleted = Files.readAllLines(maps).stream().filter(l -> l.contains(dir) && l.endsWith("(deleted)")).toList();
        } while (!deleted.isEmpty() && System.nanoTime() < deadline);
        assertTrue(deleted.isEmpty(), "mappings of deleted database files: " + deleted);
    }

    /** @return the disk blocks allocated to the files under {@code dir}, in bytes, as {@code du} counts them */
    private static long diskBytes(Path dir) throws IOException, InterruptedException {
        Process du;
        try {
            du = new ProcessBuilder("du", "-sk", dir.toString()).redirectErrorStream(true).start();
        } catch (IOException e) {
            assumeTrue(false, "du cannot run here: " + e.getMessage());
            throw e;
        }
        String out = new String(du.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        assertTrue(du.waitFor(30, TimeUnit.SECONDS), "du did not end");
        assertEquals(0, du.exitValue(), "du failed: " + out);
        return Long.parseLong(out.split("\\s+")[0]) * 1024;
    }

    /** @return this process's resident mapped-file memory in bytes, or -1 where Linux does not report it */
    private static long rssFileBytes() throws IOException {
        Path status = Path.of("/proc/self/status");
        if (!Files.isReadable(status)) {
            return -1;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("RssFile:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        return -1;
    }
}
