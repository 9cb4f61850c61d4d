"""Whether the machine is quiet enough to time on. The timed runs share the machine with
whatever else runs on it: on a busy one every figure is slower and noisier, and the
bonus would go by another job's load. Measured before timing, never assumed: the CPU
other work used over a short look (taken while the grader prepares the session: its own
CPU time is not counted), against the cores left once the timing takes one of them;
the cores it leaves free are the most that time at once."""

import os
import resource
import time
from dataclasses import dataclass
from pathlib import Path

from grader.core.errors import GraderError
from grader.leaderboard.machine import load_average

# Long enough to read (50 ticks of each core at the kernel's 100 a second: a core's
# worth of other work shows as 1.0 within 0.04), and taken while the session is
# prepared: a longer look only delays the timing of a small class (a 16-program
# session's preparation took 0.50 to 0.62 s and its calibration 0.14 to 0.39 s, and
# the timing waited for a 1-second look).
LOOK_SECONDS = 0.5
STAT = Path("/proc/stat")
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100  # /proc/stat's unit


class MachineBusy(GraderError):
    """The machine is too busy to time on, and no one said to go on."""


@dataclass(frozen=True)
class Load:
    """Cores' worth of CPU in use over the look, out of the machine's cores."""

    busy_cores: float
    cores: int

    @property
    def free_cores(self) -> int:
        """The cores other work leaves (rounded): the most that may time at once."""
        return max(0, round(self.cores - self.busy_cores))

    @property
    def busy(self) -> bool:
        """Less than one core free for the timing."""
        return self.busy_cores > self.cores - 1

    def describe(self) -> str:
        average = _load_average()
        return (
            f"{self.busy_cores:.1f} of its {self.cores} cores were in use over "
            f"{LOOK_SECONDS:g} s{average}"
        )


@dataclass(frozen=True)
class Looking:
    """A look begun: the kernel's counters and this process's own CPU time at its start.
    The grader may work while it lasts (its own CPU time is not other work's)."""

    first: tuple[int, int, int] | None
    own: float
    started: float
    seconds: float
    stat: Path

    def finish(self) -> Load | None:
        """What other work used from the start until now (at least `seconds` after it):
        the machine's CPU in use, less this process's own."""
        if self.first is None:
            return None  # nothing to read here: no wait
        left = self.seconds - (time.monotonic() - self.started)
        if left > 0:
            time.sleep(left)
        second = _counters(self.stat)
        if second is None:
            return None
        (idle0, total0, cores), (idle1, total1, _) = self.first, second
        spent = total1 - total0
        if spent <= 0:
            return None
        ours = (_own_cpu() - self.own) * _TICKS
        busy = max(0.0, spent - (idle1 - idle0) - ours)
        return Load(busy_cores=cores * busy / spent, cores=cores)


def start_look(seconds: float = LOOK_SECONDS, stat: Path = STAT) -> Looking:
    return Looking(_counters(stat), _own_cpu(), time.monotonic(), seconds, stat)


def look(seconds: float = LOOK_SECONDS, stat: Path = STAT) -> Load | None:
    """The CPU other work used over `seconds`, from the kernel's own counters; None
    where there are none to read (not Linux)."""
    return start_look(seconds, stat).finish()


def _own_cpu() -> float:
    """CPU seconds of this process and the children it has waited for."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def refuse_if_busy(load: Load | None, go_on: bool) -> str | None:
    """MachineBusy when the machine is busy and `go_on` is not set; else what to warn
    of (busy but told to go on, or not known), or None on a quiet machine."""
    if load is None:
        return "cannot tell whether this machine is busy (no /proc/stat): time it quiet"
    if not load.busy:
        return None
    said = f"this machine is busy: {load.describe()}"
    if not go_on:
        raise MachineBusy(
            f"{said}; timings taken now are slower and noisier than the class's "
            "programs deserve: stop the other work and run it again, or pass --busy-ok "
            "to time anyway (the leaderboard then shows the load)"
        )
    return f"{said}; timing anyway (--busy-ok): the figures are slower and noisier"


def _counters(stat: Path) -> tuple[int, int, int] | None:
    """(idle, total) jiffies of all cores together, and the number of cores."""
    try:
        lines = stat.read_text().splitlines()
    except OSError:
        return None
    total_line = next((line for line in lines if line.startswith("cpu ")), None)
    cores = sum(1 for line in lines if line.startswith("cpu") and line[3:4].isdigit())
    if total_line is None or cores == 0:
        return None
    fields = [int(x) for x in total_line.split()[1:9]]
    idle = fields[3] + fields[4]  # idle and waiting for I/O: no program of anyone's ran
    return idle, sum(fields), cores


def _load_average() -> str:
    load = load_average()
    if not load:
        return ""
    return f" (load average {load[0]:.1f} over a minute, {load[1]:.1f} over five)"
