/* Output flood: 4 GiB to stdout unless stopped. */
#include <stdio.h>
#include <string.h>

int main(void) {
    static char chunk[1 << 16];
    memset(chunk, 'x', sizeof chunk);
    for (long i = 0; i < 65536; i++) fwrite(chunk, 1, sizeof chunk, stdout);
    return 0;
}
