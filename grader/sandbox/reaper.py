"""The rlimits fallback's per-run reaper (Linux): a script run by the grader's Python,
never imported by the grader (it must start fast: ``python -S -I``).

    reaper.py STATUS_FD UID LIMITS JOINS SECCOMP MEMORY_KB -- COMMAND...

It makes itself a child subreaper, so every process the program starts stays in its
tree whatever it does (double fork, setsid): orphans are re-parented to it, not to
the grader. It starts the program in a session of its own with the rlimits (LIMITS:
``resource:soft:hard`` joined by commas), in the run's cgroup (JOINS: descriptors of
v1's tasks files and v2's folder, see cgroups.py, joined by commas, or "-"), under a
seccomp filter (SECCOMP:
the BPF program in hex, or "-"), as UID when that is not -1 (the grader runs
as root: the process limit then holds, and the program is not root), with its
stdout and stderr and /dev/null as standard input. When the program has ended, or
the grader sends SIGUSR1, it kills every process left in its tree and reaps them
all, then writes to STATUS_FD one line: ``exit <wait status> <user us> <sys us>
<peak rss kB> <own peak rss kB> 0`` (the rusage of everything it reaped: a child
nobody waited for counts as much as one waited for; the last figure is the peak of
the program's process just before its exec, which its ru_maxrss inherits; the 0: it
does not poll memory, MEMORY_KB is reaper.c's, the grader polls). Before it
starts the program it writes ``started <pid>``; a failure of its own is ``error <why>``
(exit status 125), never the program's, and so is a command that cannot be executed
(a missing interpreter).
"""

import ctypes
import errno
import os
import resource
import signal
import stat
import sys
import time
import warnings  # noqa: F401  os.execvp imports it: as the sandbox uid it may be unreadable

_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_CANNOT_EXECUTE = 126


class _Filter(ctypes.Structure):  # struct sock_fprog
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _seccomp(program: bytes) -> None:
    """The filter on this process and whatever it execs (no_new_privs first, as the
    kernel requires of a process without CAP_SYS_ADMIN)."""
    libc = ctypes.CDLL(None, use_errno=True)
    code = ctypes.create_string_buffer(program, len(program))
    fprog = _Filter(len(program) // 8, ctypes.addressof(code))
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or libc.prctl(
        _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0
    ):
        raise OSError(ctypes.get_errno(), f"seccomp: {os.strerror(ctypes.get_errno())}")


def _children(me: int) -> list[int]:
    """Our live children (every process of the run ends up one of them), from the
    kernel's list (we are single-threaded: our one thread's children are all)."""
    try:
        with open(f"/proc/{me}/task/{me}/children", "rb") as f:
            return [int(pid) for pid in f.read().split()]
    except OSError:
        return []


def _kill_and_reap_all(me: int) -> None:
    """Every process of the tree killed and reaped (their CPU time into our rusage)."""
    while True:
        for pid in _children(me):
            _kill(pid)
        try:
            os.waitpid(-1, 0)
            while os.waitpid(-1, os.WNOHANG)[0]:  # every one already dead, at once
                pass
        except ChildProcessError:
            return


def _program(
    command: list[str],
    uid: int,
    limits: list[tuple[int, ...]],
    joins: list[int],
    seccomp: bytes,
    failed: int,
) -> None:
    """In the forked child: never returns. A failure before the exec is ours, said on
    ``failed`` (closed by the exec); one of the exec itself is the command's (a shell's
    127 or 126, with the reason on stderr)."""
    try:
        os.setsid()
        for name in ("SIGPIPE", "SIGXFSZ", "SIGUSR1"):  # Python ignores the first two
            signal.signal(getattr(signal, name), signal.SIG_DFL)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        for which, soft, hard in limits:
            resource.setrlimit(which, (soft, hard))
        for fd in joins:  # "0": this process, and so all it will start
            if stat.S_ISDIR(os.fstat(fd).st_mode):  # v2's folder (no clone3 from Python)
                procs = os.open("cgroup.procs", os.O_WRONLY, dir_fd=fd)
                os.write(procs, b"0")
                os.close(procs)
            else:  # v1's tasks
                os.write(fd, b"0")
            os.close(fd)
        if uid >= 0:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        if seccomp:
            _seccomp(seccomp)
        os.closerange(3, failed)
        os.closerange(failed + 1, 65536)
    except BaseException as exc:
        os.write(failed, f"{type(exc).__name__}: {exc}".encode())
        os._exit(_CANNOT_EXECUTE)
    try:
        # What the program's ru_maxrss starts at (this copy of the reaper's): said last.
        os.write(failed, f"rss {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}".encode())
        _execvp_settled(command)
    except OSError as exc:  # a missing interpreter, a build that made no program
        os.write(failed, f"\ncannot start the program: {command[0]}: {exc.strerror}".encode())
    os._exit(_CANNOT_EXECUTE)


def _execvp_settled(command: list[str]) -> None:
    """execvp, tried again while the file is busy, as exec_settled.h says why."""
    wait = 0.001
    for _ in range(10):
        try:
            os.execvp(command[0], command)
        except OSError as exc:
            if exc.errno != errno.ETXTBSY:
                raise
        time.sleep(wait)
        wait *= 2
    os.execvp(command[0], command)


def main(argv: list[str]) -> int:
    status_fd, uid = int(argv[1]), int(argv[2])
    limits = [tuple(int(x) for x in item.split(":")) for item in argv[3].split(",") if item]
    joins = [int(fd) for fd in argv[4].split(",")] if argv[4] != "-" else []
    seccomp = bytes.fromhex(argv[5]) if argv[5] != "-" else b""
    command = argv[8:]
    os.set_inheritable(status_fd, False)
    me = os.getpid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        os.write(status_fd, f"error prctl: {os.strerror(ctypes.get_errno())}\n".encode())
        return 125
    stop = {"asked": False}
    signal.signal(signal.SIGUSR1, lambda *_: stop.update(asked=True))
    readable, failed = os.pipe()  # both close-on-exec
    try:
        program = os.fork()
    except OSError as exc:
        os.write(status_fd, f"error fork: {exc.strerror}\n".encode())
        return 125
    if program == 0:
        os.close(readable)
        _program(command, uid, limits, joins, seccomp, failed)
    os.close(failed)
    for fd in joins:
        os.close(fd)
    said = b""
    while True:  # until the exec (or the exec's failure) closes it
        chunk = os.read(readable, 512)
        if not chunk:
            break
        said += chunk
    os.close(readable)
    if not said.startswith(b"rss ") or b"\n" in said:
        why = said.partition(b"\n")[2] or said or b"the program's process ended before its exec"
        os.waitpid(program, 0)
        os.write(status_fd, b"error " + why.replace(b"\n", b" ")[:400] + b"\n")
        return 125
    own_peak = int(said.split()[1])
    os.write(status_fd, f"started {program}\n".encode())
    # The pipes must close when the run's last process is gone: we keep no copy.
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 1)
    os.dup2(null, 2)
    signal.signal(signal.SIGUSR1, lambda *_: _kill(program))
    if stop["asked"]:
        _kill(program)
    _, status = os.waitpid(program, 0)
    _kill_and_reap_all(me)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    report = (
        f"exit {status} {round(usage.ru_utime * 1e6)} {round(usage.ru_stime * 1e6)} "
        f"{usage.ru_maxrss} {own_peak} 0\n"
    )
    os.write(status_fd, report.encode())
    return 0


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


if __name__ == "__main__":
    sys.exit(main(sys.argv))
