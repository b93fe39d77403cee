package dev.warmpool.agent.room;

import dev.warmpool.agent.io.AgentLog;
import dev.warmpool.protocol.AgentEnv;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The room each job runs in. A warm processor is reused, so what one job leaves must not reach
 * the next, and a job must not reach the manager: each job gets its own working dir (0700, gone
 * after the job) and its own session; with {@code bwrap} it also gets its own PID namespace (it
 * sees no other process, and every process it started dies with it), a read-only file system with
 * a private /tmp, and the manager's secrets (state dir, tokens file) are not there. When the
 * manager runs as root, jobs run as an unprivileged user.
 *
 * <p>Set by the runtime through {@code WARMPOOL_SANDBOX} ({@code bwrap}; {@code room}: the
 * container is the room, jobs run through its init alone; or {@code none}), {@code
 * WARMPOOL_SANDBOX_HIDE} (paths, separated by {@code :}), {@code WARMPOOL_RUN_AS} ({@code uid:gid})
 * or {@code WARMPOOL_JOB_UIDS} (a range a root agent takes the jobs' uid of its processor from,
 * see {@link JobUids}) and {@code WARMPOOL_ROOM_INIT} (wp-room, the init of a {@link ResidentRoom}).
 */
public final class Sandbox {
    static final String BWRAP = "bwrap";

    /** WARMPOOL_SANDBOX's value for a container that is the room itself (no bwrap in it). */
    public static final String ROOM = "room";

    private final boolean bwrap;
    /** The container is the room (WARMPOOL_SANDBOX=room): no bwrap, and fewer capabilities for the agent. */
    private boolean container;

    private final List<String> hide;
    private final Integer uid;
    private final Integer gid;
    private final Path root;
    private ResidentRoom resident;
    private RoomCover cover = RoomCover.forAgent();
    private volatile String network = RoomNetwork.NONE;
    private volatile List<String> named = List.of();
    private volatile String workingDir;
    private volatile String residentKey;

    Sandbox(boolean bwrap, List<String> hide, Integer uid, Integer gid, Path root) {
        this.bwrap = bwrap;
        this.hide = hide;
        this.uid = uid;
        this.gid = gid;
        this.root = root;
    }

