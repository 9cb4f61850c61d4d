"""Types that cross module boundaries: limits, run results, verdicts."""

from dataclasses import dataclass, field
from enum import Enum
from typing import Final, Literal, get_args

from grader.core.settings.declare import Setting, at_most, finite, positive, setting


class Verdict(str, Enum):
    AC = "AC"  # accepted
    WA = "WA"  # wrong answer
    PE = "PE"  # differs only in white space (still a failure)
    TLE = "TLE"  # time limit exceeded (CPU or wall)
    MLE = "MLE"  # memory limit exceeded
    OLE = "OLE"  # output limit exceeded
    RTE = "RTE"  # crash or non-zero exit
    CE = "CE"  # build failed, or no buildable submission
    IE = "IE"  # the grader itself failed: never the student's fault

    def __str__(self) -> str:
        return self.value


# A timed run of a language's start-up program that ran: it prints nothing by design,
# so no verdict is asked of its output (grader.grading.timed_runs).
STARTUP_RAN: Final = "OK"
TimedVerdict = Verdict | Literal["OK"]  # what a timed run (grader.grading.timed_runs) counts as

NOT_GRADED = "-"  # shown for a case with no stored run
# The order every report lists verdicts in: accepted first, then the student's
# failures from "almost" to "did not build", then the grader's own, then none.
VERDICT_ORDER = (*(v.value for v in Verdict), NOT_GRADED)
# course.toml [scoring] policy_cases: how cases whose expected output depends on a
# policy rule count (grader.course.config reads it, grader.judge.score applies it).
PolicyCases = Literal["count", "apart", "forgive"]
POLICY_CASE_MODES: tuple[PolicyCases, ...] = get_args(PolicyCases)


class CpuAccounting(str, Enum):
    """What counted a run's CPU time (every report that shows a figure says which)."""

    # The run's cgroup: every process that was ever in the run, reaped or not.
    CGROUP = "cgroup"
    # What the run's init (or reaper) reaped, with auto-reaping refused by seccomp
    # (SIGCHLD ignored, SA_NOCLDWAIT): no process of the run escapes it either.
    REAPED = "reaped"
    # The program and the children it waited for (macOS: no reaper, no seccomp).
    WAITED = "waited"
    # Nothing counts CPU time (the portable fallback: Windows): wall-clock time stands in.
    WALL = "wall"

    def __str__(self) -> str:
        return self.value

    @property
    def explained(self) -> str:
        return {
            "cgroup": "a cgroup per run: every process the program started",
            "reaped": "the run's reaper: every process the program started (ignoring "
            "SIGCHLD is refused, so none is reaped unseen)",
            "waited": "the program and the children it waited for",
            "wall": "wall-clock time: nothing here counts CPU time (the kit's portable "
            "fallback), so a run is held to the CPU limit by its wall-clock time",
        }[self.value]


def _limit(comment: str, high: float, unit: str, **options: object) -> dict[str, Setting]:
    # A number as written: grader.results.regrade fingerprints repr(limits), and the results
    # of every earlier run hold the fingerprint of course.toml's ints. The upper bounds
    # are far above any grading need and below what the kernel's limits overflow at.
    return setting(comment, positive, finite, at_most(high, unit), as_written=True, **options)


@dataclass(frozen=True)
class Limits:
    """What one sandboxed process tree may use (course.toml [limits], [build_limits])."""

    cpu_seconds: float = field(
        default=10.0, metadata=_limit("user + sys of the whole process tree", 86400, " s (a day)")
    )
    wall_seconds: float = field(
        default=20.0, metadata=_limit("guard against sleeping programs", 86400, " s (a day)")
    )
    memory_mb: int = field(
        default=512,
        metadata=_limit(
            "peak memory (a Java program's heap: 3/4 of this, -Xmx)", 1 << 20, " MB (1 TiB)"
        ),
    )
    processes: int = field(default=64, metadata=_limit("processes and threads", 1 << 16, ""))
    file_size_mb: int = field(
        default=16, metadata=_limit("largest file it may write", 1 << 20, " MB (1 TiB)")
    )
    open_files: int = field(default=64, metadata=_limit("", 1 << 20, ""))
    stdout_bytes: int = field(
        default=8 << 20,
        metadata=_limit(
            "more output stops the program (a run: OLE)",
            1 << 22,
            " kB (4 GiB)",
            name="stdout_kb",
            scale=1024,
        ),
    )
    stderr_bytes: int = field(
        default=64 << 10,
        metadata=_limit(
            "kept for the report; the rest is dropped",
            1 << 22,
            " kB (4 GiB)",
            name="stderr_kb",
            scale=1024,
        ),
    )


def java_heap_mb(limits: Limits) -> int:
    """The JVM's heap (-Xmx): three quarters of the memory limit, the rest left for the
    JVM's own memory. A JVM that runs out of heap has used the memory it was given."""
    return max(32, limits.memory_mb * 3 // 4)


@dataclass
class RunResult:
    """What happened when one command ran in the sandbox."""

    exit_code: int | None  # None when killed by a signal
    signal: int | None  # the signal that ended it, if any
    cpu_seconds: float  # user + sys of the whole process tree
    wall_seconds: float
    peak_memory_kb: int  # largest resident set of one process, or of the tree as polled
    stdout: bytes  # at most Limits.stdout_bytes
    stderr: bytes  # at most Limits.stderr_bytes
    stdout_size: int  # bytes the program wrote to stdout in all (may exceed what was kept)
    timed_out: bool = False  # CPU or wall limit hit, tree killed
    memory_exceeded: bool = False  # the memory limit was hit (as measured)
    output_exceeded: bool = False  # stdout passed Limits.stdout_bytes, tree killed
    sandbox: str = ""  # which sandbox ran it ("bubblewrap" or "rlimits")
    error: str | None = None  # the sandbox itself failed (-> IE), one line
    processes_exceeded: bool = False  # a fork was refused at the process limit (cgroup)
    cpu_accounting: str = ""  # a CpuAccounting value: what counted cpu_seconds
