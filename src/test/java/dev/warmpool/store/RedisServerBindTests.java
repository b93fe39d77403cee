package dev.warmpool.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.net.Socket;
import java.util.List;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

/** The run command's own Redis, when processors are containers, also listens where they reach the host. */
class RedisServerBindTests {

    @Test
    void aRunningRedisLearnsToListenOnAnotherAddressToo() throws Exception {
        RedisServer redis = RedisServer.ephemeral("--requirepass", "pw");
        try {
            // 127.0.0.2 stands in for the docker bridge's gateway: another local address
            assertThrows(IOException.class, () -> new Socket("127.0.0.2", redis.port()).close());
            RedisServer.bind(redis.port(), "pw", List.of("127.0.0.2"));
            try (Socket s = new Socket("127.0.0.2", redis.port())) {
                assertEquals(redis.port(), s.getPort());
            }
        } finally {
            redis.stop();
        }
    }

    @Test
    void aWrongPasswordSaysWhyTheRedisCannotServeContainers() {
        RedisServer redis = RedisServer.ephemeral("--requirepass", "pw");
        try {
            IllegalStateException e = assertThrows(
                    IllegalStateException.class, () -> RedisServer.bind(redis.port(), "wrong", List.of("127.0.0.2")));
            Assertions.assertTrue(e.getMessage().contains("for containers"), e.getMessage());
        } finally {
            redis.stop();
        }
    }
}
