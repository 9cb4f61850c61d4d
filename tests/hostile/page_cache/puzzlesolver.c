/* Keeps the inputs it sees in the host's page cache and prints, on stderr, what earlier
   runs kept there: a bit is "a page of a big read-only system file is cached"
   (@CACHEFILE@; one page in 16, so that the kernel's large folios keep bits apart, and
   each bit thrice, far apart, read by majority).
   preadv2(RWF_NOWAIT) reads a bit (and caches its page: so each slot read is written
   back), pread sets it, posix_fadvise(DONTNEED) clears it. An input is packed into 256
   bits (6 per edge, a magic and a checksum) in the slot its own sum picks. A second
   copy handed in after the first ran on the hidden cases would show hidden inputs in
   its public cases' error output, which the student's page shows: the sandbox refuses
   all three kinds of call. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define PAGE 4096L
#define STRIDE 16L /* pages per bit */
#define COPIES 3   /* each bit kept thrice, far apart: a page that comes and goes alone is outvoted */
#define BITS 256   /* per slot */
#define FIRST 64L  /* bits skipped: the file's first pages are read by anyone opening it */
#define EDGES 36

static int fd;
static long span; /* logical bits in the file: copy k of bit n is at n + k * span */

static int one(long n) {
    char c;
    struct iovec v = {&c, 1};
    return preadv2(fd, &v, 1, (FIRST + n) * STRIDE * PAGE, RWF_NOWAIT) == 1;
}

static int bit(long n) {
    int votes = 0;
    for (int k = 0; k < COPIES; k++) votes += one(n + k * span);
    return votes * 2 > COPIES;
}

static void put(long n, int on) {
    char c;
    for (int k = 0; k < COPIES; k++) {
        off_t at = (FIRST + n + k * span) * STRIDE * PAGE;
        if (on)
            (void)!pread(fd, &c, 1, at);
        else
            posix_fadvise(fd, at, PAGE, POSIX_FADV_DONTNEED);
    }
}

/* A slot: 16 bits of magic, 36 edges of 6 bits, 16 bits of checksum (24 spare). */
static unsigned check(const unsigned char *edges) {
    unsigned s = 0x5a5a;
    for (int i = 0; i < EDGES; i++) s = (s * 31 + edges[i]) & 0xffff;
    return s;
}

static void fields(long slot, int write, unsigned char *edges) {
    long base = slot * BITS;
    unsigned magic = 0xa55a, sum = write ? check(edges) : 0, got = 0;
    for (int b = 0; b < 16; b++)
        if (write) put(base + b, magic >> b & 1); else got |= (unsigned)bit(base + b) << b;
    if (!write && got != magic) { edges[0] = 0xff; return; }
    for (int e = 0; e < EDGES; e++)
        for (int b = 0; b < 6; b++) {
            long n = base + 16 + e * 6 + b;
            if (write) put(n, edges[e] >> b & 1);
            else edges[e] = (unsigned char)((b ? edges[e] : 0) | bit(n) << b);
        }
    for (int b = 0; b < 16; b++)
        if (write) put(base + 232 + b, sum >> b & 1); else sum |= (unsigned)bit(base + 232 + b) << b;
    if (!write && sum != check(edges)) edges[0] = 0xff;
}

int main(int argc, char **argv) {
    char text[512] = "";
    FILE *in = argc > 1 ? fopen(argv[1], "rb") : NULL;
    size_t n = in ? fread(text, 1, sizeof text - 1, in) : 0;
    unsigned char mine[EDGES], seen[EDGES];
    int count = 0;
    for (size_t i = 0; i + 1 < n && count < EDGES; i++)
        if (text[i] >= 'A' && text[i] <= 'Z' && (text[i + 1] == '0' || text[i + 1] == '1'))
            mine[count++] = (unsigned char)((text[i] - 'A') << 1 | (text[i + 1] - '0'));
    struct stat st;
    fd = open("@CACHEFILE@", O_RDONLY);
    if (fd < 0 || fstat(fd, &st) < 0) return 3;
    posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
    span = (st.st_size / (STRIDE * PAGE) - FIRST) / COPIES;
    long slots = span / BITS;
    for (long slot = 0; slot < slots; slot++) {
        fields(slot, 0, seen);
        if (seen[0] == 0xff) {
            for (long b = 0; b < BITS; b++) put(slot * BITS + b, 0);
            continue;
        }
        fields(slot, 1, seen); /* reading it cached every page: as it was */
        fprintf(stderr, "kept by an earlier run:\n");
        for (int e = 0; e < EDGES; e++)
            fprintf(stderr, "%c%d%c", 'A' + (seen[e] >> 1), seen[e] & 1, e % 4 == 3 ? '\n' : ',');
    }
    if (count == EDGES && slots > 0) {
        unsigned total = 0;
        for (int e = 0; e < EDGES; e++) total += mine[e];
        fields(total % slots, 1, mine);
    }
    puts("Input tiles:");
    return 0;
}
