/*
 * execvp, tried again while the file is busy (ETXTBSY). A program file the grader has
 * just copied can still be open for writing in a process the grader forked on another
 * thread at that moment: the fork's copy of the descriptor lives until that process
 * closes its descriptors or execs, a few microseconds, longer on a loaded machine.
 * The file is complete and the program never ran: waiting is the whole remedy. Any
 * other error, or a file still busy after about a second, is returned as execvp's.
 * Included by reaper.c, zygote.c and witness.c; reaper.py does the same. (A one-shot
 * bwrap run, the command exec'd by bwrap or unshare, is used only where zygote.c cannot
 * be built: where no C compiler made a program file to race with.)
 */
#include <errno.h>
#include <time.h>
#include <unistd.h>

static inline int execvp_settled(const char *file, char *const argv[]) {
    long wait_ns = 1000000; /* 1 ms, doubled: at most 1 + 2 + ... + 512 ms in all */
    for (int attempt = 0;; attempt++) {
        execvp(file, argv);
        if (errno != ETXTBSY || attempt == 10) return -1;
        struct timespec pause = {wait_ns / 1000000000, wait_ns % 1000000000};
        while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {}
        wait_ns *= 2;
    }
}
