package dev.warmpool.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.agent.room.HostTmp;
import dev.warmpool.agent.room.Sandbox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A processor's private dir goes with its processor: nothing piles up in the host's /tmp. */
class AgentDirsTests {
    @TempDir
    Path tmp;

    @Test
    void anAgentThatEndsRemovesItsProcessorsDirWithWhatItsJobsLeft() throws Exception {
        Path root = AgentDirs.newDir(tmp, "pAAAAAAAA1");
        Sandbox s = Sandbox.fromEnv(Map.of("WARMPOOL_SANDBOX", "none"), root);
        Path job = s.newJobDir("j1");
        Files.writeString(job.resolve("left.txt"), "what a job left");

        s.close();

        assertFalse(Files.exists(root), "the processor's dir");
    }

    @Test
    void theDirsOfAKilledAgentGoAndOnlyThoseWithoutFollowingItsLinks() throws Exception {
        int me = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        Path shared = Files.createDirectory(tmp.resolve(HostTmp.AGENT_DIRS + me));
        Path killed = Files.createDirectories(shared.resolve("pAAAAAAAA1123").resolve("jobs/job-1"));
        Path fallback = Files.createDirectory(tmp.resolve(HostTmp.AGENT_DIRS + "pAAAAAAAA1456"));
        Path other = Files.createDirectory(shared.resolve("pBBBBBBBB1789"));
        Path gangMember = Files.createDirectory(shared.resolve("pAAAAAAAA1-w0789"));
        Path outside =
                Files.writeString(Files.createDirectory(tmp.resolve("outside")).resolve("keep"), "keep");
        Files.createSymbolicLink(killed.resolve("link"), outside.getParent());

        assertEquals(2, AgentDirs.removeOf(tmp, "pAAAAAAAA1"));

        assertFalse(Files.exists(shared.resolve("pAAAAAAAA1123")));
        assertFalse(Files.exists(fallback));
        assertTrue(Files.isDirectory(other), "another processor's dir");
        assertTrue(Files.isDirectory(gangMember), "another processor's dir, whose id starts with this one's");
        assertTrue(Files.exists(outside), "what a link in the dir points to");
    }
}
