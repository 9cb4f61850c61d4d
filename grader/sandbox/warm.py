"""The warm sandbox: bubblewrap's namespaces made once per worker, each run started in
them by a small zygote (zygote.c) in namespaces of its own.

Why
    A bwrap per run costs several milliseconds more than the bare program, nearly all
    of it bwrap's own set-up (namespaces, the new root, /proc) and the uid-drop exec; a
    run started by a waiting zygote costs much less (the figures: bench/bench_sandbox.py,
    and the README's "The sandbox").
Made once per zygote (one per worker thread, for one workdir)
    bwrap, exactly as for a one-shot run (bubblewrap.py), with the network, uts, ipc,
    pid, mount and, not root, user namespaces; the same read-only tree; the workdir
    read-only at its own path (made readable by the sandbox uid here, not per run);
    /input bound read-only from the zygote's stage folder (the grader's,
    world-readable: the zygote copies each run's input there, through a descriptor
    of the folder no program holds); the seccomp filter
    and no_new_privs, but where the runs' cgroup is v2's: there each program is born
    in it with clone3, which the filter refuses, and the zygote puts each program under
    the filter itself, just before its exec. The zygote keeps CAP_SYS_ADMIN (and, as
    root, CAP_SETUID and CAP_SETGID) to make each run, and drops every capability from
    its bounding set once: the program never has one, nor can gain one.
    As root the zygote holds one sandbox uid for its life: no two runs at once share it.
Fresh for each run
    A new pid namespace, whose pid 1 (the run's init, the zygote's child) starts the
    program; a new mount namespace (a private copy of the zygote's tree) where the init
    mounts the run's own /proc and /tmp tmpfs (the workdir bound again on top when it
    lies under /tmp); a new ipc namespace (as root, System V shared memory capped at an
    eighth of the memory limit in all); a new network namespace, loopback only. The
    zygote makes the last three ahead, between runs, and returns to its own mount
    namespace once a run is over (System V objects, sockets in TIME_WAIT, /proc/net and
    its counters, mounts never pass from one run to the next). A new session; the
    rlimits; as root the zygote's sandbox uid; no capabilities; the CPU affinity the
    grader's thread has at that moment (the leaderboard pins one core).
Shared by the runs of one zygote
    The uts namespace (no capability to change it), the read-only tree.
    Not root, the zygote and the run's init have the program's uid in the sandbox's
    user namespace: they count against its RLIMIT_NPROC (two of it), not against its
    cgroup's process limit.
Ending, killing, accounting
    The program joins the runs' cgroup before its exec (born in it, with v2); the
    zygote and the init stay out. The init waits for the program; then it kills
    whatever is left in the namespace (kill(-1) from pid 1), reaps it all, reports the
    program's wait status and the rusage of everything it reaped (a child nobody
    waited for counts as much as one waited for), and exits. The init sends the
    grader a pidfd of itself with its "started" (and its pid in the status socket's
    credentials): the grader polls the tree through /proc/<init>/root/proc as for a
    one-shot run, keeping a poll only while that pidfd says the init is alive (the
    zygote reaps the init as soon as it ends, after which its pid may be another
    process's), and kills the init (and so the namespace) through the pidfd on a
    limit. When ``run`` returns, every process of the program has ended and been
    reaped, and the run's cgroup counted all it did: the init's report says so, and
    the run's result needs nothing more. The init's own end (its namespaces, the
    mounts of its /tmp and /proc) takes a few tenths of a millisecond more: the
    zygote says "reaped" once it is over, and the grader waits for that word before
    the next run reads its counters (that /tmp's memory is no longer counted by then),
    or at once when the run was killed (the namespace's processes die with the init,
    and are counted once gone). The program is pid 2, not pid 1: signals work as
    anywhere (a program that aborts is reported with SIGABRT, not as exit status 134
    as bwrap reports it).
Lifetime
    A worker's zygote serves one workdir (the same path replaced by a rebuild counts as
    another); a run of another starts a new one. bwrap's --die-with-parent ends it
    with its thread; it is closed when its thread's storage goes, and at exit.
Not used
    For builds (a writable workdir), and on a machine without a C compiler to build
    zygote.c: a one-shot bwrap per run then (bubblewrap.py). A zygote that fails
    before its program starts is replaced once.
"""

