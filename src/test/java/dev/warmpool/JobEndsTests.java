package dev.warmpool;

import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.warmpool.service.JobEnds;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.TimeoutException;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** A waiter wakes on the job-end message, long before its pause is over. */
@QuarkusTest
class JobEndsTests {
    @Inject
    JobEnds ends;
    @ConfigProperty(name = "quarkus.redis.hosts")
    String redisUrl;

    @Test
    void wakesAWaiterWhenItsJobsEndIsPublished() {
        JobEnds.Listener listener = ends.listen("ends.01m8zzzzzzaaaaaaaa");
        try (Jedis j = new Jedis(URI.create(redisUrl))) {
            // publish until the subscription (made at start-up) is surely there
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                    .until(() -> j.publish("wp:{ends}:ends", "ends.01m8zzzzzzaaaaaaaa") > 0);
        }
        listener.endOrPause(Duration.ofMinutes(5)).await().atMost(Duration.ofSeconds(10));
    }

    @Test
    void aWaiterForAnotherJobSleepsOn() {
        JobEnds.Listener listener = ends.listen("ends.01m8zzzzzzbbbbbbbb");
        try (Jedis j = new Jedis(URI.create(redisUrl))) {
            j.publish("wp:{ends}:ends", "ends.01m8zzzzzzcccccccc");
        }
        assertThrows(TimeoutException.class, () -> listener.endOrPause(Duration.ofMinutes(5)).await().atMost(Duration.ofMillis(500)));
        listener.stop();
    }
}
