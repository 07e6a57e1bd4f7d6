"""Refuse, in one line, a Python older than the project's 3.9: every command imports this before anything else.

Layer: the bottom of everything, beside cli.py; it imports only sys
and os, and its own syntax is that of any Python 3, so that an old interpreter reaches
the refusal instead of dying on an import it lacks (dataclasses in 3.6,
statistics.fmean in 3.7, functools.cached_property in 3.7).
"""

import os
import sys

MINIMUM = (3, 9)

if sys.version_info < MINIMUM:
    COMMAND = os.path.basename(sys.argv[0]) if sys.argv and not sys.argv[0].startswith("-") else ""  # "-m": a module
    if COMMAND == "__main__.py":  # python3 -m osfoundry_tools: the package's name
        COMMAND = os.path.basename(os.path.dirname(os.path.abspath(sys.argv[0])))
    sys.exit("{} needs Python {}.{} or newer; this is Python {}".format(
        COMMAND or "this project", MINIMUM[0], MINIMUM[1], sys.version.split()[0]))
