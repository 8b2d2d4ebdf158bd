"""The engine's server as `cadence serve` runs it: a child that ends when `cadence serve` ends, however it ends.

`cadence serve` stops the engine when it stops. Killed (`kill -9`, an out-of-memory killer, a closed terminal
that sends nothing), it cannot, and the engine went on serving a stale site on the port, so the next
`cadence serve` found the port taken. So the engine runs under `main` here: on Linux the kernel sends it
SIGTERM when its parent dies (`PR_SET_PDEATHSIG`); elsewhere, or where that cannot be asked for, a thread
looks for the parent every second. SIGTERM ends the engine as Ctrl-C does, through its own shutdown (MkDocs
then removes its temporary site folder).

Also here: whether the address `--dev-addr` names is free, asked before anything is staged.
"""

from __future__ import annotations

import errno
import os
import runpy
import signal
import socket
import sys
import threading
import time

#: prctl's option for the signal a process gets when its parent dies (linux/prctl.h).
PR_SET_PDEATHSIG = 1
#: Where the kernel cannot signal the parent's death: how often the parent is looked for, in seconds.
PARENT_LOOK_S = 1.0


#: How long the engine may take to shut down once told to, in seconds: then the system ends it.
SHUTDOWN_S = 10


def _interrupt(_signum: int, _frame: object) -> None:
    if hasattr(signal, "alarm"):  # an engine whose shutdown hangs would keep the port: SIGALRM ends it whatever it does
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(SHUTDOWN_S)
    raise KeyboardInterrupt  # the engine's own way out of serving: its shutdown, its clean-up


def _signalled_on_parent_death() -> bool:
    """Ask the kernel for SIGTERM when the parent dies; False where it cannot be asked (not Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    """The fallback: a thread that ends this process once the parent is gone (it is then adopted: a new parent)."""

    def look() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_LOOK_S)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=look, name="parent-watch", daemon=True).start()


def end_with_parent(parent: int) -> None:
    """From now on this process ends when the process `parent` does; at once if it already has."""
    signal.signal(signal.SIGTERM, _interrupt)
    if not _signalled_on_parent_death():
        _watch_parent(parent)
    if os.getppid() != parent:  # it died before the kernel was asked: no signal will come
        raise SystemExit(0)


def main(argv: list[str] | None = None) -> None:
    """`python -m generator.serve_engine PARENT ENGINE ARGS…`: the engine's command (as `python -m ENGINE ARGS…`),
    ending with the process PARENT."""
    parent, engine, *rest = sys.argv[1:] if argv is None else argv
    end_with_parent(int(parent))
    sys.argv = [engine, *rest]
    try:
        runpy.run_module(engine, run_name="__main__", alter_sys=True)
    except KeyboardInterrupt:  # one that came before the engine was listening for it
        raise SystemExit(0) from None


def address_in_use(dev_addr: str) -> str | None:
    """A one-line message when the host and port `dev_addr` names are already taken (by another server, or a
    `cadence serve` still running); None when they are free, or when the engine must say what is wrong with them.

    The engine would find out only once it starts, with a traceback. The probe binds as the engines' servers do
    (with SO_REUSEADDR: a port that a server just left is free).
    """
    host, _, port = dev_addr.rpartition(":")
    if not port.isdigit():
        return None
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host.strip("[]") or None, int(port), type=socket.SOCK_STREAM)[0]
    except (OSError, UnicodeError, ValueError, OverflowError):
        return None
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                return None
            return (
                f"cadence: port {port} on {host or 'this machine'} is in use (another server, or a 'cadence serve' still running); "
                f"stop it, or serve on another port with --dev-addr {host}:{int(port) + 1 if int(port) < 65535 else int(port) - 1}"
            )
    return None


if __name__ == "__main__":
    main()
