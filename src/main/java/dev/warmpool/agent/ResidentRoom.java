package dev.warmpool.agent;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A processor's resident sandbox: one {@code bwrap} per processor, set up once, in which a small
 * POSIX sh launcher starts each job on request. A bwrap per job cost 8-12 ms of namespace and
 * mount set-up; a job started here costs a fork of the launcher, one {@code unshare} and the job.
 *
 * <p>What each job still gets of its own: {@code unshare --pid --fork --mount-proc --ipc} gives
 * it a new PID namespace (a sh as its init, the job its first child: the kernel kills every
 * process in it, daemons and {@code setsid}'d ones included, when the job ends, and the launcher
 * learns the job's end only after that), its own /proc, and a new IPC namespace (SysV segments,
 * semaphores, queues and POSIX queues go with it); {@code --setuid/--setgid} run it as the jobs'
 * user (nobody for a root manager: it cannot signal, trace or read the root launcher), and for a
 * manager of another user {@code --user --map-current-user} nests a user namespace (the launcher
 * is not in the job's PID namespace: it cannot name it). After each job {@link RoomSweep} empties
 * the room's /tmp and /dev/shm and checks what bwrap made there; a room it cannot prove clean is
 * discarded, and the next job gets a new one. So is a room whose host /tmp view changed (see
 * {@link HostTmp}): a room shows the host's /tmp as a job's bwrap showed it when it started.
 *
 * <p>The launcher reads one line per job, {@code <nonce> <script>}: the script (the job's dir,
 * env from scratch, command; in an agent-only dir bound read-only) is sourced in a subshell whose
 * output (stdout and stderr) is the launcher's own, and when it ends the launcher writes {@code
 * \001<nonce> <exit code>}: the nonce never reaches the job, so it cannot end its log early. Only
 * the agent's job thread uses a room, one job at a time; {@link #signal} comes from the loop.
 */
final class ResidentRoom {
    static final String LAUNCHER = String.join(
            "\n",
            "echo ready",
            "while IFS=' ' read -r n f; do",
            "  ( . \"$f\" ) </dev/null 2>&1",
            "  printf '\\001%s %d\\n' \"$n\" \"$?\"",
            "done");

    /** The exit code {@link RoomOutput#exitCode} gives when the room ended while the job ran. */
    static final int ROOM_ENDED = -2;