from __future__ import annotations

import array
import contextlib
import fcntl
import functools
import os
import resource
import select
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from grader.core.model import Limits, RunResult
from grader.sandbox.base import (
    SetupError,
    check_request,
    error_result,
    guarded,
    substitute,
)
from grader.sandbox.cgroups import Cgroups, Metered, RunGroup
from grader.sandbox.compiled import built_for
from grader.sandbox.supervise import (
    Capture,
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
    sandbox_usage,
    sysv_shm_bytes,
    tmpfs_bytes,
    with_group_cpu,
)
from grader.sandbox.uids import UidSlots, pipes_for, readable_by

ZYGOTE_PATH = "/.zygote"
_SOURCE = Path(__file__).with_name("zygote.c")
_MAX_REQUEST = 65535  # zygote.c's buffer, less its terminating NUL
_INPUT_NAME = 64  # zygote.c's MAX_INPUT_NAME
_REPLY_SECONDS = 10.0  # the zygote answers at once: this only catches a wedged one
_REAP_SECONDS = 30.0  # tearing down a namespace of big processes can take a while
_CLOSE_SECONDS = 2.0


class _Broken(Exception):
    """The zygote failed before the program started: a fresh one may do better."""


@dataclass(frozen=True)
class ZygoteSpawn:
    """What bwrap needs to start one zygote (see BubblewrapSandbox._zygote_argv)."""

    workdir: Path
    stage: Path
    binary: Path
    control_fd: int
    stage_fd: int  # the stage folder, where the zygote writes each run's input
    uid: int | None
    seccomp_fd: int | None
    joins: tuple[int, ...] = ()  # its cgroup's files to join it by (RunGroup.open_joins)
    # A v2 group among them: the zygote starts each run's init in it with clone3, which
    # the seccomp filter refuses, so the zygote puts each program under the filter
    # itself (a filter per run costs about 0.2 ms); otherwise bwrap puts the zygote
    # under it once, for all its runs.
    clone_into: bool = False


def build_zygote(slots: UidSlots | None) -> Path | None:
    """zygote.c compiled into the grader's own folder; None without a C compiler."""
    return built_for(_SOURCE, slots)


