/* Runs of one warm sandbox must share nothing: this program counts the sockets it
   can see in /proc/net/tcp (left by earlier runs: TIME_WAIT connections) and the
   loopback's packet counters, prints the counts, then leaves a trace of its own (a
   listening socket, a connection closed at once: TIME_WAIT). A later run that
   prints anything but zeros has seen an earlier one. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int lines(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int n = 0, c;
    while ((c = fgetc(f)) != EOF) n += c == '\n';
    fclose(f);
    return n - 1; /* the header */
}

static long loopback_packets(void) {
    FILE *f = fopen("/proc/net/dev", "r");
    if (!f) return -1;
    char line[512];
    long packets = 0;
    while (fgets(line, sizeof line, f)) {
        char *lo = strstr(line, "lo:");
        long bytes;
        if (lo && sscanf(lo + 3, "%ld %ld", &bytes, &packets) == 2) break;
    }
    fclose(f);
    return packets;
}

int main(void) {
    printf("tcp %d packets %ld\n", lines("/proc/net/tcp"), loopback_packets());
    int server = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in at = {.sin_family = AF_INET, .sin_port = htons(4242)};
    inet_pton(AF_INET, "127.0.0.42", &at.sin_addr); /* data could hide in the address */
    int one = 1;
    setsockopt(server, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(server, (struct sockaddr *)&at, sizeof at) == 0 && listen(server, 1) == 0) {
        int client = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(client, (struct sockaddr *)&at, sizeof at) == 0) {
            int peer = accept(server, NULL, NULL);
            close(client); /* the active close: TIME_WAIT, 60 s */
            if (peer >= 0) close(peer);
        }
    }
    return 0;
}
