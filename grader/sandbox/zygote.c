/*
 * The warm sandbox's zygote: started once per worker inside bubblewrap (which made the
 * network, uts and outer pid and mount namespaces, the root tree and no_new_privs), it
 * then starts one run per request in namespaces of its own, the program under the
 * seccomp filter: bwrap's, or, where the runs' cgroup is v2's, its own (the zygote
 * starts each run's init there with clone3, which the filter refuses).
 * The grader compiles it with the system C compiler (see grader/sandbox/warm.py,
 * which also documents the whole arrangement and the protocol).
 *
 * Usage: zygote CONTROL_FD SECCOMP_FD STAGE_FD [JOIN_FD...]
 *   CONTROL_FD: a SOCK_SEQPACKET socket to the grader; SECCOMP_FD: a pipe holding the
 *   programs' seccomp filter (classic BPF), put on each program before its exec, or
 *   "-" (bwrap put the zygote under it); STAGE_FD: the stage folder, the grader's,
 *   where the zygote copies each run's input (the programs see it read-only at
 *   /input, bound there by bwrap; the zygote writes through this descriptor, which
 *   no program ever holds); JOIN_FD: the runs' cgroup, one per
 *   hierarchy (none where the grader has no cgroups): v1's tasks file, open for
 *   writing, or v2's folder (see grader/sandbox/cgroups.py). Each run's program is in
 *   the group before its exec, so every process of the run is born there; the grader
 *   measures each run by the counters' difference. The program is born in the v2 group
 *   (clone3), or, where clone3 is refused, moves itself in through the folder's
 *   cgroup.procs; it moves itself into each v1 group through tasks. The zygote and the
 *   run's init stay out: the group's memory limit never kills them, and once the init
 *   has reaped the program's every process, the counters are the run's, whatever the
 *   init still does to end (its namespaces, their mounts).
 *
 * Control messages, grader -> zygote:
 *   "run" NUL, then NUL-terminated fields: uid gid cpu_soft cpu_hard as nproc fsize
 *   nofile tmp_bytes shm_bytes cpus cwd input argc argv...; with SCM_RIGHTS: the run's
 *   stdout and stderr (write ends), its status socket and, where `input` names one
 *   ("input.txt"; empty: none), the input file, read: the zygote copies it into the
 *   stage folder under that name, the one file there, read-only to all (a copy: the
 *   grader's own file may be readable by the grader alone). Sent only once the last
 *   run is reaped.
 * Zygote -> grader: "ready" once; "error <why>" when a "run" starts nothing (nothing is
 * said when it starts: the run's init says so); "reaped <wait status>" as soon as the
 * run's init has ended and the zygote has reaped it (its namespaces are gone by then):
 * the zygote waits for that end (a pidfd) and for the next message at once, so the
 * grader never has to ask, nor wait for an answer to a question.
 * Run's init -> status socket: "started", with a pidfd of itself (SCM_RIGHTS: the
 * grader's kills and polls can never reach another process that has its pid once the
 * zygote has reaped it) and the socket's credentials (its pid), or "error <why>"; at
 * the end "exit <wait status> <user us> <sys us> <peak rss kB>" of the program and
 * of every process it started: once the program has ended, the init kills whatever
 * is left and reaps it all before it reports, so a child nobody waited for counts as
 * much as one waited for, and nothing of the run's is left in its cgroup.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <time.h>

#include "cgroup_join.h"
#include "exec_settled.h"

#define MAX_MESSAGE 65536
#define MAX_ARGS 1024
#define FIELDS 13 /* before argc */
#define MAX_FDS 4
#define MAX_INPUT_NAME 64
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static struct joins joined = {.folder = -1};
static int stage = -1;                 /* the stage folder (STAGE_FD) */
static char staged[MAX_INPUT_NAME];    /* the file in it now, or "" */

#define MAX_FILTER 4096
static unsigned char filter[MAX_FILTER];
static size_t filter_bytes;

