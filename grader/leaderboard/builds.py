"""Building what is timed: every eligible submission (from the build cache) and the
start-up program of each of their languages, so start-up cost can be shown beside the
figures."""

import hashlib
import os
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from grader import languages
from grader.build.builder import build
from grader.cases.manifest import Case
from grader.course.config import CourseConfig, LanguageSpec
from grader.grading.draws import Draw
from grader.grading.timed_runs import STARTUP_PREFIX, Program, timed_cases
from grader.intake.submissions import Submission
from grader.leaderboard.eligible import eligibility
from grader.leaderboard.session import Ineligible, Session
from grader.sandbox.base import Sandbox
from grader.store import Store

_STARTUP_SOURCES = {lang.name: lang.startup for lang in languages.REGISTRY}


def prepare(
    store: Store,
    cases: Sequence[Case],
    config: CourseConfig,
    sandbox: Sandbox,
    cache_root: Path,
    *,
    only: Collection[str] | None = None,
    unranked: Mapping[str, str] | None = None,
    draw: Draw | None = None,
    build_here: bool = True,
) -> Session:
    """Decide who is ranked and build (or find in the cache) every program to time.
    `only`: the submissions of the last grading run (None: every one stored);
    `unranked`: submission -> why it is never ranked (grader.intake.teams.Teams.unranked: no
    one's result, a copy of a group's submission ranked once, a test account); `draw`:
    the puzzles drawn for this session (grader.leaderboard.draws), timed instead of
    the manifest's timed cases. Without `build_here` (a cluster's session: each worker
    builds what it times, grader.leaderboard.on_workers), nothing is built on this
    machine, which then needs no compiler: a program's folder is its sources."""
    timed = list(draw.puzzles) if draw is not None else timed_cases(cases, config)
    programs, ineligible = [], []
    for row in store.submissions():
        if only is not None and row.id not in only:
            continue
        if unranked and row.id in unranked:
            why = unranked[row.id]
            ineligible.append(Ineligible(row.id, row.language, why, row.content_hash))
            continue
        sub, reason = eligibility(row, store, cases, config)
        if sub is not None:
            assert sub.language is not None, "an eligible submission has a language"
            artifact = build(sub, cache_root, sandbox, config.build_limits) if build_here else None
            if artifact is None or artifact.ok:
                folder = sub.folder if artifact is None else artifact.folder
                programs.append(Program(sub.id, sub.language, sub.content_hash, folder, sub))
                continue
            reason = "could not be built again for timing: " + _first_line(artifact.log)
        assert reason is not None, "eligibility gives a reason when it gives no submission"
        ineligible.append(Ineligible(row.id, row.language, reason, row.content_hash))
    if not programs:  # nothing to compare the languages' start-up costs with
        return Session(timed, [], [], ineligible, draw=draw)
    used = {program.language.name for program in programs}
    startups, problems = _startup_programs(config, sandbox, cache_root, build_here, used)
    return Session(timed, programs, startups, ineligible, problems, draw)


def _startup_programs(
    config: CourseConfig,
    sandbox: Sandbox,
    cache_root: Path,
    build_here: bool,
    used: Collection[str],
) -> tuple[list[Program], dict[str, str]]:
    """The start-up program of each language `used` by a program timed, built (or found
    in the cache; only written without `build_here`), the languages at once: its
    Program, or why there is none. A language no program is timed in has nothing to
    compare its start-up with: it is neither built nor timed."""
    specs = [
        (name, spec)
        for name, spec in config.languages.items()
        if name in _STARTUP_SOURCES and name in used
    ]
    with ThreadPoolExecutor(max_workers=max(1, min(len(specs), os.cpu_count() or 1))) as pool:
        made = list(
            pool.map(
                lambda item: _startup(item[0], item[1], config, sandbox, cache_root, build_here),
                specs,
            )
        )
    programs = [found for found in made if isinstance(found, Program)]
    problems = {name: found for (name, _), found in zip(specs, made) if isinstance(found, str)}
    return programs, problems


def _startup(
    name: str,
    spec: LanguageSpec,
    config: CourseConfig,
    sandbox: Sandbox,
    cache_root: Path,
    build_here: bool,
) -> "Program | str":
    source = _STARTUP_SOURCES[name].replace("{name}", Path(spec.source).stem)
    folder = cache_root / "startup-sources" / name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / spec.source
    path.write_text(source, encoding="utf-8")
    digest = hashlib.sha256(
        b"startup\0" + repr(spec).encode() + b"\0" + source.encode()
    ).hexdigest()
    sub = Submission(STARTUP_PREFIX + name, folder, path, spec, None, digest)
    if not build_here:
        return Program(sub.id, spec, digest, folder, sub)
    artifact = build(sub, cache_root, sandbox, config.build_limits)
    if artifact.ok:
        return Program(sub.id, spec, digest, artifact.folder, sub)
    return "could not be built: " + _first_line(artifact.log)


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else "no message"
