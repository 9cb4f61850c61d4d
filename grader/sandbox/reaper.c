/*
 * The rlimits fallback's per-run reaper, in C: what reaper.py does, without a Python
 * starting for every run (that was most of the fallback's cost per run). The grader
 * compiles it once with the system C compiler, as it does the zygote; reaper.py stays
 * for machines without one. Same arguments, same protocol:
 *
 *   reaper STATUS_FD UID LIMITS JOINS SECCOMP MEMORY_KB -- COMMAND...
 *
 * It makes itself a child subreaper, so that every process the program starts stays in
 * its tree whatever it does (double fork, setsid). It starts the program in a session
 * of its own with the rlimits (LIMITS: resource:soft:hard joined by commas), in the
 * run's cgroup (JOINS: descriptors of v1's tasks files and v2's folder, joined by
 * commas, or "-": see cgroup_join.h), under the seccomp filter (SECCOMP: the BPF
 * program in hex, or "-"), as UID when that is not -1, with /dev/null as standard
 * input. Where no cgroup holds the memory limit (MEMORY_KB, else 0), it polls the
 * memory its tree holds every 5 ms (private anonymous and shared memory, memfds) and
 * kills the tree past the limit: a JVM (no RLIMIT_AS) or shared memory is stopped
 * within a few megabytes of it, whatever the grader's own polls make of a loaded
 * machine. When the program has ended, or the grader sends SIGUSR1, it kills every
 * process left in its tree and reaps them all, then writes to STATUS_FD:
 *   "started <pid>" before the program runs, or "error <why>" (exit status 125: the
 *   grader's failure, never the program's; a command that cannot be executed too);
 *   "exit <wait status> <user us> <sys us> <peak rss kB> <own peak rss kB> <over kB>"
 *   at the end: the rusage of everything it reaped (a child nobody waited for counts
 *   as much as one waited for); the program's process's peak just before its exec,
 *   which its ru_maxrss inherits; and the memory the tree held when it was killed for
 *   holding more than MEMORY_KB (0 if it was not).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup_join.h"
#include "exec_settled.h"

#define MAX_LIMITS 16
#define MAX_FILTER 4096 /* bytes of BPF: a few hundred in practice */
#define MAX_TREE 4096   /* processes walked by one memory poll */
#define POLL_NS 5000000 /* 5 ms between memory polls */
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static volatile sig_atomic_t asked = 0;    /* SIGUSR1 before the program started */
static volatile pid_t program = 0;

static void on_usr1(int sig) {
    (void)sig;
    if (program > 0) kill(program, SIGKILL);
    else asked = 1;
}

static void say(int fd, const char *format, ...) {
    char line[512];
    va_list args;
    va_start(args, format);
    int n = vsnprintf(line, sizeof line, format, args);
    va_end(args);
    if (n > (int)sizeof line - 1) n = sizeof line - 1;
    if (write(fd, line, n) < 0) _exit(125); /* the grader is gone */
}

struct plan {
    int status_fd;
    long uid;
    int nlimits;
    int which[MAX_LIMITS];
    struct rlimit limits[MAX_LIMITS];
    struct joins joins;
    unsigned char filter[MAX_FILTER];
    size_t filter_bytes;
    long long memory_kb;
    char **command;
};

static int parse_limits(char *text, struct plan *p) {
    for (char *item = strtok(text, ","); item; item = strtok(NULL, ",")) {
        long long which, soft, hard;
        if (p->nlimits >= MAX_LIMITS || sscanf(item, "%lld:%lld:%lld", &which, &soft, &hard) != 3)
            return -1;
        p->which[p->nlimits] = (int)which;
        p->limits[p->nlimits].rlim_cur = soft < 0 ? RLIM_INFINITY : (rlim_t)soft;
        p->limits[p->nlimits].rlim_max = hard < 0 ? RLIM_INFINITY : (rlim_t)hard;
        p->nlimits++;
    }
    return 0;
}

static int parse_joins(char *text, struct plan *p) {
    if (strcmp(text, "-") == 0) return 0;
    for (char *item = strtok(text, ","); item; item = strtok(NULL, ",")) {
        if (add_join(&p->joins, atoi(item)) != 0) return -1;
    }
    return 0;
}

static int parse_filter(const char *hex, struct plan *p) {
    if (strcmp(hex, "-") == 0) return 0;
    size_t length = strlen(hex);
    if (length % 16 != 0 || length / 2 > MAX_FILTER) return -1; /* 8-byte instructions */
    for (size_t i = 0; i < length / 2; i++) {
        unsigned int byte;
        if (sscanf(hex + 2 * i, "%2x", &byte) != 1) return -1;
        p->filter[i] = (unsigned char)byte;
    }
    p->filter_bytes = length / 2;
    return 0;
}

