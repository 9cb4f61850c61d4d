/*
 * How zygote.c's and reaper.c's programs get into the run's cgroup (see
 * grader/sandbox/cgroups.py, open_joins): v1 groups come as their tasks file, to which
 * the process writes "0" to move itself in; a v2 group comes as its folder, in which
 * clone3 starts the process (CLONE_INTO_CGROUP, Linux 5.7), or, where clone3 is
 * refused, the process moves itself in through the folder's cgroup.procs. Included by
 * both; the grader compiles each with the headers beside it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif

#define MAX_JOINS 8 /* one per hierarchy */

struct joins {
    int files[MAX_JOINS], nfiles; /* v1's tasks files */
    int folder;                   /* v2's folder, or -1 */
};

/* clone3's arguments, as linux/sched.h's struct clone_args (Linux 5.7). */
struct clone3_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls,
        set_tid, set_tid_size, cgroup;
};

/* One descriptor handed over by the grader: a folder is v2's, a file v1's tasks. Both
 * close at the program's exec. Returns -1 when there are too many. */
static int add_join(struct joins *j, int fd) {
    struct stat st;
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        j->folder = fd;
        return 0;
    }
    if (j->nfiles >= MAX_JOINS) return -1;
    j->files[j->nfiles++] = fd;
    return 0;
}

/* A child (fork-like: it goes on from here with 0), born in the v2 group where there
 * is one and clone3 is allowed; *born_in says whether it was. */
static pid_t clone_joined(const struct joins *j, int *born_in) {
    *born_in = 0;
    if (j->folder >= 0) {
        struct clone3_args args = {0};
        args.flags = CLONE_INTO_CGROUP;
        args.exit_signal = SIGCHLD;
        args.cgroup = (uint64_t)j->folder;
        pid_t pid = (pid_t)syscall(SYS_clone3, &args, sizeof args);
        if (pid >= 0) {
            *born_in = 1;
            return pid;
        }
    }
    return (pid_t)syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, NULL);
}

/* In the child, single-threaded: into every group it was not born in. 0, or -1 with
 * errno. */
static int move_in(const struct joins *j, int born_in) {
    if (j->folder >= 0 && !born_in) {
        int procs = openat(j->folder, "cgroup.procs", O_WRONLY | O_CLOEXEC);
        if (procs < 0) return -1;
        int wrote = write(procs, "0", 1);
        int saved = errno;
        close(procs);
        errno = saved;
        if (wrote != 1) return -1;
    }
    for (int i = 0; i < j->nfiles; i++)
        if (write(j->files[i], "0", 1) != 1) return -1;
    return 0;
}
