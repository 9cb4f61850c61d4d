/* Scramble Squares solver
 * usage: ./puzzlesolver INPUT
 *
 * Brute force with pruning: cells are filled row by row, each unused tile is
 * tried in each of its (distinct) orientations, and a piece is only placed
 * when it matches its left and upper neighbours.  The top-left tile has to be
 * the smallest corner, so each solution is found in its canonical rotation
 * only.  Solutions are collected, sorted and printed at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int tile;       /* index 0..8 */
    char e[4][3];   /* top right bottom left */
} Piece;

typedef struct {
    Piece cell[9];
    char text[400]; /* the drawing, used for printing and to break ties */
} Board;

static char tiles[9][4][3];
static Piece orient[9][4];
static int norient[9];
static Piece grid[9];
static int taken[9];
static Board *boards;
static int nboards, cap;

static int fits(const char *a, const char *b)
{
    return a[0] == b[0] && a[1] != b[1];
}

static void draw(Board *b)
{
    char *p = b->text;
    const char *bar = "+--------+--------+--------+\n";
    p += sprintf(p, "%s", bar);
    for (int r = 0; r < 9; r += 3) {
        const Piece *c = &b->cell[r];
        p += sprintf(p, "|%d  %s   |%d  %s   |%d  %s   |\n",
                     c[0].tile + 1, c[0].e[0], c[1].tile + 1, c[1].e[0], c[2].tile + 1, c[2].e[0]);
        p += sprintf(p, "|%s    %s|%s    %s|%s    %s|\n",
                     c[0].e[3], c[0].e[1], c[1].e[3], c[1].e[1], c[2].e[3], c[2].e[1]);
        p += sprintf(p, "|   %s   |   %s   |   %s   |\n", c[0].e[2], c[1].e[2], c[2].e[2]);
        p += sprintf(p, "%s", bar);
    }
}

static void solve(int pos)
{
    if (pos == 9) {
        if (nboards == cap) {
            cap = cap ? 2 * cap : 64;
            boards = realloc(boards, (size_t)cap * sizeof(Board));
        }
        memcpy(boards[nboards].cell, grid, sizeof grid);
        draw(&boards[nboards]);
        nboards++;
        return;
    }
    for (int t = 0; t < 9; t++) {
        if (taken[t])
            continue;
        if (pos == 0 && t > 5)
            break;
        if ((pos == 2 || pos == 6 || pos == 8) && t < grid[0].tile)
            continue;
        taken[t] = 1;
        for (int k = 0; k < norient[t]; k++) {
            const Piece *q = &orient[t][k];
            if (pos % 3 && !fits(grid[pos - 1].e[1], q->e[3]))
                continue;
            if (pos >= 3 && !fits(grid[pos - 3].e[2], q->e[0]))
                continue;
            grid[pos] = *q;
            solve(pos + 1);
        }
        taken[t] = 0;
    }
}

static int by_order(const void *x, const void *y)
{
    const Board *a = x, *b = y;
    for (int i = 0; i < 9; i++)
        if (a->cell[i].tile != b->cell[i].tile)
            return a->cell[i].tile - b->cell[i].tile;
    return strcmp(a->text, b->text);
}

int main(int argc, char *argv[])
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s INPUT\n", argv[0]);
        return 1;
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    for (int t = 0; t < 9; t++)
        for (int s = 0; s < 4; s++)
            if (fscanf(in, " %2[A-Z01] ,", tiles[t][s]) != 1) {
                fprintf(stderr, "bad input\n");
                return 1;
            }
    fclose(in);

    for (int t = 0; t < 9; t++) {
        for (int k = 0; k < 4; k++) {
            Piece p = {.tile = t};
            for (int s = 0; s < 4; s++)
                strcpy(p.e[s], tiles[t][(s + 4 - k) % 4]);
            int same = 0;
            for (int j = 0; j < norient[t]; j++)
                if (memcmp(orient[t][j].e, p.e, sizeof p.e) == 0)
                    same = 1;
            if (!same)
                orient[t][norient[t]++] = p;
        }
    }

    solve(0);
    qsort(boards, (size_t)nboards, sizeof(Board), by_order);

    printf("Input tiles:\n");
    for (int t = 0; t < 9; t++)
        printf("%d. <%s, %s, %s, %s>\n", t + 1, tiles[t][0], tiles[t][1], tiles[t][2], tiles[t][3]);
    printf("\n");
    if (nboards == 0)
        printf("No solution found.\n");
    else if (nboards == 1)
        printf("1 unique solution found:\n");
    else
        printf("%d unique solutions found:\n", nboards);
    for (int i = 0; i < nboards; i++)
        fputs(boards[i].text, stdout);
    free(boards);
    return 0;
}
