package dev.warmpool.agent;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
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
    void cutsALongLineWhileReadingItSoTheAgentHeapStaysSmall() {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        LinkedBlockingQueue<String> q = new LinkedBlockingQueue<>();
        long before = threads.getCurrentThreadAllocatedBytes();
        Worker.readLines(hugeLineThenAnswer(), q);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        List<String> lines = new ArrayList<>(q);
        assertEquals(4, lines.size());
        assertEquals(Worker.MAX_LINE, lines.get(0).length());
        assertTrue(lines.get(0).chars().allMatch(c -> c == 'x'));
        assertEquals("{\"status\": \"SUCCEEDED\"}", lines.get(1));
        assertEquals("last", lines.get(2));
        assertEquals(Worker.EOF, lines.get(3));
        // reading the whole line first (readLine) allocates several times its 64 MiB of chars
        assertTrue(allocated < 32L << 20, "allocated " + (allocated >> 20) + " MiB while reading a 64 MiB line");
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
