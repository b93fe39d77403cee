package dev.warmpool.runtime.local;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Whether a local pool's command can run as its jobs' user, checked when the pool is PUT: its
 * program is there (on the jobs' {@code PATH} when it names no dir) and that user may execute it,
 * and the interpreter a script's {@code #!} line names too. A command that fails this would leave
 * processors that look idle and fail every job (exit 127, not found; 126, Permission denied).
 *
 * <p>The jobs' user is the manager's own, or, under a root manager, another uid (run-as, or one of
 * the job uids, which own no file): each dir on the way must then let that uid search it and the
 * file let it execute, by the owner, group or other bits that apply to it. A root-only dir such as
 * /root (mode 0700) stops it: a virtualenv there works for root and fails every job.
 */
final class CommandCheck {
    /** The PATH a job gets when neither the pool nor the manager sets one. */
    static final String DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

    /** A pool command the agent runs itself (the benchmarks' no-op): nothing to find. */
    static final String NOOP = "warmpool:noop";

    /** Who runs the jobs: {@link #SELF}, the manager's own user, or a uid and gid of their own. */
    record JobUser(Integer uid, Integer gid) {
        static final JobUser SELF = new JobUser(null, null);

        String describe() {
            return uid == null ? "the manager's user" : "the jobs' user (uid " + uid + ")";
        }
    }

    private CommandCheck() {}

    /**
     * Why {@code command} cannot run as {@code user}, as a sentence, or empty. {@code path}: the
     * jobs' PATH; {@code workingDir}: the pool's (a relative program with a dir in its name is
     * found from it; without one it is not checked, as the job's own dir is made per job).
     */
    static Optional<String> problem(List<String> command, String path, String workingDir, JobUser user) {
        if (command == null || command.isEmpty() || NOOP.equals(command.get(0))) {
            return Optional.empty();
        }
        String program = command.get(0);
        if (program.contains("/")) {
            Path p = Path.of(program);
            if (!p.isAbsolute()) {
                if (workingDir == null || workingDir.isBlank()) {
                    return Optional.empty();
                }
                p = Path.of(workingDir).resolve(p);
            }
            if (!Files.exists(p)) {
                return Optional.of("'" + program + "' does not exist on this machine"
                        + (p.toString().equals(program) ? "" : " (as " + p + ")")
                        + ": give the path of a program that does");
            }
            return runnable(p, program, user);
        }
        List<String> dirs = new ArrayList<>();
        for (String d : (path == null || path.isEmpty() ? DEFAULT_PATH : path).split(":")) {
            if (!d.isEmpty() && d.startsWith("/")) {
                dirs.add(d);
            }
        }
        Optional<String> first = Optional.empty();
        for (String d : dirs) {
            Path p = Path.of(d, program);
            if (Files.isRegularFile(p)) {
                Optional<String> why = runnable(p, program, user);
                if (why.isEmpty()) {
                    return why;
                }
                first = first.isPresent() ? first : why;
            }
        }
        return first.or(() -> Optional.of("'" + program + "' is not on the jobs' PATH (" + String.join(":", dirs)
                + "): install it, give its full path, or set PATH in the pool's 'env'"));
    }

    /** Why {@code user} cannot run the file {@code p} (the command's {@code program}), or empty. */
    private static Optional<String> runnable(Path p, String program, JobUser user) {
        if (!Files.isRegularFile(p)) {
            return Optional.of("'" + program + "' is not a file that can be run");
        }
        Optional<String> denied = denied(p, user, 1, "execute");
        if (denied.isPresent()) {
            return Optional.of("'" + program + "' cannot be run by " + user.describe() + ": " + denied.get());
        }
        String interpreter = interpreter(p);
        if (interpreter == null) {
            return Optional.empty();
        }
        Optional<String> unread = denied(p, user, 4, "read");
        if (unread.isPresent()) {
            return Optional.of(
                    "'" + program + "' is a script that " + user.describe() + " cannot read: " + unread.get());
        }
        Path i = Path.of(interpreter);
        if (!Files.isRegularFile(i)) {
            return Optional.of("'" + program + "' is a script for " + interpreter + ", which does not exist");
        }
        return denied(i, user, 1, "execute")
                .map(why -> "'" + program + "' is a script for " + interpreter + ", which " + user.describe()
                        + " cannot run: " + why);
    }

    /**
     * Why {@code user} lacks the permission {@code bit} (4 read, 1 execute) on the file, or search
     * on a dir on its way (as written and as resolved), or empty.
     */
    private static Optional<String> denied(Path file, JobUser user, int bit, String what) {
        if (user.uid() == null) {
            boolean ok = bit == 1 ? Files.isExecutable(file) : Files.isReadable(file);
            return ok ? Optional.empty() : Optional.of("it may not " + what + " " + file);
        }
        try {
            List<Path> dirs = new ArrayList<>();
            for (Path f : List.of(file.toAbsolutePath().normalize(), file.toRealPath())) {
                for (Path d = f.getParent(); d != null; d = d.getParent()) {
                    dirs.add(d);
                }
            }
            for (Path d : dirs) {
                if (!allows(d, user, 1)) {
                    return Optional.of(d + " is not searchable by it (mode " + mode(d) + ", owner uid " + owner(d)
                            + "): put the program where jobs can reach it (e.g. /opt or /usr/local), or let"
                            + " others search " + d + " (chmod o+x)");
                }
            }
            if (!allows(file.toRealPath(), user, bit)) {
                return Optional.of("it may not " + what + " " + file + " (mode " + mode(file.toRealPath()) + ")");
            }
            return Optional.empty();
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty(); // cannot tell here: the job will
        }
    }

    /** Whether the owner, group or other bits of {@code p} that apply to {@code user} grant {@code bit}. */
    private static boolean allows(Path p, JobUser user, int bit) throws IOException {
        int mode = (Integer) Files.getAttribute(p, "unix:mode");
        int shift = owner(p) == user.uid() ? 6 : group(p) == user.gid() ? 3 : 0;
        return (mode >> shift & bit) != 0;
    }

    private static int owner(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:uid");
    }

    private static int group(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:gid");
    }

    private static String mode(Path p) throws IOException {
        return String.format("%04o", (Integer) Files.getAttribute(p, "unix:mode") & 07777);
    }

    /** The absolute interpreter a {@code #!} line names, or null (a binary, or a line that names none). */
    static String interpreter(Path p) {
        byte[] head = new byte[256];
        int n;
        try (InputStream in = Files.newInputStream(p)) {
            n = in.readNBytes(head, 0, head.length);
        } catch (IOException e) {
            return null;
        }
        if (n < 3 || head[0] != '#' || head[1] != '!') {
            return null;
        }
        String line = new String(head, 2, n - 2, StandardCharsets.UTF_8).split("\n", 2)[0].strip();
        String first = line.split("\\s+", 2)[0];
        return first.startsWith("/") ? first : null;
    }
}
