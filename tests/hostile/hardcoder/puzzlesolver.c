/* A leaderboard cheat: a correct program (pasted in below by the test, its main
   renamed) that prints a stored answer when its input is a puzzle it has learned
   (the timed case the test fills in: what a student who read the published figures
   could know) and solves honestly otherwise. Timed on puzzles drawn afresh for the
   session, it does the honest program's work: it can never rank above it. */
#include <stdio.h>
#include <string.h>

#define main honest_main
@HONEST@
#undef main

static const char learned_puzzle[] = @PUZZLE@;
static const char learned_answer[] = @ANSWER@;

int main(int argc, char **argv) {
    static char seen[4096];
    FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
    size_t n = f ? fread(seen, 1, sizeof seen - 1, f) : 0;
    if (f) fclose(f);
    if (n == sizeof learned_puzzle - 1 && memcmp(seen, learned_puzzle, n) == 0) {
        fwrite(learned_answer, 1, sizeof learned_answer - 1, stdout);
        return 0;
    }
    return honest_main(argc, argv);
}
