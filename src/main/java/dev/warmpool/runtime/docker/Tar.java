package dev.warmpool.runtime.docker;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A minimal ustar archive, for the one file {@code docker cp} puts into a container before it
 * starts: its owner and mode are set here (the agent's user, 0700 dir, 0600 file), which a copy
 * from a host file could not guarantee without root.
 */
final class Tar {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Tar dir(String name, long uid, int mode) {
        entry(name.endsWith("/") ? name : name + "/", uid, mode, '5', new byte[0]);
        return this;
    }

    Tar file(String name, long uid, int mode, String text) {
        entry(name, uid, mode, '0', text.getBytes(StandardCharsets.UTF_8));
        return this;
    }

    byte[] bytes() {
        out.writeBytes(new byte[1024]); // two zero blocks end the archive
        return out.toByteArray();
    }

    private void entry(String name, long uid, int mode, char kind, byte[] data) {
        byte[] h = new byte[512];
        put(h, 0, 100, name.getBytes(StandardCharsets.UTF_8));
        octal(h, 100, 8, mode);
        octal(h, 108, 8, uid);
        octal(h, 116, 8, uid);
        octal(h, 124, 12, data.length);
        octal(h, 136, 12, System.currentTimeMillis() / 1000);
        Arrays.fill(h, 148, 156, (byte) ' ');
        h[156] = (byte) kind;
        put(h, 257, 6, "ustar\0".getBytes(StandardCharsets.US_ASCII));
        put(h, 263, 2, "00".getBytes(StandardCharsets.US_ASCII));
        long sum = 0;
        for (byte b : h) {
            sum += b & 0xff;
        }
        octal(h, 148, 7, sum);
        out.writeBytes(h);
        out.writeBytes(data);
        out.writeBytes(new byte[(512 - data.length % 512) % 512]);
    }

    private static void put(byte[] h, int at, int len, byte[] v) {
        if (v.length > len) {
            throw new IllegalArgumentException("tar field too long");
        }
        System.arraycopy(v, 0, h, at, v.length);
    }

    /** An octal number, zero-padded to {@code len - 1} digits and NUL-terminated. */
    private static void octal(byte[] h, int at, int len, long v) {
        String s = Long.toOctalString(v);
        s = "0".repeat(Math.max(0, len - 1 - s.length())) + s;
        put(h, at, len, (s + "\0").getBytes(StandardCharsets.US_ASCII));
    }
}