    /** The starts of every room: bwrap's --die-with-parent fires when the forking thread ends (see {@link Worker}). */
    private static final ExecutorService STARTER = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "room-launcher");
        t.setDaemon(true);
        return t;
    });

    /**
     * The kernel's random source, read directly for each job's nonce: a {@code SecureRandom}'s
     * set-up (the security providers) put 20-40 ms on each processor's first job, what the agent's
     * start was spared of (see {@link AgentDirs#newDir}). Opened once, shared by the rooms of this JVM.
     */
    private static InputStream urandom;

    private final Sandbox sandbox;
    private final String unshare;
    private final String sh;
    private final Path launchDir;
    private final boolean agentIsRoot;
    private Process bwrap;
    private volatile ProcessHandle launcher;
    private OutputStream requests;
    private InputStream output;
    private RoomSweep sweep;
    private List<String> shown;
    private String workingDir;
    private FileTime tmpStamp;
    private volatile boolean broken;
    private long rooms;
    private RoomNetwork network;

    private ResidentRoom(Sandbox sandbox, String unshare, String sh) throws IOException {
        this.sandbox = sandbox;
        this.unshare = unshare;
        this.sh = sh;
        this.launchDir = sandbox.root().resolve("launch");
        this.agentIsRoot = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0;
        if (!Files.isDirectory(launchDir)) {
            Files.createDirectory(
                    launchDir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
    }

    /** A room for {@code sandbox}'s jobs, or empty (and why, logged) when this host cannot have one. */
    static Optional<ResidentRoom> of(Sandbox sandbox, String path) {
        Optional<String> unshare = onPath("unshare", path);
        Optional<String> sh = onPath("sh", path);
        if (unshare.isEmpty() || sh.isEmpty()) {
            Agent.log("no resident sandbox (no unshare or sh on %s): a bwrap per job", path);
            return Optional.empty();
        }
        try {
            return Optional.of(new ResidentRoom(sandbox, unshare.get(), sh.get()));
        } catch (IOException e) {
            Agent.log("no resident sandbox (%s): a bwrap per job", e.getMessage());
            return Optional.empty();
        }
    }

    static Optional<String> onPath(String name, String path) {
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

    /** How many rooms this processor has started (a test sees a replaced room so). */
    synchronized long started() {
        return rooms;
    }

    /** The room's bwrap, or -1 when none is up. */
    synchronized long pid() {
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
                && (!bwrap.isAlive() || !java.util.Objects.equals(workingDir, this.workingDir) || !now.equals(shown))) {
            discard();
        }
        if (bwrap != null) {
            return true;
        }
        try {
            start(workingDir, now);
            return true;
        } catch (IOException | RuntimeException e) {
            broken = true;
            discard();
            Agent.log("could not set up the resident sandbox (%s): from now on a bwrap per job", e.getMessage());
            return false;
        }
    }

    /** The host's /tmp entries as a new room would show them: re-read only when /tmp changed. */
    private List<String> shownNow() {
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
        Files.createDirectories(sandbox.jobsDir());
        List<String> command = sandbox.roomCommand(now, workingDir, launchDir);
        command.addAll(List.of(sh, "-c", LAUNCHER));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().clear(); // the launcher's jobs get theirs from scratch
        Future<Process> f = STARTER.submit(() -> {
            Process p = pb.start();
            BufferedInputStream in = new BufferedInputStream(p.getInputStream());
            String first = line(in);
            if (!"ready".equals(first)) {
                p.destroyForcibly();
                throw new IOException("bwrap said: " + first + new String(in.readNBytes(2000), StandardCharsets.UTF_8));
            }
            output = in;
            return p;
        });
        try {
            bwrap = f.get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IOException(e.getCause().getMessage(), e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            f.cancel(true);
            throw new IOException("bwrap did not start the launcher within 10 s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
        requests = bwrap.getOutputStream();
        // bwrap -> its init (pid 1 of the room, in its mount namespace) -> the launcher
        ProcessHandle init = bwrap.toHandle().children().findFirst().orElseThrow(() -> new IOException("no init"));
        launcher = init.children().findFirst().orElseThrow(() -> new IOException("no launcher"));
        network = sandbox.attach(init.pid()); // outbound: slirp4netns, ended with the room's init
        sweep = new RoomSweep(
                Path.of("/proc", Long.toString(init.pid()), "root"),
                now,
                sandbox.roomMounts(workingDir, launchDir),
                sandbox.uid() != null && sandbox.uid() != (int) Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        if (!sweep.clean()) {
            throw new IOException("a new room is not as expected: " + sweep.why());
        }
        this.workingDir = workingDir;
        this.shown = now;
        rooms++;
        Agent.log("resident sandbox up (bwrap pid %d)", bwrap.pid());
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
    synchronized RoomOutput launch(List<String> command, Map<String, String> env, String cwd) throws IOException {
        String nonce = HexFormat.of().formatHex(bytes(16));
        Path script = launchDir.resolve("job-" + nonce + ".sh");
        Files.writeString(
                script,
                LaunchScript.of(command, env, cwd, unshare, sh, sandbox.uid(), sandbox.gid(), agentIsRoot),
                StandardCharsets.UTF_8);
        RoomOutput out = new RoomOutput(output, ("\001" + nonce + " ").getBytes(StandardCharsets.US_ASCII), script);
        try {
            requests.write((nonce + " " + script + "\n").getBytes(StandardCharsets.UTF_8));
            requests.flush();
        } catch (IOException e) {
            Files.deleteIfExists(script);
            discard();
            throw e;
        }
        return out;
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

    /** After a job: its /tmp and /dev/shm files go; a room that cannot be proven clean is discarded. */
    synchronized void afterJob(RoomOutput out) {
        try {
            Files.deleteIfExists(out.script());
        } catch (IOException e) {
            Agent.log("could not remove %s: %s", out.script(), e.getMessage());
        }
        if (out.exitCode() == ROOM_ENDED || bwrap == null || !bwrap.isAlive()) {
            discard();
        } else if (!sweep.clean()) {
            Agent.log("the resident sandbox is not clean after a job (%s): the next job gets a new one", sweep.why());
            discard();
        }
    }

    /**
     * Signals the running job: {@code hard}, SIGKILL to its namespace's init (the kernel ends all
     * in it); else SIGTERM to the job's processes (the init, a sh waiting for the job, ignores it).
     */
    void signal(boolean hard) {
        ProcessHandle l = launcher;
        if (l == null) {
            return;
        }
        // the launcher's child is the unshare of the job; its child the namespace's init
        l.children()
                .forEach(unshared -> unshared.children().forEach(init -> {
                    if (hard) {
                        init.destroyForcibly();
                    } else {
                        init.descendants().forEach(ProcessHandle::destroy);
                    }
                }));
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
    }
}
