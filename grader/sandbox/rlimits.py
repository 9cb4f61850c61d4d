"""Rlimits fallback (no bubblewrap; Linux or macOS)
================================================
It runs the command in its own session with the same rlimits, except RLIMIT_NPROC
when the grader is not root (it counts every process of the user, so a limit of 64
would stop a student's own laptop from starting a JVM; macOS does not enforce
RLIMIT_AS either). For a run the workdir is copied into a private temporary folder
(the command's working directory; arguments naming files under the workdir are
rewritten to the copy) and the input is copied beside it; HOME and TMPDIR point into
that folder; a build runs in the workdir itself.

On Linux each run has a reaper of its own (``reaper.c``, compiled once with the system
C compiler like the zygote; ``reaper.py``, run by this Python, where there is none): a
child subreaper that starts the program and, once it has ended, kills and reaps
every process left in its tree, so the CPU time of every process the program
started counts, waited for or not, and nothing is left behind (a double fork or
setsid does not leave the tree of a subreaper). As root, the program runs as a
sandbox uid of its own (uids.py: the same slots as bubblewrap's), never as root:
RLIMIT_NPROC then holds, the program cannot signal the grader or its reaper, and it
can read only what any user may read. The tree's CPU time and memory are polled from
/proc (every process under the reaper). On macOS the program is a plain child in a
new session, memory is judged after the fact from ``ru_maxrss``, and the process
group is killed at the end (a setsid escapes it).
It does NOT protect: the program can read any file readable by its uid (as root:
any world-readable file; otherwise the grader's user's files), write anywhere that
uid can write (only the size of each file is limited), use the network. It keeps
honest programs honest; it is no defence against a hostile one.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import platform
import resource
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from grader.core.model import CpuAccounting, Limits, RunResult
from grader.sandbox.base import (
    SANDBOX_PATH,
    InputStage,
    Sandbox,
    SandboxUnavailable,
    SetupError,
    check_request,
    guarded,
    substitute,
)
from grader.sandbox.cgroups import Metered, runs_cgroups
from grader.sandbox.compiled import built_for
from grader.sandbox.seccomp import seccomp_program
from grader.sandbox.supervise import (
    Capture,
    Ending,
    Memory,
    Supervisor,
    Usage,
    decode_wait_status,
    group_ending,
    memory_of,
    nproc_of,
    poll_seconds,
    rlimit_values,
    run_result,
    rusage_cpu,
    rusage_peak_kb,
    tree_usage,
    with_group_cpu,
)
from grader.sandbox.uids import (
    UidSlots,
    pipes_for,
    readable_by,
    workdir_for,
    workdir_for_owner,
)
from grader.sandbox.writable import KEPT_BYTES, WritablePlaces, writable_places

FALLBACK_WARNING = (
    "running without isolation (rlimits and a private temporary folder only); "
    "programs can read your files and use the network"
)

_REAPER = Path(__file__).with_name("reaper.py")
_REAPER_C = Path(__file__).with_name("reaper.c")
_WITNESS_C = Path(__file__).with_name("witness.c")
_STARTED_SECONDS = 10.0  # the reaper is a Python starting: this only catches a wedged one


def _set_rlimits(limits: Limits, address_space: bool) -> None:
    """Without the reaper (macOS): runs in the child before exec."""
    for which, value in rlimit_values(limits, address_space, nproc=None):
        try:
            resource.setrlimit(which, value)
        except (ValueError, OSError):
            pass  # e.g. macOS refuses RLIMIT_AS; memory is then judged from ru_maxrss


@dataclass
class _Reaped:
    """One run under its reaper: the reaper's process, the program's pid, its report."""

    proc: subprocess.Popen[bytes]
    program: int
    uid: int | None
    status: socket.socket
    record: bytearray = field(default_factory=bytearray)
    since: int | None = None  # the writable places' mark taken before it started

    def kill(self) -> None:
        """The reaper kills and reaps the tree (its CPU time still counts); were the
        reaper itself gone (a program of the grader's uid may kill it), the uid's
        processes, or the program's session, are killed from here."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proc.pid, signal.SIGUSR1)
            return
        if self.uid is not None:
            _kill_uid(self.uid)
        elif self.program > 0:  # 0: the reaper ended before starting one (killpg(0) is ours)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.program, signal.SIGKILL)

    def close(self) -> None:
        self.status.close()
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self.proc.stdout.close()
        self.proc.stderr.close()


def _leftover(status: socket.socket) -> bytes:
    """What the reaper said that the watch did not read (it has exited: no waiting)."""
    status.setblocking(False)
    try:
        return status.recv(512)
    except OSError:
        return b""


def _kill_uid(uid: int) -> None:
    """Every process of a sandbox uid (ours alone while we hold its slot)."""
    for _ in range(16):  # a fork bomb under RLIMIT_NPROC runs out of room quickly
        found = False
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    if os.stat(f"/proc/{name}").st_uid == uid:
                        os.kill(int(name), signal.SIGKILL)
                        found = True
                except (FileNotFoundError, ProcessLookupError):
                    pass
        if not found:
            return


_IPC_RMID = 0
_SYSV = {"shm": "shmctl", "msg": "msgctl", "sem": "semctl"}


def _sysv_rows(kind: str, uid: int) -> list[dict[str, str]]:
    """The System V objects of one kind (shm, msg, sem) a sandbox uid made or owns."""
    try:
        with open(f"/proc/sysvipc/{kind}") as f:
            header, *rows = f.read().splitlines()
    except OSError:
        return []
    names = header.split()
    found = [dict(zip(names, row.split())) for row in rows]
    return [r for r in found if str(uid) in (r.get("uid"), r.get("cuid"))]


def _sysv_shm_kb(uid: int) -> int:
    """Shared memory segments outlive the processes that made them (and are in no
    process's memory once detached): they count toward the run's memory."""
    return sum(int(r.get("rss", r.get("size", "0"))) for r in _sysv_rows("shm", uid)) // 1024


def _remove_sysv(uid: int) -> None:
    """What a run left in the machine's System V namespace (the fallback has no ipc
    namespace of its own): removed, so that no later run finds it."""
    libc = ctypes.CDLL(None, use_errno=True)
    for kind, call in _SYSV.items():
        ident = "semid" if kind == "sem" else kind + "id"
        for row in _sysv_rows(kind, uid):
            if kind == "sem":
                libc.semctl(int(row[ident]), 0, _IPC_RMID)
            else:
                getattr(libc, call)(int(row[ident]), _IPC_RMID, None)


def _places() -> WritablePlaces:
    """The places, or SandboxUnavailable where one could not be restored after a run."""
    places = writable_places()
    if places.unkept:
        raise SandboxUnavailable(
            f"the rlimits fallback cannot restore {places.unkept[0]} after a run: it is "
            f"writable by every user and larger than {KEPT_BYTES >> 20} MB"
        )
    return places


def _search_path(uid: int | None) -> str:
    """The program's PATH: the sandbox uid cannot search root's own folders (a pyenv
    under /root)."""
    return SANDBOX_PATH if uid is not None else os.environ.get("PATH", SANDBOX_PATH)


class RlimitSandbox(Sandbox):
    """No isolation: rlimits, a private copy of the workdir, a reaper per run (Linux),
    a sandbox uid as root. See the module docstring."""

    name = "rlimits"
    shares_builds = True

    def __init__(self, *, cgroups: bool = True, cgroup_versions: tuple[int, ...] = (1, 2)) -> None:
        self.reaped = sys.platform.startswith("linux") and os.path.isdir("/proc/self")
        self.slots = UidSlots() if self.reaped and os.geteuid() == 0 else None
        # Where a sandbox uid can write on this machine: swept after each of its runs.
        self.places = _places() if self.slots is not None else None
        # CPU time: a cgroup per run where one can be made; else what the reaper reaps,
        # with auto-reaping refused (seccomp); without a reaper (macOS), what was waited.
        self.cgroups, self.cgroups_absent = runs_cgroups(cgroups and self.reaped, cgroup_versions)
        self.reaper = self._reaper_command() if self.reaped else []
        # Builds run under it (witness.c): a compiler's child killed from outside shows
        # as the build killed by that signal. None without a C compiler: unwitnessed.
        self.witness = built_for(_WITNESS_C, self.slots) if self.reaped else None
        self._local = threading.local()
        self.seccomp = (
            seccomp_program(platform.machine(), refuse_autoreap=self.cgroups is None)
            if self.reaped
            else None
        )
        if self.cgroups is not None:
            self.accounting = CpuAccounting.CGROUP
        elif self.seccomp is not None:
            self.accounting = CpuAccounting.REAPED
        else:
            self.accounting = CpuAccounting.WAITED

    def _metered(self, limits: Limits) -> Metered | None:
        """This thread's cgroup, kept from run to run (making one per run costs more
        than the rest of the run); only the program's processes in it: the reaper
        stays out."""
        if self.cgroups is None:
            return None
        group = getattr(self._local, "group", None)
        if group is None:
            group = self._local.group = self.cgroups.group("runs")
        group.set_limits(limits, 0)
        return Metered.continuing(group)

    def _reaper_command(self) -> list[str]:
        """reaper.c built (in a folder of the grader's alone), else reaper.py run by
        this Python (a Python starting for every run: slower, the same protocol)."""
        binary = built_for(_REAPER_C, self.slots)
        if binary is not None:
            return [str(binary)]
        return [sys.executable, "-S", "-I", str(_REAPER)]

    def run(
        self,
        argv: list[str],
        workdir: Path,
        limits: Limits,
        *,
        input_file: Path | None = None,
        writable: bool = False,
        memory_rlimit: bool = True,
    ) -> RunResult:
        start = time.monotonic()
        workdir = Path(os.path.abspath(workdir))

        def work() -> RunResult:
            if self.slots is not None and not writable:
                return self._run_in_lane(argv, workdir, limits, input_file, memory_rlimit, start)
            uid, uid_lock = self.slots.acquire() if self.slots is not None else (None, None)
            try:
                check_request(argv, workdir, input_file, path=_search_path(uid))
                with tempfile.TemporaryDirectory(prefix="sandbox-") as folder:
                    private = Path(folder)
                    # As root, a build runs in a copy as well: the sandbox uid may not
                    # even pass the workdir's parents (and must not write beside it).
                    in_place = writable and uid is None
                    command, cwd = self._stage(argv, workdir, private, input_file, in_place)
                    if writable and self.witness is not None:
                        command = [self._witness_for(private, uid), "--", *command]
                    memory = memory_of(memory_rlimit, build=writable)
                    with _usable_by(uid, private, workdir, writable):
                        return self._spawn(command, cwd, private, limits, memory, start, uid)
            finally:
                if uid_lock is not None:
                    os.close(uid_lock)

        return guarded(self.name, start, work)

    def _run_in_lane(
        self,
        argv: list[str],
        workdir: Path,
        limits: Limits,
        input_file: Path | None,
        memory_rlimit: bool,
        start: float,
    ) -> RunResult:
        """A run as root, in this thread's lane (see _Lane): the program's copy, its
        folder and its uid kept from run to run."""
        lane: _Lane | None = getattr(self._local, "lane", None)
        if lane is None:
            assert self.slots is not None
            lane = self._local.lane = _Lane(self.slots)
        check_request(argv, workdir, input_file, path=_search_path(lane.uid))
        cwd = lane.work_for(workdir)
        command = _moved(substitute(argv, lane.stage(input_file)), workdir, cwd)
        memory = memory_of(memory_rlimit, build=False)
        try:
            return self._spawn(command, cwd, lane.private, limits, memory, start, lane.uid)
        finally:
            lane.empty_tmp()  # nothing of a run outlives it, even in its own folder

    def _witness_for(self, private: Path, uid: int | None) -> str:
        """The witness where the build's uid may run it: as root, a copy in the build's
        own folder (the grader's folder is root's alone)."""
        assert self.witness is not None, "asked for only where it was built"
        if uid is None:
            return str(self.witness)
        copy = private / "witness"
        shutil.copyfile(self.witness, copy)
        os.chmod(copy, 0o755)
        return str(copy)

    @staticmethod
    def _stage(
        argv: list[str], workdir: Path, private: Path, input_file: Path | None, writable: bool
    ) -> tuple[list[str], Path]:
        (private / "tmp").mkdir()
        input_seen = None
        if input_file is not None:
            (private / "input").mkdir()
            seen = private / "input" / ("input" + input_file.suffix)
            shutil.copyfile(input_file, seen)
            input_seen = str(seen)
        command = substitute(argv, input_seen)
        if writable:
            return command, workdir
        cwd = private / "work"
        shutil.copytree(workdir, cwd, symlinks=True)
        return _moved(command, workdir, cwd), cwd

    def _spawn(
        self,
        command: list[str],
        cwd: Path,
        private: Path,
        limits: Limits,
        memory: Memory,
        start: float,
        uid: int | None,
    ) -> RunResult:
        env = {
            "PATH": _search_path(uid),
            "HOME": str(private / "tmp"),
            "TMPDIR": str(private / "tmp"),
            "LANG": "C.UTF-8",
        }
        if self.reaped:
            metered = self._metered(limits)
            # What the run's sweep looks from: taken before any of it can write.
            since = self.places.mark() if uid is not None and self.places is not None else None
            run = self._start_reaper(command, cwd, env, limits, memory, uid, metered)
            run.since = since
            try:
                return self._supervise_reaped(run, limits, memory, start, metered)
            finally:
                run.close()
        own_peak = rusage_peak_kb([resource.getrusage(resource.RUSAGE_SELF)])
        try:
            proc = subprocess.Popen(
                command,
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                preexec_fn=functools.partial(_set_rlimits, limits, memory.address_space),
            )
        except OSError as exc:  # checked before the run: the grader's failure
            raise SetupError(f"cannot start the program: {command[0]}: {exc.strerror}") from None
        return self._supervise(proc, limits, memory, start, own_peak)

    def _start_reaper(
        self,
        command: list[str],
        cwd: Path,
        env: dict[str, str],
        limits: Limits,
        memory: Memory,
        uid: int | None,
        group: Metered | None,
    ) -> _Reaped:
        """The reaper started, and the program's pid it reports; SetupError (the
        grader's failure, never the program's) when it cannot start."""
        # Not root: RLIMIT_NPROC would count every process of the grader's user.
        nproc = nproc_of(limits, self.cgroups) if uid is not None else None
        values = rlimit_values(limits, memory.address_space, nproc)
        encoded = ",".join(f"{which}:{soft}:{hard}" for which, (soft, hard) in values)
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        joins = group.group.open_joins() if group is not None else []
        try:
            argv = [
                *self.reaper,
                str(theirs.fileno()),
                str(-1 if uid is None else uid),
                encoded,
                ",".join(str(fd) for fd in joins) or "-",
                self.seccomp.hex() if self.seccomp else "-",
                # reaper.c polls the tree's memory itself where no cgroup holds it
                "0"
                if group is not None and self.cgroups and self.cgroups.limits_memory
                else str(limits.memory_mb << 10),
                "--",
                *command,
            ]
            out_r, out_w = os.pipe()
            err_r, err_w = os.pipe()
            pipes_for(uid, out_w, err_w)  # before the program can open /dev/stdout
            try:
                proc = subprocess.Popen(
                    argv,
                    cwd=cwd,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=out_w,
                    stderr=err_w,
                    pass_fds=[theirs.fileno(), *joins],
                    start_new_session=True,
                )
            except OSError as exc:
                os.close(out_r)
                os.close(err_r)
                raise SetupError(f"cannot start the run's reaper: {exc.strerror}") from None
            finally:
                os.close(out_w)
                os.close(err_w)
            proc.stdout, proc.stderr = os.fdopen(out_r, "rb", 0), os.fdopen(err_r, "rb", 0)
        except BaseException:
            mine.close()
            raise
        finally:
            theirs.close()
            for fd in joins:
                os.close(fd)
        try:
            mine.settimeout(_STARTED_SECONDS)
            said = mine.recv(512)
            mine.settimeout(None)
        except OSError:
            said = b""
        run = _Reaped(proc, 0, uid, mine)
        if not said.startswith(b"started "):
            run.kill()
            proc.wait()
            err = proc.stderr.read(4096) if proc.stderr is not None else b""
            run.close()
            if said.startswith(b"error "):
                why = said[6:]
            else:  # its own traceback, say: the last line names the error
                why = (err.strip().splitlines() or [b"it said nothing"])[-1]
            detail = why.decode(errors="replace").strip()
            if detail.startswith("cannot start the program: "):
                raise SetupError(detail)
            raise SetupError(f"the run's reaper did not start the program: {detail}")
        run.program = int(said.split()[1])
        return run

    def _supervise_reaped(
        self,
        run: _Reaped,
        limits: Limits,
        memory: Memory,
        start: float,
        group: Metered | None,
    ) -> RunResult:
        capture = Capture(limits.stdout_bytes, limits.stderr_bytes)
        reaper = str(run.proc.pid)

        def tree() -> Usage | None:
            usage = tree_usage("/proc", init=reaper, root=reaper)
            if usage is not None and run.uid is not None:
                usage.anon_kb += _sysv_shm_kb(run.uid)
            return usage

        every = poll_seconds(memory.address_space)
        poll = with_group_cpu(tree, group)
        watch = Supervisor(limits, capture, poll=poll, poll_every=every, kill=run.kill)
        watch.extra[run.status.fileno()] = lambda data: run.record.extend(data[:512])
        assert run.proc.stdout is not None and run.proc.stderr is not None
        try:
            watch.watch(run.proc.stdout.fileno(), run.proc.stderr.fileno(), start)
        finally:
            if not run.record.startswith(b"exit "):  # else the reaper killed all it had
                run.kill()
            run.proc.wait()
            if not run.record.startswith(b"exit "):  # killing a big tree outlasted the watch
                run.record += _leftover(run.status)
            if run.uid is not None:
                _remove_sysv(run.uid)
                assert self.places is not None, "a sandbox uid only where places were scanned"
                self.places.sweep(run.uid, run.since)
        wall = time.monotonic() - start
        fields = bytes(run.record).split()
        if len(fields) != 7 or fields[0] != b"exit":
            raise SetupError(
                f"the run's reaper ended with status {run.proc.returncode} and no report"
            )
        status, user_us, system_us, peak_kb, own_kb, over_kb = (int(x) for x in fields[1:])
        if over_kb and watch.reason is None:  # the reaper stopped it past the memory limit
            watch.reason = "memory"
            watch.peak_rss_kb = max(watch.peak_rss_kb, over_kb)
        code, sig = decode_wait_status(status)
        # The program began as a fork of the reaper: its ru_maxrss starts at the
        # reaper's peak. Only a larger figure is its own; below it, trust the polls.
        peak = max(peak_kb if peak_kb > own_kb else 0, watch.peak_rss_kb)
        ending = group_ending(group, code, sig, (user_us + system_us) / 1e6, peak, watch)
        return run_result(
            self.name, limits, capture, ending, watch.reason, wall, memory, self.accounting
        )

    def _supervise(
        self,
        proc: subprocess.Popen[bytes],
        limits: Limits,
        memory: Memory,
        start: float,
        own_peak: int,
    ) -> RunResult:
        """Without a reaper (macOS): the program is our child, its group is killed."""
        capture = Capture(limits.stdout_bytes, limits.stderr_bytes)
        ended: list[tuple[int, resource.struct_rusage]] = []

        def kill() -> None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)

        def exited() -> bool:
            if not ended:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    ended.append((status, usage))
            return bool(ended)

        every = poll_seconds(memory.address_space)
        watch = Supervisor(
            limits,
            capture,
            poll=lambda: None,
            poll_every=every,
            kill=kill,
            exited=exited,
            on_exit=kill,
        )
        assert proc.stdout is not None and proc.stderr is not None
        try:
            watch.watch(proc.stdout.fileno(), proc.stderr.fileno(), start)
        finally:
            kill()
            if not ended:
                _, status, usage = os.wait4(proc.pid, 0)
                ended.append((status, usage))
            proc.returncode = os.waitstatus_to_exitcode(ended[0][0])
            proc.stdout.close()
            proc.stderr.close()
        wall = time.monotonic() - start
        status, usage = ended[0]
        code, sig = decode_wait_status(status)
        # A child that began as a (v)fork of the grader inherits the grader's peak RSS as
        # its ru_maxrss: only a larger figure is the program's own.
        child_peak = rusage_peak_kb([usage])
        peak = child_peak if child_peak > own_peak else 0
        ending = Ending(code, sig, rusage_cpu([usage]), peak)
        if ending.peak_memory_kb > limits.memory_mb * 1024 and watch.reason is None:
            watch.reason = "memory"  # macOS: no RLIMIT_AS, no polling; judged afterwards
        return run_result(
            self.name, limits, capture, ending, watch.reason, wall, memory, self.accounting
        )


