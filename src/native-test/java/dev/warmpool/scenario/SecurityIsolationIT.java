package dev.warmpool.scenario;

import io.quarkus.test.junit.QuarkusIntegrationTest;

@QuarkusIntegrationTest
class SecurityIsolationIT extends SecurityIsolationScenarios {}