struct request {
    long long uid, gid, cpu_soft, cpu_hard, as, nproc, fsize, nofile, tmp_bytes, shm_bytes;
    const char *cpus, *cwd, *input;
    char *argv[MAX_ARGS + 1];
    int out, err, status;
};

static void say(int fd, const char *format, ...) {
    char line[512];
    va_list args;
    va_start(args, format);
    int n = vsnprintf(line, sizeof line, format, args);
    va_end(args);
    if (n > (int)sizeof line - 1) n = sizeof line - 1;
    if (send(fd, line, n, MSG_NOSIGNAL) < 0) _exit(1); /* the grader is gone */
}

/* A message of one part, with room for descriptors. */
static struct msghdr message(struct iovec *iov, void *room, size_t size) {
    struct msghdr msg = {0};
    msg.msg_iov = iov;
    msg.msg_iovlen = 1;
    msg.msg_control = room;
    msg.msg_controllen = size;
    return msg;
}

/* "started", with a pidfd of the init itself (Linux 5.3) and, as the socket asks, its
 * credentials. */
static void say_started(int fd) {
    int self = (int)syscall(SYS_pidfd_open, getpid(), 0);
    if (self < 0) {
        say(fd, "error pidfd_open: %s", strerror(errno));
        _exit(1);
    }
    char text[] = "started";
    struct iovec iov = {text, sizeof text - 1};
    union {
        char space[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr msg = message(&iov, control.space, sizeof control.space);
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &self, sizeof self);
    if (sendmsg(fd, &msg, MSG_NOSIGNAL) < 0) _exit(1); /* the grader is gone */
    close(self);
}

static int receive(int ctl, char *buf, int fds[MAX_FDS], int *nfds) {
    struct iovec iov = {buf, MAX_MESSAGE - 1};
    union {
        char space[CMSG_SPACE(MAX_FDS * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr msg = message(&iov, control.space, sizeof control.space);
    ssize_t n;
    do n = recvmsg(ctl, &msg, MSG_CMSG_CLOEXEC); while (n < 0 && errno == EINTR);
    if (n <= 0) return -1;
    buf[n] = '\0';
    *nfds = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        int count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (int i = 0; i < count; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
            if (*nfds < MAX_FDS) fds[(*nfds)++] = fd; else close(fd);
        }
    }
    return (int)n;
}

static int parse(char *buf, int n, struct request *r) {
    char *field[FIELDS + 1 + MAX_ARGS];
    int count = 0;
    char *p = buf + 4, *end = buf + n; /* after "run\0" */
    while (p < end && count < FIELDS + 1 + MAX_ARGS) {
        field[count++] = p;
        p += strlen(p) + 1;
    }
    if (count < FIELDS + 2) return -1;
    long long *numbers[] = {&r->uid, &r->gid, &r->cpu_soft, &r->cpu_hard, &r->as,
                            &r->nproc, &r->fsize, &r->nofile, &r->tmp_bytes,
                            &r->shm_bytes};
    for (int i = 0; i < 10; i++) *numbers[i] = atoll(field[i]);
    r->cpus = field[10];
    r->cwd = field[11];
    r->input = field[12];
    if (*r->input && (strncmp(r->input, "input", 5) != 0 || strchr(r->input, '/') ||
                      strlen(r->input) >= MAX_INPUT_NAME))
        return -1;
    int argc = atoi(field[FIELDS]);
    if (argc < 1 || argc > MAX_ARGS || FIELDS + 1 + argc != count) return -1;
    for (int i = 0; i < argc; i++) r->argv[i] = field[FIELDS + 1 + i];
    r->argv[argc] = NULL;
    return 0;
}

static void limit(int which, long long soft, long long hard) {
    struct rlimit value = {(rlim_t)soft, (rlim_t)hard};
    if (setrlimit(which, &value) != 0) {
        dprintf(2, "sandbox: setrlimit %d: %s\n", which, strerror(errno));
        _exit(126);
    }
}

static void pin(const char *cpus) {
    if (!*cpus) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (const char *p = cpus; *p;) {
        CPU_SET(atoi(p), &set);
        p = strchr(p, ',');
        if (!p) break;
        p++;
    }
    sched_setaffinity(0, sizeof set, &set); /* best effort, as for any program */
}

/* The program: a fresh session, its pipes, the limits, the sandbox uid, no capability
 * (none bounded either: see drop_bounding_set). In the run's cgroup already. */
static void program(const struct request *r) {
    setsid();
    int null = open("/dev/null", O_RDONLY);
    if (null < 0 || dup2(null, 0) < 0 || dup2(r->out, 1) < 0 || dup2(r->err, 2) < 0) _exit(126);
    /* The status socket as fd 3, closed by the exec: a failed exec is said there. */
    if (dup3(r->status, 3, O_CLOEXEC) < 0) _exit(126);
    syscall(SYS_close_range, 4, ~0U, 0);
    pin(r->cpus);
    limit(RLIMIT_CPU, r->cpu_soft, r->cpu_hard);
    limit(RLIMIT_FSIZE, r->fsize, r->fsize);
    limit(RLIMIT_NOFILE, r->nofile, r->nofile);
    limit(RLIMIT_CORE, 0, 0);
    if (r->nproc > 0) limit(RLIMIT_NPROC, r->nproc, r->nproc);
    if (r->as > 0) limit(RLIMIT_AS, r->as, r->as);
    if (chdir(r->cwd) != 0) {
        dprintf(2, "sandbox: chdir %s: %s\n", r->cwd, strerror(errno));
        _exit(126);
    }
    if (r->uid >= 0) {
        if (setgroups(0, NULL) != 0 || setresgid(r->gid, r->gid, r->gid) != 0 ||
            setresuid(r->uid, r->uid, r->uid) != 0) {
            dprintf(2, "sandbox: cannot become uid %lld: %s\n", r->uid, strerror(errno));
            _exit(126);
        }
    }
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct none[2] = {{0}};
    if (syscall(SYS_capset, &header, none) != 0) _exit(126);
    if (filter_bytes > 0) {
        struct sock_fprog program = {(unsigned short)(filter_bytes / 8),
                                     (struct sock_filter *)filter};
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
            prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) != 0) {
            dprintf(2, "sandbox: seccomp: %s\n", strerror(errno));
            _exit(126);
        }
    }
    execvp_settled(r->argv[0], r->argv);
    /* Not the program's failure (it never ran): a missing interpreter, a build that
     * made no program. The grader reports it as its own. */
    say(3, "error cannot start the program: %s: %s", r->argv[0], strerror(errno));
    _exit(127);
}

/* The program's first process, in the run's cgroup before anything else: every
 * process it starts is born there, whoever reaps it. */
static void enter(const struct request *r, int born_in) {
    if (move_in(&joined, born_in) != 0) {
        say(r->status, "error join the run's cgroup: %s", strerror(errno));
        _exit(126);
    }
    program(r);
}

static char program_stack[64 * 1024] __attribute__((aligned(16)));

static int program_entry(void *request) {
    enter(request, 0);
    return 126; /* not reached: program() execs or exits */
}

/* The program's first process: born in the v2 group where there is one (a fork:
 * clone3 gives no vfork on a stack of its own from C), else vfork-like: it starts on a
 * stack of its own in this memory, this process suspended until its exec (no copy of
 * it to make, then drop, then fault in), and moves itself into each v1 group. */
static pid_t start_program(struct request *r) {
    if (joined.folder >= 0) {
        int born_in;
        pid_t pid = clone_joined(&joined, &born_in);
        if (pid == 0) enter(r, born_in);
        return pid;
    }
    return clone(program_entry, program_stack + sizeof program_stack,
                 CLONE_VM | CLONE_VFORK | SIGCHLD, (void *)r);
}

/* Bind the folder open as `keep` at `path` (parents made as needed), read-only and
 * with the flags it had. */
static int rebind(int keep, const char *path) {
    struct statvfs was;
    if (fstatvfs(keep, &was) != 0) return -1;
    char partial[4096];
    size_t length = strlen(path);
    if (length >= sizeof partial) return errno = ENAMETOOLONG, -1;
    for (size_t i = 1; i <= length; i++) {
        if (path[i] != '/' && path[i] != '\0') continue;
        memcpy(partial, path, i);
        partial[i] = '\0';
        if (mkdir(partial, 0755) != 0 && errno != EEXIST) return -1;
    }
    char source[64];
    snprintf(source, sizeof source, "/proc/self/fd/%d", keep);
    if (mount(source, path, NULL, MS_BIND | MS_REC, NULL) != 0) return -1;
    unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY;
    if (was.f_flag & ST_NOSUID) flags |= MS_NOSUID;
    if (was.f_flag & ST_NODEV) flags |= MS_NODEV;
    if (was.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
    return mount(NULL, path, NULL, flags, NULL);
}

/* Write one value to a file of /proc/sys (of this run's namespaces). */
static int set_sysctl(const char *path, long long value) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int ok = dprintf(fd, "%lld\n", value) > 0;
    close(fd);
    return ok ? 0 : -1;
}

/* System V shared memory outlives every process that attached it, so no poll of the
 * tree's processes sees a segment nobody has attached: the run's ipc namespace (the
 * zygote's own until the run starts: see fresh_namespaces) allows at most shm_bytes of
 * segments in all (part of the slack over the memory limit). Only the namespace's
 * root may set that (the grader runs as root); not root, the user namespace maps no
 * root, and the kernel's own bound holds (see warm.py): no error then. Written when
 * the namespace is made, with the last run's figure, and again only if a run wants
 * another. 0, or -1 with errno. */
static long long shm_capped = -1; /* in the ipc namespace made for the next run */

static int cap_sysv_shm(long long shm_bytes) {
    if (shm_bytes <= 0 || shm_bytes == shm_capped) return 0;
    long page = sysconf(_SC_PAGESIZE);
    if (set_sysctl("/proc/sys/kernel/shmmax", shm_bytes) ||
        set_sysctl("/proc/sys/kernel/shmall", (shm_bytes + page - 1) / page)) {
        if (errno != EACCES) return -1;
    }
    shm_capped = shm_bytes; /* or as near as can be: not root, nothing to try again */
    return 0;
}

/* The run's own network namespace has a loopback, down: bring it up, as bwrap does. */
static void loopback_up(void) {
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) return;
    struct ifreq ifr = {0};
    strcpy(ifr.ifr_name, "lo");
    if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        ioctl(s, SIOCSIFFLAGS, &ifr); /* best effort: a program has no need of it */
    }
    close(s);
}

