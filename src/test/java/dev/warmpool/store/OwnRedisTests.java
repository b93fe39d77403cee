package dev.warmpool.store;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.testing.Impostor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/** The run command's own Redis speaks TLS only, proves itself before it hears a password, and comes back when it dies. */
class OwnRedisTests {
    static final String PASSWORD = "pw-" + Long.toHexString(System.nanoTime());

    @TempDir
    Path tmp;

    static Jedis pinnedClient(int port, RedisTls tls) {
        return new Jedis(
                new HostAndPort("127.0.0.1", port),
                DefaultJedisClientConfig.builder()
                        .ssl(true)
                        .sslSocketFactory(tls.pinned().socketFactory())
                        .password(PASSWORD)
                        .build());
    }

    @Test
    void makesItsKeyAndCertificateOnceAndKeepsThemPrivate() throws Exception {
        RedisTls tls = RedisTls.ensure(tmp.resolve("redis"));
        String cert = tls.certificatePem();
        assertTrue(cert.startsWith("-----BEGIN CERTIFICATE-----"), cert);
        assertTrue(Files.readString(tls.key()).startsWith("-----BEGIN PRIVATE KEY-----"));
        for (Path p : List.of(tls.key(), tls.certificate())) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)), p.toString());
        }
        assertEquals(cert, RedisTls.ensure(tmp.resolve("redis")).certificatePem(), "kept, not made again");
        assertNotEquals(cert, RedisTls.ensure(tmp.resolve("other")).certificatePem(), "each install its own");
    }

    @Test
    void listensForTlsOnlyAndAnswersAClientThatPinsItsCertificate() {
        RedisTls tls = RedisTls.ensure(tmp.resolve("redis"));
        int port = RedisServer.freePort();
        RedisServer redis = RedisServer.persistent(port, tmp.resolve("redis"), PASSWORD, List.of(), tls);
        try (Jedis jedis = pinnedClient(port, tls)) {
            assertEquals("rediss://127.0.0.1:" + port, redis.url());
            assertEquals("PONG", jedis.ping());
            assertFalse(RedisServer.ping(port), "no plain TCP on its port");
        } finally {
            redis.stop();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"plain", "tls"})
    void aServerThatTookThePortFailsTheHandshakeAndHearsNoPassword(String kind) throws Exception {
        RedisTls tls = RedisTls.ensure(tmp.resolve("redis"));
        RedisTls theirs = RedisTls.ensure(tmp.resolve("theirs"));
        int port = RedisServer.freePort();
        try (Impostor impostor =
                "plain".equals(kind) ? Impostor.plain(port) : Impostor.tls(port, theirs.key(), theirs.certificate())) {
            IllegalStateException e = assertThrows(
                    IllegalStateException.class,
                    () -> RedisServer.persistent(port, tmp.resolve("redis"), PASSWORD, List.of("127.0.0.2"), tls));
            assertTrue(e.getMessage().contains("will not use a Redis it did not start"), e.getMessage());
            assertThrows(Exception.class, () -> {
                try (Jedis jedis = pinnedClient(port, tls)) {
                    jedis.ping();
                }
            });
            assertTrue(impostor.connections() >= 2, "it was asked");
            assertFalse(impostor.heard().contains(PASSWORD), "it heard the password: " + impostor.heard());
            assertFalse(impostor.heard().contains("AUTH"), impostor.heard());
        }
    }

    @Test
    void thePlainRedisOfAnOlderInstallIsNamedAsSuch() {
        Path dir = tmp.resolve("redis");
        int port = RedisServer.freePort();
        RedisServer older = RedisServer.persistent(port, dir, PASSWORD);
        try {
            IllegalStateException e = assertThrows(
                    IllegalStateException.class,
                    () -> RedisServer.persistent(port, dir, PASSWORD, List.of(), RedisTls.ensure(dir)));
            assertTrue(e.getMessage().contains("without TLS (an older warmpool's)"), e.getMessage());
        } finally {
            older.stop();
        }
    }

    @Test
    void startsItsRedisAgainWhenItExitsWithItsDataAndItsPassword() throws Exception {
        Path dir = tmp.resolve("redis");
        RedisTls tls = RedisTls.ensure(dir);
        int port = RedisServer.freePort();
        OwnRedis own = OwnRedis.start(port, dir, PASSWORD, List.of(), tls);
        try {
            try (Jedis jedis = pinnedClient(port, tls)) {
                jedis.set("kept", "yes");
            }
            for (boolean kill : new boolean[] {false, true}) {
                RedisServer before = own.server();
                Process p = before.process().orElseThrow();
                if (kill) {
                    p.destroyForcibly(); // SIGKILL: the AOF of a second ago survives
                } else {
                    p.destroy(); // SIGTERM: it writes its AOF and exits
                }
                await().atMost(Duration.ofSeconds(30))
                        .until(() ->
                                own.server() != before && RedisServer.answer(port, tls) == RedisServer.Answer.REDIS);
                try (Jedis jedis = pinnedClient(port, tls)) {
                    assertEquals("yes", jedis.get("kept"), "the same data, the same password");
                }
            }
        } finally {
            own.forget();
            own.server().stop();
        }
    }
}
