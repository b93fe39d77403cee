package dev.warmpool.protocol.script;

/**
 * SHA-1 (FIPS 180-4), as EVALSHA names a script: here rather than {@code MessageDigest} because
 * an agent hashes its first script while it starts, and setting up the JDK's security providers
 * for it (and the VarHandles its digest uses) took 25-50 ms of that start. Not for security: a
 * script's hash is only the name Redis caches it under.
 */
final class Sha1 {
    private Sha1() {}

    /** The digest of {@code data} in lower-case hex, as Redis prints it. */
    static String hex(byte[] data) {
        int[] h = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
        // the message, a 1 bit, zeros, and its length in bits: a whole number of 64-byte blocks
        int blocks = (data.length + 8) / 64 + 1;
        byte[] m = new byte[blocks * 64];
        System.arraycopy(data, 0, m, 0, data.length);
        m[data.length] = (byte) 0x80;
        long bits = (long) data.length * 8;
        for (int i = 0; i < 8; i++) {
            m[m.length - 1 - i] = (byte) (bits >>> (8 * i));
        }
        int[] w = new int[80];
        for (int b = 0; b < blocks; b++) {
            for (int t = 0; t < 16; t++) {
                int o = b * 64 + t * 4;
                w[t] = (m[o] & 0xff) << 24 | (m[o + 1] & 0xff) << 16 | (m[o + 2] & 0xff) << 8 | (m[o + 3] & 0xff);
            }
            for (int t = 16; t < 80; t++) {
                w[t] = Integer.rotateLeft(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
            }
            int a = h[0], bb = h[1], c = h[2], d = h[3], e = h[4];
            for (int t = 0; t < 80; t++) {
                int f, k;
                if (t < 20) {
                    f = (bb & c) | (~bb & d);
                    k = 0x5A827999;
                } else if (t < 40) {
                    f = bb ^ c ^ d;
                    k = 0x6ED9EBA1;
                } else if (t < 60) {
                    f = (bb & c) | (bb & d) | (c & d);
                    k = 0x8F1BBCDC;
                } else {
                    f = bb ^ c ^ d;
                    k = 0xCA62C1D6;
                }
                int next = Integer.rotateLeft(a, 5) + f + e + k + w[t];
                e = d;
                d = c;
                c = Integer.rotateLeft(bb, 30);
                bb = a;
                a = next;
            }
            h[0] += a;
            h[1] += bb;
            h[2] += c;
            h[3] += d;
            h[4] += e;
        }
        StringBuilder out = new StringBuilder(40);
        for (int v : h) {
            String x = Integer.toHexString(v);
            out.append("00000000", x.length(), 8).append(x);
        }
        return out.toString();
    }
}
