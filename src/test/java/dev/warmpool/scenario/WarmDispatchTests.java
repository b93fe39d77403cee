package dev.warmpool.scenario;

import io.quarkus.test.junit.QuarkusTest;

/** The dispatch scenarios in-process. */
@QuarkusTest
class WarmDispatchTests extends WarmDispatchScenarios {}
