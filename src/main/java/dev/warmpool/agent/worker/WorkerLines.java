package dev.warmpool.agent.worker;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;

/**
 * A persistent worker's stdout as lines for the job that reads them, held to a bound whatever the
 * worker prints: a line is at most {@code maxLine} bytes (a longer one ends the reading with
 * {@link #TOO_LONG}: the job fails and the worker is replaced), and at most {@code maxLine} bytes
 * wait unread (then the reader waits, and so does the worker's next write). A worker that printed
 * between jobs, with no job to read it, once filled the agent's heap.
 */
final class WorkerLines {
    /** What the reader hands over when the worker's output ends. */
    static final String EOF = "\u0000eof";

    /** What the reader hands over for a line over the bound; it reads no more of this worker. */
    static final String TOO_LONG = "\u0000too-long";

    private record Line(String text, int bytes) {}

    private final LinkedBlockingQueue<Line> queue = new LinkedBlockingQueue<>();
    private final int maxLine;
    private final Semaphore room;
    private volatile boolean closed;

    WorkerLines(int maxLine) {
        this.maxLine = maxLine;
        this.room = new Semaphore(maxLine);
    }

    /** The longest line, in bytes. */
    int maxLine() {
        return maxLine;
    }

    /** Reads {@code in} to its end (or to a line over the bound) on the calling thread. */
    void read(InputStream in) {
        byte[] buf = new byte[8192];
        byte[] line = new byte[256];
        int length = 0;
        try (in) {
            int n;
            while ((n = in.read(buf)) > 0) {
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
                        if (!put(line, length)) {
                            return;
                        }
                        length = 0;
                    } else if (length == maxLine) {
                        queue.add(new Line(TOO_LONG, 0));
                        return;
                    } else {
                        if (length == line.length) {
                            line = Arrays.copyOf(line, (int) Math.min(maxLine, 2L * line.length));
                        }
                        line[length++] = buf[i];
                    }
                }
            }
            if (length > 0 && !put(line, length)) {
                return;
            }
        } catch (IOException e) {
            // the worker is gone
        }
        queue.add(new Line(EOF, 0));
    }

    /** Queues one line once there is room for it; false when this worker's output is no longer wanted. */
    private boolean put(byte[] line, int length) {
        int end = length > 0 && line[length - 1] == '\r' ? length - 1 : length;
        try {
            room.acquire(length);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        if (closed) {
            return false;
        }
        queue.add(new Line(new String(line, 0, end, StandardCharsets.UTF_8), length));
        return true;
    }

    /** The next line, waiting for it; {@link #EOF} or {@link #TOO_LONG} (the same object) stay for later calls. */
    String take() throws InterruptedException {
        Line l = queue.take();
        if (l.text() == EOF || l.text() == TOO_LONG) {
            queue.add(l);
        } else {
            room.release(l.bytes());
        }
        return l.text();
    }

    /** True when the worker's output has ended, or broke the bound: the worker must be started again. */
    boolean ended() {
        return queue.stream().anyMatch(l -> l.text() == EOF || l.text() == TOO_LONG);
    }

    /** Lets a reader waiting for room go: the worker it reads is being replaced. */
    void close() {
        closed = true;
        room.release(maxLine);
    }
}
