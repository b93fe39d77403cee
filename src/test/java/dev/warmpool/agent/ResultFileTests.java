package dev.warmpool.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.management.ThreadMXBean;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A job's result file is read as a stranger's: never through a link, only when it is the job's own, never whole. */
class ResultFileTests {
    @TempDir
    Path tmp;

    Path file;
    Path held;

    @BeforeEach
    void jobDir() throws Exception {
        file = Files.createDirectory(tmp.resolve("job-1")).resolve(JobRun.RESULT);
        held = tmp.resolve("job-1." + JobRun.RESULT);
    }

    ResultFile.Read read(long limit) {
        return assertTimeoutPreemptively(
                Duration.ofSeconds(10), () -> ResultFile.read(file, held, ResultFile.AGENT_UID, limit));
    }

    static ResultFile.Read refused(String error) {
        return ResultFile.Read.refused(error);
    }

    @Test
    void readsTheJobsOwnFileAndLeavesNothingBehind() throws Exception {
        Files.writeString(file, "{\"loss\": 0.5}");
        assertEquals(new ResultFile.Read("{\"loss\": 0.5}", null), read(100));
        assertFalse(Files.exists(file, LinkOption.NOFOLLOW_LINKS));
        assertFalse(Files.exists(held, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void noFileOrAnEmptyOneIsNoResult() throws Exception {
        assertEquals(ResultFile.Read.NONE, read(100));
        Files.writeString(file, "");
        assertEquals(ResultFile.Read.NONE, read(100));
    }

    @Test
    void aLinkIsRefusedWhereverItPointsAndTheSentenceTellsNothingOfItsTarget() throws Exception {
        Path secret = Files.writeString(tmp.resolve("secret.json"), "{\"stolen\": 1}");
        Files.createSymbolicLink(file, secret);
        ResultFile.Read toSecret = read(1 << 20);
        Files.delete(file);
        Files.createSymbolicLink(file, tmp.resolve("no-such-file"));
        ResultFile.Read toNothing = read(1 << 20);
        Files.delete(file);
        Files.createSymbolicLink(file, Files.writeString(tmp.resolve("big"), "x".repeat(200)));
        ResultFile.Read toBig = read(100);
        assertEquals(refused(ResultFile.NOT_ITS_OWN), toSecret);
        assertEquals(toSecret, toNothing, "whether the target exists is not told");
        assertEquals(toSecret, toBig, "nor how large it is");
        assertEquals("{\"stolen\": 1}", Files.readString(secret), "the target is left alone");
    }

    @Test
    void aFifoADirAndALinkToAFifoAreRefusedWithoutWaitingForAWriter() throws Exception {
        Path fifo = tmp.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Files.move(fifo, file);
        assertEquals(refused(ResultFile.NOT_ITS_OWN), read(100), "a fifo");
        Files.delete(file);
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Files.createSymbolicLink(file, fifo);
        assertEquals(refused(ResultFile.NOT_ITS_OWN), read(100), "a link to a fifo");
        Files.delete(file);
        Files.createDirectory(file);
        assertEquals(refused(ResultFile.NOT_ITS_OWN), read(100), "a dir");
    }

    @Test
    void aSecondNameOfAnotherFileIsRefused() throws Exception {
        Path other = Files.writeString(tmp.resolve("other.json"), "{\"stolen\": 1}");
        Files.createLink(file, other);
        assertEquals(refused(ResultFile.NOT_ITS_OWN), read(100));
    }

    @Test
    void aFileOverTheBoundIsRefusedWithTheBoundAndItsSetting() throws Exception {
        Files.writeString(file, "{\"a\": \"" + "x".repeat(92) + "\"}"); // 101 bytes
        assertEquals(
                refused("the result file (WARMPOOL_RESULT) is larger than 100 bytes, the limit"
                        + " (warmpool.runtime.max-result-bytes)"),
                read(100));
        Files.writeString(file, "{\"a\": \"" + "x".repeat(91) + "\"}"); // 100 bytes: the bound itself is fine
        assertEquals(100, read(100).text().length());
    }

    @Test
    void anotherUsersFileIsRefusedWhenJobsRunAsTheirOwnUser() throws Exception {
        assumeTrue(ResultFile.AGENT_UID == 0, "only root makes files of another user");
        Files.writeString(file, "{\"loss\": 0.5}"); // root's, as the agent's secrets are
        assertEquals(refused(ResultFile.NOT_ITS_OWN), ResultFile.read(file, held, 65534, 100));
        Files.writeString(file, "{\"loss\": 0.5}");
        Files.setAttribute(file, "unix:uid", 65534);
        assertEquals("{\"loss\": 0.5}", ResultFile.read(file, held, 65534, 100).text());
    }

    @Test
    void aHugeFileCostsTheAgentNoMoreThanItsBound() throws Exception {
        Files.writeString(file, "");
        try (var f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(200_000_000);
        }
        var threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        ResultFile.Read r = read(1 << 20);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertEquals(refused(ResultFile.tooLarge(1 << 20)), r);
        assertTrue(allocated < 8L << 20, "allocated " + (allocated >> 20) + " MiB for a 200 MB result");
    }
}
