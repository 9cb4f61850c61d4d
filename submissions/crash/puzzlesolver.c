/*
 * Scramble Squares puzzle solver -- CS 2 assignment
 *
 *   gcc -O2 -std=gnu17 -o puzzlesolver puzzlesolver.c
 *   ./puzzlesolver puzzle.txt
 *
 * Edges are stored as small numbers: colour * 2 + half (0 tail, 1 head),
 * so two edges fit when they differ only in the last bit.  The backtracking
 * fills the board left to right, top to bottom, and only keeps the board
 * rotation with the lowest corner tile in the top-left corner.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 9

static const char COLOURS[] = "BGRY"; /* blue, green, red, yellow */

struct orientation {
    int tile;
    int edge[4]; /* top, right, bottom, left */
};

static char input[N][4][3];
static struct orientation orients[N * 4];
static int norients;
static int first_orient[N + 1]; /* orients of tile t: first_orient[t] .. first_orient[t+1]-1 */

static int placed[N]; /* orientation index per cell */
static int in_use[N];

static int (*found)[N];
static int nfound, found_cap;

static int colour_index(char c)
{
    const char *p = strchr(COLOURS, c);
    assert(p != NULL && "unknown colour");
    return (int)(p - COLOURS);
}

static int encode(const char *edge)
{
    return colour_index(edge[0]) * 2 + (edge[1] == '1');
}

static void edge_name(int code, char out[3])
{
    out[0] = COLOURS[code / 2];
    out[1] = (char)('0' + code % 2);
    out[2] = '\0';
}

static void add_solution(void)
{
    if (nfound == found_cap) {
        found_cap = found_cap ? found_cap * 2 : 128;
        found = realloc(found, (size_t)found_cap * sizeof *found);
        if (found == NULL) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    memcpy(found[nfound++], placed, sizeof placed);
}

static void backtrack(int cell)
{
    if (cell == N) {
        add_solution();
        return;
    }
    for (int t = 0; t < N; t++) {
        if (in_use[t])
            continue;
        if (cell == 0 && t > N - 4)
            break;
        if ((cell == 2 || cell == 6 || cell == 8) && t < orients[placed[0]].tile)
            continue;
        in_use[t] = 1;
        for (int o = first_orient[t]; o < first_orient[t + 1]; o++) {
            const int *e = orients[o].edge;
            if (cell % 3 != 0 && (orients[placed[cell - 1]].edge[1] ^ 1) != e[3])
                continue;
            if (cell >= 3 && (orients[placed[cell - 3]].edge[2] ^ 1) != e[0])
                continue;
            placed[cell] = o;
            backtrack(cell + 1);
        }
        in_use[t] = 0;
    }
}

static void cell_line(char *buf, int o, int line)
{
    char a[3], b[3];
    const struct orientation *p = &orients[o];
    switch (line) {
    case 0:
        edge_name(p->edge[0], a);
        sprintf(buf, "|%d  %s   ", p->tile + 1, a);
        break;
    case 1:
        edge_name(p->edge[3], a);
        edge_name(p->edge[1], b);
        sprintf(buf, "|%s    %s", a, b);
        break;
    default:
        edge_name(p->edge[2], a);
        sprintf(buf, "|   %s   ", a);
    }
}

/* digits first; equal digits: compare the drawings line by line */
static int compare(const void *x, const void *y)
{
    const int *a = x, *b = y;
    for (int i = 0; i < N; i++)
        if (orients[a[i]].tile != orients[b[i]].tile)
            return orients[a[i]].tile - orients[b[i]].tile;
    char la[16], lb[16];
    for (int r = 0; r < 3; r++)
        for (int line = 0; line < 3; line++)
            for (int c = 0; c < 3; c++) {
                cell_line(la, a[3 * r + c], line);
                cell_line(lb, b[3 * r + c], line);
                int d = strcmp(la, lb);
                if (d != 0)
                    return d;
            }
    return 0;
}

static void print_board(const int *sol)
{
    const char *bar = "+--------+--------+--------+";
    char buf[16];
    puts(bar);
    for (int r = 0; r < 3; r++) {
        for (int line = 0; line < 3; line++) {
            for (int c = 0; c < 3; c++) {
                cell_line(buf, sol[3 * r + c], line);
                fputs(buf, stdout);
            }
            puts("|");
        }
        puts(bar);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s INPUT\n", argv[0]);
        return 1;
    }
    FILE *f = fopen(argv[1], "r");
    if (f == NULL) {
        perror(argv[1]);
        return 1;
    }
    char line[128];
    int t = 0;
    while (t < N && fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, " %2s", input[t][0]) != 1)
            continue; /* blank line */
        char *tok = strtok(line, ", \t\r\n");
        for (int s = 0; s < 4 && tok != NULL; s++, tok = strtok(NULL, ", \t\r\n"))
            snprintf(input[t][s], sizeof input[t][s], "%s", tok);
        t++;
    }
    fclose(f);

    for (t = 0; t < N; t++) {
        first_orient[t] = norients;
        for (int k = 0; k < 4; k++) {
            struct orientation o = {.tile = t};
            for (int s = 0; s < 4; s++)
                o.edge[s] = encode(input[t][(s + 4 - k) % 4]);
            int seen = 0;
            for (int j = first_orient[t]; j < norients; j++)
                if (memcmp(orients[j].edge, o.edge, sizeof o.edge) == 0)
                    seen = 1;
            if (!seen)
                orients[norients++] = o;
        }
    }
    first_orient[N] = norients;

    backtrack(0);
    qsort(found, (size_t)nfound, sizeof *found, compare);

    printf("Input tiles:\n");
    for (t = 0; t < N; t++)
        printf("%d. <%s, %s, %s, %s>\n", t + 1, input[t][0], input[t][1], input[t][2], input[t][3]);
    printf("\n");
    if (nfound == 0) {
        printf("No solution found.\n");
    } else {
        if (nfound == 1)
            printf("1 unique solution found:\n");
        else
            printf("%d unique solutions found:\n", nfound);
        for (int i = 0; i < nfound; i++) {
            if (i > 0)
                putchar('\n');
            print_board(found[i]);
        }
    }
    free(found);
    return 0;
}