/* Pid 1 of the run's namespaces: mounts its /proc and /tmp, starts the program, waits
 * for it; then kills every process left in the namespace (as pid 1, kill(-1) reaches
 * them all) and reaps them, so that RUSAGE_CHILDREN holds the CPU time of every
 * process the program started; reports, exits. */
static void init(struct request *r) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    char options[64];
    snprintf(options, sizeof options, "mode=1777,size=%lld", r->tmp_bytes);
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) {
        say(r->status, "error mount /proc: %s", strerror(errno));
        _exit(1);
    }
    /* A workdir under /tmp would be hidden by the fresh /tmp: bind it again on top. */
    int under_tmp = strncmp(r->cwd, "/tmp/", 5) == 0;
    int keep = under_tmp ? open(r->cwd, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
    if ((under_tmp && keep < 0) ||
        mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, options) != 0) {
        say(r->status, "error mount /tmp: %s", strerror(errno));
        _exit(1);
    }
    if (under_tmp && rebind(keep, r->cwd) != 0) {
        say(r->status, "error bind %s: %s", r->cwd, strerror(errno));
        _exit(1);
    }
    say_started(r->status);
    pid_t child = start_program(r);
    if (child < 0) {
        say(r->status, "error clone: %s", strerror(errno));
        _exit(1);
    }
    close(r->out);
    close(r->err);
    int status = 0;
    for (;;) {
        pid_t pid = waitpid(-1, &status, 0);
        if (pid == child) break;
        if (pid < 0 && errno != EINTR) _exit(1);
    }
    kill(-1, SIGKILL); /* everything but us: what is left of the run */
    for (;;) {
        pid_t pid = waitpid(-1, NULL, 0);
        if (pid < 0 && errno == ECHILD) break;
        if (pid < 0 && errno != EINTR) _exit(1);
    }
    struct rusage usage;
    getrusage(RUSAGE_CHILDREN, &usage);
    say(r->status, "exit %d %lld %lld %ld", status,
        (long long)usage.ru_utime.tv_sec * 1000000 + usage.ru_utime.tv_usec,
        (long long)usage.ru_stime.tv_sec * 1000000 + usage.ru_stime.tv_usec,
        usage.ru_maxrss);
    _exit(0);
}

