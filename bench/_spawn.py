"""Run one command and report its own wall time, CPU time and peak memory: used by `bench/run.py`.

    python bench/_spawn.py OUT.json COMMAND [ARGS...]

Peak memory comes from wait4's ru_maxrss, which on Linux starts from the hiwater mark of the process
that exec'd the command. Measured straight from run.py (which holds the project data, ~90 MiB) every
child would show at least that; exec'd from this small process the floor is a bare interpreter (~10 MiB).
"""

import json
import os
import sys
import time


def main() -> int:
    out, command = sys.argv[1], sys.argv[2:]
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(command[0], command)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    with open(out, "w") as f:
        json.dump({"code": code, "wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "maxrss_kib": usage.ru_maxrss}, f)
    return code


if __name__ == "__main__":
    sys.exit(main())
