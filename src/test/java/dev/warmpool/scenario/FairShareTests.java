package dev.warmpool.scenario;

import io.quarkus.test.junit.QuarkusTest;

/** The fair-share scenarios in-process. */
@QuarkusTest
class FairShareTests extends FairShareScenarios {}