/* Network, ipc and mount namespaces for the next run, made ahead (between runs rather
 * than in one: the network one alone costs half a millisecond, a copy of the mount
 * tree a tenth): the zygote moves into them, the next run's init inherits them, and
 * the zygote moves on to others once that run is over. Sockets in TIME_WAIT,
 * /proc/net and its counters, System V objects outlive a run's processes: no run may
 * find another's. The zygote itself uses none of them: the mounts the init makes
 * there (its /proc, its /tmp) do not concern it. Failing that, the zygote ends: the
 * grader starts a new one. */
static int own_mounts = -1; /* the zygote's own mount namespace: bwrap's tree */

static void fresh_namespaces(void) {
    if (unshare(CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWNS) != 0 ||
        mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) /* no mount reaches out */
        _exit(1);
    loopback_up();
    long long wanted = shm_capped;
    shm_capped = -1; /* a new ipc namespace: the kernel's bounds */
    cap_sysv_shm(wanted);
}

/* Back in the zygote's own mount namespace: the last run's, held by no one else now
 * (its init is reaped), goes with every mount of it, its /tmp's memory freed. */
static void leave_run_mounts(void) {
    if (setns(own_mounts, CLONE_NEWNS) != 0) _exit(1);
}

/* No capability can ever come back to a program, not even a bounded one: the bounding
 * set dropped once, inherited by every run (the zygote keeps the effective ones it
 * needs to make runs; it never execs). */
