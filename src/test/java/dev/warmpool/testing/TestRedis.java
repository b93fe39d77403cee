package dev.warmpool.testing;

import io.quarkus.test.common.QuarkusTestResource;

/** Every @QuarkusTest of the run shares one application, one redis-server and one event sink. */
@QuarkusTestResource(RedisTestResource.class)
@QuarkusTestResource(EventSinkResource.class)
public final class TestRedis {
    private TestRedis() {}
}
