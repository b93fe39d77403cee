package dev.warmpool.scenario;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The end-to-end scenarios again, against the packaged application and the packaged agent jar. */
@QuarkusIntegrationTest
class WarmDispatchIT extends WarmDispatchScenarios {}
