/*
 * wp-room: the init of a processor's room. The agent starts it once per room and asks it, over a
 * pipe, to run one job at a time; between two jobs it makes sure nothing of the first is left.
 *
 * Why a program of its own: a job started by a sh launcher through unshare(1) cost two execs and
 * three namespaces per job (2.9 ms of CPU against 0.73 for a bare fork+exec). Here a room costs its
 * making once and a job costs a fork and an exec: the jobs' user switch happens in the forked
 * child (setresuid before exec), and what a job leaves is found from the room, not from a
 * namespace made per job:
 *   - as the PID namespace's init (a local bwrap room, --as-pid-1), kill(-1, SIGKILL) after each job
 *     reaches every other process in the room, daemons and setsid'd ones included;
 *   - elsewhere (a container, where the agent is the container's process), the jobs run as a uid of
 *     their own and a sweeper child with that uid sends kill(-1, SIGKILL) until none is left; this
 *     program is a child subreaper, so whatever a job orphaned is its child and reaped here.
 * Then what the jobs' uid left in the wiped dirs (/tmp, /dev/shm, ...: entries it owns or, when the
 * jobs share this program's uid, entries that were not there at the start), SysV IPC objects and
 * its keyrings go, before the end is reported: the next job starts in the room as the first did.
 *
 * Usage: wp-room --uid U --gid G [--wipe DIR]... [--rlimit NAME=N]... [--sweep-first]
 * (--sweep-first, in a container: an earlier room's init died, and what its jobs left must go first.)
 * Requests on stdin, one per job: "<length>\n" then <length> bytes of NUL-terminated fields:
 *   nonce, working dir, argc, argv..., envc, env ("K=V")...
 * The job's stdout and stderr are this program's stdout (the agent reads the job's output there,
 * without a copy); when the job and all it started are gone this program writes
 * "\001<nonce> <exit code>\n" (128 + the signal that ended it). The nonce never reaches the job,
 * so it cannot end its output early. "ready\n" once set up; on EOF it ends all and exits.
 * It never follows a path a job controls: the wipe does not follow links nor cross mounts.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_REQUEST (8 << 20)
#define MAX_WIPE 8
#define MAX_KEEP 1024
#define MAX_LIMITS 8
#define KEYCTL_GET_KEYRING_ID 0
#define KEYCTL_JOIN_SESSION_KEYRING 1
#define KEYCTL_CLEAR 7
#define KEYCTL_GET_PERSISTENT 22
#define KEY_SPEC_SESSION_KEYRING -3
#define KEY_SPEC_USER_KEYRING -4
#define KEY_SPEC_USER_SESSION_KEYRING -5

static uid_t job_uid;
static gid_t job_gid;
static int shared_uid; /* the jobs run as this program's own uid: only a PID namespace keeps them apart */
static int is_init;
static int sweep_first;
static int keyrings_per_userns;
static const char *wipe[MAX_WIPE];
static int wipes;
/* with shared_uid: the entries each wiped dir held at the start, by device and inode */
static struct { dev_t dev; ino_t ino; } keep[MAX_KEEP];
static int keeps;
static struct { int resource; rlim_t value; } limits[MAX_LIMITS];
static int nlimits;

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("wp-room: ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    fflush(stdout);
    va_end(ap);
    _exit(125);
}

static int write_all(int fd, const char *b, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, b, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        b += w;
        n -= (size_t) w;
    }
    return 0;
}

static long keyctl(int op, long a, long b) { return syscall(SYS_keyctl, op, a, b, 0L, 0L); }

/* ---- what a job leaves: processes ---- */

/* Reaps every child that has ended; returns 1 while children are left, 0 when none (ECHILD). */
static int reap(int block) {
    for (;;) {
        int st;
        pid_t p = waitpid(-1, &st, block ? 0 : WNOHANG);
        if (p > 0) continue;
        if (p == 0) return 1;
        if (errno == EINTR) continue;
        return errno == ECHILD ? 0 : 1;
    }
}

