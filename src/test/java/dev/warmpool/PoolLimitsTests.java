package dev.warmpool;

import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
class PoolLimitsTests extends PoolLimitsScenarios {}