/* In the forked child: never returns. A failure before the exec is ours, said on
 * `failed` (closed by the exec); one of the exec itself is the command's. */
static void start_program(const struct plan *p, int failed, int born_in) {
    if (setsid() < 0) goto fail;
    signal(SIGPIPE, SIG_DFL);
    signal(SIGXFSZ, SIG_DFL);
    signal(SIGUSR1, SIG_DFL);
    int null = open("/dev/null", O_RDONLY);
    if (null < 0 || dup2(null, 0) < 0) goto fail;
    if (null != 0) close(null);
    for (int i = 0; i < p->nlimits; i++)
        if (setrlimit(p->which[i], &p->limits[i]) != 0) goto fail;
    if (move_in(&p->joins, born_in) != 0) goto fail; /* and all it will start */
    if (p->uid >= 0) {
        if (setgroups(0, NULL) != 0 || setresgid(p->uid, p->uid, p->uid) != 0 ||
            setresuid(p->uid, p->uid, p->uid) != 0)
            goto fail;
    }
    if (p->filter_bytes > 0) {
        struct sock_fprog fprog = {(unsigned short)(p->filter_bytes / 8),
                                   (struct sock_filter *)p->filter};
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
            prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) != 0)
            goto fail;
    }
    /* Everything but the standard streams and `failed` closes (the grader's pipes to
     * the reaper, the cgroup files). */
    if (failed > 3) syscall(SYS_close_range, 3, failed - 1, 0);
    syscall(SYS_close_range, failed + 1, ~0U, 0);
    struct rusage self;
    getrusage(RUSAGE_SELF, &self);
    dprintf(failed, "rss %ld", self.ru_maxrss);
    execvp_settled(p->command[0], p->command);
    dprintf(failed, "\ncannot start the program: %s: %s", p->command[0], strerror(errno));
    _exit(126);
fail:
    dprintf(failed, "%s", strerror(errno));
    _exit(126);
}

/* Our live children: every process of the run ends up one of them. */
static int kill_children(void) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int found = 0, pid;
    while (fscanf(f, "%d", &pid) == 1) {
        kill(pid, SIGKILL);
        found = 1;
    }
    fclose(f);
    return found;
}

/* The children of one process, from the kernel's list of each of its threads. */
static int children_of(int pid, int *out, int room) {
    char path[64];
    int found = 0;
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *tasks = opendir(path);
    if (!tasks) return 0;
    struct dirent *task;
    while ((task = readdir(tasks)) != NULL && found < room) {
        if (task->d_name[0] == '.') continue;
        char file[320];
        snprintf(file, sizeof file, "/proc/%d/task/%s/children", pid, task->d_name);
        FILE *f = fopen(file, "r");
        if (!f) continue;
        while (found < room && fscanf(f, "%d", &out[found]) == 1) found++;
        fclose(f);
    }
    closedir(tasks);
    return found;
}

/* What one process holds: private anonymous and shared memory (kB). */
static long long held_kb(int pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    long long total = 0, value;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "RssAnon: %lld", &value) == 1 || sscanf(line, "RssShmem: %lld", &value) == 1)
            total += value;
    }
    fclose(f);
    return total;
}

/* Memory in the memfds a process holds open that no process counted before (kB): a
 * memfd written, never mapped, is in no one's resident memory. */
static ino_t seen[MAX_TREE];
static int nseen;

static long long memfd_kb(int pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", pid);
    DIR *fds = opendir(path);
    if (!fds) return 0;
    long long total = 0;
    struct dirent *fd;
    while ((fd = readdir(fds)) != NULL) {
        if (fd->d_name[0] == '.') continue;
        char link[320], target[64];
        snprintf(link, sizeof link, "/proc/%d/fd/%s", pid, fd->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n < 7 || strncmp(target, "/memfd:", 7) != 0) continue;
        struct stat st;
        if (stat(link, &st) != 0) continue;
        int known = 0;
        for (int i = 0; i < nseen && !known; i++) known = seen[i] == st.st_ino;
        if (known || nseen == MAX_TREE) continue;
        seen[nseen++] = st.st_ino;
        total += (long long)st.st_blocks / 2;
    }
    closedir(fds);
    return total;
}

/* The memory the whole tree under us holds (kB). */
static long long tree_kb(void) {
    static int tree[MAX_TREE];
    int count = children_of(getpid(), tree, MAX_TREE);
    long long total = 0;
    nseen = 0;
    for (int i = 0; i < count; i++) {
        total += held_kb(tree[i]) + memfd_kb(tree[i]);
        count += children_of(tree[i], tree + count, MAX_TREE - count);
    }
    return total;
}

/* Until the program ends, the tree's memory polled: killed past the limit. Returns
 * what the tree held then (0 if it never passed it). Between two polls it waits on a
 * pidfd of the program (Linux 5.3), so that its end is seen at once, not at the next
 * poll (2.5 ms later on average, every run); where there is none, it sleeps. */