/* One sweeper of the jobs' uid: kill(-1) as that uid reaches exactly its processes, never this one. */
static void sweep_uid(void) {
    pid_t s = fork();
    if (s < 0) die("fork: %s", strerror(errno));
    if (s == 0) {
        if (setgroups(0, NULL) || setresgid(job_gid, job_gid, job_gid) || setresuid(job_uid, job_uid, job_uid))
            _exit(2);
        /* one pass is enough (a fork racing with it fails: the kernel checks for the pending SIGKILL
           under the lock kill(-1) holds); its return says nothing, as it counts processes it may not signal */
        kill(-1, SIGKILL);
        _exit(0);
    }
    for (;;) {
        int st;
        pid_t p = waitpid(-1, &st, 0); /* reaps the killed that are our children on the way */
        if (p == s) {
            if (WIFEXITED(st) && WEXITSTATUS(st) == 2) die("the sweeper could not become uid %u", (unsigned) job_uid);
            return;
        }
        if (p < 0 && errno != EINTR) return;
    }
}

/* Ends every process of the jobs and reaps them. */
static void end_all(void) {
    if (is_init) {
        /* from a PID namespace's init kill(-1) reaches every other process in it; all are our descendants */
        if (kill(-1, SIGKILL) == 0) reap(1);
        return;
    }
    /* no child left: the job orphaned nothing (whatever it started was its descendant, and so ours) */
    if (!reap(0)) return;
    if (shared_uid) die("a room without its own PID namespace needs a jobs' uid of its own");
    for (int round = 0; round < 200; round++) {
        sweep_uid();
        for (int i = 0; i < 50; i++) { /* SIGKILLed processes end soon: give them 50 ms a round */
            if (!reap(0)) return;
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL);
        }
    }
    die("the jobs' processes did not end");
}

/* ---- what a job leaves: files, IPC, keyrings ---- */

static int kept(const struct stat *s) {
    for (int i = 0; i < keeps; i++)
        if (keep[i].dev == s->st_dev && keep[i].ino == s->st_ino) return 1;
    return 0;
}

#define MOVED 2
#define DEEPEST 64

static int top_fd = -1; /* the wiped dir being emptied: a subtree too deep is moved up into it */
static unsigned long lifted;

/* Opens the dir at `name` in `dirfd` (never through a link); one the job made unreadable is made ours first. */
static int open_dir(int dirfd, const char *name) {
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 || errno != EACCES) return fd;
    /* without following a link: chmod the dir through an O_PATH handle of it, not through its name */
    int path = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (path < 0) return -1;
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", path);
    int rc = chmod(proc, 0700);
    close(path);
    return rc == 0 ? openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
}

/*
 * Removes what is at `name` in the dir `dirfd`, all below it first; never follows a link nor leaves
 * the mount. A dir deeper than DEEPEST is moved up into the wiped dir (MOVED) and removed by a later
 * pass, so that no tree a job makes, however deep, exhausts this program's stack or fds.
 */