    /**
     * The sandbox the runtime asked for, with the processor's private dir {@code root} (0711 when
     * jobs run as another user, so that user can reach its own dir below and list nothing).
     */
    public static Sandbox fromEnv(Map<String, String> env, Path root) throws IOException {
        String kind = env.getOrDefault(AgentEnv.SANDBOX, "none");
        boolean bwrap = BWRAP.equals(kind);
        String hidden = env.getOrDefault("WARMPOOL_SANDBOX_HIDE", "");
        List<String> hide = hidden.isBlank() ? List.of() : List.of(hidden.split(File.pathSeparator));
        Integer uid = null;
        Integer gid = null;
        String runAs = env.getOrDefault(AgentEnv.RUN_AS, "");
        String range = env.getOrDefault("WARMPOOL_JOB_UIDS", "");
        if (!runAs.isBlank()) {
            String[] ids = runAs.split(":");
            uid = Integer.valueOf(ids[0]);
            gid = Integer.valueOf(ids.length > 1 ? ids[1] : ids[0]);
        } else if (!range.isBlank() && (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0) {
            long claimed =
                    JobUids.claim(JobUids.Range.parse(range), root.getFileName().toString());
            uid = (int) claimed;
            gid = (int) claimed;
            AgentLog.log("jobs run as uid %d, this processor's own", claimed);
        }
        if (uid != null) {
            Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx--x--x"));
        }
        Sandbox s = new Sandbox(bwrap, hide, uid, gid, root);
        s.container = ROOM.equals(kind);
        if (bwrap || ROOM.equals(kind)) {
            s.resident = ResidentRoom.of(s, env.get(AgentEnv.ROOM_INIT)).orElse(null);
        }
        return s;
    }

    /**
     * The processor's resident room, where its jobs start without a bwrap each, when it can be up
     * for a job in {@code workingDir}; null: run the job with {@link #wrap} (no bwrap, or no room here).
     */
    public ResidentRoom room(String workingDir) {
        ResidentRoom r = resident;
        if (bwrap && r != null && r.pid() > 0 && !roomKey().equals(residentKey)) {
            r.discard(); // its network and binds were fixed when it started
        }
        return r != null && r.ready(workingDir) ? r : null;
    }

    /**
     * What the pool asks of its rooms, read from its spec before each job: the {@code network}
     * ({@link RoomNetwork}) and the paths its command and env name (bound back, read-only, over a
     * hidden home: {@link RoomCover}); a room that started with others is replaced.
     */
    public void follow(String network, List<String> named, String workingDir) {
        this.network = RoomNetwork.of(network);
        this.named = List.copyOf(named);
        this.workingDir = workingDir;
    }

    public String network() {
        return network;
    }

    /** Covers the host as {@code c} says (a test's: a non-root agent's home). */
    void cover(RoomCover c) {
        cover = c;
    }

    /** The room hides the agent's home (a non-root agent's, with bwrap): a job's HOME is its own dir. */
    public boolean hidesHome() {
        return bwrap && cover.home() != null;
    }

    private String roomKey() {
        return network + "\0" + workingDir + "\0" + String.join("\0", named);
    }

    /** The room's network for a room whose first process is {@code pid} (the resident room's hook). */
    RoomNetwork attach(long pid) throws IOException {
        residentKey = roomKey();
        return new RoomNetwork(network, root.resolve("resolv.conf")).attach(pid);
    }

    /**
     * A job's or worker's own bwrap {@code p} just started: an outbound room gets its slirp4netns
     * (the command waits in the room for its route, see {@link #wrap}); others need nothing.
     */
    public void started(Process p) {
        if (!bwrap || !RoomNetwork.OUTBOUND.equals(network)) {
            return;
        }
        try {
            ProcessHandle child = null;
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (child == null && p.isAlive() && System.nanoTime() < deadline) {
                child = p.toHandle().children().findFirst().orElse(null);
                if (child == null) {
                    Thread.sleep(2); // bwrap forks its init at once; bounded above
                }
            }
            if (child == null) {
                throw new IOException("the room's first process did not appear");
            }
            new RoomNetwork(network, root.resolve("resolv.conf")).attach(child.pid());
        } catch (IOException e) {
            AgentLog.log("no outbound network for the job's room (it runs without one): %s", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** What the room adds to bwrap's part for the pool's network, the hidden home and /run. */
    private List<String> isolation(boolean resident) {
        List<String> out = new ArrayList<>(new RoomNetwork(network, root.resolve("resolv.conf")).bwrapArgs());
        out.addAll(cover.bwrapArgs(named, hide, workingDir, root, resident));
        return out;
    }

    /** For an outbound job in its own bwrap: a sh that waits (5 s at most) for the room's route, then runs the job. */
    private List<String> awaitNetwork() {
        if (!RoomNetwork.OUTBOUND.equals(network)) {
            return List.of();
        }
        return List.of(
                "/bin/sh",
                "-c",
                "i=0; while [ $i -lt 500 ] && ! grep -q '^tap0[[:space:]]*00000000' /proc/net/route; do"
                        + " sleep 0.01; i=$((i+1)); done; exec \"$@\"",
                "sh");
    }

    /**
     * The container is the room and it can no longer be proven clean (see {@link ResidentRoom#lost}):
     * no job may run here again; the agent hands the processor back and a fresh container replaces it.
     */
    public boolean roomLost() {
        return container && resident != null && resident.lost();
    }

    /** Jobs here must run in the room: a container with wp-room, where the fallback would clear nothing. */
    public boolean roomRequired() {
        return container && resident != null;
    }

    /**
     * Ends the resident room, if any, and removes the processor's private dir with all its jobs
     * left there (the agent is going): a processor that stops leaves nothing in the host's /tmp.
     */
    public void close() {
        if (resident != null) {
            resident.discard();
        }
        remove(root);
    }

    /** Each job gets a bwrap room of its own, or the processor's resident room is a bwrap (else: a container). */
    boolean bwrap() {
        return bwrap;
    }

    /** Where the jobs' own dirs are: the one dir of the processor that a resident room binds. */
    Path jobsDir() {
        return root.resolve("jobs");
    }

    /** A fresh private dir for the job {@code jobId} (see {@link #newDir}), in {@link #jobsDir}. */
    public Path newJobDir(String jobId) throws IOException {
        Path jobs = jobsDir();
        if (!Files.isDirectory(jobs, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectory(
                    jobs, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
        }
        Path dir = newDir("jobs/job-" + jobId);
        RoomCover.emptyBut(jobs, dir); // a file a job left there does not reach this one
        return dir;
    }

    /** The jobs' user, when another than the agent's (a root manager's jobs run as nobody); else null. */
    public Integer uid() {
        return uid;
    }

    Integer gid() {
        return gid;
    }

    /** The processor's private dir, under which each job's dir is made. */
    public Path root() {
        return root;
    }

    /** Another user than the agent's runs the jobs. */
    public boolean otherUser() {
        return uid != null;
    }

    /** A fresh private dir for one job (or a worker) named {@code name}: 0700, the job's user's. */
    public Path newDir(String name) throws IOException {
        Path dir = root.resolve(name);
        remove(dir);
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        if (uid != null) {
            Files.setAttribute(dir, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(dir, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
        }
        return dir;
    }

    /**
     * The base environment for jobs as the jobs' user sees it: a PATH entry that user cannot reach
     * (the manager's root-only {@code /root/.pyenv/shims}) is left out, or the first command found
     * there would fail with "Permission denied" instead of the one a later entry holds.
     */
    public Map<String, String> forJobUser(Map<String, String> base) {
        String path = base.get("PATH");
        if (uid == null || path == null) {
            return base;
        }
        Map<String, String> out = new HashMap<>(base);
        out.put(
                "PATH",
                String.join(
                        File.pathSeparator,
                        Stream.of(path.split(File.pathSeparator))
                                .filter(d -> !d.isEmpty() && reachableByOthers(Path.of(d)))
                                .toList()));
        return out;
    }

    /** True when every dir from / down to {@code dir} lets others pass (o+x). */
    static boolean reachableByOthers(Path dir) {
        try {
            for (Path p = dir.toAbsolutePath(); p != null; p = p.getParent()) {
                if (!Files.getPosixFilePermissions(p).contains(PosixFilePermission.OTHERS_EXECUTE)) {
                    return false;
                }
            }
            return true;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /** Gives a file the agent wrote into a job's dir to the job's user (when another user runs jobs). */
    public void handOver(Path file) {
        if (uid == null || !present(file)) {
            return;
        }
        try {
            Files.setAttribute(file, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(file, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            AgentLog.log("could not give %s to the job's user: %s", file, e.getMessage());
        }
    }

    /**
     * Whether anything is at {@code p}, a link to nothing included ({@code Files.exists} with
     * NOFOLLOW_LINKS), without the two exceptions, each with its stack trace, that NIO makes when
     * nothing is there: a job's start and end asked this of names that are mostly absent, a few
     * percent of an agent's CPU a job.
     */
    public static boolean present(Path p) {
        if (p.toFile().exists()) {
            return true;
        }
        Path parent = p.getParent();
        String[] names = parent == null ? null : parent.toFile().list();
        return names != null && Arrays.asList(names).contains(p.getFileName().toString());
    }

    /** Removes a job's dir and all in it (whatever the job made there). */
    public static void remove(Path dir) {
        if (!present(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException e) {
            AgentLog.log("could not remove %s: %s", dir, e.getMessage());
        }
    }

    /**
     * {@code command} as it runs in the room: in {@code dir} (writable), in a session of its own,
     * as the jobs' user; with bwrap, in the sandbox. {@code workingDir}: the pool's, when it set
     * one (then writable too), else {@code dir}.
     */
    public List<String> wrap(List<String> command, Path dir, String workingDir) {
        return wrap(command, dir, workingDir, hostTmpNow());
    }

    /** The host's /tmp as a room made now would show it ({@link HostTmp#shown}); none without bwrap. */
    public List<String> hostTmpNow() {
        return bwrap ? HostTmp.shown(HostTmp.ownEntry(root)) : List.of();
    }

    /** As {@link #wrap(List, Path, String)}, showing the host's /tmp as {@code shown} says (a {@link #hostTmpNow}). */
    public List<String> wrap(List<String> command, Path dir, String workingDir, List<String> shown) {
        List<String> out = new ArrayList<>();
        String cwd = workingDir != null ? workingDir : dir.toString();
        if (bwrap) {
            room(out, shown, false);
            ways(out, dir);
            out.addAll(List.of("--bind", dir.toString(), dir.toString()));
            if (workingDir != null) {
                out.addAll(List.of("--bind", workingDir, HostTmp.mountPoint(workingDir, root)));
            }
            out.addAll(List.of("--chdir", cwd));
            out.addAll(awaitNetwork());
        } else if (Files.isExecutable(Path.of("/usr/bin/setsid"))) {
            out.add("/usr/bin/setsid");
        }
        if (uid != null) {
            out.addAll(List.of("setpriv", "--reuid=" + uid, "--regid=" + gid, "--clear-groups", "--inh-caps=-all"));
            if (!container) {
                // a container's agent has no CAP_SETPCAP to drop the bounding set with; no-new-privs
                // and a uid of no capabilities leave nothing in it to take up there
                out.add("--bounding-set=-all");
            }
            out.addAll(List.of("--no-new-privs", "--"));
        }
        out.addAll(command);
        return out;
    }

    /**
     * What every room starts with: bwrap in a session of its own, its own PID, IPC, UTS and cgroup
     * namespaces, the host's file system read-only, a fresh /dev and /proc, and an empty /tmp and
     * /dev/shm anyone may write to. The manager's probe runs a command in just this (JobRoom).
     */
    public static List<String> base() {
        return List.of(
                "bwrap",
                "--die-with-parent",
                "--new-session",
                "--unshare-pid",
                "--unshare-ipc",
                "--unshare-uts",
                "--unshare-cgroup-try",
                "--ro-bind",
                "/",
                "/",
                "--dev",
                "/dev",
                "--proc",
                "/proc",
                // 1777 as a host's /tmp: a job of another user (run-as) writes there too
                "--perms",
                "1777",
                "--tmpfs",
                "/tmp",
                "--perms",
                "1777",
                "--tmpfs",
                "/dev/shm");
    }

    /**
     * bwrap's part of a room: namespaces, the file system read-only, a private /tmp (showing the
     * host's as {@code shown} says, see {@link HostTmp}) and /dev/shm, the hidden paths under an
     * empty tmpfs. {@code resident}: a room kept across jobs ({@link ResidentRoom}), where what a
     * job's user could write and the next job would find is read-only (/dev, the hiding tmpfs).
     */
    public void room(List<String> out, List<String> shown, boolean resident) {
        out.addAll(base());
        if (resident) {
            // POSIX queues of the room's own (its init empties it between jobs), then /dev read-only
            out.addAll(List.of("--mqueue", "/dev/mqueue", "--remount-ro", "/dev"));
        }
        out.addAll(shown);
        for (String h : hide) {
            Path p = Path.of(h);
            if (Files.isDirectory(p)) {
                out.addAll(List.of("--tmpfs", HostTmp.mountPoint(h, root)));
                if (resident) {
                    out.addAll(List.of("--remount-ro", HostTmp.mountPoint(h, root)));
                }
            } else if (Files.exists(p)) {
                out.addAll(List.of("--ro-bind", "/dev/null", HostTmp.mountPoint(h, root)));
            }
        }
        if (resident) {
            for (int i = 0; i + 1 < shown.size(); i++) {
                if (shown.get(i).equals("--tmpfs")) {
                    out.addAll(List.of("--remount-ro", shown.get(i + 1))); // an agent's dir, hidden
                }
            }
        }
        out.addAll(isolation(resident));
    }

    /** The dirs on the way to {@code dir} that bwrap makes in the room's /tmp: 0711, so the job's user passes. */
    static void ways(List<String> out, Path dir) {
        List<String> ways = new ArrayList<>();
        for (Path p = dir.getParent(); p != null; p = p.getParent()) {
            ways.add(0, p.toString());
            if (p.getParent() == null
                    || !p.getParent().startsWith("/tmp")
                    || p.getParent().equals(Path.of("/tmp"))) {
                break; // outside /tmp the dirs on the way are the host's (read-only): only the last is made
            }
        }
        for (String way : ways) {
            out.addAll(List.of("--perms", "0711", "--dir", way));
        }
    }

    /**
     * The bwrap that a {@link ResidentRoom}'s init runs in, as the PID namespace's init: the room,
     * the jobs' dirs bound.
     */
    List<String> roomCommand(List<String> shown, String workingDir) {
        List<String> out = new ArrayList<>();
        room(out, shown, true);
        out.add("--as-pid-1");
        ways(out, jobsDir());
        out.addAll(List.of("--bind", jobsDir().toString(), jobsDir().toString()));
        if (workingDir != null) {
            out.addAll(List.of("--bind", workingDir, HostTmp.mountPoint(workingDir, root)));
        }
        out.addAll(List.of("--chdir", "/"));
        return out;
    }

    /** Where a {@link ResidentRoom}'s binds are, as its jobs see them (its clean-up leaves them). */
    List<String> roomMounts(String workingDir) {
        List<String> out = new ArrayList<>(List.of(jobsDir().toString()));
        if (workingDir != null) {
            out.add(HostTmp.mountPoint(workingDir, root));
        }
        hide.forEach(h -> out.add(HostTmp.mountPoint(h, root)));
        return out;
    }

    /** The job's working directory as the process builder sets it (bwrap sets its own). */
    public File directory(Path dir, String workingDir) {
        return bwrap ? null : new File(workingDir != null ? workingDir : dir.toString());
    }

    /**
     * Kills what is left of a job's session {@code sid} (its processes that outlived it, such as
     * a {@code sleep 300 &}), so nothing it started can touch the next job. In a bwrap sandbox
     * the kernel did it already: a PID namespace ends with its first process.
     */
    public void killSession(long sid) {
        if (bwrap) {
            return;
        }
        List<Long> members;
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            members = procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .filter(p -> session(p) == sid)
                    .map(p -> Long.parseLong(p.getFileName().toString()))
                    .toList();
        } catch (IOException | RuntimeException e) {
            AgentLog.log("could not end what is left of session %d: %s", sid, e.getMessage());
            return;
        }
        // The job (the session's leader) has been reaped. While anything of its session lives the
        // kernel does not hand its pid out again; once nothing does, a new job elsewhere may get
        // that pid and lead a session of the same id: a live leader means the session is not ours.
        if (members.contains(sid)) {
            return;
        }
        members.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
    }

    /** The session id of the process {@code /proc/<pid>}, or -1. */
    public static long session(Path proc) {
        try {
            String stat = Files.readString(proc.resolve("stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[3]); // state, ppid, pgrp, session
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
