package dev.warmpool.scenario;

import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
class SecurityTests extends SecurityScenarios {}
