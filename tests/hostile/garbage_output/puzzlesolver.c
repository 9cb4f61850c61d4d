/* Prints terminal-hostile bytes on stdout and stderr and exits 0: invalid UTF-8, NUL,
   ANSI escapes (clear screen, colour, window title), C1 controls, a carriage return
   and backspaces that would overwrite a line, a right-to-left override. */
#include <stdio.h>

static const char garbage[] =
    "\xff\xfe\xc3\x28 invalid utf-8\n"
    "nul>\0<nul\n"
    "\x1b[2J\x1b[1;31mred\x1b[0m \x1b]0;pwned-title\x07 \xc2\x9b" "6n \x9b\n"
    "all good\rALL FAKE\b\b\b\b\n"
    "\xe2\x80\xae" "desrever\n";

int main(void) {
    fwrite(garbage, 1, sizeof garbage - 1, stdout);
    fwrite(garbage, 1, sizeof garbage - 1, stderr);
    return 0;
}
