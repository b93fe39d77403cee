package dev.warmpool.agent;

import dev.warmpool.agent.io.AgentLog;
import dev.warmpool.agent.room.HostTmp;
import dev.warmpool.agent.room.Sandbox;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Where agents keep their processors' private dirs (each job's dir is made in one, see {@link Sandbox}). */
public final class AgentDirs {
    private AgentDirs() {}

    /**
     * A new private dir for the processor {@code processorId}, under one dir of the agent's user
     * in /tmp ({@code warmpool-<uid>}, 0711) that all its agents share, so that a job's sandbox
     * hides every agent's dir with one mount (and agents that ended leave nothing more in /tmp).
     * When that dir is not safe to use (another user made it, a link), the private dir is made
     * in /tmp as before.
     */
    static Path newRoot(String processorId) throws IOException {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try {
            int me = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            Path parent = tmp.resolve(HostTmp.AGENT_DIRS + me);
            try {
                Files.createDirectory(parent);
                Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwx--x--x"));
            } catch (FileAlreadyExistsException e) {
                // made by an agent before: checked below
            }
            if (Files.isDirectory(parent, LinkOption.NOFOLLOW_LINKS)
                    && (Integer) Files.getAttribute(parent, "unix:uid", LinkOption.NOFOLLOW_LINKS) == me
                    && Files.getPosixFilePermissions(parent, LinkOption.NOFOLLOW_LINKS)
                            .equals(PosixFilePermissions.fromString("rwx--x--x"))) {
                Path root = newDir(parent, processorId);
                // off the agent's start: a few seconds after it, at the lowest priority
                Thread sweep = new Thread(
                        () -> {
                            try {
                                Thread.sleep(SWEEP_AFTER_MILLIS);
                                removeLeftovers(tmp, parent, me);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "leftovers");
                sweep.setDaemon(true);
                sweep.setPriority(Thread.MIN_PRIORITY);
                sweep.start();
                return root;
            }
            AgentLog.log("%s is not this user's own (0711): the processor's dir goes in %s", parent, tmp);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            AgentLog.log(
                    "no shared dir for the agents in %s (%s): the processor's dir goes there", tmp, e.getMessage());
        }
        return Files.createTempDirectory(HostTmp.AGENT_DIRS + processorId);
    }

    /**
     * A new dir {@code <prefix><number>} in {@code parent}, 0700, as {@link Files#createTempDirectory}
     * makes one but without its {@code SecureRandom}, whose set-up (the security providers) took
     * about 20-40 ms of an agent's start. Its name need not be unguessable: no other user can
     * create anything in {@code parent} (0711, this user's), and the dir itself is 0700.
     */
    static Path newDir(Path parent, String prefix) throws IOException {
        FileAttribute<?> own = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
        long n = System.nanoTime() ^ (ProcessHandle.current().pid() << 32);
        for (int i = 0; ; i++) {
            try {
                return Files.createDirectory(parent.resolve(prefix + Long.toUnsignedString(n + i)), own);
            } catch (FileAlreadyExistsException e) {
                if (i >= 100) {
                    throw e;
                }
            }
        }
    }

    /**
     * Removes the empty dirs that agents of this user which are gone left in {@code tmp} (agents
     * before the shared dir made theirs there and never removed them) and in {@code parent}: each
     * is one more entry to look at for every job's sandbox. A dir is an agent's while a live
     * process has its processor id (read from the command lines in /proc) or it changed in the
     * last {@link #LEFTOVER_AGE}; only empty dirs go ({@code delete} fails on any other, so what a
     * killed agent's job left stays, hidden).
     */
    static void removeLeftovers(Path tmp, Path parent, int me) {
        // first the candidates (cheap): only when there are any are the command lines in /proc read
        Instant before = Instant.now().minus(LEFTOVER_AGE);
        Map<Path, String> candidates = new HashMap<>();
        for (Path[] where : new Path[][] {{tmp, Path.of(HostTmp.AGENT_DIRS)}, {parent, Path.of("")}}) {
            String prefix = where[1].toString();
            try (Stream<Path> dirs = Files.list(where[0])) {
                dirs.filter(d -> d.getFileName().toString().startsWith(prefix) && !d.equals(parent))
                        .filter(d -> old(d, me, before))
                        .forEach(d ->
                                candidates.put(d, d.getFileName().toString().substring(prefix.length())));
            } catch (IOException | RuntimeException e) {
                // nothing to tidy there
            }
        }
        if (candidates.isEmpty()) {
            return;
        }
        List<String> live;
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            live = procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .flatMap(p -> {
                        try {
                            String cmd = Files.readString(p.resolve("cmdline"), StandardCharsets.ISO_8859_1);
                            return Stream.of(cmd.split("\0"))
                                    .filter(a -> a.startsWith(PROCESSOR_ARG))
                                    .map(a -> a.substring(PROCESSOR_ARG.length()));
                        } catch (IOException | RuntimeException e) {
                            return Stream.empty();
                        }
                    })
                    .filter(id -> !id.isEmpty())
                    .toList();
        } catch (IOException | RuntimeException e) {
            return;
        }
        candidates.forEach((d, rest) -> {
            if (live.stream().noneMatch(rest::startsWith)) {
                try {
                    Files.delete(d);
                } catch (IOException | RuntimeException e) {
                    // not empty, or gone already: left as it is
                }
            }
        });
    }

    /**
     * Removes the private dirs of processor {@code processorId} that an agent of this user left in
     * {@code tmp} (its {@code java.io.tmpdir}): an agent removes its own as it ends, this is for one
     * that was killed (the local runtime calls it when its agent exits, {@code stop} after its
     * agents). Links are removed, never followed. Returns how many dirs went.
     */
    public static int removeOf(Path tmp, String processorId) {
        Pattern mine = Pattern.compile(Pattern.quote(processorId) + "[0-9]+");
        int removed = 0;
        List<Path> where = new ArrayList<>(List.of(tmp));
        try {
            where.add(tmp.resolve(HostTmp.AGENT_DIRS + Files.getAttribute(Path.of("/proc/self"), "unix:uid")));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            // no shared dir on this system: only the fallback's dirs in tmp
        }
        for (Path parent : where) {
            String prefix = parent.equals(tmp) ? HostTmp.AGENT_DIRS : "";
            try (Stream<Path> dirs = Files.list(parent)) {
                for (Path d : dirs.filter(d -> d.getFileName().toString().startsWith(prefix)
                                && mine.matcher(d.getFileName().toString().substring(prefix.length()))
                                        .matches()
                                && Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS))
                        .toList()) {
                    Sandbox.remove(d);
                    removed += Files.exists(d, LinkOption.NOFOLLOW_LINKS) ? 0 : 1;
                }
            } catch (IOException | RuntimeException e) {
                // nothing of it there
            }
        }
        return removed;
    }

    /** A dir of this user's, untouched since {@code before}. */
    private static boolean old(Path d, int me, Instant before) {
        try {
            return Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)
                    && (Integer) Files.getAttribute(d, "unix:uid", LinkOption.NOFOLLOW_LINKS) == me
                    && Files.getLastModifiedTime(d, LinkOption.NOFOLLOW_LINKS)
                            .toInstant()
                            .isBefore(before);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * A dir untouched this long (a job's dir made or removed in it touches it) is a leftover when
     * no live process names its processor: an agent run inside another program (a test) names none.
     */
    static final Duration LEFTOVER_AGE = Duration.ofMinutes(10);

    private static final long SWEEP_AFTER_MILLIS = 5_000;

    /** The agent's command line names its processor so (see the local runtime). */
    private static final String PROCESSOR_ARG = "-Dwarmpool.processor=";
}
