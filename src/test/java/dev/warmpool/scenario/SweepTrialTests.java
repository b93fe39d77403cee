package dev.warmpool.scenario;

import io.quarkus.test.junit.QuarkusTest;

/** The trial scenarios of sweeps in-process. */
@QuarkusTest
class SweepTrialTests extends SweepTrialScenarios {}
