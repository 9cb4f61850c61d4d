"""Programs that make one typical mistake each, in every language where it can happen:
the example class's correct programs (submissions/ada-c, grace-cpp, james-java,
guido-py) with the mistake written into them. Each variant is (mistake, language):
a few exact replacements in the correct program's source, every one checked to apply,
so a change of the correct program cannot silently make a variant correct."""

from pathlib import Path

from testcases.manifest import copy_subset
from tests.helpers import ROOT

CORRECT = {
    "c": ("ada-c", "puzzlesolver.c"),
    "cpp": ("grace-cpp", "puzzlesolver.cpp"),
    "java": ("james-java", "PuzzleSolver.java"),
    "python": ("guido-py", "puzzlesolver.py"),
}

C_END = "    free(sols);\n    return 0;\n}"
CPP_END = "  std::fwrite(out.data(), 1, out.size(), stdout);\n  return 0;\n}"
JAVA_PRINT = "        solver.print(tiles, new BufferedOutputStream(System.out, 1 << 16));\n"
JAVA_LAST_WRITE = (
    "        out.write(text.toString().getBytes(StandardCharsets.US_ASCII));\n        out.flush();"
)
PY_WRITE = '    sys.stdout.write("".join(out))\n'

# A C reader that drops each line's last character, taking it for the newline.
C_CHOPPING_READER = """static void read_tiles(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        die("cannot open ", path);
    char line[256];
    int n = 0;
    while (n < NTILES * 4 && fgets(line, sizeof line, f)) {
        line[strlen(line) - 1] = '\\0'; /* the newline */
        for (char *tok = strtok(line, ", \\r"); tok; tok = strtok(NULL, ", \\r")) {
            if (strlen(tok) != 2)
                die("bad edge in ", path);
            memcpy(edges[n / 4][n % 4], tok, 3);
            n++;
        }
    }
    fclose(f);
    if (n != NTILES * 4)
        die("expected 9 tiles of 4 edges in ", path);
}
"""

# Each solution compared, drawn in full, with every one kept before it.
C_QUADRATIC = """    qsort(sols, nsols, sizeof *sols, cmp_solution);
    size_t kept = 0;
    for (size_t i = 0; i < nsols; i++) {
        int again = 0;
        for (size_t j = 0; j < kept; j++) {
            char a[400], b[400];
            draw(a, &sols[i]);
            draw(b, &sols[j]);
            again |= memcmp(a, b, 377) == 0;
        }
        if (!again)
            sols[kept++] = sols[i];
    }
    nsols = kept;
"""

