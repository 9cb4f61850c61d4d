"""testcases SUBCOMMAND: instructor tooling for the graded test cases.

Exit status: 0 done, 1 the command failed (a difference found, gave up),
2 bad input (a file, an option) or no reference solver.
"""

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from grader.core.errors import run_entry_point
from testcases import DEFAULT_EXAMPLES, DEFAULT_MANIFEST, build, engine, generate, intformat
from testcases.errors import UsageError
from testcases.puzzletext import format_puzzle


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line and status 2, like every other bad input
        self.exit(2, f"{self.prog}: {message}\n")


def parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="testcases",
        description="Build and verify the graded test cases "
        "(instructors: needs the reference solver).",
    )
    parser.add_argument(
        "--manifest",
        type=Path,
        default=DEFAULT_MANIFEST,
        help="the manifest to work on (default: the clone's testcases/manifest.json)",
    )
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=_Parser
    )

    gen = commands.add_parser("generate", help="a random puzzle with a chosen number of solutions")
    gen.add_argument(
        "--solutions",
        required=True,
        metavar="N|LOW-HIGH|many",
        help=f"unique solutions wanted; 'many' is {generate.MANY[0]}-{generate.MANY[1]}",
    )
    gen.add_argument(
        "--letters",
        type=int,
        metavar="K",
        help=f"draw edges from the alphabet's first K letters "
        f"(default {generate.DEFAULT_LETTERS}, or all of --alphabet)",
    )
    gen.add_argument(
        "--alphabet",
        metavar="LETTERS",
        help=f"the letters to draw from, in order (default {generate.DEFAULT_ALPHABET})",
    )
    gen.add_argument("--duplicates", action="store_true", help="include copies of one tile")
    gen.add_argument(
        "--symmetric",
        action="store_true",
        help="include rotationally symmetric tiles (e.g. R0,B1,R0,B1)",
    )
    gen.add_argument(
        "--ties",
        choices=generate.TIES,
        default="forbid",
        help="two boards with the same 9 digits (their order is the tie rule's): "
        "forbid them (default), require one, or allow them",
    )
    gen.add_argument("--seed", type=int, required=True, help="random seed: same seed, same puzzle")
    gen.add_argument(
        "--tries",
        type=int,
        default=generate.MAX_TRIES,
        help="give up after this many candidates (default %(default)s)",
    )
    gen.add_argument("--crlf", action="store_true", help="write CRLF line ends")
    gen.add_argument("--no-final-newline", action="store_true", help="leave out the last line end")
    gen.add_argument("-o", "--output", type=Path, help="write here instead of standard output")

    imp = commands.add_parser("import-int", help="convert an integer puzzle (.int) to letters")
    imp.add_argument("file", type=Path, metavar="FILE.int")
    imp.add_argument(
        "--alphabet",
        default=intformat.DEFAULT_ALPHABET,
        help="letters for the magnitudes, smallest first (default A-Z)",
    )
    imp.add_argument("-o", "--output", type=Path, help="write here instead of standard output")

    add = commands.add_parser(
        "add", help="add a puzzle as a case, expected output from the reference"
    )
    add.add_argument("id", help="case id: lower-case letters, digits, '-'")
    add.add_argument("input", type=Path, help="the puzzle file (copied byte for byte)")
    add.add_argument("--visibility", required=True, choices=("public", "hidden"))
    add.add_argument("--weight", type=float, default=1.0)
    add.add_argument("--timed", action="store_true", help="use it to time correct programs")
    add.add_argument("--tags", default="", help="comma-separated, e.g. one-solution,letters")
    add.add_argument("--seed", type=int, help="the generator seed, for generated puzzles")
    add.add_argument("--description", help="one line for the manifest")
    add.add_argument(
        "--max-bytes",
        type=int,
        default=build.MAX_OUTPUT_BYTES,
        help="refuse a larger expected output (default %(default)s)",
    )

    reb = commands.add_parser("rebuild", help="rewrite every expected output and policy list")
    reb.add_argument(
        "--max-bytes",
        type=int,
        default=build.MAX_OUTPUT_BYTES,
        help="refuse a larger expected output (default %(default)s)",
    )

    pool = commands.add_parser(
        "pool",
        help="(re)write the pool of public puzzles beside the public cases, from which the "
        "grader shows a student a puzzle that fails like a hidden case",
    )
    pool.add_argument(
        "--per-recipe", type=int, default=2, help="puzzles per recipe (default %(default)s)"
    )
    pool.add_argument("--seed", type=int, default=1000, help="the first seed (default %(default)s)")

    drw = commands.add_parser(
        "draw",
        help="draw fresh puzzles for one leaderboard session: one per timed case, from "
        "the family its generator declares, expected outputs cross-checked",
    )
    drw.add_argument(
        "--seed",
        type=int,
        help="the draw's seed (default: a new random one); the same seed draws the same puzzles",
    )
    drw.add_argument(
        "--family",
        action="append",
        default=[],
        metavar="CASE",
        help="draw for this timed case only (repeatable; default: every timed case)",
    )
    drw.add_argument(
        "-o", "--output", type=Path, required=True, help="the draw file to write (JSON)"
    )

    ver = commands.add_parser(
        "verify", help="check the manifest, the files and every expected output"
    )
    ver.add_argument(
        "--cross-check",
        action="store_true",
        help="also compare with the second engine, reference.dlx",
    )

    exa = commands.add_parser(
        "verify-examples",
        help="grade the example submissions and check each verdict against its expected.toml",
    )
    _example_options(exa)
    exa.add_argument("--jobs", type=int, default=1, help="runs at once (default: %(default)s)")
    exa.add_argument(
        "--record",
        action="store_true",
        help="write expected.toml (the verdicts measured now) into every example "
        "folder that has none",
    )

    lim = commands.add_parser(
        "timelimit",
        help="propose the CPU and wall limits from timed "
        "runs of the reference and the examples expected to pass",
    )
    _example_options(lim)
    lim.add_argument(
        "--runs",
        type=int,
        help="runs per program and case (default: [timelimit] runs in course.toml)",
    )
    lim.add_argument(
        "--csv",
        type=Path,
        metavar="OUT.csv",
        help="also write every timed run (program, language, case, CPU, wall)",
    )
    return parser


