package dev.warmpool;

import io.quarkus.test.junit.QuarkusIntegrationTest;

@QuarkusIntegrationTest
class SecurityIT extends SecurityScenarios {}
