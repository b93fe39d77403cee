package dev.warmpool.events;

import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.TestProfile;

/** The CloudEvents scenarios against the packaged app and the packaged agent. */
@QuarkusIntegrationTest
@TestProfile(EventScenarios.QuietReconciler.class)
class EventsIT extends EventScenarios {}