static int remove_at(int dirfd, const char *name, dev_t dev, int depth) {
    struct stat s;
    if (fstatat(dirfd, name, &s, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(s.st_mode)) return unlinkat(dirfd, name, 0) == 0 || errno == ENOENT ? 0 : -1;
    if (s.st_dev != dev) return -1; /* a mount in a wiped dir: not ours to empty */
    if (depth > DEEPEST) {
        for (int tries = 0; tries < 100; tries++) {
            char up[64];
            snprintf(up, sizeof up, ".wp-room-lifted-%d-%lu", (int) getpid(), lifted++);
            if (renameat(dirfd, name, top_fd, up) == 0) return MOVED;
            if (errno != EEXIST && errno != ENOTEMPTY) return -1;
        }
        return -1;
    }
    int fd = open_dir(dirfd, name);
    if (fd < 0) return -1;
    fchmod(fd, 0700); /* a dir the job made unwritable */
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        int r = remove_at(fd, e->d_name, dev, depth + 1);
        if (r < 0) rc = -1;
        if (r == MOVED) rewinddir(d); /* the dir changed under the reader: read it again */
    }
    closedir(d);
    if (rc) return rc;
    return unlinkat(dirfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT ? 0 : -1;
}

/* Empties the wiped dirs of what the jobs made there; record: remember what is there now instead. */
static void wipe_files(int record) {
    for (int i = 0; i < wipes; i++) {
        int fd = open(wipe[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) continue; /* not in this room (no /dev/mqueue, say) */
        struct stat top;
        fstat(fd, &top);
        DIR *d = fdopendir(fd);
        if (!d) die("%s: %s", wipe[i], strerror(errno));
        top_fd = fd;
        int again = 1;
        for (int pass = 0; again; pass++) {
            if (pass > 100000) die("%s: what the jobs left there does not go", wipe[i]);
            again = 0;
            unsigned long lifted_before = lifted;
            rewinddir(d);
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
                struct stat s;
                if (fstatat(fd, e->d_name, &s, AT_SYMLINK_NOFOLLOW) != 0) continue;
                if (record && shared_uid) {
                    if (keeps >= MAX_KEEP) die("%s holds more than %d entries at the start", wipe[i], MAX_KEEP);
                    keep[keeps].dev = s.st_dev;
                    keep[keeps].ino = s.st_ino;
                    keeps++;
                    continue;
                }
                int jobs = shared_uid ? !kept(&s) : s.st_uid == job_uid;
                if (!jobs) continue;
                int r = remove_at(fd, e->d_name, top.st_dev, 0);
                if (r < 0) die("could not remove %s/%s: %s", wipe[i], e->d_name, strerror(errno));
                if (r == MOVED) again = 1;
            }
            if (lifted != lifted_before) again = 1; /* deep subtrees came up to the top: another pass takes them */
        }
        top_fd = -1;
        closedir(d);
    }
}

/* Removes the SysV IPC objects the jobs made (the room's IPC namespace holds no one else's). */
static void wipe_ipc(void) {
    static const char *files[] = {"/proc/sysvipc/shm", "/proc/sysvipc/sem", "/proc/sysvipc/msg"};
    for (int k = 0; k < 3; k++) {
        FILE *f = fopen(files[k], "re");
        if (!f) continue;
        char line[512];
        int first = 1;
        while (fgets(line, sizeof line, f)) {
            if (first) { /* the header */
                first = 0;
                continue;
            }
            long key, id;
            if (sscanf(line, "%ld %ld", &key, &id) != 2) continue;
            if (k == 0) shmctl((int) id, IPC_RMID, NULL);
            else if (k == 1) semctl((int) id, 0, IPC_RMID);
            else msgctl((int) id, IPC_RMID, NULL);
        }
        fclose(f);
    }
}

/* Whatever the jobs' uid left: its keyrings, and (as that uid) its IPC objects; then the files. */
static void clean_room(int record) {
    if (!shared_uid) {
        /* no process of the jobs' uid is alive now (end_all): none can signal us while we are it */
        if (setresgid(-1, job_gid, -1) || setresuid(job_uid, job_uid, 0)) die("setresuid: %s", strerror(errno));
        wipe_ipc();
        keyctl(KEYCTL_CLEAR, KEY_SPEC_USER_KEYRING, 0); /* refused in most containers' seccomp: none to clear */
        keyctl(KEYCTL_CLEAR, KEY_SPEC_USER_SESSION_KEYRING, 0);
        if (setresuid(0, 0, 0) || setresgid(0, 0, 0)) die("setresuid back: %s", strerror(errno));
        /* a change of our uids clears the death signal: set it again */
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    } else {
        wipe_ipc();
        /* the jobs share this program's uid in bubblewrap's user namespace, whose user keyrings are
           its own from Linux 5.3 on; before, they were the manager's user's own: left alone then */
        if (keyrings_per_userns) {
            keyctl(KEYCTL_CLEAR, KEY_SPEC_USER_KEYRING, 0);
            keyctl(KEYCTL_CLEAR, KEY_SPEC_USER_SESSION_KEYRING, 0);
        }
    }
    wipe_files(record);
}

/* ---- one job ---- */

static char *field(char **at, char *end) {
    char *f = *at;
    char *nul = memchr(f, '\0', (size_t) (end - f));
    if (!nul) die("a malformed request");
    *at = nul + 1;
    return f;
}

static void exec_job(char **argv, char **envp) {
    if (strchr(argv[0], '/')) {
        execve(argv[0], argv, envp);
        return;
    }
    const char *path = "/usr/local/bin:/usr/bin:/bin";
    for (char **e = envp; *e; e++)
        if (!strncmp(*e, "PATH=", 5)) path = *e + 5;
    int denied = 0;
    char buf[PATH_MAX];
    for (const char *p = path;; p++) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t) (colon - p) : strlen(p);
        if (n > 0 && n + strlen(argv[0]) + 2 < sizeof buf) {
            memcpy(buf, p, n);
            buf[n] = '/';
            strcpy(buf + n + 1, argv[0]);
            execve(buf, argv, envp);
            if (errno == EACCES) denied = 1;
        }
        if (!colon) break;
        p = colon;
    }
    if (denied) errno = EACCES;
}

