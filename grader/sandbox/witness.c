/* witness -- COMMAND [ARG...]: run a build's command and end as it ends, unless one of
 * its processes was killed by a signal on the way: then end killed by that signal.
 *
 * Why: a compiler driver (gcc, g++) runs its compiler proper (cc1plus) as a child.
 * When something outside the build kills that child (an administrator, the machine's
 * OOM killer), the driver says so in words and exits 1, like any compile error: the
 * grader would see the student's CE. The grader must see what happened, as data: a
 * build whose command ends killed by a signal none of its limits sent is the grader's
 * failure, IE, retried (grader/build/builder.py). So the witness traces every process of the
 * command (ptrace: only fork, clone, exec and signals stop them; every signal is passed
 * on as it came) and, once the command has ended, ends by the signal that killed one of
 * them, if one was (a SIGPIPE aside: a pipeline's reader ending first is no one's
 * fault). It says which process on stderr, for people.
 *
 * Where ptrace is refused (a container's policy), the command runs untraced: as before.
 * The sandbox kills the witness with the rest of the tree at a limit; PTRACE_O_EXITKILL
 * takes every traced process with it when the witness ends.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec_settled.h"

#define OPTIONS                                                                        \
    (PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | \
     PTRACE_O_EXITKILL)
#define NAMES 256

/* The name of each traced process, as its last exec set it (for the message only). */
static struct {
    pid_t pid;
    char comm[32];
} names[NAMES];

static void remember(pid_t pid) {
    char path[64], comm[32] = "";
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fgets(comm, sizeof comm, f)) comm[strcspn(comm, "\n")] = 0;
        fclose(f);
    }
    int slot = (int)(pid % NAMES);
    names[slot].pid = pid;
    snprintf(names[slot].comm, sizeof names[slot].comm, "%s", comm);
}

static const char *name_of(pid_t pid) {
    int slot = (int)(pid % NAMES);
    return names[slot].pid == pid && names[slot].comm[0] ? names[slot].comm : "a process";
}

static void end_as(int status) {
    if (WIFEXITED(status)) exit(WEXITSTATUS(status));
    int sig = WTERMSIG(status);
    signal(sig, SIG_DFL);
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_UNBLOCK, &all, NULL);
    raise(sig);
    exit(128 + sig); /* a signal that does not kill by default */
}

int main(int argc, char **argv) {
    if (argc < 3 || strcmp(argv[1], "--") != 0) {
        fprintf(stderr, "usage: witness -- COMMAND [ARG...]\n");
        return 127;
    }
    pid_t child = fork();
    if (child < 0) {
        perror("witness: fork");
        return 127;
    }
    if (child == 0) {
        raise(SIGSTOP); /* held until the witness traces it */
        execvp_settled(argv[2], argv + 2);
        fprintf(stderr, "witness: cannot run %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int status;
    if (waitpid(child, &status, WUNTRACED) != child || !WIFSTOPPED(status)) end_as(status);
    int traced = ptrace(PTRACE_SEIZE, child, 0, OPTIONS) == 0;
    kill(child, SIGCONT);
    if (!traced) { /* refused here: run it untraced */
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
        end_as(status);
    }
    remember(child);
    int killed = 0; /* the signal that killed a process of the command, 0: none */
    for (;;) {
        pid_t pid = waitpid(-1, &status, __WALL);
        if (pid < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (WIFSTOPPED(status)) {
            int event = status >> 16, sig = WSTOPSIG(status);
            if (event == PTRACE_EVENT_EXEC) remember(pid);
            /* an event or a group stop: go on; a signal: deliver it as it came */
            int pass = event == 0 ? sig : 0;
            ptrace(PTRACE_CONT, pid, 0, pass);
            continue;
        }
        if (WIFSIGNALED(status) && WTERMSIG(status) != SIGPIPE && pid != child && !killed) {
            killed = WTERMSIG(status);
            fprintf(stderr, "witness: %s (pid %d) was killed by signal %d (%s)\n",
                    name_of(pid), (int)pid, killed, strsignal(killed));
        }
        if (pid == child) {
            if (killed && !WIFSIGNALED(status)) end_as(killed); /* the status of a kill */
            end_as(status);
        }
    }
    end_as(status);
    return 127;
}
