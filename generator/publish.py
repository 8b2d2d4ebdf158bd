"""Publishing the built site: each file the generator writes into it readable as the engine's own files are, and
the new site put in place of the old so that there is no moment without a complete site.

Permissions: a file written through `tempfile.mkstemp` is 0o600 whatever the umask, so a search index written so
cannot be read by a web server running as another user, nor by whoever gets the site through `rsync -a`, `tar` or
a Docker `COPY`: the search box stays on "Initializing search" and the offline cache stays empty. `write_whole`
creates its temporary file with mode 0o666 and lets the system take the umask (and any default ACL) off, as it
does for every file the engine writes.

The swap: `cadence build` builds the site in a staging folder beside the output (same file system) and then
exchanges the two folders in one step, `renameat2(RENAME_EXCHANGE)` (Linux 3.15, glibc 2.28): a reader, a web
server or a killed build only ever finds the old site or the new one. Where the exchange is refused (macOS,
Windows, an older C library, a file system that answers EINVAL such as some network or FUSE ones) the output
folder is moved aside and the new one moved in: two renames, with a moment between them without a site, which
`recover_output` mends after a build killed there. An exchange rather than a symlink switched atomically: the
output stays a plain folder (a web server's root, `rsync`, a Docker `COPY` and `git` of a `site/` checked in
all see what they saw), and a symlink would leave the real folders, named by build, to tidy.
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

#: A name for a temporary file beside its target is tried this many times before giving up.
_TRIES = 100
#: renameat2's "directory of the process" and its flag that exchanges the two paths (linux/fcntl.h, linux/fs.h).
_AT_FDCWD, _RENAME_EXCHANGE = -100, 2
#: What renameat2 answers where it cannot exchange: then the two renames are used.
_NO_EXCHANGE = frozenset({errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP})


def write_whole(path: Path, data: bytes) -> None:
    """Write `data` to `path` whole or not at all (a temporary file beside it, renamed into place), with the
    permissions every other file of the site has (0o666 less the umask): a browser or a web server may read
    it at any moment, and a web server may run as another user."""
    for _ in range(_TRIES):
        temp = path.with_name(f".{path.name}-{secrets.token_hex(6)}")
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(errno.EEXIST, "no free temporary name", str(path))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def swap_in(built: Path, out: Path, aside: Path) -> None:
    """Put the folder `built` in place of the output folder `out` (made if missing), both on one file system.

    With the exchange, `built` then holds the old site, removed here; a build killed before that leaves it in
    its staging folder, which the next build empties. Without it, the old site goes to `aside` first and is
    put back by `recover_output` if the build is killed before the second rename.
    """
    try:
        exchanged = _exchange(built, out)
    except FileNotFoundError:  # no site yet: one rename puts the first in place
        os.replace(built, out)
        return
    if exchanged:
        shutil.rmtree(built, ignore_errors=True)
        return
    if os.path.lexists(out):
        os.replace(out, aside)
    os.replace(built, out)
    shutil.rmtree(aside, ignore_errors=True)


def _exchange(first: Path, second: Path) -> bool:
    """Exchange two paths in one step; False where the system or the file system cannot (`_NO_EXCHANGE`).
    FileNotFoundError when either is missing."""
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    if renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
        return True
    import ctypes

    code = ctypes.get_errno()
    if code in _NO_EXCHANGE:
        return False
    raise OSError(code, os.strerror(code), str(first), None, str(second))


@cache
def _renameat2() -> Callable[[int, bytes, int, bytes, int], int] | None:
    """The C library's renameat2 (glibc 2.28 and later, on Linux); None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # no such function in this C library
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    called: Callable[[int, bytes, int, bytes, int], int] = function
    return called


def aside_name(out: Path, work: Path) -> Path:
    """Where the two-rename swap moves the old site: named by this process, which `recover_output` reads."""
    return out.parent / f".{out.name}-old-{os.getpid()}-{work.name.rsplit('-', 1)[-1]}"


def recover_output(out: Path) -> None:
    """Tidy what an earlier build killed part way left beside the output folder.

    Staging folders of builds whose process is gone are removed; if the output folder itself is missing
    because a build died between the two renames (where the folders cannot be exchanged), the previous
    site is put back.
    """
    for stale in out.parent.glob(f".{out.name}-*-*"):
        kind, _, rest = stale.name.removeprefix(f".{out.name}-").partition("-")
        pid = rest.split("-", 1)[0]
        if kind not in ("building", "old") or not pid.isdigit() or alive(int(pid)):
            continue
        if kind == "old" and not os.path.lexists(out):
            os.replace(stale, out)
        else:
            shutil.rmtree(stale, ignore_errors=True)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
