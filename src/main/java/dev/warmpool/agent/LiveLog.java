package dev.warmpool.agent;

import dev.warmpool.agent.io.AgentLog;
import dev.warmpool.agent.io.Tail;
import dev.warmpool.protocol.script.LogReply;
import dev.warmpool.protocol.script.Script;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A running job's output, line by line, into its event stream while it runs (log.lua). Lines are
 * sent in batches by a writer of their own, so the job's reader never waits for Redis: the first
 * line after a quiet spell goes at once (one round trip after it was printed), later ones wait at
 * most {@link #LINGER_MILLIS} or until {@link #BATCH} are pending. A job that prints faster than
 * Redis takes it is capped, not fatal: past {@link #MAX_PENDING} waiting lines (or
 * {@link #MAX_PENDING_CHARS} waiting characters: 10,000 lines of 8 KiB were more than the agent's
 * 32 MB heap) the new ones are counted and dropped, and the log says how many. A job that prints nothing costs nothing: the
 * writer starts with the first line.
 */
final class LiveLog implements Tail.Live {
    static final int MAX_LINE = 8192;
    static final int BATCH = 64;
    static final int MAX_PENDING = 10_000;
    static final int MAX_PENDING_CHARS = 1 << 20;
    /** The most characters one log call carries (a call's arguments are copied again as they are sent). */
    private static final int MOST_CHARS_PER_CALL = 256 * 1024;

    static final long LINGER_MILLIS = 50;
    private static final int MOST_PER_CALL = 1000;

    private final RedisLink redis;
    private final String processorId;
    private final String jobId;
    private final String token;
    private final int cap;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private boolean afterCr;
    private List<String> pending = new ArrayList<>();
    private long pendingChars;
    private long dropped;
    private boolean closed;
    private boolean stale;
    private long lastSentNanos = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(LINGER_MILLIS);
    private Future<?> writer;

    LiveLog(RedisLink redis, String processorId, String jobId, String token, int cap) {
        this.redis = redis;
        this.processorId = processorId;
        this.jobId = jobId;
        this.token = token;
        this.cap = cap;
    }

    /** Output bytes as they come; a line ends at {@code \n} or {@code \r} (a progress bar's redraw). */
    @Override
    public synchronized void bytes(byte[] buf, int n) {
        for (int i = 0; i < n; i++) {
            byte b = buf[i];
            if (b == '\n' || b == '\r') {
                if (!(b == '\n' && afterCr)) {
                    add(take());
                }
                afterCr = b == '\r';
            } else {
                afterCr = false;
                if (line.size() < MAX_LINE) {
                    line.write(b);
                }
            }
        }
    }

    private String take() {
        byte[] b = line.toByteArray();
        line.reset();
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE)
                    .decode(ByteBuffer.wrap(b))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IllegalStateException(e);
        }
    }

    private void add(String text) {
        if (stale || closed) {
            return;
        }
        if (pending.size() >= MAX_PENDING || pendingChars + text.length() > MAX_PENDING_CHARS) {
            dropped++;
            return;
        }
        pending.add(text);
        pendingChars += text.length();
        if (writer == null) {
            writer = JobRun.THREADS.submit(this::write);
        }
        notifyAll();
    }

    /** Sends what is pending, then waits up to 2 s for it to be in Redis: the job's end follows its last line. */
    @Override
    public void close() {
        Future<?> w;
        synchronized (this) {
            if (line.size() > 0) {
                add(take());
            }
            if (dropped > 0 && !stale) {
                pending.add(
                        "[warmpool] " + dropped + " lines of this job's output were dropped: it printed faster than its"
                                + " live log could take them (the log tail has the last 16 KiB)");
                dropped = 0;
            }
            closed = true;
            notifyAll();
            w = writer;
        }
        if (w != null) {
            try {
                w.get(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                AgentLog.log("job %s: its last log lines were not all written: %s", jobId, e);
            }
        }
    }

    private void write() {
        while (true) {
            List<String> batch;
            synchronized (this) {
                while (true) {
                    if (stale || (pending.isEmpty() && closed)) {
                        return;
                    }
                    long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastSentNanos);
                    if (!pending.isEmpty() && (closed || pending.size() >= BATCH || waited >= LINGER_MILLIS)) {
                        break;
                    }
                    try {
                        wait(pending.isEmpty() ? 0 : Math.max(1, LINGER_MILLIS - waited));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                int n = 0;
                long chars = 0;
                while (n < pending.size()
                        && n < MOST_PER_CALL
                        && (n == 0 || chars + pending.get(n).length() <= MOST_CHARS_PER_CALL)) {
                    chars += pending.get(n++).length();
                }
                pendingChars -= chars;
                if (n == pending.size()) {
                    batch = pending;
                    pending = new ArrayList<>();
                } else {
                    batch = new ArrayList<>(pending.subList(0, n));
                    pending.subList(0, n).clear();
                }
            }
            send(batch);
            synchronized (this) {
                lastSentNanos = System.nanoTime();
            }
        }
    }

    private void send(List<String> batch) {
        try {
            LogReply reply =
                    LogReply.decode(redis.run(Script.LOG, LogReply.args(processorId, jobId, token, cap, batch)));
            if (reply instanceof LogReply.Stale s) {
                synchronized (this) {
                    stale = true;
                    pending.clear();
                    pendingChars = 0;
                }
                AgentLog.log("job %s: no more live log (%s)", jobId, s.reason());
            }
        } catch (RuntimeException e) {
            // a live log is best effort: an outage loses lines, never the job (its tail and result still go)
            synchronized (this) {
                dropped += batch.size();
            }
            AgentLog.log("job %s: %d log lines not written: %s", jobId, batch.size(), e.getMessage());
        }
    }
}