def _moved(command: list[str], workdir: Path, copy: Path) -> list[str]:
    """Arguments naming files under the workdir, rewritten to its copy."""
    prefix = str(workdir)
    return [
        str(copy) + a[len(prefix) :] if a == prefix or a.startswith(prefix + "/") else a
        for a in command
    ]


class _Lane:
    """What one worker thread keeps from run to run as root (a submission's cases run
    one after the other in it): its sandbox uid, held for the thread's life; a folder
    only that uid's group may enter, with the copy of the program it last ran (copied
    again when the build folder changes: root's, read-only to the program), the input
    (root's, read-only) and a tmp of the uid's own, emptied before every run."""

    def __init__(self, slots: UidSlots) -> None:
        self.uid, lock = slots.acquire()
        try:
            self.private = Path(tempfile.mkdtemp(prefix="sandbox-"))
        except BaseException:
            os.close(lock)
            raise
        self._finalizer = weakref.finalize(self, _close_lane, lock, self.private)
        (self.private / "input").mkdir()
        os.chmod(self.private / "input", 0o755)  # whatever the umask (Gradescope's: 077)
        self.inputs = InputStage(self.private / "input")
        (self.private / "tmp").mkdir(mode=0o700)
        os.chown(self.private / "tmp", self.uid, self.uid)
        os.chown(self.private, 0, self.uid)
        os.chmod(self.private, 0o750)
        self.copied: tuple[str, int, int, int] | None = None

    def work_for(self, workdir: Path) -> Path:
        """The program's copy, made again when the build folder is another (a rebuild
        replaces it: another inode); the tmp emptied of what the last run left."""
        st = os.stat(workdir)
        key = (str(workdir), st.st_dev, st.st_ino, st.st_mtime_ns)
        work = self.private / "work"
        if key != self.copied:
            self.copied = None
            shutil.rmtree(work, ignore_errors=True)
            shutil.copytree(workdir, work, symlinks=True)
            readable_by(self.uid, work)
            self.copied = key
        self.empty_tmp()
        return work

    def stage(self, input_file: Path | None) -> str | None:
        """The input, copied in (root's, read-only); where the program sees it."""
        staged = self.inputs.put(input_file)
        return None if staged is None else str(staged)

    def empty_tmp(self) -> None:
        tmp = self.private / "tmp"
        for entry in os.scandir(tmp):
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)


def _close_lane(lock: int, private: Path) -> None:
    shutil.rmtree(private, ignore_errors=True)
    os.close(lock)


@contextlib.contextmanager
def _usable_by(uid: int | None, private: Path, workdir: Path, writable: bool) -> Iterator[None]:
    """As root, the sandbox uid may read the private copy and write its tmp; a build
    writes its copy of the workdir, which replaces the workdir once every process of
    it is dead (as under bubblewrap: the grader's, world-readable, no set-uid bit)."""
    if uid is None:
        yield
        return
    os.chown(private / "tmp", uid, uid)
    readable_by(uid, private)
    # Its own uid's group alone may enter: no other run (another uid) reads this one's
    # program, input or files.
    os.chown(private, 0, uid)
    os.chmod(private, 0o750)
    copy = private / "work"
    with workdir_for(uid, copy, writable):
        yield
    if writable:
        st = os.stat(workdir)
        shutil.rmtree(workdir)
        shutil.copytree(copy, workdir, symlinks=True)
        os.chmod(workdir, stat.S_IMODE(st.st_mode))
        workdir_for_owner(workdir, st.st_uid, st.st_gid)
