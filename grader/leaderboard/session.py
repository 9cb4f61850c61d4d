"""What the leaderboard works on: the programs to time (submissions and each language's
start-up program; a Program is grader/grading/timed_runs.py's), the ones that may not be ranked,
and one command's session."""

from dataclasses import dataclass, field

from grader.cases.manifest import Case
from grader.grading.draws import Draw
from grader.grading.timed_runs import Program


@dataclass(frozen=True)
class Ineligible:
    id: str
    language: str
    reason: str
    content_hash: str = ""  # as graded (for the recorded session)


@dataclass
class Session:
    """What one leaderboard command works on."""

    cases: list[Case]  # the timed puzzles: the draw's, or (no draw) the timed cases
    programs: list[Program]  # eligible submissions, built
    startups: list[Program]
    ineligible: list[Ineligible]
    startup_problems: dict[str, str] = field(default_factory=dict)  # language -> why none
    draw: Draw | None = None  # the puzzles drawn for this session

    @property
    def everything(self) -> list[Program]:
        return self.programs + self.startups