/* The forked child: the job's own session, user and dir, then its command. Never returns. */
static void child(char *cwd, char **argv, char **envp) {
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0 || dup2(1, 2) < 0) _exit(125);
    setsid();
    for (int i = 0; i < nlimits; i++) {
        struct rlimit r = {limits[i].value, limits[i].value};
        setrlimit(limits[i].resource, &r);
    }
    if (!shared_uid
        && (setgroups(0, NULL) || setresgid(job_gid, job_gid, job_gid) || setresuid(job_uid, job_uid, job_uid))) {
        printf("warmpool: could not switch to the jobs' user %u: %s\n", (unsigned) job_uid, strerror(errno));
        fflush(stdout);
        _exit(125);
    }
    keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0); /* a new anonymous session keyring of the jobs' user */
    /* and the uid's persistent keyring (KEYCTL_GET_PERSISTENT), emptied before this job runs */
    long persistent = keyctl(KEYCTL_GET_PERSISTENT, -1, KEY_SPEC_SESSION_KEYRING);
    if (persistent >= 0) keyctl(KEYCTL_CLEAR, persistent, 0);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    if (chdir(cwd) != 0) {
        printf("warmpool: cannot enter %s: %s\n", cwd, strerror(errno));
        fflush(stdout);
        _exit(126);
    }
    exec_job(argv, envp);
    int e = errno;
    printf("warmpool: cannot run %s: %s\n", argv[0], strerror(e));
    fflush(stdout);
    _exit(e == EACCES ? 126 : 127);
}

static int run(char *req, size_t len) {
    char *at = req, *end = req + len;
    char *nonce = field(&at, end);
    if (strlen(nonce) > 64) die("a nonce of more than 64 characters");
    char *cwd = field(&at, end);
    long argc = strtol(field(&at, end), NULL, 10);
    if (argc < 1 || argc > 100000) die("a request without a command");
    char **argv = calloc((size_t) argc + 1, sizeof *argv);
    for (long i = 0; i < argc; i++) argv[i] = field(&at, end);
    long envc = strtol(field(&at, end), NULL, 10);
    if (envc < 0 || envc > 100000) die("a malformed environment");
    char **envp = calloc((size_t) envc + 1, sizeof *envp);
    for (long i = 0; i < envc; i++) envp[i] = field(&at, end);
    fflush(stdout);
    pid_t job = fork();
    if (job < 0) {
        printf("warmpool: could not start the job: %s\n", strerror(errno));
        printf("\001%s %d\n", nonce, 125);
        fflush(stdout);
        free(argv);
        free(envp);
        return 0;
    }
    if (job == 0) child(cwd, argv, envp);
    free(argv);
    free(envp);
    int code = -1;
    for (;;) {
        int st;
        pid_t p = waitpid(-1, &st, 0);
        if (p == job) {
            code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            break;
        }
        if (p < 0 && errno != EINTR) die("waitpid: %s", strerror(errno));
    }
    end_all();
    clean_room(0);
    char tail[160];
    int n = snprintf(tail, sizeof tail, "\001%s %d\n", nonce, code);
    return write_all(1, tail, (size_t) n);
}