VARIANTS: dict[tuple[str, str], list[tuple[str, str]]] = {
    # the output still in a buffer when the program ends at once
    ("unflushed", "c"): [
        ("#include <string.h>\n", "#include <string.h>\n#include <unistd.h>\n"),
        (C_END, "    free(sols);\n    _exit(0);\n}"),
    ],
    ("unflushed", "cpp"): [
        ("#include <cstdio>\n", "#include <cstdio>\n#include <cstdlib>\n"),
        (CPP_END, "  std::fwrite(out.data(), 1, out.size(), stdout);\n  std::_Exit(0);\n}"),
    ],
    ("unflushed", "java"): [
        (
            JAVA_LAST_WRITE,
            "        out.write(text.toString().getBytes(StandardCharsets.US_ASCII));",
        ),
        (JAVA_PRINT, JAVA_PRINT + "        System.exit(0);\n"),
    ],
    ("unflushed", "python"): [
        ("import sys\n", "import os\nimport sys\n"),
        (PY_WRITE, PY_WRITE + "    os._exit(0)\n"),
    ],
    # the right output, and the count as the exit status
    ("exit-status", "c"): [(C_END, "    free(sols);\n    return (int)nsols;\n}")],
    ("exit-status", "cpp"): [
        (
            CPP_END,
            "  std::fwrite(out.data(), 1, out.size(), stdout);\n"
            "  return static_cast<int>(solutions.size());\n}",
        )
    ],
    ("exit-status", "java"): [
        (JAVA_PRINT, JAVA_PRINT + "        System.exit(solver.solutions.size());\n")
    ],
    ("exit-status", "python"): [(PY_WRITE, PY_WRITE + "    sys.exit(len(solutions))\n")],
    # the listing through one buffered stream, the boards through another
    ("two-streams", "c"): [
        ("#include <string.h>\n", "#include <string.h>\n#include <unistd.h>\n"),
        ("    fflush(stdout);\n", ""),
        (
            "            fwrite(buf, 1, (size_t)(out - buf), stdout);",
            "            write(1, buf, (size_t)(out - buf));",
        ),
        (
            "    fwrite(buf, 1, (size_t)(out - buf), stdout);\n    free(buf);",
            "    write(1, buf, (size_t)(out - buf));\n    free(buf);",
        ),
    ],
    ("two-streams", "cpp"): [
        (
            "  constexpr std::size_t kFlushAt",
            "  std::fwrite(out.data(), 1, out.size(), stdout);\n  out.clear();\n"
            "  constexpr std::size_t kFlushAt",
        ),
        (
            "      std::fwrite(out.data(), 1, out.size(), stdout);\n      out.clear();",
            "      std::cout << out;\n      out.clear();",
        ),
        (CPP_END, "  std::cout << out;\n  return 0;\n}"),
    ],
    ("two-streams", "java"): [
        (
            "        text.append('\\n').append(countLine()).append('\\n');\n",
            "        text.append('\\n').append(countLine()).append('\\n');\n"
            "        out.write(text.toString().getBytes(StandardCharsets.US_ASCII));\n"
            "        text.setLength(0);\n",
        ),
        (
            "                out.write(text.toString().getBytes(StandardCharsets.US_ASCII));\n"
            "                text.setLength(0);",
            "                System.out.print(text);\n                text.setLength(0);",
        ),
        (
            JAVA_LAST_WRITE,
            "        System.out.print(text);\n        System.out.flush();\n        out.flush();",
        ),
    ],
    ("two-streams", "python"): [
        (
            PY_WRITE,
            '    print("".join(out[:-1]), end="")\n    sys.stdout.buffer.write(out[-1].encode())\n',
        )
    ],
    # what stops a program before it starts
    ("java-package", "java"): [
        (
            "import java.io.BufferedOutputStream;",
            "package solver;\n\nimport java.io.BufferedOutputStream;",
        )
    ],
    ("python2", "python"): [(PY_WRITE, '    print "".join(out),\n')],
    # the last character of each line taken for its newline
    ("final-newline", "c"): [
        (
            'static void read_tiles(const char *path)\n{\n    FILE *f = fopen(path, "rb");',
            'static void read_tiles_by_char(const char *path)\n{\n    FILE *f = fopen(path, "rb");',
        ),
        ("static int edge_code(", C_CHOPPING_READER + "\nstatic int edge_code("),
    ],
    ("final-newline", "python"): [
        (
            'with open(path, newline="") as f:\n        lines = [line.strip() for line in f.read().splitlines()]',
            "with open(path) as f:\n        lines = [line[:-1] for line in f]",
        )
    ],
    # "1 unique solutions found:": the count line's plural for one solution too
    ("plural", "c"): [('"1 unique solution found:\\n"', '"1 unique solutions found:\\n"')],
    # a check for duplicates that compares each solution with all those before it
    ("quadratic", "c"): [("    qsort(sols, nsols, sizeof *sols, cmp_solution);\n", C_QUADRATIC)],
    ("quadratic", "python"): [
        (
            '    out = ["Input tiles:\\n"]',
            "    unique = []\n    for s in solutions:\n"
            "        if all(s[1] != kept[1] for kept in unique):\n"
            '            unique.append(s)\n    solutions = unique\n\n    out = ["Input tiles:\\n"]',
        )
    ],
}

