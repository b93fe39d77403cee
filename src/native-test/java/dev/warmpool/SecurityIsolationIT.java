package dev.warmpool;

import io.quarkus.test.junit.QuarkusIntegrationTest;

@QuarkusIntegrationTest
class SecurityIsolationIT extends SecurityIsolationScenarios {}