def _example_options(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "folder",
        nargs="?",
        type=Path,
        default=DEFAULT_EXAMPLES,
        help="the example class (default: the clone's submissions/)",
    )
    command.add_argument(
        "--course", type=Path, help="course configuration (default: the project's course.toml)"
    )


def _write(data: bytes, path: Path | None) -> None:
    if path is None:
        # Under `python -u` stdout is the raw file, whose write() may write only part
        # (a pipe write interrupted by a signal) and say so only in what it returns.
        # (Not reference.puzzlesolver.whole_writes: this module runs without the reference.)
        left = memoryview(data)
        while left:
            left = left[sys.stdout.buffer.write(left) :]
        sys.stdout.flush()
        return
    try:
        path.write_bytes(data)
    except OSError as error:
        raise UsageError(f"{path}: cannot write: {error.strerror}") from None


def _generate(args: argparse.Namespace) -> int:
    options = generate.Options(
        target=generate.parse_target(args.solutions),
        letters=generate.choose_letters(args.letters, args.alphabet),
        duplicates=args.duplicates,
        symmetric=args.symmetric,
        ties=args.ties,
        max_tries=args.tries,
    )
    if options.max_tries < 1:
        raise UsageError("--tries: give at least 1")
    if options.duplicates and options.target == generate.Target(1, 1):
        raise UsageError(
            "--duplicates: copies of a tile can swap places, so a solvable puzzle "
            "with duplicates has at least 2 solutions; ask for 0 or 2 or more"
        )
    found = generate.generate(options, args.seed, engine.solver())
    _write(format_puzzle(found.tiles, args.crlf, not args.no_final_newline), args.output)
    print(
        f"generate: {found.solutions} solution(s), seed {args.seed}, try {found.attempt}",
        file=sys.stderr,
    )
    return 0


def _import_int(args: argparse.Namespace) -> int:
    tiles = intformat.convert_file(args.file, args.alphabet)
    _write(format_puzzle(tiles), args.output)
    return 0


def _add(args: argparse.Namespace) -> int:
    case = build.NewCase(
        id=args.id,
        source=args.input,
        visibility=args.visibility,
        weight=args.weight,
        timed=args.timed,
        tags=build.parse_tags(args.tags),
        seed=args.seed,
        description=args.description,
    )
    if not args.weight > 0:
        raise UsageError("--weight: give a number above 0")
    print(build.add(args.manifest, case, args.max_bytes))
    return 0


def _rebuild(args: argparse.Namespace) -> int:
    for line in build.rebuild(args.manifest, args.max_bytes):
        print(line)
    return 0


def _pool(args: argparse.Namespace) -> int:
    from testcases.pool import make_pool

    if args.per_recipe < 1:
        raise UsageError("--per-recipe: give at least 1")
    for line in make_pool(args.manifest, args.per_recipe, args.seed):
        print(line)
    return 0


def _draw(args: argparse.Namespace) -> int:
    import json

    from testcases.draw import draw, seeded

    seed = seeded(args.seed)
    document = draw(args.manifest, seed, args.family)
    _write((json.dumps(document, indent=1) + "\n").encode("utf-8"), args.output)
    counts = ", ".join(f"{p['family']}: {p['solutions']}" for p in document["puzzles"])
    print(f"draw: seed {seed}, {len(document['puzzles'])} puzzles ({counts}) -> {args.output}")
    return 0


def _verify(args: argparse.Namespace) -> int:
    from testcases.verify import verify  # imports grader.cases.manifest, needed only here

    problems = verify(args.manifest, args.cross_check)
    for problem in problems:
        print(f"verify: {problem}", file=sys.stderr)
    if problems:
        print(f"verify: FAILED ({len(problems)} problem(s)) in {args.manifest}", file=sys.stderr)
        return 1
    engines = "the reference and reference.dlx" if args.cross_check else "the reference"
    print(f"verify: ok: every case in {args.manifest} matches {engines}")
    return 0


def _verify_examples(args: argparse.Namespace) -> int:
    from testcases.examples_cli import verify_examples  # imports the grader, needed only here

    return verify_examples(args)


def _timelimit(args: argparse.Namespace) -> int:
    from testcases.examples_cli import timelimit  # imports the grader, needed only here

    return timelimit(args)


_COMMANDS = {
    "generate": _generate,
    "import-int": _import_int,
    "add": _add,
    "rebuild": _rebuild,
    "pool": _pool,
    "draw": _draw,
    "verify": _verify,
    "verify-examples": _verify_examples,
    "timelimit": _timelimit,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return run_entry_point(f"testcases {args.command}", lambda: _COMMANDS[args.command](args))
