/* The memory limit bypassed with shared memory: six children each hold 200 MiB (or
   argv[3] MiB) of memory that no process owns privately, touched and held 3 s:
     mmap   MAP_SHARED|MAP_ANONYMOUS
     sysv   System V segments of 8 MiB, each attached, touched, detached at once
            (held by no process: a poll of the processes never sees them)
     memfd  a memfd written (never mapped)
     tmpfs  a file in /tmp (unlinked, kept open)
   (argv[2], default mmap). The whole tree holds far more than the limit: MLE. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

static void fill(int fd, size_t size) {
    static char block[1 << 16];
    memset(block, 7, sizeof block);
    for (size_t done = 0; done < size; done += sizeof block)
        if (write(fd, block, sizeof block) != sizeof block) break; /* RLIMIT_FSIZE */
}

static void hold(const char *how, size_t size) {
    if (strcmp(how, "sysv") == 0) {
        for (size_t part = 0; part < size; part += 8 << 20) {
            int id = shmget(IPC_PRIVATE, 8 << 20, IPC_CREAT | 0600);
            if (id < 0) { perror("shmget"); break; }
            char *p = shmat(id, NULL, 0);
            if (p == (void *)-1) { perror("shmat"); break; }
            memset(p, 7, 8 << 20);
            shmdt(p);
        }
    } else if (strcmp(how, "memfd") == 0) {
        for (size_t part = 0; part < size; part += 8 << 20) { /* under RLIMIT_FSIZE */
            int fd = memfd_create("hold", 0);
            if (fd < 0) { perror("memfd_create"); return; }
            fill(fd, 8 << 20);
        }
    } else if (strcmp(how, "tmpfs") == 0) {
        char name[] = "/tmp/holdXXXXXX";
        int fd = mkstemp(name);
        if (fd < 0) { perror("mkstemp"); return; }
        unlink(name);
        fill(fd, size);
    } else {
        char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) { perror("mmap"); return; }
        memset(p, 7, size);
    }
    sleep(3);
}

int main(int argc, char **argv) {
    const char *how = argc > 2 ? argv[2] : "mmap";
    size_t size = (size_t)(argc > 3 ? atol(argv[3]) : 200) << 20;
    for (int i = 0; i < 6; i++)
        if (fork() == 0) { hold(how, size); _exit(0); }
    while (wait(NULL) > 0) {}
    puts("held it all");
    return 0;
}
