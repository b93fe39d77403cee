package dev.warmpool.runtime.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A local pool's command is checked at PUT as its jobs' user would run it: a program that is not
 * there, or that the jobs' user may not execute (an interpreter under a root-only dir, as a
 * virtualenv under /root is for jobs that run as another uid), is refused; commands that work
 * ({@code sh -c}, an absolute interpreter, the agent's no-op) are not.
 */
@Tag("unit")
class CommandCheckTests {
    static final String PATH = "/usr/local/bin:/usr/bin:/bin";
    /** A uid that owns none of the files made here, as a processor's job uid owns none. */
    static final CommandCheck.JobUser OTHER = new CommandCheck.JobUser(1_000_123, 1_000_123);

    Path dir;

    @BeforeEach
    void makeDir() throws IOException {
        dir = Files.createTempDirectory("command-check");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @AfterEach
    void removeDir() throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    Path file(String name, String text, String perms) throws IOException {
        Path f = dir.resolve(name);
        Files.createDirectories(f.getParent());
        Files.writeString(f, text);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(perms));
        return f;
    }

    static Optional<String> check(List<String> command, CommandCheck.JobUser user) {
        return CommandCheck.problem(command, PATH, null, user);
    }

    @Test
    void commandsThatWorkAreNotRefused() {
        for (CommandCheck.JobUser user : List.of(CommandCheck.JobUser.SELF, OTHER)) {
            assertEquals(Optional.empty(), check(List.of("sh", "-c", "true"), user));
            assertEquals(Optional.empty(), check(List.of("/bin/sh", "-c", "true"), user));
            assertEquals(Optional.empty(), check(List.of("true"), user));
            assertEquals(Optional.empty(), check(List.of("warmpool:noop"), user));
            assertEquals(Optional.empty(), check(List.of("./train.sh"), user), "relative to the job's own dir");
        }
    }

    @Test
    void aProgramThatIsNotThereIsRefused() {
        assertTrue(check(List.of("no-such-program-wp", "x"), CommandCheck.JobUser.SELF)
                .orElseThrow()
                .contains("'no-such-program-wp' is not on the jobs' PATH (" + PATH + ")"));
        assertTrue(check(List.of("/opt/no/such/python3"), OTHER)
                .orElseThrow()
                .contains("'/opt/no/such/python3' does not exist"));
        assertTrue(CommandCheck.problem(List.of("bin/train"), PATH, dir.toString(), OTHER)
                .orElseThrow()
                .contains("does not exist on this machine (as " + dir.resolve("bin/train") + ")"));
    }

    @Test
    void anInterpreterUnderARootOnlyDirIsRefusedForJobsOfAnotherUser() throws IOException {
        Path python = file("private/venv/bin/python", "#!/bin/sh\necho hi\n", "rwxr-xr-x");
        Files.setPosixFilePermissions(dir.resolve("private"), PosixFilePermissions.fromString("rwx------"));
        List<String> command = List.of(python.toString(), "train.py");
        assertEquals(Optional.empty(), check(command, CommandCheck.JobUser.SELF), "the manager's user may run it");
        String why = check(command, OTHER).orElseThrow();
        assertTrue(
                why.contains("cannot be run by the jobs' user (uid 1000123): " + dir.resolve("private")
                        + " is not searchable by it (mode 0700"),
                why);

        Path script = file("train.sh", "#!" + python + "\nprint(1)\n", "rwxr-xr-x");
        String viaScript = check(List.of(script.toString()), OTHER).orElseThrow();
        assertTrue(viaScript.contains("is a script for " + python + ", which the jobs' user"), viaScript);
    }

    @Test
    void aFileTheJobsUserMayNotExecuteIsRefused() throws IOException {
        Path tool = file("tool", "#!/bin/sh\ntrue\n", "rwxr--r--");
        String why = check(List.of(tool.toString()), OTHER).orElseThrow();
        assertTrue(why.contains("may not execute " + tool + " (mode 0744)"), why);
        String onPath = CommandCheck.problem(List.of("tool"), dir.toString(), null, OTHER)
                .orElseThrow();
        assertTrue(onPath.contains("may not execute"), "found on PATH, but not runnable: " + onPath);
        Path group = file("grouped", "#!/bin/sh\ntrue\n", "rwxr-x---");
        Files.setAttribute(group, "unix:gid", OTHER.gid());
        assertEquals(Optional.empty(), check(List.of(group.toString()), OTHER), "its group may");
    }
}
