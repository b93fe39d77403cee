package dev.warmpool.protocol.script;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The scripts' SHA-1 is the JDK's, at every length that changes the padding, and for every script. */
@Tag("unit")
class Sha1Tests {
    static String jdk(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(data));
    }

    @Test
    void hashesAsTheJdkDoesAtEveryPaddingBoundary() throws Exception {
        assertEquals("da39a3ee5e6b4b0d3255bfef95601890afd80709", Sha1.hex(new byte[0]));
        assertEquals("a9993e364706816aba3e25717850c26c9cd0d89d", Sha1.hex("abc".getBytes(StandardCharsets.UTF_8)));
        for (int n = 0; n < 300; n++) {
            byte[] data = new byte[n];
            for (int i = 0; i < n; i++) {
                data[i] = (byte) (i * 31 + n);
            }
            assertEquals(jdk(data), Sha1.hex(data), "length " + n);
        }
    }

    @Test
    void namesEveryScriptAsRedisWould() throws Exception {
        for (Script s : Script.values()) {
            assertEquals(jdk(s.source().getBytes(StandardCharsets.UTF_8)), s.sha(), s.name());
        }
    }
}
