package dev.warmpool.events;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

@QuarkusTest
@TestProfile(EventScenarios.QuietReconciler.class)
class EventsTests extends EventScenarios {}