static int read_full(char *b, size_t n) {
    while (n > 0) {
        ssize_t r = read(0, b, n);
        if (r <= 0) {
            if (r < 0 && errno == EINTR) continue;
            return -1;
        }
        b += r;
        n -= (size_t) r;
    }
    return 0;
}

static int resource(const char *name) {
    if (!strcmp(name, "NPROC")) return RLIMIT_NPROC;
    if (!strcmp(name, "AS")) return RLIMIT_AS;
    if (!strcmp(name, "NOFILE")) return RLIMIT_NOFILE;
    if (!strcmp(name, "FSIZE")) return RLIMIT_FSIZE;
    if (!strcmp(name, "CORE")) return RLIMIT_CORE;
    die("unknown rlimit %s", name);
    return -1;
}

int main(int argc, char **argv) {
    int have_uid = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--uid") && i + 1 < argc) {
            job_uid = (uid_t) strtoul(argv[++i], NULL, 10);
            have_uid = 1;
        } else if (!strcmp(argv[i], "--gid") && i + 1 < argc) {
            job_gid = (gid_t) strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--sweep-first")) {
            sweep_first = 1;
        } else if (!strcmp(argv[i], "--wipe") && i + 1 < argc && wipes < MAX_WIPE) {
            wipe[wipes++] = argv[++i];
        } else if (!strcmp(argv[i], "--rlimit") && i + 1 < argc && nlimits < MAX_LIMITS) {
            char *spec = argv[++i];
            char *eq = strchr(spec, '=');
            if (!eq) die("--rlimit NAME=N, not %s", spec);
            *eq = '\0';
            limits[nlimits].resource = resource(spec);
            limits[nlimits].value = (rlim_t) strtoull(eq + 1, NULL, 10);
            nlimits++;
        } else {
            die("usage: wp-room --uid U --gid G [--wipe DIR]... [--rlimit NAME=N]... [--sweep-first]");
        }
    }
    if (!have_uid) {
        job_uid = getuid();
        job_gid = getgid();
    }
    shared_uid = job_uid == getuid();
    struct utsname u;
    int major = 0, minor = 0;
    if (uname(&u) == 0 && sscanf(u.release, "%d.%d", &major, &minor) == 2)
        keyrings_per_userns = major > 5 || (major == 5 && minor >= 3);
    is_init = getpid() == 1;
    if (shared_uid && !is_init) die("a room without its own PID namespace needs a jobs' uid of its own");
    if (!shared_uid && getuid() != 0) die("only root can run jobs as uid %u", (unsigned) job_uid);
    /* no one of the jobs' uid may read or trace this program (its memory, its pipes) */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    if (!is_init && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) die("subreaper: %s", strerror(errno));
    signal(SIGPIPE, SIG_IGN);
    /* gone with what started it (the agent's thread, or the bwrap outside the room): then the kernel
       ends all in a room whose init this is, and the jobs' own death signal ends them elsewhere */
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    /* what an earlier room of this uid left (its init died): gone before the first job; not at a
       container's first room, where the jobs' uid may hold the pool's persistent worker */
    if (!shared_uid && !is_init && sweep_first) sweep_uid();
    clean_room(1);
    fputs("ready\n", stdout);
    fflush(stdout);
    static char buf[MAX_REQUEST];
    for (;;) {
        char head[24];
        size_t h = 0;
        for (;;) {
            if (h + 1 >= sizeof head || read_full(head + h, 1)) goto out;
            if (head[h] == '\n') break;
            h++;
        }
        head[h] = '\0';
        long len = strtol(head, NULL, 10);
        if (len <= 0 || len > MAX_REQUEST) die("a request of %ld bytes", len);
        if (read_full(buf, (size_t) len)) goto out;
        if (run(buf, (size_t) len)) goto out;
    }
out:
    end_all();
    return 0;
}
