/* Tries the network: TCP to 127.0.0.1:@PORT@ (the test listens there), TCP and UDP to
   192.0.2.1 (TEST-NET-1, for documentation: never routed), the abstract unix socket
   "@ABSTRACT@" (the test listens there too) and a DNS lookup. One line per attempt on
   stderr; CONNECTED on stdout for any that worked; exit 4 when none did. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int worked = 0;

static void report(const char *what, int ok, int error) {
    fprintf(stderr, "%s: %s\n", what, ok ? "CONNECTED" : strerror(error));
    if (ok) {
        printf("CONNECTED %s\n", what);
        worked = 1;
    }
}

static int finish(int fd, struct sockaddr *addr, socklen_t len) {
    fcntl(fd, F_SETFL, O_NONBLOCK);
    if (connect(fd, addr, len) == 0) return 0;
    if (errno != EINPROGRESS) return errno;
    struct pollfd p = {fd, POLLOUT, 0};
    if (poll(&p, 1, 2000) != 1) return ETIMEDOUT;
    int error = 0;
    socklen_t size = sizeof error;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size);
    return error;
}

static void tcp(const char *what, const char *host, int port) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int error = finish(fd, (struct sockaddr *)&a, sizeof a);
    report(what, error == 0, error);
    close(fd);
}

int main(void) {
    tcp("tcp 127.0.0.1", "127.0.0.1", @PORT@);
    tcp("tcp 192.0.2.1", "192.0.2.1", 80);

    struct sockaddr_in dns = {.sin_family = AF_INET, .sin_port = htons(53)};
    inet_pton(AF_INET, "192.0.2.1", &dns.sin_addr);
    int udp = socket(AF_INET, SOCK_DGRAM, 0);
    ssize_t sent = sendto(udp, "x", 1, 0, (struct sockaddr *)&dns, sizeof dns);
    report("udp 192.0.2.1", sent == 1, errno);
    close(udp);

    struct sockaddr_un un = {.sun_family = AF_UNIX};
    const char *name = "@ABSTRACT@";
    memcpy(un.sun_path + 1, name, strlen(name));
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    int error = finish(fd, (struct sockaddr *)&un, offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
    report("abstract unix socket", error == 0, error);
    close(fd);

    struct addrinfo *found = NULL;
    int gai = getaddrinfo("example.com", "80", NULL, &found);
    fprintf(stderr, "dns example.com: %s\n", gai == 0 ? "CONNECTED" : gai_strerror(gai));
    if (gai == 0) {
        printf("CONNECTED dns\n");
        worked = 1;
    }
    return worked ? 0 : 4;
}
