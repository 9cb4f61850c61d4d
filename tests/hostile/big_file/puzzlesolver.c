/* Writes a huge file. First it tries to create files outside its sandbox (@OUTSIDE@),
   then writes 64 MiB into its working folder or, when that is read-only, into /tmp. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void try_outside(void) {
    char paths[] = "@OUTSIDE@";
    for (char *p = strtok(paths, "|"); p; p = strtok(NULL, "|")) {
        int fd = open(p, O_WRONLY | O_CREAT | O_APPEND, 0666);
        if (fd < 0) {
            fprintf(stderr, "outside %s: %s\n", p, strerror(errno));
            continue;
        }
        fprintf(stderr, "outside %s: WROTE %zd\n", p, write(fd, "escaped\n", 8));
        close(fd);
    }
}

int main(void) {
    static char chunk[1 << 16];
    const char *names[] = {"big-@MARKER@.out", "/tmp/big-@MARKER@.out"};
    try_outside();
    memset(chunk, 'f', sizeof chunk);
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(names[i], "w");
        if (!f) {
            fprintf(stderr, "%s: %s\n", names[i], strerror(errno));
            continue;
        }
        fprintf(stderr, "writing %s\n", names[i]);
        for (int j = 0; j < 1024; j++) {
            if (fwrite(chunk, 1, sizeof chunk, f) != sizeof chunk || fflush(f)) {
                perror("write");
                return 1;
            }
        }
        fclose(f);
        puts("wrote 64 MiB");
        return 0;
    }
    return 2;
}
