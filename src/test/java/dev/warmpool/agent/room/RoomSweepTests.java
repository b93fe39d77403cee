package dev.warmpool.agent.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What readies a room for its next job without a process: the sweep of what a job left, and the end of a job's output. */
class RoomSweepTests {
    @TempDir
    Path tmp;

    /** A room's file system as bwrap makes it (its /tmp, /dev/shm, a host-/tmp link, a bind), with what a job left. */
    Path litteredRoom(String name) throws Exception {
        Path rootfs = Files.createDirectories(tmp.resolve(name));
        Path t = Files.createDirectories(rootfs.resolve("tmp"));
        Path shm = Files.createDirectories(rootfs.resolve("dev/shm"));
        for (Path d : List.of(t, shm)) {
            Files.setAttribute(d, "unix:mode", 01777);
        }
        Files.createDirectories(t.resolve(".warmpool-host-tmp/kept"));
        Files.createDirectories(t.resolve("warmpool-0/p/jobs/job-1"));
        Files.createSymbolicLink(t.resolve("proj"), Path.of("/tmp/.warmpool-host-tmp/proj"));
        Files.writeString(t.resolve("warmpool-0/p/planted"), "x");
        Files.createDirectories(t.resolve("left/deep"));
        Files.writeString(shm.resolve("seg"), "x");
        return rootfs;
    }

    static final List<String> SHOWN = List.of("--symlink", "/tmp/.warmpool-host-tmp/proj", "/tmp/proj");

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void theSweepRemovesWhatAJobLeft(boolean jobsAreOthers) throws Exception {
        Path rootfs = litteredRoom("rootfs-" + jobsAreOthers);
        Path t = rootfs.resolve("tmp");
        RoomSweep sweep = new RoomSweep(rootfs, SHOWN, List.of("/tmp/warmpool-0/p/jobs"), jobsAreOthers);
        assertTrue(sweep.clean(), sweep.why());
        assertFalse(Files.exists(t.resolve("left")));
        assertFalse(Files.exists(rootfs.resolve("dev/shm/seg")));
        assertTrue(Files.exists(t.resolve(".warmpool-host-tmp/kept")), "the host's /tmp is not the room's");
        assertTrue(Files.exists(t.resolve("warmpool-0/p/jobs/job-1")), "a bind: the agent's own");
        assertTrue(Files.isSymbolicLink(t.resolve("proj")));
        // in the dirs bwrap made on the way to a bind: only a job of the room's own user could write there
        assertEquals(jobsAreOthers, Files.exists(t.resolve("warmpool-0/p/planted")));
        Files.setAttribute(t, "unix:mode", 0777);
        assertFalse(sweep.clean(), "/tmp without its sticky bit");
    }

    @Test
    void theSweepRefusesALinkAJobOfTheRoomsOwnUserChanged() throws Exception {
        Path rootfs = litteredRoom("rootfs-link");
        Path t = rootfs.resolve("tmp");
        RoomSweep sweep = new RoomSweep(rootfs, SHOWN, List.of("/tmp/warmpool-0/p/jobs"), false);
        assertTrue(sweep.clean(), sweep.why());
        Files.delete(t.resolve("proj"));
        Files.createSymbolicLink(t.resolve("proj"), Path.of("/etc"));
        assertFalse(sweep.clean(), "a link a job changed");
    }

    @Test
    void aJobsOutputEndsAtItsOwnMarkerAndNotAtALookAlike() throws Exception {
        byte[] marker = "\001abc ".getBytes(StandardCharsets.US_ASCII);
        byte[] stream = "x\001ab\001\001abd\001abc 42\nnext job".getBytes(StandardCharsets.US_ASCII);
        for (int chunk : new int[] {1, 2, 3, 100}) {
            // the pipe hands out at most chunk bytes at a time, the marker split anywhere
            InputStream pipe = new BufferedInputStream(
                    new ByteArrayInputStream(stream) {
                        @Override
                        public synchronized int read(byte[] b, int off, int len) {
                            return super.read(b, off, Math.min(len, chunk));
                        }
                    },
                    1);
            RoomOutput out = new RoomOutput(pipe, marker);
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[64];
            int n;
            while ((n = out.read(buf, 0, buf.length)) >= 0) {
                got.write(buf, 0, n);
            }
            assertEquals("x\001ab\001\001abd", got.toString(StandardCharsets.US_ASCII), "chunk " + chunk);
            assertEquals(42, out.exitCode());
            assertEquals("next job", new String(pipe.readAllBytes(), StandardCharsets.US_ASCII));
        }
        RoomOutput cut = new RoomOutput(new ByteArrayInputStream("part\001ab".getBytes()), marker);
        assertEquals("part\001ab", new String(cut.readAllBytes()));
        assertEquals(ResidentRoom.ROOM_ENDED, cut.exitCode(), "the room's output ended: no exit code");
    }
}
