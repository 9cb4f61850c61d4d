/* The receiver of two colluding submissions (tests/test_collusion.py): on every puzzle
 * it is given (its public cases are those a student sees), it listens for 3 s on one of
 * the channels sender.c speaks through (the locks; the inotify events when built with
 * CHANNEL_INOTIFY defined), and prints on its error output what it heard. It prints
 * nothing on its output: every run fails, so every run's error output is on its
 * student's page. */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#define LISTEN_SECONDS 3.0
#define REGIONS 64 /* as sender.c lays them out */
#define REGION (1L << 20)
#define HEADER (1L << 19)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void print_heard(const char *channel, const unsigned char *text, size_t n)
{
    if (n < 8)
        return;
    fprintf(stderr, "heard (%s):", channel);
    for (size_t i = 0; i < n; i++)
        fputc(text[i] == '\n' ? '|' : (text[i] >= 32 && text[i] < 127 ? text[i] : '?'), stderr);
    fputc('\n', stderr);
}

static int locked(int fd, off_t at)
{
    struct flock lock = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = at, .l_len = 1};
    return fcntl(fd, F_GETLK, &lock) == 0 && lock.l_type != F_UNLCK;
}

/* What the locks of the region at `base` of /usr/bin/env spell, or nothing. */
static size_t read_locks(int fd, off_t base, unsigned char *text, size_t most)
{
    size_t n = 0;
    for (; n < most; n++) {
        int found = -1;
        for (int v = 0; v < 256 && found < 0; v++) {
            struct flock lock = {.l_type = F_WRLCK, .l_whence = SEEK_SET,
                                 .l_start = base + (off_t)(256 * n + v), .l_len = 1};
            if (fcntl(fd, F_GETLK, &lock) == 0 && lock.l_type != F_UNLCK)
                found = v;
        }
        if (found < 0)
            break;
        text[n] = (unsigned char)found;
    }
    return n;
}

#ifndef CHANNEL_INOTIFY
int main(void)
{
    unsigned char text[400], heard[8][400];
    size_t lengths[8], messages = 0;
    int fd = open("/usr/bin/env", O_RDONLY);
    double start = now();
    /* A sweep of every region, then 2 ms asleep: a sender holds its locks for 0.3 s or
     * more, and a listener spinning the whole 3 s would burn 3 s of CPU for nothing. */
    struct timespec nap = {0, 2000000L};
    for (; fd >= 0 && now() - start < LISTEN_SECONDS; nanosleep(&nap, NULL))
        for (long region = 0; region < REGIONS; region++) {
            off_t base = (off_t)region * REGION;
            if (!locked(fd, base + HEADER))
                continue;
            size_t n = read_locks(fd, base, text, sizeof text);
            int seen = 0;
            for (size_t m = 0; m < messages && !seen; m++)
                seen = lengths[m] == n && memcmp(heard[m], text, n) == 0;
            if (!seen && n >= 8 && messages < 8) {
                memcpy(heard[messages], text, n);
                lengths[messages++] = n;
            }
        }
    for (size_t m = 0; m < messages; m++)
        print_heard("locks", heard[m], lengths[m]);
    return 0;
}
#else
int main(void)
{
    unsigned char burst[4000];
    size_t bursts = 0;
    int watch = inotify_init1(IN_NONBLOCK);
    /* Opens and closes alternate: inotify never merges them (it merges an event with
     * the one before it when both are alike). */
    if (watch < 0 || inotify_add_watch(watch, "/usr/bin/env", IN_OPEN | IN_CLOSE_NOWRITE) < 0)
        return 0;
    int count = 0;
    double last = 0, start = now();
    while (now() - start < LISTEN_SECONDS) {
        struct pollfd p = {.fd = watch, .events = POLLIN};
        if (poll(&p, 1, 1) > 0) {
            char events[4096] __attribute__((aligned(8)));
            ssize_t got;
            while ((got = read(watch, events, sizeof events)) > 0)
                for (char *e = events; e < events + got;) {
                    const struct inotify_event *event = (const struct inotify_event *)e;
                    count += (event->mask & IN_OPEN) != 0;
                    e += sizeof *event + event->len;
                }
            last = now();
        } else if (count > 0 && now() - last > 0.003) {
            if (bursts < sizeof burst)
                burst[bursts++] = (unsigned char)(count - 1);
            count = 0;
        }
    }
    print_heard("inotify", burst, bursts);
    return 0;
}
#endif
