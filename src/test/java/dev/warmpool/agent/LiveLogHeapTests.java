package dev.warmpool.agent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.store.RedisServer;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.Protocol;

/** A job that prints faster than Redis takes its live log costs the agent (a 32 MB heap) a bounded part of it. */
class LiveLogHeapTests {
    static long heldAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    @Test
    void linesWaitingForAStalledRedisAreBoundedInBytesNotOnlyInCount() {
        RedisServer redis = RedisServer.ephemeral();
        try (JedisPooled admin = new JedisPooled(URI.create(redis.url()))) {
            RedisLink link = new RedisLink(redis.url(), "p", "proc-1");
            // a real Redis that runs no script for a while (EVALSHA may write): the log's writer waits on its first
            // batch
            admin.sendCommand(Protocol.Command.CLIENT, "PAUSE", "20000", "WRITE");
            LiveLog log = new LiveLog(link, "proc-1", "job-1", "t", 10_000);
            byte[] line = ("x".repeat(LiveLog.MAX_LINE - 1) + "\n").getBytes(StandardCharsets.UTF_8);
            long before = heldAfterGc();
            for (int i = 0; i < 2 * LiveLog.MAX_PENDING; i++) {
                log.bytes(line, line.length);
            }
            long held = heldAfterGc() - before;
            admin.sendCommand(Protocol.Command.CLIENT, "UNPAUSE");
            log.close();
            // 10,000 waiting lines of 8 KiB were 80 MB
            assertTrue(held < 16L << 20, "the live log held " + (held >> 20) + " MiB of waiting lines");
        } finally {
            redis.stop();
        }
    }
}
