package dev.warmpool.scenario;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The sweep scenarios again, against the packaged application and the packaged agent jar. */
@QuarkusIntegrationTest
class SweepIT extends SweepScenarios {}
