package dev.warmpool;

import io.quarkus.test.junit.QuarkusTest;

/** The sweep scenarios in-process. */
@QuarkusTest
class SweepTests extends SweepScenarios {
}
