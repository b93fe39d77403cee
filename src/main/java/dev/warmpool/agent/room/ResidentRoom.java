package dev.warmpool.agent.room;

import dev.warmpool.agent.io.AgentLog;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * A processor's room: one {@code wp-room} (src/main/c/wp-room.c), the room's init, started once per
 * processor, that runs each job on request. Locally it runs in one {@code bwrap} per processor as
 * the PID namespace's init ({@code --as-pid-1}); in a container (the container is the room) it is
 * the agent's child. A bwrap per job cost 8-12 ms of namespace and mount set-up, and a sh launcher
 * with an {@code unshare} per job 2.9 ms of CPU; here a job costs the init's fork and the job's exec.
 *
 * <p>What each job gets of its own, from the init: its session, the jobs' uid (a uid of the
 * processor's own for a root agent, see {@link JobUids}; the agent's own in an unprivileged room,
 * where only the namespace keeps them apart) with no supplementary groups, no capabilities and
 * no-new-privs, a new session keyring, stdin from /dev/null. When it ends the init kills every
 * other process of the room (the PID namespace's init's {@code kill(-1)}; in a container a
 * sweeper of the jobs' uid), reaps to ECHILD, removes the SysV objects, the jobs' user's keyrings
 * and what the jobs made in /tmp, /dev/shm, /dev/mqueue (and /var/tmp in a container), and only
 * then reports the end: what one job leaves never reaches the next. The init is not dumpable, so a
 * job of the agent's own uid cannot read its memory or pipes either. When the jobs share the
 * room's user, {@link RoomSweep} also checks what bwrap made; a room it cannot prove clean is
 * discarded, and so is a room whose host /tmp view changed ({@link HostTmp}).
 *
 * <p>Requests are framed ({@code <length>\n} then NUL-terminated fields), so nothing a job's
 * arguments or env hold is parsed as a command; the job's output is the init's own stdout, read
 * here up to {@code \001<nonce> <exit code>} (the nonce never reaches the job: it cannot end its
 * log early). Only the agent's job thread uses a room, one job at a time; {@link #signal} comes
 * from the loop.
 */
public final class ResidentRoom {
    /** What the init empties of the jobs' files after each job, in a bwrap room and in a container. */
    static final List<String> BWRAP_WIPED = List.of("/tmp", "/dev/shm", "/dev/mqueue");

    static final List<String> CONTAINER_WIPED = List.of("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue");

    /** The exit code {@link RoomOutput#exitCode} gives when the room ended while the job ran. */
    public static final int ROOM_ENDED = -2;

    /** The starts of every room: bwrap's --die-with-parent fires when the forking thread ends (see the agent's {@code Worker}). */
    private static final ExecutorService STARTER = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "room-launcher");
        t.setDaemon(true);
        return t;
    });

    /**
     * The kernel's random source, read directly for each job's nonce: a {@code SecureRandom}'s
     * set-up (the security providers) put 20-40 ms on each processor's first job, what the agent's
     * start was spared of (see {@code AgentDirs.newDir}). Opened once, shared by the rooms of this JVM.
     */
    private static InputStream urandom;

    private final Sandbox sandbox;
    private final String init;
    private Process bwrap;
    private volatile ProcessHandle launcher;
    private OutputStream requests;
    private InputStream output;
    private RoomSweep sweep;
    private List<String> shown;
    private String workingDir;
    private FileTime tmpStamp;
    private volatile boolean broken;
    /** A room whose init ended under a job, or after it (it could not clear the room): in a container, not trusted again. */
    private volatile boolean ended;
    /** In a container: ends the jobs' processes once the init has exited; a new room waits for it. */
    private CompletableFuture<Void> reaper;

    private long rooms;
    private RoomNetwork network;

    private ResidentRoom(Sandbox sandbox, String init) {
        this.sandbox = sandbox;
        this.init = init;
    }

    /** A room for {@code sandbox}'s jobs run by the init at {@code init}, or empty (and why, logged) when there is none. */
    static Optional<ResidentRoom> of(Sandbox sandbox, String init) {
        if (init == null || init.isBlank() || !Files.isExecutable(Path.of(init))) {
            AgentLog.log(
                    "no room init (WARMPOOL_ROOM_INIT=%s is not an executable): %s",
                    init, sandbox.bwrap() ? "a bwrap per job" : "each job in a session of its own");
            return Optional.empty();
        }
        return Optional.of(new ResidentRoom(sandbox, init));
    }

    public static Optional<String> onPath(String name, String path) {
        for (String d : (path == null || path.isBlank() ? "/usr/bin:/bin" : path).split(":")) {
            Path p = Path.of(d.isEmpty() ? "." : d, name);
            if (!d.isEmpty() && Files.isExecutable(p) && Sandbox.reachableByOthers(p.getParent())) {
                return Optional.of(p.toString());
            }
        }
        return Optional.empty();
    }

    /** False once a room could not be set up here: then every job gets a bwrap of its own. */
    boolean usable() {
        return !broken;
    }

    /**
     * In a container, a room that could not be set up or whose init ended cannot be proven clean by
     * a new init in the same container (what the jobs' uid left there may be what stopped it): the
     * processor is replaced, a new container being a clean room. Never true for a bwrap room.
     */
    boolean lost() {
        return !sandbox.bwrap() && (broken || ended);
    }

    /** How many rooms this processor has started (a test sees a replaced room so). */
    public synchronized long started() {
        return rooms;
    }

    /** Whether the host's /tmp listing is kept until /tmp changes (a test sees a settled one so). */
    public synchronized boolean listingKept() {
        return tmpStamp != null;
    }

    /** The room's bwrap, or -1 when none is up. */
    public synchronized long pid() {
        return bwrap == null ? -1 : bwrap.pid();
    }

    /**
     * Makes sure a live room for a job in {@code workingDir} is up, showing the host's /tmp as
     * it is now: false (logged once) when none can be set up, and the job should run the old way.
     */
    synchronized boolean ready(String workingDir) {
        if (broken) {
            return false;
        }
        List<String> now = shownNow();
        if (bwrap != null
                && (!bwrap.isAlive()
                        || !Objects.equals(workingDir, this.workingDir)
                        || !(now.equals(shown) || relinked(now)))) {
            discard();
        }
        if (bwrap != null) {
            return true;
        }
        for (int attempt = 1; ; attempt++) {
            try {
                start(workingDir, now);
                return true;
            } catch (IOException | RuntimeException e) {
                discard();
                if (attempt >= START_ATTEMPTS) {
                    broken = true;
                    AgentLog.log(
                            "could not set up the resident sandbox (%s): from now on a bwrap per job", e.getMessage());
                    return false;
                }
                // most often an entry of the host's /tmp that went away between its listing and
                // bwrap's mount over it (another processor's dir): a fresh listing does not have it
                AgentLog.log("the room did not start (%s): trying again", e.getMessage());
                tmpStamp = null;
                now = shownNow();
            }
        }
    }

    /**
     * The host's /tmp changed only in what the room links (an entry came, one went) and hides the
     * same: the live room's /tmp gets the new links and loses the old ones, made by the agent
     * through the init's root while no job runs, instead of a new room (on a busy host a room
     * was replaced every few seconds, each a bwrap's start and a race with the entries it hides).
     * Only where the jobs are another user than the agent: they cannot have touched the room's
     * links (root's, in a sticky /tmp); where they share the agent's user, its clean-up and its
     * sweep hold the room to what bwrap made, and a new room is the way. False: replace the room.
     */
    private boolean relinked(List<String> now) {
        if (shown == null || sandbox.uid() == null || launcher == null) {
            return false;
        }
        HostTmp.Parts was = HostTmp.Parts.of(shown);
        HostTmp.Parts is = HostTmp.Parts.of(now);
        if (!was.hiding().equals(is.hiding())) {
            return false;
        }
        Path root = Path.of("/proc", Long.toString(launcher.pid()), "root");
        try {
            for (Map.Entry<String, String> gone : was.links().entrySet()) {
                if (!gone.getValue().equals(is.links().get(gone.getKey()))) {
                    Files.deleteIfExists(inRoom(root, gone.getKey()));
                }
            }
            for (Map.Entry<String, String> link : is.links().entrySet()) {
                if (!link.getValue().equals(was.links().get(link.getKey()))) {
                    Files.createSymbolicLink(inRoom(root, link.getKey()), Path.of(link.getValue()));
                }
            }
        } catch (IOException | RuntimeException e) {
            AgentLog.log("the room's links to the host's /tmp could not follow it (%s): a new room", e.getMessage());
            return false;
        }
        shown = now;
        return true;
    }

    /** {@code path} (/tmp/name) in the room whose root is {@code root}: one name in its /tmp, never a deeper path. */
    private static Path inRoom(Path root, String path) throws IOException {
        Path p = Path.of(path);
        if (p.getNameCount() != 2 || !p.startsWith("/tmp")) {
            throw new IOException("not an entry of /tmp: " + path);
        }
        return root.resolve("tmp").resolve(p.getFileName().toString());
    }

    /** A room start that failed is tried again this often in all, the host's /tmp listed anew each time. */
    static final int START_ATTEMPTS = 3;

    /** The host's /tmp entries as a new room would show them: re-read only when /tmp changed (none in a container). */
    private List<String> shownNow() {
        if (!sandbox.bwrap()) {
            return List.of();
        }
        FileTime stamp;
        try {
            stamp = Files.getLastModifiedTime(Path.of("/tmp"));
        } catch (IOException e) {
            stamp = null;
        }
        if (shown != null && stamp != null && stamp.equals(tmpStamp)) {
            return shown;
        }
        List<String> now = HostTmp.shown(HostTmp.ownEntry(sandbox.root()));
        // a change within the file system's clock tick keeps the stamp: trust only a settled one
        boolean settled = stamp != null && System.currentTimeMillis() - stamp.toMillis() > 200;
        tmpStamp = settled && now.equals(shown) ? stamp : null;
        return now;
    }

    private void start(String workingDir, List<String> now) throws IOException {
        List<String> command = new ArrayList<>();
        if (sandbox.bwrap()) {
            Files.createDirectories(sandbox.jobsDir());
            command.addAll(sandbox.roomCommand(now, workingDir));
        }
        command.add(init);
        if (sandbox.uid() != null) {
            command.addAll(List.of(
                    "--uid", sandbox.uid().toString(), "--gid", sandbox.gid().toString()));
        }
        for (String dir : sandbox.bwrap() ? BWRAP_WIPED : CONTAINER_WIPED) {
            command.addAll(List.of("--wipe", dir));
        }
        if (!sandbox.bwrap() && rooms > 0) {
            // in a container an earlier room of this processor ended: its jobs' leftovers go first
            // (not at the first room: a persistent worker of the jobs' uid may be running beside it)
            command.add("--sweep-first");
        }
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().clear(); // the init's jobs get theirs from scratch
        AtomicReference<Process> starting = new AtomicReference<>();
        Future<Process> f = STARTER.submit(() -> {
            Process p = pb.start();
            starting.set(p);
            BufferedInputStream in = new BufferedInputStream(p.getInputStream());
            String first = line(in);
            if (!"ready".equals(first)) {
                String said = first + rest(in); // before the destroy, which closes the stream
                p.destroyForcibly();
                throw new IOException("the room said: " + said);
            }
            output = in;
            return p;
        });
        try {
            bwrap = f.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IOException(e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            f.cancel(true);
            Process p = starting.get();
            if (p != null) {
                p.destroyForcibly(); // not left running behind a room given up on
            }
            throw new IOException("the room's init did not start within 10 s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
        RoomLimits.processor().apply(bwrap.pid()); // the pool's cpu, memory and pids bounds, before any job
        requests = bwrap.getOutputStream();
        if (!sandbox.bwrap() && sandbox.uid() != null) {
            // in a container the jobs outlive an init that died (no PID namespace ends them), and
            // one of them holding the output would keep the agent reading: they go with it
            int jobs = sandbox.uid();
            reaper = bwrap.onExit().thenRunAsync(() -> endAllOf(jobs));
        }
        // bwrap -> the init (pid 1 of the room, --as-pid-1); in a container the init is the agent's child
        launcher = sandbox.bwrap()
                ? bwrap.toHandle().children().findFirst().orElseThrow(() -> new IOException("no init"))
                : bwrap.toHandle();
        network = sandbox.bwrap() ? sandbox.attach(launcher.pid()) : null; // outbound: slirp4netns, ended with the init
        sweep = null;
        if (sandbox.bwrap() && sandbox.uid() == null) {
            // the jobs share the room's user: they could change what bwrap made, so it is checked after each
            sweep = new RoomSweep(
                    Path.of("/proc", Long.toString(launcher.pid()), "root"),
                    now,
                    sandbox.roomMounts(workingDir),
                    false);
            if (!sweep.clean()) {
                throw new IOException("a new room is not as expected: " + sweep.why());
            }
        }
        this.workingDir = workingDir;
        this.shown = now;
        rooms++;
        AgentLog.log("room up (%s pid %d)", sandbox.bwrap() ? "bwrap" : "wp-room", bwrap.pid());
    }

    /** Kills every process of {@code uid} this agent can see (a container's jobs whose room's init died). */
    static void endAllOf(int uid) {
        for (int round = 0; round < 20; round++) {
            List<ProcessHandle> left;
            try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
                left = procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                        .filter(p -> owner(p) == uid)
                        .map(p ->
                                ProcessHandle.of(Long.parseLong(p.getFileName().toString())))
                        .flatMap(Optional::stream)
                        .toList();
            } catch (IOException | RuntimeException e) {
                AgentLog.log("could not end the jobs of a room whose init ended: %s", e.getMessage());
                return;
            }
            if (left.isEmpty()) {
                return;
            }
            left.forEach(ProcessHandle::destroyForcibly);
        }
    }

    private static int owner(Path proc) {
        try {
            return (Integer) Files.getAttribute(proc, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | RuntimeException e) {
            return -1; // gone meanwhile
        }
    }

    /** What a room that failed to start said after its first line, as far as it is there now (no wait). */
    private static String rest(InputStream in) {
        try {
            return new String(in.readNBytes(Math.min(2000, in.available())), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n' && b.length() < 4000) {
            b.append((char) c);
        }
        return b.toString();
    }

    /**
     * Starts a job: {@code command} in {@code cwd} with exactly {@code env}. The returned stream is
     * its output (stdout and stderr), which ends once the job and all it started are gone; then
     * {@link RoomOutput#exitCode} is the job's (128 + the signal that killed it), or {@link #ROOM_ENDED}.
     */
    public synchronized RoomOutput launch(List<String> command, Map<String, String> env, String cwd)
            throws IOException {
        String nonce = HexFormat.of().formatHex(bytes(16));
        byte[] request = request(nonce, cwd, command, env);
        RoomOutput out = new RoomOutput(output, ("\001" + nonce + " ").getBytes(StandardCharsets.US_ASCII));
        try {
            requests.write(request);
            requests.flush();
        } catch (IOException e) {
            discard();
            throw e;
        }
        return out;
    }

    /** One request to the init: {@code <length>\n}, then nonce, dir, argc, argv, envc, env, each NUL-terminated. */
    static byte[] request(String nonce, String cwd, List<String> command, Map<String, String> env) throws IOException {
        List<String> fields = new ArrayList<>();
        fields.add(nonce);
        fields.add(cwd);
        fields.add(Integer.toString(command.size()));
        fields.addAll(command);
        fields.add(Integer.toString(env.size()));
        env.forEach((k, v) -> fields.add(k + "=" + v));
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (String field : fields) {
            if (field.indexOf('\0') >= 0) {
                throw new IOException(
                        "an argument or environment value holds a NUL character, which no program can be given");
            }
            body.writeBytes(field.getBytes(StandardCharsets.UTF_8));
            body.write(0);
        }
        ByteArrayOutputStream framed = new ByteArrayOutputStream(body.size() + 12);
        framed.writeBytes((body.size() + "\n").getBytes(StandardCharsets.US_ASCII));
        body.writeTo(framed);
        return framed.toByteArray();
    }

    private static synchronized byte[] bytes(int n) throws IOException {
        if (urandom == null) {
            urandom = Files.newInputStream(Path.of("/dev/urandom"));
        }
        byte[] b = urandom.readNBytes(n);
        if (b.length != n) {
            throw new IOException("/dev/urandom gave " + b.length + " of " + n + " bytes");
        }
        return b;
    }

    /** After a job (the init has cleared the room): a room that ended, or that cannot be proven clean, is discarded. */
    public synchronized void afterJob(RoomOutput out) {
        if (out.exitCode() == ROOM_ENDED || bwrap == null || !bwrap.isAlive()) {
            ended = true;
            discard();
        } else if (sweep != null && !sweep.clean()) {
            AgentLog.log("the room is not clean after a job (%s): the next job gets a new one", sweep.why());
            discard();
        }
    }

    /**
     * Signals the running job: {@code hard}, SIGKILL to all it started (the init then clears the
     * room); else SIGTERM to its processes, so it may end in its own way.
     */
    public void signal(boolean hard) {
        ProcessHandle l = launcher;
        if (l == null) {
            return;
        }
        l.descendants().forEach(hard ? ProcessHandle::destroyForcibly : ProcessHandle::destroy);
    }

    /** Ends the room and all in it; the next job starts a new one. */
    synchronized void discard() {
        Process p = bwrap;
        bwrap = null;
        launcher = null;
        shown = null;
        tmpStamp = null;
        if (p != null) {
            p.destroyForcibly(); // --die-with-parent: its init and all in the room follow
            try {
                requests.close();
            } catch (IOException e) {
                // gone with it
            }
        }
        CompletableFuture<Void> r = reaper;
        reaper = null;
        if (r != null) {
            // the jobs of this room's uid are ended before a new room's first job of the same uid
            try {
                r.get(5, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                AgentLog.log("the jobs of an ended room may not all be gone: %s", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
