/* Error-output flood: 4 GiB to stderr unless stopped; nothing on stdout. */
#include <stdio.h>
#include <string.h>

int main(void) {
    static char chunk[1 << 16];
    memset(chunk, 'e', sizeof chunk);
    for (long i = 0; i < 65536; i++) fwrite(chunk, 1, sizeof chunk, stderr);
    return 0;
}