def _new_stage(folder: Path) -> tuple[Path, int]:
    """A stage folder and the flock that says it is in use. It is locked under a name
    the sweep ignores, then renamed: no sweep can take it in between."""
    made = Path(tempfile.mkdtemp(prefix=".stage-", dir=folder))
    lock = os.open(made, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    fcntl.flock(lock, fcntl.LOCK_EX)
    os.chmod(made, 0o755)
    stage = made.with_name(made.name[1:])
    os.rename(made, stage)
    return stage, lock


def _sweep(folder: Path) -> None:
    """Stage folders left by graders that were killed: those nobody holds locked."""
    for stage in folder.glob("stage-*"):
        try:
            lock = os.open(stage, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            shutil.rmtree(stage, ignore_errors=True)
        except BlockingIOError:
            pass  # a live zygote's
        finally:
            os.close(lock)


@dataclass
class WarmRuns:
    """Runs of read-only workdirs, each worker thread through its own zygote."""

    spawn_argv: Callable[[ZygoteSpawn], list[str]]  # bwrap's, for one zygote
    binary: Path  # zygote.c, built
    folder: Path  # private to the grader: the binary, the stage folders
    slots: UidSlots | None  # root: the sandbox uids
    seccomp: bytes | None
    name: str
    cgroups: Cgroups | None  # a group per run where the machine has them
    accounting: str  # a CpuAccounting value
    _local: threading.local = field(default_factory=threading.local)

    def __post_init__(self) -> None:
        _sweep(self.folder)

    def run(
        self,
        argv: list[str],
        workdir: Path,
        limits: Limits,
        *,
        input_file: Path | None,
        memory_rlimit: bool,
    ) -> RunResult:
        def work() -> RunResult:
            # The command is checked once per workdir (its runs cannot change it); the
            # input, when the zygote is handed it.
            command = (argv[0] if argv else "", workdir)
            if getattr(self._local, "checked", None) != command:
                check_request(argv, workdir, None)
                self._local.checked = command
            for _ in range(2):  # a reused zygote may have died: then once more, afresh
                zygote, fresh = self._zygote(workdir)
                try:
                    return self._run(zygote, argv, limits, input_file, memory_rlimit)
                except _Broken as exc:
                    self._discard()
                    problem = exc
                    if fresh:
                        break
            raise SetupError(f"sandbox failed to start: {problem}")

        return guarded(self.name, time.monotonic(), work)

    def _run(
        self,
        zygote: _Zygote,
        argv: list[str],
        limits: Limits,
        input_file: Path | None,
        memory_rlimit: bool,
    ) -> RunResult:
        zygote.settle()  # the last run's namespaces gone: their memory is no longer counted
        group = zygote.held.group
        metered = None
        if group is not None:
            group.set_limits(limits, 0)  # the group holds the program's processes alone
            metered = Metered.continuing(group)
        memory = memory_of(memory_rlimit, build=False)
        nproc = nproc_of(limits, self.cgroups)
        return zygote.run(argv, limits, input_file, memory, nproc, metered, self.accounting)

    def _zygote(self, workdir: Path) -> tuple[_Zygote, bool]:
        st = os.stat(workdir)
        key = (str(workdir), st.st_dev, st.st_ino)
        current: _Zygote | None = getattr(self._local, "zygote", None)
        if current is not None and current.key == key:  # if it died, the run says so
            return current, False
        self._discard()
        uid, lock = self.slots.acquire() if self.slots is not None else (None, None)
        try:
            group = self._group()
        except BaseException:
            if lock is not None:
                os.close(lock)
            raise
        held = _Held.start(self, workdir, uid, lock, group)  # the lock is held's now
        readable_by(uid, workdir)  # once: another folder at this path is another zygote
        self._local.zygote = _Zygote(key, workdir, uid, held, self.name)
        return self._local.zygote, True

    def _group(self) -> RunGroup | None:
        """This thread's runs' cgroup, kept from zygote to zygote (its runs are one after
        the other; making one per zygote costs more than a run)."""
        if self.cgroups is None:
            return None
        group = getattr(self._local, "group", None)
        if group is None:
            group = self._local.group = self.cgroups.group("runs")
        return group

    def _discard(self) -> None:
        current = getattr(self._local, "zygote", None)
        self._local.zygote = None
        if current is not None:
            current.close()


@dataclass
class _Held:
    """What one zygote holds, released when it is closed or forgotten."""

    proc: subprocess.Popen[bytes]
    control: socket.socket
    stage: Path
    stage_lock: int  # flock on the stage folder: see _sweep
    lock: int | None  # the sandbox uid's (root)
    # The cgroup of the zygote's runs (its thread's: see WarmRuns._group), one after the
    # other, each measured by the counters' difference; each run's program joins it,
    # the zygote and the run's init stay out.
    group: RunGroup | None

    @classmethod
    def start(
        cls,
        runs: WarmRuns,
        workdir: Path,
        uid: int | None,
        lock: int | None,
        group: RunGroup | None,
    ) -> _Held:
        try:
            stage, stage_lock = _new_stage(runs.folder)
            control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        except BaseException:
            if lock is not None:
                os.close(lock)
            raise
        passed = [theirs.fileno(), stage_lock]
        joins: list[int] = []
        seccomp_fd = None
        try:
            joins = group.open_joins() if group is not None else []
            passed += joins
            if runs.seccomp is not None:
                seccomp_fd, writer = os.pipe()
                passed.append(seccomp_fd)
                os.write(writer, runs.seccomp)  # a few hundred bytes: fits the pipe
                os.close(writer)
            spawn = ZygoteSpawn(
                workdir,
                stage,
                runs.binary,
                theirs.fileno(),
                stage_lock,
                uid,
                seccomp_fd,
                tuple(joins),
                group is not None and group.clone_into,
            )
            proc = subprocess.Popen(
                runs.spawn_argv(spawn),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                pass_fds=passed,
            )
        except BaseException:
            control.close()
            shutil.rmtree(stage, ignore_errors=True)
            os.close(stage_lock)
            if lock is not None:
                os.close(lock)
            raise
        finally:
            theirs.close()
            for fd in (seccomp_fd, *joins):
                if fd is not None:
                    os.close(fd)
        held = cls(proc, control, stage, stage_lock, lock, group)
        held.expect_ready()
        return held

    def expect_ready(self) -> None:
        try:
            self.control.settimeout(_REPLY_SECONDS)
            said = self.control.recv(512)
        except OSError:
            said = b""
        if said != b"ready":
            self.control.close()  # a zygote that is there after all ends with it
            try:
                _, err = self.proc.communicate(timeout=_CLOSE_SECONDS)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                _, err = self.proc.communicate()
            self.release()
            lines = err.decode(errors="replace").strip().splitlines()
            raise SetupError(
                f"sandbox failed to start: {lines[0] if lines else 'the zygote did not answer'}"
            )

    def stop(self) -> None:
        """bwrap killed, and every namespace of it with it. The rest goes when the zygote
        is discarded (the run still reads its cgroup's counters)."""
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        self.proc.wait()

    def release(self) -> None:
        """The zygote ends when its socket closes; bwrap with it (killed if slow)."""
        self.control.close()
        try:
            self.proc.wait(timeout=_CLOSE_SECONDS)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stderr is not None:
            self.proc.stderr.close()
        if self.lock is not None:
            os.close(self.lock)
            self.lock = None
        shutil.rmtree(self.stage, ignore_errors=True)
        os.close(self.stage_lock)


class _Zygote:
    """One warm sandbox over one workdir; one run at a time (its thread's)."""

    def __init__(
        self, key: tuple[str, int, int], workdir: Path, uid: int | None, held: _Held, name: str
    ) -> None:
        self.key = key
        self.name = name
        self.workdir = workdir
        self.uid = uid
        self.held = held
        # The last run's init may still be ending (its namespaces, their mounts): the
        # zygote's "reaped" is not heard yet.
        self.unsettled = False
        self._finalizer = weakref.finalize(self, held.release)

    def close(self) -> None:
        self._finalizer()

    def run(
        self,
        argv: list[str],
        limits: Limits,
        input_file: Path | None,
        memory: Memory,
        nproc: int,
        group: Metered | None,
        accounting: str,
    ) -> RunResult:
        name = "" if input_file is None else "input" + input_file.suffix
        if len(os.fsencode(name)) >= _INPUT_NAME:
            raise SetupError(f"the input file's suffix is too long: {input_file}")
        command = substitute(argv, f"/input/{name}" if name else None)
        request = _request(
            command, self.workdir, name, limits, memory.address_space, nproc, self.uid
        )
        given = [] if input_file is None else [_opened(input_file)]
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        status, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            pipes_for(self.uid, out_r, err_r)
            status.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
            start = time.monotonic()
            self._send(request, [out_w, err_w, theirs.fileno(), *given])
        finally:
            for fd in (out_w, err_w, *given):
                os.close(fd)
            theirs.close()
        run = _Run(limits, memory, group, accounting, start)
        try:
            return self._follow(status, out_r, err_r, run)
        finally:
            for fd in (out_r, err_r):
                os.close(fd)
            status.close()

    def _send(self, request: bytes, fds: list[int]) -> None:
        """The request; the zygote answers only if it starts nothing (see _started)."""
        rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
        try:
            self.held.control.sendmsg([request], rights)
        except OSError as exc:
            raise _Broken(f"the zygote is gone ({exc.strerror or exc})") from None

    def _follow(self, status: socket.socket, out_r: int, err_r: int, run: _Run) -> RunResult:
        """From the run's start to its end: nothing is left of it when this returns."""
        pid, pidfd = _started(status, self.held.control)
        limits = run.limits
        capture = Capture(limits.stdout_bytes, limits.stderr_bytes)
        record = bytearray()

        def kill() -> None:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)

        def heard(data: bytes) -> None:
            record.extend(data[:512])
            if data.startswith(b"exit "):  # every process of the run is reaped
                watch.finish(status.fileno())

        every = poll_seconds(run.memory.address_space)
        poll = with_group_cpu(_while_alive(pidfd, lambda: sandbox_usage(pid)), run.group)
        watch = Supervisor(limits, capture, poll=poll, poll_every=every, kill=kill)
        watch.extra[status.fileno()] = heard
        try:
            watch.watch(out_r, err_r, run.start)
        finally:
            reported = watch.finished(status.fileno())
            if not reported:
                kill()
            os.close(pidfd)
            self.unsettled = True
        wall = time.monotonic() - run.start
        if not reported:
            # Killed, or the init failed: the rest of the namespace dies with the init,
            # and is counted once it is gone.
            self.settle()
        if record.startswith(b"error cannot start the program: "):
            said = record[6:].split(b"exit ")[0].decode(errors="replace")
            return error_result(self.name, said, wall)
        if record.startswith(b"error "):
            return error_result(self.name, f"sandbox: {record[6:].decode(errors='replace')}", wall)
        code, sig, cpu, peak = _reported(bytes(record), watch.peak_rss_kb)
        ending = group_ending(run.group, code, sig, cpu, peak, watch)
        return run_result(
            self.name, limits, capture, ending, watch.reason, wall, run.memory, run.accounting
        )

    def settle(self) -> None:
        """Until the zygote says the last run's init is reaped, its namespaces gone (it
        says so unasked, as soon as they are): a run's result needs only its report,
        the next run's counters need the last run's /tmp gone. A zygote that does not
        say so is stopped: killing bwrap takes every namespace of it down, and the next
        request finds it gone (that run then starts on a fresh one)."""
        if not self.unsettled:
            return
        self.unsettled = False
        control = self.held.control
        try:
            control.settimeout(_REAP_SECONDS)
            said = control.recv(512)
        except OSError:
            said = b""
        if not said.startswith(b"reaped"):
            self.held.stop()


_CREDENTIALS = struct.calcsize("3i")
_STARTED_SPACE = socket.CMSG_SPACE(_CREDENTIALS) + socket.CMSG_SPACE(struct.calcsize("i"))


def _started(status: socket.socket, control: socket.socket) -> tuple[int, int]:
    """The run's init said it has started: its pid (the message's credentials) and a
    pidfd of it. Where nothing started, the zygote says why on ``control`` and closes
    the run's descriptors, so the status socket ends first."""
    try:
        status.settimeout(_REPLY_SECONDS)
        said, ancillary, _, _ = status.recvmsg(512, _STARTED_SPACE)
        status.settimeout(None)
    except OSError as exc:
        raise _Broken(f"the run did not start ({exc})") from None
    pid, pidfd = None, None
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
            pid = struct.unpack("3i", payload[:_CREDENTIALS])[0]
        elif level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            for fd in array.array("i", payload[: len(payload) - len(payload) % 4]):
                if pidfd is None:
                    pidfd = fd
                else:
                    os.close(fd)
    if said == b"started" and pid is not None and pidfd is not None:
        return pid, pidfd
    if pidfd is not None:
        os.close(pidfd)
    if not said:
        said = _zygote_error(control)
    raise _Broken(said.decode(errors="replace") or "the run did not start")


def _zygote_error(control: socket.socket) -> bytes:
    """Why the zygote started nothing, said before it closed the run's descriptors
    (nothing if it is gone, or if it started a run whose init ended unheard)."""
    waited = control.gettimeout()
    try:
        control.setblocking(False)
        said = control.recv(512)
    except OSError:
        said = b""
    finally:
        control.settimeout(waited)
    return said[6:] if said.startswith(b"error ") else b""


def _while_alive(pidfd: int, poll: Callable[[], Usage | None]) -> Callable[[], Usage | None]:
    """A poll of the run's tree through its init's pid, kept only if the init is still
    alive after it (a pidfd is readable once its process has ended): read after the
    zygote reaped the init, the pid could have been another process's."""

    def polled() -> Usage | None:
        usage = poll()
        ended = select.select([pidfd], [], [], 0)[0]
        return None if ended else usage

    return polled


@dataclass(frozen=True)
class _Run:
    """One run's settings, from the request to the verdict flags."""

    limits: Limits
    memory: Memory
    group: Metered | None
    accounting: str  # a CpuAccounting value
    start: float


def _reported(record: bytes, peak_seen_kb: int) -> tuple[int | None, int | None, float, int]:
    """(exit code, signal, CPU time, peak kB) from the init's report; without one, we
    killed the tree before the program ended (the polls then know the CPU time)."""
    fields = record.split()
    if len(fields) == 5 and fields[0] == b"exit":
        status, user_us, system_us, peak_kb = (int(x) for x in fields[1:])
        code, sig = decode_wait_status(status)
        cpu = (user_us + system_us) / 1e6
        return code, sig, cpu, max(peak_kb, peak_seen_kb)
    return None, signal.SIGKILL, 0.0, peak_seen_kb


def _opened(input_file: Path) -> int:
    """The input, for the zygote to copy into the stage folder."""
    try:
        return os.open(input_file, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise SetupError(f"cannot read the input file {input_file}: {exc.strerror}") from None


def _request(
    command: list[str],
    workdir: Path,
    input_name: str,
    limits: Limits,
    address_space: bool,
    nproc: int,
    uid: int | None,
) -> bytes:
    """A "run" message for zygote.c (its header comment gives the fields)."""
    cpus = ",".join(str(c) for c in sorted(os.sched_getaffinity(0)))
    fields = [cpus, str(workdir), input_name, str(len(command)), *command]
    encoded = [os.fsencode(f) for f in fields]
    if any(b"\0" in f for f in encoded):
        raise SetupError("a NUL character in the command")
    message = _limits_fields(limits, address_space, nproc, uid) + b"\0".join(encoded) + b"\0"
    if len(message) > _MAX_REQUEST:
        raise SetupError("the command is too long")
    return message


@functools.lru_cache(maxsize=64)
def _limits_fields(limits: Limits, address_space: bool, nproc: int, uid: int | None) -> bytes:
    """The message's head, up to the CPUs: the same for every run of a course's limits
    (worked out once: every warm run sends one)."""
    values = dict(rlimit_values(limits, address_space, nproc))
    cpu_soft, cpu_hard = values[resource.RLIMIT_CPU]
    owner = -1 if uid is None else uid
    numbers = [
        owner,
        owner,
        cpu_soft,
        cpu_hard,
        values.get(resource.RLIMIT_AS, (0, 0))[0],
        values[resource.RLIMIT_NPROC][0],
        values[resource.RLIMIT_FSIZE][0],
        values[resource.RLIMIT_NOFILE][0],
        tmpfs_bytes(limits),
        sysv_shm_bytes(limits),
    ]
    return b"run\0" + b"".join(b"%d\0" % n for n in numbers)
