package dev.warmpool.scenario;

import io.quarkus.test.junit.QuarkusTest;

/** The gang scenarios in-process. */
@QuarkusTest
class GangTests extends GangScenarios {}
