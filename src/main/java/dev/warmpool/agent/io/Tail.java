package dev.warmpool.agent.io;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * The last {@code capacity} bytes of a stream, read on its own thread. The ring grows with the
 * output up to its capacity: most jobs print little, and a 16 KiB ring per job was most of an
 * agent's allocation (and so of its collections) in a burst.
 */
public final class Tail {
    private static final int FIRST_SIZE = 512;

    /** The longest report line (or worker report) passed on, in bytes: a report is a few metrics. */
    public static final int MAX_REPORT = 65_536;

    /** The last bytes of a job's output the agent keeps (and records as its log tail). */
    public static final int JOB_BYTES = 16 * 1024;

    /** Where a tail also hands every byte as it comes: a job's live log (the agent's LiveLog). */
    public interface Live {
        void bytes(byte[] buf, int n);

        /** Sends what is left: the job's end is recorded after its last line. */
        void close();
    }

    private final int capacity;
    private final Live live;
    private byte[] ring;
    private long total;

    public Tail(int capacity) {
        this(capacity, null);
    }

    /** A tail that also hands every byte to the job's live log, when it has one. */
    public Tail(int capacity, Live live) {
        this.capacity = capacity;
        this.live = live;
        this.ring = new byte[Math.min(capacity, FIRST_SIZE)];
    }

    /** Sends the rest of the live log, if any: the job's end is recorded after its last line. */
    public void close() {
        if (live != null) {
            live.close();
        }
    }

    public void readAll(InputStream in) {
        readAll(in, null, null);
    }

    /**
     * Reads the stream to its end; every whole line that starts with {@code marker} (at most
     * {@link #MAX_REPORT} bytes long; a longer one is only output) also goes, without the marker,
     * to {@code onLine}.
     */
    public void readAll(InputStream in, String marker, Consumer<String> onLine) {
        byte[] buf = new byte[4096];
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        boolean cut = false;
        byte[] mark = marker == null ? null : marker.getBytes(StandardCharsets.UTF_8);
        try {
            int n;
            while ((n = in.read(buf)) > 0) {
                append(buf, n);
                if (mark == null) {
                    continue;
                }
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
                        byte[] l = line.toByteArray();
                        line.reset();
                        if (!cut && startsWith(l, mark)) {
                            onLine.accept(new String(l, mark.length, l.length - mark.length, StandardCharsets.UTF_8));
                        }
                        cut = false;
                    } else if (line.size() < MAX_REPORT) {
                        line.write(buf[i]);
                    } else {
                        cut = true; // a cut report could still parse, as other metrics than the job's
                    }
                }
            }
        } catch (IOException e) {
            // closed by the agent after the process ended: what was read is the tail
        }
    }

    private static boolean startsWith(byte[] line, byte[] mark) {
        if (line.length < mark.length) {
            return false;
        }
        for (int i = 0; i < mark.length; i++) {
            if (line[i] != mark[i]) {
                return false;
            }
        }
        return true;
    }

    public synchronized void append(byte[] buf, int n) {
        if (live != null) {
            live.bytes(buf, n);
        }
        if (total + n > ring.length && ring.length < capacity) {
            // not wrapped yet (total <= ring.length): the bytes so far keep their places
            ring = Arrays.copyOf(ring, (int) Math.min(capacity, Math.max(2L * ring.length, total + n)));
        }
        for (int i = 0; i < n; i++) {
            ring[(int) ((total + i) % ring.length)] = buf[i];
        }
        total += n;
    }

    /** The kept bytes as text; a cut may split a multi-byte character, so decoding is lenient. */
    public synchronized String text() {
        int size = (int) Math.min(total, ring.length);
        byte[] out = new byte[size];
        long start = total - size;
        for (int i = 0; i < size; i++) {
            out[i] = ring[(int) ((start + i) % ring.length)];
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE)
                    .decode(ByteBuffer.wrap(out))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IllegalStateException(e);
        }
    }
}
