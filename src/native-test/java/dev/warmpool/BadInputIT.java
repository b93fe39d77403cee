package dev.warmpool;

import dev.warmpool.api.BadInputTests;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/** Every bad input again, against the packaged application. */
@QuarkusIntegrationTest
class BadInputIT extends BadInputTests {}
