package dev.warmpool;

import io.quarkus.test.common.QuarkusTestResource;

/** Every @QuarkusTest of the run shares one application and one redis-server. */
@QuarkusTestResource(RedisTestResource.class)
public final class TestRedis {
    private TestRedis() {
    }
}
