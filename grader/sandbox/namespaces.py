"""Whether this machine lets the grader make the namespaces bubblewrap needs.

bubblewrap installed is not bubblewrap usable: a container (Docker's default seccomp
profile, as on Gradescope) refuses new user namespaces, and its root lacks
CAP_SYS_ADMIN. Asked of the kernel itself, in a child: the reason to report is then
the real one ("namespaces are not permitted here"), never "install bubblewrap".
"""

from __future__ import annotations

import ctypes
import errno
import os

_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000


def namespace_refusal() -> str | None:
    """Why new namespaces are refused here (one line), or None when they are not.
    As root bubblewrap makes mount and pid namespaces itself; otherwise a user
    namespace first."""
    flags = _CLONE_NEWNS | _CLONE_NEWPID if os.geteuid() == 0 else _CLONE_NEWUSER
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        pid = os.fork()
    except (OSError, AttributeError) as exc:
        return f"cannot ask the kernel ({exc})"
    if pid == 0:  # the child asks and says the errno in its exit status
        code = 0 if libc.unshare(flags) == 0 else ctypes.get_errno()
        os._exit(min(code, 255))
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code == 0:
        return None
    what = "user namespaces" if flags == _CLONE_NEWUSER else "mount and pid namespaces"
    why = os.strerror(code) if 0 < code < 256 else f"status {code}"
    return (
        f"namespaces are not permitted here (new {what}: {why}; a container's seccomp "
        f"profile or a missing CAP_SYS_ADMIN refuses them)"
        if code in (errno.EPERM, errno.EACCES, errno.ENOSPC, errno.EINVAL)
        else f"namespaces cannot be made here (new {what}: {why})"
    )
