package dev.warmpool.scenario;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The trial scenarios of sweeps again, against the packaged application and the packaged agent jar. */
@QuarkusIntegrationTest
class SweepTrialIT extends SweepTrialScenarios {}
