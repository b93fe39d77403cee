package dev.warmpool.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.pool.Job;
import dev.warmpool.protocol.JobState;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Who reads a job's details, under both settings of warmpool.auth.job-details. */
@Tag("unit")
class JobReadersTests {
    static final Caller ALICE = new Caller("alice", Set.of("submitter"));
    static final Caller BOB = new Caller("bob", Set.of("submitter"));
    static final Caller CAROL = new Caller("carol", Set.of("submitter", "team-a"));
    static final Caller VERA = new Caller("vera", Set.of("viewer"));
    static final Caller ADMIN = new Caller("root", Set.of("admin"));

    static Job job(String tenant) throws Exception {
        return new Job(
                "j1",
                "p",
                JobState.SUCCEEDED,
                0,
                1,
                1,
                null,
                null,
                null,
                null,
                null,
                null,
                List.of("--key", "arg-secret"),
                new ObjectMapper().readTree("{\"token\": \"cfg-secret\", \"nested\": {\"list\": [1, \"x\"]}}"),
                Map.of("WANDB_API_KEY", "env-secret"),
                new Job.Result(0, new ObjectMapper().readTree("{\"loss\": 0.1}"), "printed-secret"),
                null,
                null,
                null,
                null,
                null,
                "alice",
                tenant);
    }

    @Test
    void bySubmitterOnlyItsSubmitterItsGroupAndAdminsRead() throws Exception {
        JobReaders readers = new JobReaders(false);
        Job own = job("alice");
        Job grouped = job("team-a");
        for (Caller c : List.of(ALICE, ADMIN)) {
            assertTrue(readers.mayRead(own, c), c.name());
        }
        for (Caller c : List.of(BOB, VERA, CAROL)) {
            assertFalse(readers.mayRead(own, c), c.name() + ": alice is a tenant of her own, no group's");
        }
        assertTrue(readers.mayRead(grouped, CAROL), "carol is in team-a, the job's tenant");
        assertFalse(readers.mayRead(grouped, BOB));
        Refusal r = assertThrows(Refusal.class, () -> readers.checkMayRead(own, BOB, "logs"));
        assertEquals(Refusal.Kind.FORBIDDEN, r.kind());
    }

    @Test
    void aReaderWhoMayNotSeesNoValueTheJobWasGivenOrPrinted() throws Exception {
        Job shown = new JobReaders(false).shownTo(job("alice"), BOB);
        String text = new ObjectMapper().writeValueAsString(shown);
        for (String secret : List.of("cfg-secret", "arg-secret", "env-secret", "printed-secret")) {
            assertFalse(text.contains(secret), secret + " in " + text);
        }
        assertEquals("***", shown.config().get("token").asText());
        assertEquals("***", shown.config().at("/nested/list/1").asText());
        assertEquals(List.of("***", "***"), shown.args());
        assertNull(shown.result().logTail());
        assertEquals(0.1, shown.result().metrics().get("loss").asDouble(), "metrics are the job's outcome, kept");
        assertEquals(
                "cfg-secret",
                new JobReaders(false)
                        .shownTo(job("alice"), ALICE)
                        .config()
                        .get("token")
                        .asText());
        assertFalse(new ObjectMapper()
                .writeValueAsString(new JobReaders(false).shownToAll(job("alice")))
                .contains("printed-secret"));
    }

    @Test
    void byEveryoneEveryReaderSeesDetailsButEnvValuesStayTheSubmitters() throws Exception {
        JobReaders readers = new JobReaders(true);
        for (Caller c : List.of(ALICE, BOB, CAROL, VERA, ADMIN)) {
            assertTrue(readers.mayRead(job("alice"), c), c.name());
        }
        Job shown = readers.shownTo(job("alice"), VERA);
        assertEquals("cfg-secret", shown.config().get("token").asText());
        assertEquals("printed-secret", shown.result().logTail());
        assertEquals("***", shown.env().get("WANDB_API_KEY"));
        assertEquals("printed-secret", readers.shownToAll(job("alice")).result().logTail());
        assertEquals("***", readers.shownToAll(job("alice")).env().get("WANDB_API_KEY"));
    }
}
