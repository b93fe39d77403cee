package dev.warmpool.agent.room;

import java.io.IOException;
import java.io.InputStream;

/**
 * A job's output in a {@link ResidentRoom}: the room init's output up to its end line for the job,
 * {@code \001<nonce> <exit code>} (the nonce never reaches the job: it cannot end its log early);
 * then its exit code, or {@link ResidentRoom#ROOM_ENDED} when the room's output ended first.
 */
public final class RoomOutput extends InputStream {
    private final InputStream in;
    private final byte[] marker;
    private final byte[] held;
    private int matched;
    private int exit = Integer.MIN_VALUE;

    RoomOutput(InputStream in, byte[] marker) {
        this.in = in;
        this.marker = marker;
        this.held = new byte[marker.length];
    }

    /** The job's exit code once the stream has ended; {@link ResidentRoom#ROOM_ENDED} when it did not. */
    public int exitCode() {
        return exit == Integer.MIN_VALUE ? ResidentRoom.ROOM_ENDED : exit;
    }

    @Override
    public int read() {
        throw new UnsupportedOperationException("read a job's output in blocks");
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (exit != Integer.MIN_VALUE) {
            return -1;
        }
        if (len <= marker.length) {
            throw new IllegalArgumentException("read a job's output in blocks of more than " + marker.length);
        }
        int n = 0;
        // bytes there to read without blocking: asked once per batch, as asking costs a system call
        // (per byte, a job that printed 100 MB kept the agent busy for minutes)
        int ready = 0;
        // the marker starts with \001, found nowhere else in it: a failed match restarts at most there
        while (n == 0 || (n < len - marker.length && (ready > 0 || (ready = in.available()) > 0))) {
            int c;
            try {
                c = in.read();
                ready = Math.max(0, ready - 1);
            } catch (IOException e) {
                c = -1; // the room was discarded (the agent is going)
            }
            if (c < 0) {
                exit = ResidentRoom.ROOM_ENDED;
                System.arraycopy(held, 0, b, off + n, matched);
                n += matched;
                matched = 0;
                return n > 0 ? n : -1;
            }
            if (c == (marker[matched] & 0xff)) {
                held[matched++] = (byte) c;
                if (matched == marker.length) {
                    exit = code();
                    return n > 0 ? n : -1;
                }
                continue;
            }
            if (matched > 0) {
                System.arraycopy(held, 0, b, off + n, matched); // output after all
                n += matched;
                matched = 0;
            }
            if (c == marker[0]) {
                held[matched++] = (byte) c;
            } else {
                b[off + n++] = (byte) c;
            }
        }
        return n;
    }

    private int code() throws IOException {
        StringBuilder digits = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            digits.append((char) c);
        }
        try {
            return Integer.parseInt(digits.toString().trim());
        } catch (NumberFormatException e) {
            return ResidentRoom.ROOM_ENDED;
        }
    }
}
