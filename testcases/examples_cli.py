"""`testcases verify-examples` and `testcases timelimit`: the commands that grade
or time the example class (kept apart from cli.py, which needs no grader)."""

import argparse
import csv
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from tabulate import tabulate

from grader.cases.manifest import Case, CaseError, load_cases
from grader.core.progress import progress
from grader.course.config import ConfigError, CourseConfig, load_config
from grader.sandbox import SandboxUnavailable, make_sandbox
from testcases import examples as ex
from testcases import timelimit as tl
from testcases.errors import Failure, UsageError
from testcases.expected import FILE_NAME, render


def _warn(message: str) -> None:
    print(f"testcases: warning: {message}", file=sys.stderr)


def _setup(args: argparse.Namespace) -> tuple[CourseConfig, list[Case], list[ex.Example]]:
    if getattr(args, "jobs", 1) < 1:  # timelimit has no --jobs: it times one run at a time
        raise UsageError(f"--jobs must be at least 1, not {args.jobs}")
    try:
        config = load_config(args.course)
        cases = load_cases(args.manifest)
    except (ConfigError, CaseError) as error:
        raise UsageError(str(error)) from None
    return config, cases, ex.find_examples(args.folder, config, cases)


def verify_examples(args: argparse.Namespace) -> int:
    config, cases, examples = _setup(args)
    print(
        f"verify-examples: grading {len(examples)} examples on {len(cases)} cases ...",
        file=sys.stderr,
    )
    try:
        with progress(len(examples) * len(cases), "grading the examples") as bar:

            def judged(what: str) -> None:
                bar.on(what)
                bar.done()

            outcomes = ex.grade_examples(
                examples, cases, config, jobs=args.jobs, warn=_warn, judged=judged
            )
    except SandboxUnavailable as error:
        raise Failure(str(error)) from None
    for outcome in outcomes:
        print(ex.summary_line(outcome))
    if args.record:
        for outcome in outcomes:
            if outcome.example.expected is None:
                path = outcome.example.submission.folder / FILE_NAME
                path.write_text(render(outcome.verdicts), encoding="utf-8")
                print(f"verify-examples: wrote {path}")
    problems = [line for outcome in outcomes for line in outcome.problems()]
    undeclared = [o.example.id for o in outcomes if o.example.expected is None]
    for line in problems:
        print(f"verify-examples: {line}", file=sys.stderr)
    if undeclared and not args.record:
        _warn(f"no {FILE_NAME} (not checked): {', '.join(undeclared)}")
    if problems:
        raise Failure(f"FAILED: {len(problems)} verdict(s) differ from the declared ones")
    checked = len(outcomes) - (0 if args.record else len(undeclared))
    print(f"verify-examples: ok: {checked} example(s) get exactly their declared verdicts")
    return 0


def timelimit(args: argparse.Namespace) -> int:
    config, cases, examples = _setup(args)
    runs = args.runs if args.runs is not None else config.timelimit.runs
    if runs < 1:
        raise UsageError(f"--runs must be at least 1, not {runs}")
    try:
        sandbox = make_sandbox(config.sandbox, warn=_warn)
    except SandboxUnavailable as error:
        raise Failure(str(error)) from None
    with tempfile.TemporaryDirectory(prefix="timelimit-") as tmp:
        cache = Path(tmp) / "builds"
        reference = tl.reference_submission(Path(tmp), config)
        programs = tl.programs_to_time(reference, examples, cases)
        print(
            f"timelimit: {len(programs)} programs ({', '.join(p.id for p in programs)}) x "
            f"{len(cases)} cases x {runs} runs, one at a time",
            file=sys.stderr,
        )
        total = runs * sum(len(p.cases) for p in programs)
        with progress(total, "timing") as bar:

            def ran(what: str) -> None:
                bar.on(what)
                bar.done()

            measured = tl.measure(programs, runs, sandbox, config, cache, ran)
        for problem in measured.problems:
            print(f"timelimit: {problem}", file=sys.stderr)
        if measured.problems:
            raise Failure(
                f"{len(measured.problems)} run(s) expected to pass did not: "
                "fix them (testcases verify-examples) before setting a limit"
            )
        print(
            tabulate(
                [
                    (p, lang, n, f"{med:.4f}", f"{worst:.4f}", case)
                    for p, lang, n, med, worst, case in tl.table(measured.samples)
                ],
                headers=(
                    "program",
                    "language",
                    "runs",
                    "median CPU s",
                    "slowest CPU s",
                    "slowest case",
                ),
            )
        )
        if args.csv is not None:
            _write_csv(args.csv, measured.samples)
        proposal = tl.propose(measured.samples, config.timelimit)
        slowest = proposal.slowest
        print(
            f"\nslowest accepted run: {slowest.program} ({slowest.language}) on "
            f"{slowest.case}: {slowest.cpu_seconds:.4f} s CPU, {slowest.wall_seconds:.4f} s "
            f"wall"
        )
        print(
            f"proposed: CPU {proposal.cpu_seconds:g} s (= {proposal.k:g} x "
            f"{slowest.cpu_seconds:.4f} s, rounded up to a multiple of "
            f"{config.timelimit.round_to:g} s), wall {proposal.wall_seconds:g} s "
            f"(= {config.timelimit.wall_factor:g} x CPU, at least {proposal.k:g} x the "
            f"slowest wall time, {proposal.slowest_wall.wall_seconds:.4f} s by "
            f"{proposal.slowest_wall.program} on {proposal.slowest_wall.case}); "
            f"now in force: CPU {config.limits.cpu_seconds:g} s, wall {config.limits.wall_seconds:g} s"
        )
        print("\n# for course.toml\n" + tl.limits_snippet(proposal))
        for warning in tl.tle_warnings(examples, cases, proposal, sandbox, config, cache):
            _warn(warning)
    return 0


def _write_csv(path: Path, samples: Iterable[tl.Sample]) -> None:
    """Every timed run, one row each (the csv module quotes odd folder names)."""
    try:
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(("program", "language", "case", "cpu_seconds", "wall_seconds"))
            writer.writerows(
                (s.program, s.language, s.case, f"{s.cpu_seconds:.6f}", f"{s.wall_seconds:.6f}")
                for s in samples
            )
    except OSError as error:
        raise UsageError(f"{path}: cannot write: {error.strerror}") from None
