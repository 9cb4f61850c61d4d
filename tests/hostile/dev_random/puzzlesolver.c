/* Compile-time bomb: the preprocessor reads an endless device as a header. */
#include "/dev/random"

int main(void) { return 0; }
