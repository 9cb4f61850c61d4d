/* Prints nothing at all and exits 0. */
int main(void) { return 0; }
