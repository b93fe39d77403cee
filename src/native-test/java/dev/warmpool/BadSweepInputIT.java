package dev.warmpool;

import dev.warmpool.api.BadSweepInputTests;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The same bad sweeps against the packaged app. */
@QuarkusIntegrationTest
class BadSweepInputIT extends BadSweepInputTests {}