# ---------------------------------------------------------------- algorithm mistakes, for
# the relations (grader.grading.relations) to name without a rule written for any of them

C_SEARCH_HEAD = "static void search(int pos, unsigned used)\n{\n    if (pos == NTILES) {"
CPP_SEARCH_HEAD = "  void Search(int pos, unsigned used) {\n    if (pos == kTiles) {"
JAVA_SEARCH_HEAD = "    private void search(int pos) {\n        if (pos == TILES) {"
PY_PLACE_HEAD = "    def place(pos):\n        if pos == 9:"
PY_SOLUTIONS = (
    "    solutions = sorted(\n"
    '        ("".join(str(n) for n, _ in board), draw(board)) for board in solve(tiles)\n'
    "    )\n"
)
C_PARTNER_CHECK = """    build_placements();
    for (int t = 0; t < NTILES; t++)
        for (int s = 0; s < 4; s++) {
            int want = edge_code(edges[t][s]) ^ 1, found = 0;
            for (int u = 0; u < NTILES; u++)
                for (int r = 0; r < 4; r++)
                    found |= u != t && edge_code(edges[u][r]) == want;
            if (!found) { /* an edge nobody matches: no solution */
                print_output();
                return 0;
            }
        }
"""
ALGORITHM_VARIANTS: dict[tuple[str, str], list[tuple[str, str]]] = {
    # the search stops at the first solution it finds
    ("first-only", "c"): [
        (
            C_SEARCH_HEAD,
            C_SEARCH_HEAD.replace(
                "{\n    if (pos", "{\n    if (nsols)\n        return;\n    if (pos"
            ),
        )
    ],
    ("first-only", "cpp"): [
        (
            CPP_SEARCH_HEAD,
            CPP_SEARCH_HEAD.replace(
                "{\n    if (pos", "{\n    if (!keys_.empty()) return;\n    if (pos"
            ),
        )
    ],
    ("first-only", "java"): [
        (
            JAVA_SEARCH_HEAD,
            JAVA_SEARCH_HEAD.replace(
                "{\n        if (pos",
                "{\n        if (!solutions.isEmpty()) {\n            return;\n        }\n        if (pos",
            ),
        )
    ],
    ("first-only", "python"): [
        (
            PY_PLACE_HEAD,
            "    def place(pos):\n        if found:\n            return\n        if pos == 9:",
        )
    ],
    # room for 1,000 solutions, the rest dropped without a word
    ("cap-1000", "c"): [
        (
            "static void save_solution(void)\n{\n",
            "static void save_solution(void)\n{\n    if (nsols == 1000)\n        return; /* room for 1000 */\n",
        )
    ],
    ("cap-1000", "python"): [
        (
            "        if pos == 9:\n            found.append(list(board))",
            "        if pos == 9:\n            if len(found) < 1000:\n                found.append(list(board))",
        )
    ],
    # boards told apart by their edges alone: two that swap alike tiles are kept as one
    ("merged-by-edges", "python"): [
        (
            PY_SOLUTIONS,
            "    kept, seen = [], set()\n"
            "    for board in solve(tiles):\n"
            "        if tuple(e for _, e in board) not in seen:\n"
            "            seen.add(tuple(e for _, e in board))\n"
            "            kept.append(board)\n"
            '    solutions = sorted(("".join(str(n) for n, _ in b), draw(b)) for b in kept)\n',
        )
    ],
    ("merged-by-edges", "java"): [
        (
            "            solutions.add(record());\n",
            "            Solution found = record();\n"
            '            String edges = found.drawing().replaceAll("[0-9](?= )", "");\n'
            "            for (Solution s : solutions) {\n"
            '                if (s.drawing().replaceAll("[0-9](?= )", "").equals(edges)) {\n'
            "                    return;\n"
            "                }\n"
            "            }\n"
            "            solutions.add(found);\n",
        )
    ],
    # a half matched with the same half (0 with 0, 1 with 1)
    ("same-half", "cpp"): [
        ("pieces_[cell_[pos - 1]].edge[kRight] ^ 1", "pieces_[cell_[pos - 1]].edge[kRight]"),
        ("pieces_[cell_[pos - 3]].edge[kBottom] ^ 1", "pieces_[cell_[pos - 3]].edge[kBottom]"),
    ],
    ("same-half", "java"): [("a.charAt(1) != b.charAt(1)", "a.charAt(1) == b.charAt(1)")],
    ("same-half", "python"): [
        ('    return edge[0] + ("1" if edge[1] == "0" else "0")', "    return edge")
    ],
    # "no solution" as soon as an edge has no partner on another tile (border edges need none)
    ("needs-partner", "c"): [("    build_placements();\n", C_PARTNER_CHECK)],
    ("needs-partner", "python"): [
        (
            PY_SOLUTIONS,
            PY_SOLUTIONS + "    for t, tile in enumerate(tiles):\n"
            "        others = [e for u, other in enumerate(tiles) if u != t for e in other]\n"
            "        if any(matching(e) not in others for e in tile):\n"
            "            solutions = []\n",
        )
    ],
    # one recursive call per printed board: Python stops at about 1,000 levels
    ("recursive-print", "python"): [
        (
            '    out.append("\\n".join(drawing for _, drawing in solutions))\n',
            "    def boards(rest):\n"
            "        if not rest:\n"
            '            return ""\n'
            "        tail = boards(rest[1:])\n"
            '        return rest[0][1] + ("\\n" + tail if tail else "")\n\n'
            "    out.append(boards(solutions))\n",
        )
    ],
    # only the hand-out's four colours known: any other letter read as Y
    ("four-colours", "c"): [
        (
            "static int edge_code(const char *e)\n{\n    return (e[0] - 'A') * 2 + (e[1] - '0');\n}",
            "static int edge_code(const char *e)\n{\n"
            '    const char *at = strchr("YGRB", e[0]);\n'
            "    return (at ? (int)(at - \"YGRB\") : 0) * 2 + (e[1] - '0');\n}",
        )
    ],
}
# CR LF not handled: the \r stays in each tile's last edge
ALGORITHM_VARIANTS[("crlf-blind", "python")] = [
    (
        'with open(path, newline="") as f:\n        lines = [line.strip() for line in f.read().splitlines()]',
        'with open(path, newline="") as f:\n        lines = f.read().split("\\n")',
    ),
    (
        '    return [tuple(edge.strip() for edge in line.split(",")) for line in lines if line]',
        '    return [tuple(line.split(",")) for line in lines if line]',
    ),
]
VARIANTS.update(ALGORITHM_VARIANTS)


def variant(mistake: str, language: str, into: Path) -> Path:
    """The correct program of `language` with `mistake` written into it, in a folder of
    its own under `into` (named mistake-language); every replacement must apply."""
    folder, source = CORRECT[language]
    text = (ROOT / "submissions" / folder / source).read_text()
    for old, new in VARIANTS[(mistake, language)]:
        assert text.count(old) == 1, f"{mistake}-{language}: {old[:50]!r} is not there once"
        text = text.replace(old, new)
    target = into / f"{mistake}-{language}"
    target.mkdir(parents=True)
    (target / source).write_text(text)
    return target


def every_variant(into: Path) -> list[Path]:
    return [variant(mistake, language, into) for mistake, language in VARIANTS]


def case_subset(
    into: Path, ids: tuple[str, ...] | None, pool: tuple[str, ...] | None = None
) -> Path:
    """A copy of the shipped cases holding only `ids` (None: every one), and beside them
    the pool's puzzles `pool` (None: the whole pool)."""
    source = ROOT / "testcases"
    copy_subset(source / "pool" / "manifest.json", into / "pool" / "manifest.json", pool)
    return copy_subset(source / "manifest.json", into / "manifest.json", ids)
