package dev.warmpool.agent.worker;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import dev.warmpool.agent.io.Tail;
import dev.warmpool.agent.room.Sandbox;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class WorkerTests {
    /** 64 MiB of 'x' without a newline, then two short lines (one ending in CRLF), made as they are read. */
    static InputStream hugeLineThenAnswer() {
        byte[] tail = "\n{\"status\": \"SUCCEEDED\"}\r\nlast".getBytes(StandardCharsets.UTF_8);
        long huge = 64L << 20;
        return new InputStream() {
            long pos;

            @Override
            public int read() {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0];
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (pos >= huge + tail.length) {
                    return -1;
                }
                int n = 0;
                while (n < len && pos < huge + tail.length) {
                    b[off + n++] = pos < huge ? (byte) 'x' : tail[(int) (pos - huge)];
                    pos++;
                }
                return n;
            }
        };
    }

    @Test
    void endsAtALineOverTheBoundWhileReadingItSoTheAgentHeapStaysSmall() throws Exception {
        var threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        WorkerLines q = new WorkerLines(1 << 20);
        long before = threads.getCurrentThreadAllocatedBytes();
        q.read(hugeLineThenAnswer());
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(q.ended(), "a worker that broke the bound is started again");
        assertSame(WorkerLines.TOO_LONG, q.take());
        assertSame(WorkerLines.TOO_LONG, q.take(), "every later call sees it too");
        // reading the whole line first (readLine) allocates several times its 64 MiB of chars
        assertTrue(allocated < 8L << 20, "allocated " + (allocated >> 20) + " MiB while reading a 64 MiB line");
    }

    @Test
    void readsLinesAndTheEndOfTheOutput() throws Exception {
        WorkerLines q = new WorkerLines(64);
        q.read(new ByteArrayInputStream("one\n{\"status\": \"SUCCEEDED\"}\r\nlast".getBytes(StandardCharsets.UTF_8)));
        assertEquals("one", q.take());
        assertEquals("{\"status\": \"SUCCEEDED\"}", q.take());
        assertEquals("last", q.take());
        assertSame(WorkerLines.EOF, q.take());
        assertTrue(q.ended());
    }

    /** Short lines for ever, counting the bytes read. */
    static final class Endless extends InputStream {
        final AtomicLong read = new AtomicLong();

        @Override
        public int read() {
            throw new UnsupportedOperationException();
        }

        @Override
        public int read(byte[] b, int off, int len) {
            for (int i = 0; i < len; i++) {
                b[off + i] = (byte) (i % 100 == 99 ? '\n' : 'x');
            }
            read.addAndGet(len);
            return len;
        }
    }

    @Test
    void aWorkerPrintingWithNoJobToReadItWaitsInsteadOfFillingTheAgentsHeap() throws Exception {
        WorkerLines q = new WorkerLines(4096);
        Endless out = new Endless();
        Thread reader = new Thread(() -> q.read(out), "worker-stdout");
        reader.setDaemon(true);
        reader.start();
        try {
            long[] last = {-1};
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> last[0] == (last[0] = out.read.get()));
            assertTrue(out.read.get() <= 4096 + 2 * 8192, out.read.get() + " bytes read with nobody taking them");
            assertEquals("x".repeat(99), q.take(), "a job that comes reads them");
        } finally {
            q.close();
            reader.join(5000);
        }
        assertFalse(reader.isAlive(), "a replaced worker's reader ends");
    }

    @Test
    void aLineOverTheBoundFailsTheJobAndTheNextJobGetsAFreshWorker() throws Exception {
        Path dir = Files.createTempDirectory("worker");
        try {
            // the first request gets 2000 bytes on one line, the second its answer
            Worker w = new Worker(
                    List.of(
                            "sh",
                            "-c",
                            "read job; if [ -e " + dir + "/started ]; then echo '{\"status\": \"SUCCEEDED\"}';"
                                    + " else touch " + dir + "/started; head -c 2000 /dev/zero | tr '\\0' x;"
                                    + " echo; read never; fi"),
                    Map.of("PATH", System.getenv("PATH")),
                    null,
                    1000);
            Worker.Reply first = w.call("{\"id\": \"j1\"}", report -> {}, new Tail(1024));
            assertEquals(
                    new Worker.Reply(
                            "FAILED",
                            "{}",
                            "the persistent worker printed a line longer than 1000 bytes, the limit"
                                    + " (warmpool.runtime.max-result-bytes); it is started again for the next job"),
                    first);
            Worker.Reply second = w.call("{\"id\": \"j2\"}", report -> {}, new Tail(1024));
            assertEquals("SUCCEEDED", second.status());
            w.kill(true);
        } finally {
            Sandbox.remove(dir);
        }
    }

    @Test
    void aDyingWorkersLastStderrIsInItsJobsLogEvenWhenItArrivesAfterStdoutEnded() throws Exception {
        // the worker closes stdout and exits; what it said last reaches stderr a moment later
        // (a child holds stderr), the order in which a loaded machine can deliver a dying worker's output
        Worker w = new Worker(
                List.of("sh", "-c", "read job; exec >&-; (sleep 0.1; echo dying >&2) & exit 3"), Map.of(), null);
        Tail tail = new Tail(1024);
        assertNull(w.call("{\"id\": \"j1\"}", report -> {}, tail), "a worker that exits gives no answer");
        assertEquals(3, w.exitCode());
        assertTrue(tail.text().contains("dying"), "the job's log is '" + tail.text() + "'");
    }

    @Test
    void aWorkerOutlivesTheThreadThatStartedIt() throws Exception {
        // the sandbox's bwrap --die-with-parent ties a process to the thread that forked it: a worker
        // warmed up by a short-lived thread, or by a pooled job thread that retires, must not die with it
        Worker w = new Worker(
                List.of("setpriv", "--pdeathsig", "KILL", "--", "sh", "-c", "read never"),
                Map.of("PATH", System.getenv("PATH")),
                null);
        Thread starter = new Thread(() -> {
            try {
                w.ensureStarted();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        starter.start();
        starter.join();
        try {
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).until(w::alive);
        } finally {
            w.kill(true);
        }
    }
}
