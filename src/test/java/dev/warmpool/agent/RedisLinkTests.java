package dev.warmpool.agent;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.store.RedisServer;
import dev.warmpool.store.RedisTls;
import dev.warmpool.testing.Impostor;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** An agent sends its pool user's password only to the Redis whose certificate it pins. */
class RedisLinkTests {
    static final String PASSWORD = "agent-pw-" + Long.toHexString(System.nanoTime());

    @TempDir
    Path tmp;

    @Test
    void reachesTheRedisThatPresentsThePinnedCertificate() {
        RedisTls tls = RedisTls.ensure(tmp.resolve("redis"));
        int port = RedisServer.freePort();
        RedisServer redis = RedisServer.persistent(port, tmp.resolve("redis"), PASSWORD, List.of(), tls);
        try (RedisLink link =
                new RedisLink("rediss://:" + PASSWORD + "@127.0.0.1:" + port, tls.certificatePem(), "t", "p1")) {
            assertNull(link.next(0.05), "an empty inbox, read over TLS");
        } finally {
            redis.stop();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"plain", "tls"})
    void neverSendsItsPasswordToAServerThatTookThePort(String kind) throws Exception {
        RedisTls tls = RedisTls.ensure(tmp.resolve("redis"));
        RedisTls theirs = RedisTls.ensure(tmp.resolve("theirs"));
        int port = RedisServer.freePort();
        try (Impostor impostor = "plain".equals(kind)
                        ? Impostor.plain(port)
                        : Impostor.tls(port, theirs.key(), theirs.certificate());
                RedisLink link = new RedisLink(
                        "rediss://wp-agent-t:" + PASSWORD + "@127.0.0.1:" + port, tls.certificatePem(), "t", "p1")) {
            assertThrows(Exception.class, () -> link.next(0.05));
            assertTrue(impostor.connections() >= 1, "it was asked");
            assertFalse(impostor.heard().contains(PASSWORD), "it heard the password: " + impostor.heard());
        }
    }

    @Test
    void aPlainLinkWouldHaveToldIt() throws Exception {
        // what an agent did before it pinned a certificate: the impostor records the AUTH
        int port = RedisServer.freePort();
        try (Impostor impostor = Impostor.plain(port);
                RedisLink link = new RedisLink("redis://wp-agent-t:" + PASSWORD + "@127.0.0.1:" + port, "t", "p1")) {
            assertThrows(Exception.class, () -> link.next(0.05));
            assertTrue(impostor.heard().contains(PASSWORD), impostor.heard());
        }
    }
}
