"""The experiments' internals: the simulated days, the scripted agents, the runs over seeds and the report writers.

Layer: above the product (the stores, the server, workload.py), below the two
entry scripts at the top level, sim.py and triage.py, which are all a user runs.
Nothing in the product imports from here.
"""

import sys

if sys.version_info < (3, 9):  # before an import fails on it: say which Python is needed
    sys.exit(f"this project needs Python 3.9 or newer; this is Python {sys.version.split()[0]}")
