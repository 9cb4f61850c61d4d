/* Snoops: tries to list or read every path in @PATHS@ (expected outputs, the reference
   solver, other submissions, the grader's database, home folders...) and prints what it
   gets on stdout. On stderr, one line per path: read, listed, missing or denied. It also
   reports any descriptor it inherited beyond 0, 1 and 2, and its environment. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static const char *why(int e) {
    if (e == ENOENT || e == ENOTDIR) return "missing";
    if (e == EACCES || e == EPERM) return "denied";
    return strerror(e);
}

static void snoop(const char *path) {
    DIR *dir = opendir(path);
    if (dir) {
        int n = 0;
        struct dirent *entry;
        while ((entry = readdir(dir)))
            if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, "..")) {
                printf("%s/%s\n", path, entry->d_name);
                n++;
            }
        closedir(dir);
        fprintf(stderr, "listed\t%s\t%d\n", path, n);
        return;
    }
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "%s\t%s\n", why(errno), path);
        return;
    }
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    if (n < 0) {
        fprintf(stderr, "%s\t%s\n", why(errno), path);
        return;
    }
    fwrite(buf, 1, n, stdout);
    fprintf(stderr, "read\t%s\t%zd\n", path, n);
}

int main(void) {
    for (int fd = 3; fd < 1024; fd++) {
        char link[64], target[PATH_MAX];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n >= 0) {
            target[n] = 0;
            fprintf(stderr, "fd\t%d -> %s\n", fd, target);
        }
    }
    for (char **e = environ; *e; e++) fprintf(stderr, "env\t%s\n", *e);
    char paths[] = "@PATHS@";
    for (char *p = strtok(paths, "|"); p; p = strtok(NULL, "|")) snoop(p);
    fflush(stdout);
    return 3;
}
