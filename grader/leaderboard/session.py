"""What the leaderboard works on: the programs to time (submissions and each language's
start-up program), the ones that may not be ranked, and one command's session."""

from dataclasses import dataclass, field
from pathlib import Path

from grader.cases import Case
from grader.config import LanguageSpec

STARTUP_PREFIX = "startup/"  # no folder name holds a "/": no submission can take it


@dataclass(frozen=True)
class Program:
    """Something to time: a submission, or a language's start-up program."""

    id: str
    language: LanguageSpec
    content_hash: str
    folder: Path  # its build folder

    @property
    def startup(self) -> bool:
        return self.id.startswith(STARTUP_PREFIX)


@dataclass(frozen=True)
class Ineligible:
    id: str
    language: str
    reason: str


@dataclass
class Session:
    """What one leaderboard command works on."""

    cases: list[Case]  # the timed cases
    programs: list[Program]  # eligible submissions, built
    startups: list[Program]
    ineligible: list[Ineligible]
    startup_problems: dict[str, str] = field(default_factory=dict)  # language -> why none

    @property
    def everything(self) -> list[Program]:
        return self.programs + self.startups
