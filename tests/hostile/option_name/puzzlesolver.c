/* A file name that would be a compiler option: beside this file lies one named
   "-specs=evil.c". Were the course's "{sources}" to pass it as it is, gcc would read it
   as a specs file (which can run any command during the build) and this program would
   be built with PWNED_BY_SPECS defined. Passed as "./-specs=evil.c" it is a C file,
   and not a valid one: CE. @MARKER@ */
#include <stdio.h>

int main(void) {
#ifdef PWNED_BY_SPECS
    puts("the file name became a compiler option");
#endif
    return 0;
}