static void drop_bounding_set(void) {
    for (int cap = 0; cap <= 63; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) {
            fprintf(stderr, "zygote: drop the capability bounding set: %s\n", strerror(errno));
            exit(2);
        }
}

/* The run's init: pid 1 of a new pid namespace, in the network, ipc and mount
 * namespaces made for it (fresh_namespaces). A raw clone, as bwrap's own: the child
 * goes on like a fork's (a fresh stack copy), pid 1 at once. */
static pid_t start(int ctl, struct request *r) {
    pid_t pid = (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, NULL, NULL, NULL, NULL);
    if (pid == 0) {
        close(ctl);
        init(r);
    }
    return pid;
}

/* The run's input (`input`, read from the grader's file), alone in the stage folder,
 * read-only to all; none when the run has none. 0, or -1 with errno. */
static int stage_input(const char *name, int input) {
    if (*staged && unlinkat(stage, staged, 0) != 0 && errno != ENOENT) return -1;
    *staged = '\0';
    if (!*name) return 0;
    int copy = openat(stage, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
    if (copy < 0) return -1;
    snprintf(staged, sizeof staged, "%s", name);
    ssize_t n = fchmod(copy, 0444); /* whatever the umask */
    while (n >= 0 && (n = sendfile(copy, input, NULL, 1 << 24)) > 0) {}
    int saved = errno;
    close(copy);
    errno = saved;
    return n < 0 ? -1 : 0;
}

/* A "run": its input staged, its init started, or why not said. */
static void serve(int ctl, char *buf, int n, int *fds, int nfds, pid_t *running, int *ended) {
    struct request r;
    if (parse(buf, n, &r) != 0 || nfds != (*r.input ? 4 : 3)) {
        say(ctl, "error malformed request");
        return;
    }
    if (stage_input(r.input, *r.input ? fds[3] : -1) != 0) {
        say(ctl, "error stage the input: %s", strerror(errno));
        return;
    }
    if (cap_sysv_shm(r.shm_bytes) != 0) {
        say(ctl, "error limit System V shared memory: %s", strerror(errno));
        return;
    }
    r.out = fds[0], r.err = fds[1], r.status = fds[2];
    *running = start(ctl, &r);
    *ended = *running > 0 ? (int)syscall(SYS_pidfd_open, *running, 0) : -1;
    if (*running < 0) {
        *running = 0;
        say(ctl, "error clone: %s", strerror(errno));
    } else if (*ended < 0) {
        say(ctl, "error pidfd_open: %s", strerror(errno));
        kill(*running, SIGKILL);
        while (waitpid(*running, NULL, 0) < 0 && errno == EINTR) {}
        *running = 0;
        leave_run_mounts(); /* whatever it mounted there goes */
        fresh_namespaces();
    }
}

/* The run's init has ended: reaped, its namespaces gone (the mount one as the zygote
 * leaves it), the grader told, the next run's namespaces made. */
static void reap(int ctl, pid_t *running, int *ended) {
    int status = 0;
    while (waitpid(*running, &status, 0) < 0 && errno == EINTR) {}
    close(*ended);
    *running = 0, *ended = -1;
    leave_run_mounts();
    say(ctl, "reaped %d", status);
    fresh_namespaces(); /* the run's were left to it alone */
}

/* Until the control socket is readable; a run's init that ends meanwhile is reaped
 * first. */
static int await_message(int ctl, pid_t *running, int *ended) {
    for (;;) {
        struct pollfd ready[2] = {{ctl, POLLIN, 0}, {*ended, POLLIN, 0}};
        if (poll(ready, *ended >= 0 ? 2 : 1, -1) < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (*ended >= 0 && ready[1].revents) reap(ctl, running, ended);
        else return 0;
    }
}

/* The programs' filter, read once (the pipe's writer is closed). */
static void read_filter(const char *fd_text) {
    if (strcmp(fd_text, "-") == 0) return;
    int fd = atoi(fd_text);
    ssize_t n;
    while (filter_bytes < sizeof filter &&
           (n = read(fd, filter + filter_bytes, sizeof filter - filter_bytes)) != 0) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        filter_bytes += (size_t)n;
    }
    close(fd);
    if (filter_bytes % 8 != 0 || filter_bytes == sizeof filter) {
        fprintf(stderr, "zygote: a malformed seccomp filter\n");
        exit(2);
    }
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: zygote CONTROL_FD SECCOMP_FD STAGE_FD [JOIN_FD...]\n");
        return 2;
    }
    read_filter(argv[2]);
    stage = atoi(argv[3]);
    fcntl(stage, F_SETFD, FD_CLOEXEC);
    for (int i = 4; i < argc; i++) add_join(&joined, atoi(argv[i])); /* no program's */
    int ctl = atoi(argv[1]);
    fcntl(ctl, F_SETFD, FD_CLOEXEC); /* no program may ever hold it */
    signal(SIGPIPE, SIG_IGN);
    static char buf[MAX_MESSAGE];
    drop_bounding_set();
    own_mounts = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
    if (own_mounts < 0) {
        fprintf(stderr, "zygote: own mount namespace: %s\n", strerror(errno));
        return 2;
    }
    fresh_namespaces();
    say(ctl, "ready");
    pid_t running = 0;
    int ended = -1; /* a pidfd of the running init */
    for (;;) {
        int fds[MAX_FDS], nfds = 0;
        if (await_message(ctl, &running, &ended) != 0) return 1;
        int n = receive(ctl, buf, fds, &nfds);
        if (n < 0) return 0; /* the grader closed the socket: done */
        if (strcmp(buf, "run") == 0 && running == 0) {
            serve(ctl, buf, n, fds, nfds, &running, &ended);
        } else {
            say(ctl, "error unexpected message");
        }
        for (int i = 0; i < nfds; i++) close(fds[i]);
    }
}
