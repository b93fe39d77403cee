package dev.warmpool.scenario;

import io.quarkus.test.junit.QuarkusIntegrationTest;

@QuarkusIntegrationTest
class SecurityIT extends SecurityScenarios {}
