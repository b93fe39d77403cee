package dev.warmpool.scenario;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The gang scenarios again, against the packaged application and the packaged agent jar. */
@QuarkusIntegrationTest
class GangIT extends GangScenarios {}