static long long watch_memory(pid_t child, long long limit_kb, int *status) {
    long long over = 0;
    int ended = (int)syscall(SYS_pidfd_open, child, 0); /* close-on-exec, readable at the end */
    struct timespec pause = {0, POLL_NS};
    for (;;) {
        pid_t done = waitpid(child, status, WNOHANG);
        if (done == child || (done < 0 && errno != EINTR)) break;
        if (!over) {
            long long held = tree_kb();
            if (held > limit_kb) {
                over = held;
                kill_children();
            }
        }
        struct pollfd end = {ended, POLLIN, 0};
        if (ended >= 0 && ppoll(&end, 1, &pause, NULL) < 0 && errno != EINTR) {
            close(ended); /* not to be waited on after all: sleep from now on */
            ended = -1;
        }
        if (ended < 0) nanosleep(&pause, NULL);
    }
    if (ended >= 0) close(ended);
    return over;
}

/* Every process of the tree killed and reaped (their CPU time into our rusage). */
static void kill_and_reap_all(void) {
    for (;;) {
        kill_children();
        pid_t pid = waitpid(-1, NULL, 0);
        if (pid < 0 && errno == ECHILD) return;
        while (waitpid(-1, NULL, WNOHANG) > 0) {} /* every one already dead, at once */
    }
}

int main(int argc, char **argv) {
    static struct plan p = {.joins = {.folder = -1}};
    if (argc < 9 || strcmp(argv[7], "--") != 0) {
        fprintf(stderr, "usage: reaper STATUS_FD UID LIMITS JOINS SECCOMP MEMORY_KB -- COMMAND...\n");
        return 125;
    }
    p.status_fd = atoi(argv[1]);
    p.uid = atol(argv[2]);
    p.memory_kb = atoll(argv[6]);
    p.command = argv + 8;
    fcntl(p.status_fd, F_SETFD, FD_CLOEXEC);
    if (parse_limits(argv[3], &p) || parse_joins(argv[4], &p) || parse_filter(argv[5], &p)) {
        say(p.status_fd, "error malformed arguments\n");
        return 125;
    }
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
        say(p.status_fd, "error prctl: %s\n", strerror(errno));
        return 125;
    }
    struct sigaction usr1 = {0};
    usr1.sa_handler = on_usr1;
    sigaction(SIGUSR1, &usr1, NULL);
    int failed[2];
    if (pipe2(failed, O_CLOEXEC) != 0) {
        say(p.status_fd, "error pipe: %s\n", strerror(errno));
        return 125;
    }
    int born_in;
    pid_t child = clone_joined(&p.joins, &born_in); /* a fork, in the v2 group */
    if (child < 0) {
        say(p.status_fd, "error fork: %s\n", strerror(errno));
        return 125;
    }
    if (child == 0) {
        close(failed[0]);
        start_program(&p, failed[1], born_in);
    }
    close(failed[1]);
    for (int i = 0; i < p.joins.nfiles; i++) close(p.joins.files[i]);
    if (p.joins.folder >= 0) close(p.joins.folder);
    char said[1024];
    size_t length = 0;
    for (;;) { /* until the exec (or the exec's failure) closes it */
        ssize_t n = read(failed[0], said + length, sizeof said - 1 - length);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        length += (size_t)n;
        if (length == sizeof said - 1) break;
    }
    said[length] = '\0';
    close(failed[0]);
    long own_peak = 0;
    if (strncmp(said, "rss ", 4) != 0 || strchr(said, '\n') != NULL) {
        const char *why = strchr(said, '\n') ? strchr(said, '\n') + 1 : said;
        if (!*why) why = "the program's process ended before its exec";
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {}
        say(p.status_fd, "error %.400s\n", why);
        return 125;
    }
    own_peak = atol(said + 4);
    say(p.status_fd, "started %d\n", (int)child);
    /* The pipes must close when the run's last process is gone: we keep no copy. */
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, 1);
        dup2(null, 2);
        if (null > 2) close(null);
    }
    program = child;
    if (asked) kill(child, SIGKILL);
    int status = 0;
    long long over = 0;
    if (p.memory_kb > 0)
        over = watch_memory(child, p.memory_kb, &status);
    else
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    program = -1;
    kill_and_reap_all();
    struct rusage usage;
    getrusage(RUSAGE_CHILDREN, &usage);
    say(p.status_fd, "exit %d %lld %lld %ld %ld %lld\n", status,
        (long long)usage.ru_utime.tv_sec * 1000000 + usage.ru_utime.tv_usec,
        (long long)usage.ru_stime.tv_sec * 1000000 + usage.ru_stime.tv_usec, usage.ru_maxrss,
        own_peak, over);
    return 0;
}
