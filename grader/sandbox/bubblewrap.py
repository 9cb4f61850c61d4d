"""Bubblewrap: namespaces, rlimits, a sandbox uid when root.

What follows describes a one-shot run (a bwrap per run). Runs of a read-only workdir
usually start warm instead (warm.py): the same namespaces, tree and limits, with
differences that file states. Linux 5.4+ (for pidfds).

What the program sees
    Its workdir, bind-mounted at its own host path (read-only for runs, read-write for
    builds), as its working directory; the input file, copied in by bwrap from a
    descriptor we opened (so its permissions on the host do not matter), read-only at
    ``/input/input<suffix>`` (a neutral name: a program cannot key answers on a test's
    file name); read-only ``/usr`` and the ``/bin``, ``/lib*``, ``/sbin`` links; of
    ``/etc`` only what the toolchains need (``ld.so.cache``, ``alternatives``,
    ``java-*``, ``python3.*``: no passwd, no shadow); a fresh ``/proc``; a minimal
    ``/dev`` (null, zero, random, urandom, the fd links); a private ``/tmp`` tmpfs of
    max(64 MB, 4 x the file-size limit). Nothing else of the host: not /root, /home,
    /work, the host's /tmp. Standard input is /dev/null. The environment is cleared
    (PATH, HOME=/tmp, TMPDIR=/tmp, LANG=C.UTF-8). As root, that /etc is a copy bound
    once, and that /dev a folder of root's own device nodes bound once (each bind costs
    bwrap a read of the mount table): see "Prepared folders (root)" below.
Namespaces
    New pid, net (loopback only: nothing, not even the host's 127.0.0.1, is
    reachable), ipc and uts namespaces; ``--new-session``; ``--die-with-parent``. A
    seccomp filter (x86-64 and aarch64) refuses new user namespaces (a nested one could
    mount an unbounded tmpfs) and the kernel key rings (they outlive a run, so could
    carry state between runs, and could expose the grader's session keyring).
Which uid runs the program
    RLIMIT_NPROC is never enforced for uid 0, so a grader running as root must not run
    student code as root. As root, bwrap itself runs as root, with no user namespace
    (so it can mount any workdir, even one under a 0700 folder such as pytest's
    temporary folders), and starts the command through util-linux ``unshare --setuid
    --setgid`` (or ``setpriv``), which drops to a sandbox uid, no supplementary groups,
    no capabilities, before anything of the student's runs (bwrap sets no_new_privs:
    nothing can regain them). Each concurrent run gets its own uid, 70000 + slot, held
    by ``flock`` on a file in a root-owned 0700 folder under the system temporary
    folder, so parallel runs, even from separate grader processes, never share a
    process budget; uids in the password database are skipped. That uid does not own
    the workdir, so:
      * before a run the workdir tree is made world-readable (``o+r``, and ``o+x`` on
        folders and on files their owner may execute); nothing is made writable;
      * for a build (``writable=True``) the tree is handed to the sandbox uid
        (``chown -R``, never following links) and, once every process of the run is
        dead, handed back to its previous owner and made world-readable, without
        set-uid/set-gid bits or write access for others;
      * stdout and stderr are root's pipes: they are made 0666 so that opening
        ``/dev/stdout`` by name works.
    The root of the sandbox's tree, /dev and /input belong to root: the program cannot
    write there. Not root: bwrap creates a user namespace (the program keeps the
    grader's uid, without capabilities) with ``--disable-userns``, the root of the
    tree is remounted read-only, nothing is chowned. RLIMIT_NPROC then counts per user
    namespace (Linux 5.14 and later; older kernels count every process of the user).
Limits
    bwrap holds its pid 1 at ``--block-fd`` until we have set the rlimits on it with
    prlimit(2) (allowed: it runs as our uid), so the command inherits them and bwrap's
    own set-up is never limited: RLIMIT_CPU (soft = the CPU limit rounded up, then
    SIGXCPU; hard a second later), RLIMIT_AS (= the memory limit, unless
    ``memory_rlimit=False``), RLIMIT_NPROC, RLIMIT_FSIZE, RLIMIT_NOFILE, RLIMIT_CORE = 0.
    (CPU, AS and CORE are also set on bwrap itself as soon as it starts, so that pid 1
    usually inherits them: were the grader killed in the few milliseconds before it
    releases pid 1, the closed --block-fd would let the command start anyway.)
    The parent enforces the wall clock and polls the tree through the sandbox's own
    /proc (``/proc/<pid 1>/root/proc``) every 50 ms (20 ms without RLIMIT_AS): the
    tree's CPU time (CPU spread over several processes still counts; the CPU limit is
    the tree's, RLIMIT_CPU only a backstop a second past it) and the memory it holds
    (supervise.Usage: private anonymous memory, its share of shared memory, the
    run's tmpfs, memfds; forking or sharing cannot reach ``processes x memory``). As
    root, System V shared memory is capped per run (an eighth of the limit: a
    segment nobody attached is in no process's memory). The tree may so hold the
    limit plus what it touches between two polls (30-100 MB measured on 2 cores)
    plus that eighth before it is stopped: the stated slack.
Killing the tree
    bwrap is killed with SIGKILL; ``--die-with-parent`` then kills its pid 1, and the
    kernel kills every process of the pid namespace with it: double-forked, setsid'ed,
    SIGTERM-ignoring alike. When the command exits on its own, bwrap exits at once and
    the same happens to whatever it left behind. bwrap exits without reaping pid 1, so
    the grader makes itself a child subreaper (``PR_SET_CHILD_SUBREAPER``, asserted on
    every run; a process-wide setting) and pid 1 is re-parented to it. ``run`` then
    kills pid 1 through a pidfd (no pid reuse race) and reaps it: pid 1 exits only
    after every process of its namespace, so when ``run`` returns nothing is left.
CPU time and memory
    CPU time = user + sys of all that pid 1 reaped (``wait4`` of pid 1, less pid 1's own
    set-up work, read from /proc/<pid>/schedstat while it is a zombie), i.e. the
    command and its descendants; as root that includes the uid-drop exec, about a
    millisecond.
    Processes killed with the tree (or left behind by the command) are reaped by the
    kernel without accounting, so the CPU time is also the largest the polls saw, the
    last poll taken just before a kill. ``peak_memory_kb``: the largest ``ru_maxrss``
    in pid 1's tree, or a larger figure seen by a poll: one process's RSS or the tree's
    total anonymous memory (what the limit applies to: six processes of 64 MB are
    384 MB). (Not bwrap's own ru_maxrss: bwrap is started by vfork and inherits the
    grader's size.)
Exit status
    bwrap reports a command killed by a signal as exit status 128 + signal, like a
    shell. A status in 129..192 is therefore read as a signal: a segfault is
    ``signal=11``; a program that itself exits with such a status is misreported as
    signalled (the verdict, RTE, is the same). bwrap writes an ``exit-code`` record to
    ``--json-status-fd`` for every command that ran: without it the sandbox failed to
    start (``error``, one line), unless the command could not be executed at all (exit
    status 127, as a shell would say, with the reason on stderr).
Verdict flags
    timed_out: the wall clock ran out, the polled tree CPU passed the limit, the
    command died of SIGXCPU, or its measured CPU time exceeds the limit (CPU time is
    what counts, even when the program then finished). memory_exceeded: the polled
    tree memory passed the limit (the tree is killed), or the program failed (non-zero
    exit or a signal, not one of our kills) and either its stderr shows an allocation
    failure (``MemoryError``, ``std::bad_alloc``, ``OutOfMemoryError``, ``Cannot
    allocate memory``, ``out of memory``...; not the JVM's "OutOfMemoryError: unable to
    create native thread", which is the process limit) or RLIMIT_AS was in force and its peak RSS
    reached 90% of the limit (a C program that mallocs and touches in a loop, checking
    for NULL or not, ends there). output_exceeded: stdout passed ``stdout_bytes`` (the
    tree is killed at once; ``stdout`` keeps exactly the cap), or stderr passed 64 x
    ``stderr_bytes`` (a flood: killed too; ``stdout_size`` then shows stdout within its
    cap). Below the flood mark stderr beyond its cap is read and dropped, so debugging
    noise costs nothing. The grader holds at most the two caps, a 64 KiB read buffer
    and a 4 KiB stderr tail, whatever the program prints.
Java
    Pass ``memory_rlimit=False`` (the JVM reserves far more address space than it
    uses) and cap the heap with -Xmx. Measured here: with ``-Xmx128m`` the JVM needs
    about 256 MB of RLIMIT_DATA to start while its RSS is 37 MB, so RLIMIT_DATA cannot
    stand for the limit either; memory is held by the 20 ms RSS poll (kill at the
    limit, MLE) and ``OutOfMemoryError`` in stderr. The JVM's threads count against
    RLIMIT_NPROC (about 20 on two cores); on many-core machines pass
    ``-XX:ActiveProcessorCount=2`` or raise the process limit.
Cost
    bench/bench_sandbox.py measures it; the README ("The sandbox") keeps the figures.
    Most of a one-shot run's cost is bwrap's own set-up (namespaces, /proc, the new
    root) and the uid-drop exec, and under load it grows: every hand-off between the
    processes involved waits for a core. Hence warm runs (warm.py): the namespaces and
    the tree made once per worker, each run started by a zygote in fresh namespaces of
    its own. One-shot runs remain for builds (a writable workdir) and where no C
    compiler can build the zygote.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.core.model import CpuAccounting, Limits, RunResult
from grader.sandbox.base import (
    SANDBOX_PATH,
    Sandbox,
    SandboxUnavailable,
    check_request,
    error_result,
    guarded,
    substitute,
)
from grader.sandbox.cgroups import Metered, runs_cgroups
from grader.sandbox.compiled import built_for
from grader.sandbox.prepared import DEV_LINKS, DEVICES, OWN_MOUNTS, prepared_folders, system_mounts
from grader.sandbox.seccomp import seccomp_program
from grader.sandbox.supervise import (
    READ_CHUNK,
    Capture,
    Libc,
    Memory,
    Supervisor,
    Usage,
    decode_wait_status,
    describe,
    group_ending,
    memory_of,
    nproc_of,
    poll_seconds,
    rlimit_values,
    run_result,
    rusage_cpu,
    rusage_peak_kb,
    sandbox_usage,
    sysv_shm_bytes,
    tmpfs_bytes,
    with_group_cpu,
)
from grader.sandbox.uids import UidSlots, pipes_for, workdir_for
from grader.sandbox.warm import ZYGOTE_PATH, WarmRuns, ZygoteSpawn, build_zygote

_WITNESS_C = Path(__file__).with_name("witness.c")
WITNESS_PATH = "/witness"  # where a build sees it


class _Pid1:
    """bwrap's pid 1 in the new pid namespace, known from --json-status-fd.

    When its pid arrives, ``on_start`` sets the rlimits on it (bwrap holds it at
    --block-fd until then, so the command inherits them); at the end it is killed
    (which takes the namespace down) and reaped.
    """

    def __init__(self, on_start: Callable[[int], None]) -> None:
        self.on_start = on_start
        self.pid: int | None = None
        self.pidfd: int | None = None
        self.status = b""  # --json-status-fd records
        self.ran = False  # the command started and ended (an "exit-code" record)
        self.own_seconds = 0.0  # bwrap's own work as pid 1 (its set-up), not the command's

    def feed(self, data: bytes) -> None:
        self.status += data[:4096]
        while b"\n" in self.status:
            line, self.status = self.status.split(b"\n", 1)
            self._record(line)

    def _record(self, line: bytes) -> None:
        try:
            record = json.loads(line)
        except ValueError:
            return
        if "child-pid" in record and self.pid is None:
            self.pid = int(record["child-pid"])
            try:
                self.pidfd = os.pidfd_open(self.pid)
            except ProcessLookupError:
                self.pidfd = None  # bwrap failed and reaped it already
            else:
                self.on_start(self.pid)
        if "exit-code" in record:
            self.ran = True

    def reap(self) -> resource.struct_rusage | None:
        """Once bwrap is gone: kill pid 1 (and so its namespace) and reap it.

        bwrap exits without reaping pid 1 (when the command exits, and when we kill
        bwrap), so pid 1 has been re-parented to us, the subreaper. None if bwrap
        reaped it after all (its usage is then in bwrap's).
        """
        if self.pid is None or self.pidfd is None:
            return None
        try:
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        except ProcessLookupError:
            pass  # already dead, maybe not yet reaped
        try:
            os.waitid(os.P_PIDFD, self.pidfd, os.WEXITED | os.WNOWAIT)
            self.own_seconds = _own_cpu_seconds(self.pid)  # a zombie still tells
            return os.wait4(self.pid, 0)[2]
        except ChildProcessError:
            return None
        finally:
            os.close(self.pidfd)
            self.pidfd = None


def _own_cpu_seconds(pid: int) -> float:
    """CPU time of the process itself, not its children (0 when the kernel won't say)."""
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as f:
            return int(f.read().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


class _Descriptors:
    """The descriptors of one launch; whatever is still open at the end is closed."""

    def __init__(self) -> None:
        self.open: list[int] = []

    def pipe(self) -> tuple[int, int]:
        pair = os.pipe()
        self.open += pair
        return pair

    def file(self, path: Path) -> int:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        self.open.append(fd)
        return fd

    def close(self, fd: int) -> None:
        if fd in self.open:
            self.open.remove(fd)
            os.close(fd)

    def close_all(self) -> None:
        for fd in list(self.open):
            self.close(fd)


@dataclass
class _Launch:
    """One bwrap run: what to run, and the descriptors bwrap reads."""

    command: list[str]
    workdir: Path
    limits: Limits
    writable: bool
    memory: Memory
    uid: int | None  # the sandbox uid (root), None when bwrap runs as the grader
    group: Metered | None  # the run's cgroup, joined by pid 1 when it is released
    input_fd: int | None = None
    input_seen: str | None = None  # where the program sees the input
    status_fd: int = -1  # --json-status-fd (write end)
    block_fd: int = -1  # --block-fd (read end)
    seccomp_fd: int | None = None

    def passed(self) -> tuple[int, ...]:
        fds = (self.input_fd, self.status_fd, self.block_fd, self.seccomp_fd)
        return tuple(fd for fd in fds if fd is not None)


def _drain(fd: int, sink: Callable[[bytes], None]) -> None:
    """Whatever is already in a pipe, without waiting for more."""
    os.set_blocking(fd, False)
    try:
        while True:
            data = os.read(fd, READ_CHUNK)
            if not data:
                return
            sink(data)
    except BlockingIOError:
        return


def _find_tool(name: str) -> str | None:
    return shutil.which(name, path=SANDBOX_PATH + ":/usr/sbin:/sbin")


def _uid_dropper() -> Callable[[int], list[str]]:
    """The command prefix that becomes uid:gid, with no supplementary groups, then execs.

    util-linux ``unshare -S -G`` (2.36 and later) is the lighter exec; ``setpriv`` the
    fallback. Run as root inside the sandbox; becoming non-root drops every capability.
    """
    unshare = _find_tool("unshare")
    if unshare:
        usage = subprocess.run([unshare, "--help"], capture_output=True, text=True).stdout
        if "--setuid" in usage and "--setgid" in usage:
            return lambda uid: [unshare, f"--setuid={uid}", f"--setgid={uid}", "--"]
    setpriv = _find_tool("setpriv")
    if setpriv:
        return lambda uid: [
            setpriv,
            f"--reuid={uid}",
            f"--regid={uid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--",
        ]
    raise SandboxUnavailable("neither unshare (with --setuid) nor setpriv found (util-linux)")


def _sysv_capped(shm_bytes: int) -> list[str]:
    """A command prefix (run as root inside the sandbox, before the uid drop) that caps
    the run's System V shared memory, as the warm sandbox's init does: a segment
    nobody has attached is in no process's memory, no poll sees it. Best effort: a
    failure here must never look like the program's."""
    pages = -(-shm_bytes // resource.getpagesize())
    script = (
        f"{{ echo {shm_bytes} >/proc/sys/kernel/shmmax; "
        f'echo {pages} >/proc/sys/kernel/shmall; }} 2>/dev/null; exec "$@"'
    )
    return ["/bin/sh", "-c", script, "sh"]


def _failed(result: RunResult) -> str:
    """Why a probe run failed (one line), or "" when it worked."""
    if not result.error and result.exit_code == 0:
        return ""
    said = result.stderr.decode(errors="replace").strip()
    return (result.error or said or f"exit status {result.exit_code}").splitlines()[0]


class BubblewrapSandbox(Sandbox):
    """Namespaces with bubblewrap, rlimits set on its pid 1, a sandbox uid when root."""

    name = "bubblewrap"
    shares_builds = True

    def __init__(
        self,
        bwrap: str | None = None,
        *,
        extra_paths: Sequence[Path] = (),
        warm: bool = True,
        cgroups: bool = True,
        cgroup_versions: tuple[int, ...] = (1, 2),
    ) -> None:
        if not sys.platform.startswith("linux"):
            raise SandboxUnavailable("bubblewrap needs Linux")
        if not hasattr(os, "pidfd_open"):
            raise SandboxUnavailable("this Python has no os.pidfd_open")
        found = bwrap or shutil.which("bwrap")
        if found is None:
            raise SandboxUnavailable("bwrap not found on PATH")
        self.bwrap = found
        self.as_root = os.geteuid() == 0
        self.drop_to = _uid_dropper() if self.as_root else None
        self.slots = UidSlots() if self.as_root else None
        # CPU time: a cgroup per run where one can be made, else what the run's init
        # reaps, with auto-reaping refused so that no process escapes it.
        self.cgroups, self.cgroups_absent = runs_cgroups(cgroups, cgroup_versions)
        self.accounting = CpuAccounting.CGROUP if self.cgroups else CpuAccounting.REAPED
        self.seccomp = seccomp_program(platform.machine(), refuse_autoreap=self.cgroups is None)
        self.etc_folder, self.dev_folder = prepared_folders(self.slots, extra_paths)
        self.system_mounts = system_mounts(extra_paths, self.etc_folder)
        try:
            self.libc = Libc()
        except OSError as exc:
            raise SandboxUnavailable(f"cannot load the C library: {exc}") from exc
        self.warm = self._warm_runs() if warm else None
        # Builds run under it (witness.c): a compiler's child killed from outside shows
        # as the build killed by that signal. None without a C compiler: unwitnessed.
        self.witness = built_for(_WITNESS_C, self.slots)

    @staticmethod
    def installed() -> bool:
        return sys.platform.startswith("linux") and shutil.which("bwrap") is not None

    @property
    def mode(self) -> str:
        """How runs of a read-only workdir start: "warm" (warm.py) or "one-shot"."""
        return "warm" if self.warm is not None else "one-shot"

    def _warm_runs(self) -> WarmRuns | None:
        """None where zygote.c cannot be built here: every run is then one-shot."""
        binary = build_zygote(self.slots)
        if binary is None:
            return None
        return WarmRuns(
            self._zygote_argv,
            binary,
            binary.parent,  # the grader's own folder: the stages go beside it
            self.slots,
            self.seccomp,
            self.name,
            self.cgroups,
            self.accounting,
        )

    def probe(self) -> None:
        """A trivial run through the whole machinery, one-shot and warm;
        SandboxUnavailable if a one-shot run fails. A failing warm run turns warm runs
        off (one-shot runs are slower, no less safe)."""
        limits = Limits(cpu_seconds=5, wall_seconds=10)
        with tempfile.TemporaryDirectory(prefix="sandbox-probe-") as folder:
            once = self.run_once(["true"], Path(folder), limits)
            if self.warm is not None and _failed(self.run(["true"], Path(folder), limits)):
                self.warm = None
        problem = _failed(once)
        if problem:
            raise SandboxUnavailable(f"probe run failed: {problem}")

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
        workdir = Path(os.path.abspath(workdir))
        if self.warm is not None and not writable:
            return self.warm.run(
                argv, workdir, limits, input_file=input_file, memory_rlimit=memory_rlimit
            )
        return self.run_once(
            argv,
            workdir,
            limits,
            input_file=input_file,
            writable=writable,
            memory_rlimit=memory_rlimit,
        )

    def run_once(
        self,
        argv: list[str],
        workdir: Path,
        limits: Limits,
        *,
        input_file: Path | None = None,
        writable: bool = False,
        memory_rlimit: bool = True,
    ) -> RunResult:
        """One run in a bwrap of its own (builds, and every run when not warm)."""
        start = time.monotonic()
        workdir = Path(os.path.abspath(workdir))

        def work() -> RunResult:
            check_request(argv, workdir, input_file)
            self.libc.become_subreaper()
            uid, uid_lock = self.slots.acquire() if self.slots is not None else (None, None)
            # One process of the sandbox's own in it: bwrap's pid 1.
            group = self.cgroups.run_group(limits, 1) if self.cgroups else None
            try:
                input_seen = "/input/input" + input_file.suffix if input_file else None
                command = substitute(argv, input_seen)
                memory = memory_of(memory_rlimit, build=writable)
                metered = Metered(group) if group is not None else None
                launch = _Launch(command, workdir, limits, writable, memory, uid, metered)
                with workdir_for(uid, workdir, writable):
                    return self._launch(launch, input_file, input_seen, start)
            finally:
                if group is not None:
                    group.close()
                if uid_lock is not None:
                    os.close(uid_lock)

        return guarded(self.name, start, work)

    def _launch(
        self, launch: _Launch, input_file: Path | None, input_seen: str | None, start: float
    ) -> RunResult:
        fds = _Descriptors()
        try:
            return self._spawn(launch, input_file, input_seen, fds, start)
        finally:
            fds.close_all()

    def _spawn(
        self,
        launch: _Launch,
        input_file: Path | None,
        input_seen: str | None,
        fds: _Descriptors,
        start: float,
    ) -> RunResult:
        if input_file is not None:
            launch.input_fd, launch.input_seen = fds.file(input_file), input_seen
        status_r, launch.status_fd = fds.pipe()
        launch.block_fd, block_w = fds.pipe()
        if self.seccomp is not None:
            launch.seccomp_fd, seccomp_w = fds.pipe()
            os.write(seccomp_w, self.seccomp)  # a few hundred bytes: fits the pipe
            fds.close(seccomp_w)
        proc = subprocess.Popen(
            self._argv(launch),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=launch.passed(),
        )
        for fd in launch.passed():
            fds.close(fd)
        # Were the grader killed before pid 1 is released, bwrap would start the command
        # anyway (a closed --block-fd reads as go): give bwrap now, for pid 1 to
        # inherit, the limits that bound a run on its own. (Not NPROC: in a user
        # namespace it must be set after the namespace exists.)
        try:
            address_space = launch.memory.address_space
            for which, value in rlimit_values(launch.limits, address_space, nproc=None):
                if which in (resource.RLIMIT_CPU, resource.RLIMIT_AS, resource.RLIMIT_CORE):
                    resource.prlimit(proc.pid, which, value)
        except ProcessLookupError:
            pass  # bwrap failed at once: its message says why
        assert proc.stdout is not None and proc.stderr is not None
        pipes_for(launch.uid, proc.stdout.fileno(), proc.stderr.fileno())

        def release(pid: int) -> None:
            # bwrap's pid 1 is blocked before it forks the command: limit it, let it go.
            nproc = nproc_of(launch.limits, self.cgroups)
            for which, value in rlimit_values(launch.limits, address_space, nproc):
                resource.prlimit(pid, which, value)
            if launch.group is not None:
                launch.group.group.attach(pid)
            os.write(block_w, b"x")
            fds.close(block_w)

        return self._supervise(proc, _Pid1(release), status_r, launch, start)

    def _argv(self, launch: _Launch) -> list[str]:
        caps = [] if launch.uid is None else ["CAP_SETUID", "CAP_SETGID"]  # to drop to the uid
        a = self._namespaces(launch.uid, caps)
        tmp_bytes = str(tmpfs_bytes(launch.limits))
        a += self._tree(
            launch.workdir,
            launch.writable,
            ["--perms", "1777", "--size", tmp_bytes, "--tmpfs", "/tmp"],
        )
        if launch.input_fd is not None and launch.input_seen is not None:
            a += ["--perms", "0755", "--dir", "/input"]
            a += ["--perms", "0444", "--file", str(launch.input_fd), launch.input_seen]
        witnessed = launch.writable and self.witness is not None
        if witnessed:  # before the seal: not root, the root is read-only after it
            a += ["--ro-bind", str(self.witness), WITNESS_PATH]
        a += self._seal(launch.uid, launch.workdir)
        a += ["--json-status-fd", str(launch.status_fd), "--block-fd", str(launch.block_fd)]
        if launch.seccomp_fd is not None:
            a += ["--seccomp", str(launch.seccomp_fd)]
        a.append("--")
        if launch.uid is not None and self.drop_to is not None:
            a += _sysv_capped(sysv_shm_bytes(launch.limits)) + self.drop_to(launch.uid)
        return a + ([WITNESS_PATH, "--"] if witnessed else []) + launch.command

    def _zygote_argv(self, spawn: ZygoteSpawn) -> list[str]:
        """A warm sandbox over one workdir (see warm.py): the same namespaces and tree,
        but /tmp and /proc are mounted per run, /input is the zygote's stage folder."""
        # to make the run (its namespaces, its loopback up, as root its System V limits);
        # to drop the bounding capabilities; to return to its own mount namespace (setns)
        caps = ["CAP_SYS_ADMIN", "CAP_NET_ADMIN", "CAP_SETPCAP", "CAP_SYS_CHROOT"]
        caps += [] if spawn.uid is None else ["CAP_SETUID", "CAP_SETGID"]
        a = self._namespaces(spawn.uid, caps)
        a += self._tree(spawn.workdir, False, ["--perms", "0755", "--dir", "/tmp"])
        a += ["--ro-bind", str(spawn.stage), "/input"]
        a += ["--ro-bind", str(spawn.binary), ZYGOTE_PATH]
        a += self._seal(spawn.uid, spawn.workdir)
        seccomp = "-"  # the zygote's own filter for its programs: see ZygoteSpawn
        if spawn.seccomp_fd is not None and spawn.clone_into:
            seccomp = str(spawn.seccomp_fd)
        elif spawn.seccomp_fd is not None:
            a += ["--seccomp", str(spawn.seccomp_fd)]
        fds = [spawn.control_fd, seccomp, spawn.stage_fd, *spawn.joins]
        return a + ["--", ZYGOTE_PATH, *map(str, fds)]

    def _namespaces(self, uid: int | None, caps: Sequence[str]) -> list[str]:
        a = [
            self.bwrap,
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--hostname",
            "sandbox",
            "--die-with-parent",
            "--new-session",
            "--clearenv",
            "--setenv",
            "PATH",
            SANDBOX_PATH,
            "--setenv",
            "HOME",
            "/tmp",
            "--setenv",
            "TMPDIR",
            "/tmp",
            "--setenv",
            "LANG",
            "C.UTF-8",
        ]
        if uid is None:
            a += ["--unshare-user", "--disable-userns"]
        for cap in caps:
            a += ["--cap-add", cap]
        return a

    def _tree(self, workdir: Path, writable: bool, tmp: list[str]) -> list[str]:
        """The system tree, /proc, /dev, /tmp (as ``tmp`` says) and the workdir."""
        a = self.system_mounts + ["--proc", "/proc"]
        # A minimal /dev, lighter than bwrap's --dev (no tty, no pts): as root one prepared
        # folder (root's, so read-only to the program), else the devices one by one.
        if self.dev_folder is not None:
            a += ["--dev-bind", str(self.dev_folder), "/dev"]
        else:
            a += ["--perms", "0755", "--dir", "/dev"]
            for device in DEVICES:
                a += ["--dev-bind", f"/dev/{device}", f"/dev/{device}"]
            for name, target in DEV_LINKS:
                a += ["--symlink", target, f"/dev/{name}"]
        a += tmp
        for parent in reversed(workdir.parents[:-1]):
            if str(parent) not in OWN_MOUNTS:
                a += ["--perms", "0755", "--dir", str(parent)]
        return a + ["--bind" if writable else "--ro-bind", str(workdir), str(workdir)]

    @staticmethod
    def _seal(uid: int | None, workdir: Path) -> list[str]:
        # Not root: bwrap made the root tmpfs as the grader's uid, which the program has
        # too. As root it belongs to root, whom the program is not.
        return (["--remount-ro", "/"] if uid is None else []) + ["--chdir", str(workdir)]

    def _supervise(
        self,
        proc: subprocess.Popen[bytes],
        pid1: _Pid1,
        status_r: int,
        launch: _Launch,
        start: float,
    ) -> RunResult:
        limits = launch.limits
        capture = Capture(limits.stdout_bytes, limits.stderr_bytes)

        def tree() -> Usage | None:
            return sandbox_usage(pid1.pid) if pid1.pid else None

        poll = with_group_cpu(tree, launch.group)

        # Killing bwrap (not pid 1) keeps bwrap from reaping pid 1: --die-with-parent
        # kills pid 1, which takes the namespace down, and we reap it ourselves.
        def kill() -> None:
            os.kill(proc.pid, signal.SIGKILL)  # not Popen.kill: it may reap bwrap

        every = poll_seconds(launch.memory.address_space)
        watch = Supervisor(limits, capture, poll=poll, poll_every=every, kill=kill)
        watch.extra[status_r] = pid1.feed
        assert proc.stdout is not None and proc.stderr is not None
        try:
            watch.watch(proc.stdout.fileno(), proc.stderr.fileno(), start)
        finally:
            kill()  # a no-op when bwrap has exited (unreaped, its pid is still ours)
            _, status, bwrap_usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            wall = time.monotonic() - start
            if pid1.pid is None:
                # Killed before we read pid 1's pid: read it now, so that pid 1 (which
                # has no parent-death signal yet while it sets up) dies too, never
                # released to start the command.
                pid1.on_start = lambda pid: None
                _drain(status_r, pid1.feed)
            tree_usage = pid1.reap()
            proc.stdout.close()
            proc.stderr.close()
        # The command's tree is pid 1's, less pid 1's own set-up work; bwrap's own
        # figures (its CPU, and its ru_maxrss, which is the grader's size: bwrap is
        # started by vfork) count only if bwrap reaped pid 1 itself.
        if tree_usage is not None:
            cpu = max(0.0, rusage_cpu([tree_usage]) - pid1.own_seconds)
            peak = max(rusage_peak_kb([tree_usage]), watch.peak_rss_kb)
        else:
            cpu, peak = rusage_cpu([bwrap_usage]), watch.peak_rss_kb
        return self._finish(watch, pid1, capture, status, cpu, peak, launch, wall)

    def _finish(
        self,
        watch: Supervisor,
        pid1: _Pid1,
        capture: Capture,
        status: int,
        cpu: float,
        peak_kb: int,
        launch: _Launch,
        wall: float,
    ) -> RunResult:
        code, sig = decode_wait_status(status)
        if not pid1.ran and watch.reason is None:
            if capture.stderr.startswith(b"bwrap: execvp "):
                # The command itself could not be executed: the grader's failure (a
                # missing interpreter, a build that made no program), never the
                # program's. A program that ran cannot fake this: bwrap records an exit
                # code for every one that ran.
                said = capture.stderr[len(b"bwrap: execvp ") :].decode(errors="replace")
                return error_result(self.name, f"cannot start the program: {said}", wall)
            else:
                message = capture.stderr.decode(errors="replace").strip().splitlines()
                detail = message[0] if message else f"bwrap ended with {describe(code, sig)}"
                return error_result(self.name, f"sandbox failed to start: {detail}", wall)
        if pid1.ran and code is not None:
            exit_code, sig = (None, code - 128) if 128 < code <= 128 + 64 else (code, None)
        else:
            exit_code, sig = None, signal.SIGKILL  # we killed the tree before it ended
        ending = group_ending(launch.group, exit_code, sig, cpu, peak_kb, watch)
        return run_result(
            self.name,
            launch.limits,
            capture,
            ending,
            watch.reason,
            wall,
            launch.memory,
            self.accounting,
        )
