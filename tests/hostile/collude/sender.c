/* A sender of two colluding submissions (tests/test_collusion.py): whatever puzzle it
 * is given, it lays it out for about 0.3 s where a program running at the same moment on the
 * same machine can read it back, through two channels:
 *   locks:   one-byte read locks on a file every sandbox sees read-only (/usr/bin/env), in
 *            a region of its own (REGION bytes, picked at random: runs of it at the same
 *            time keep apart), a lock at HEADER marking it, the input's byte i at 256 * i
 *            + (byte i);
 *   inotify: /usr/bin/env opened (byte + 1) times in a burst for each byte, bursts apart.
 * It prints nothing: its verdicts do not matter, only what its neighbour hears. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#define REGIONS 64
#define REGION (1L << 20)
#define HEADER (1L << 19)

static void pause_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

int main(int argc, char **argv)
{
    unsigned char input[400];
    FILE *in = argc > 1 ? fopen(argv[1], "rb") : NULL;
    size_t n = in ? fread(input, 1, sizeof input, in) : 0;
    if (in)
        fclose(in);
    int fd = open("/usr/bin/env", O_RDONLY);
    if (fd < 0)
        return 0;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    off_t base = (off_t)(t.tv_nsec / 1000 % REGIONS) * REGION;
    struct flock header = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = base + HEADER,
                           .l_len = 1};
    fcntl(fd, F_SETLK, &header);
    for (size_t i = 0; i < n; i++) {
        struct flock lock = {.l_type = F_RDLCK, .l_whence = SEEK_SET,
                             .l_start = base + (off_t)(256 * i + input[i]), .l_len = 1};
        fcntl(fd, F_SETLK, &lock);
    }
    /* Closing any descriptor of the file drops this process's locks on it: the bursts
     * of opens come from a child. */
    pid_t child = fork();
    if (child == 0) {
        for (int round = 0; round < 2; round++) {
            for (size_t i = 0; i < n; i++) {
                for (int k = 0; k <= input[i]; k++)
                    close(open("/usr/bin/env", O_RDONLY));
                pause_ms(6);
            }
            pause_ms(20);
        }
        _exit(0);
    }
    if (child > 0)
        waitpid(child, NULL, 0);
    pause_ms(300);
    return 0;
}
