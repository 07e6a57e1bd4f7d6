"""Peak memory of one program run: this process's own high-water mark, and its largest child's.

    python3 benchmark/memory.py FACTS.json sim.py --out /tmp/scratch    # runs sim.py, then writes its peaks

Layer: a benchmark helper with no imports of the project, so that what it measures
is the program it runs. On Linux the peak is /proc/self/status's VmHWM: getrusage's
ru_maxrss also keeps, across exec, the peak of whichever process forked this one,
so a small run started by a large benchmark would report the benchmark's size.
Elsewhere ru_maxrss is all there is (bytes on macOS, KiB on other systems).
"""

import json
import os
import runpy
import sys
from typing import List, Optional

EXIT_OK, EXIT_USAGE = 0, 2  # cli.py's codes, restated: this file imports nothing of the project (see above)

KIB_PER_MIB = 2 ** 10


def peak_rss_mib() -> Optional[float]:
    """This process's peak resident memory in MiB; None where neither /proc nor `resource` exists (Windows)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / KIB_PER_MIB
    except OSError:
        pass
    return _usage_mib("RUSAGE_SELF")


def largest_child_mib() -> Optional[float]:
    """The peak of the largest child this process waited for (ru_maxrss: inherited peaks included)."""
    return _usage_mib("RUSAGE_CHILDREN")


def _usage_mib(who: str) -> Optional[float]:
    try:
        import resource
    except ImportError:
        return None
    peak = resource.getrusage(getattr(resource, who)).ru_maxrss
    return peak / 2 ** 20 if sys.platform == "darwin" else peak / KIB_PER_MIB


def main(argv: List[str]) -> int:
    if len(argv) < 2:
        print("usage: python3 benchmark/memory.py FACTS.json SCRIPT [ARGUMENT ...]", file=sys.stderr)
        return EXIT_USAGE
    facts, script = argv[0], argv[1]
    sys.argv = [script] + argv[2:]
    sys.path[0] = os.path.dirname(os.path.abspath(script))  # its imports resolve as if it had been run itself
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as stop:
        if stop.code not in (None, 0):
            raise
    with open(facts, "w", encoding="utf-8") as out:
        json.dump({"self": peak_rss_mib(), "children": largest_child_mib()}, out)
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
