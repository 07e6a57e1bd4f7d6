"""The experiments' internals: the simulated days, the scripted agents, the runs over seeds and the report writers.

Layer: above the product (the stores, the server, workload.py), below the two
entry scripts at the top level, sim.py and triage.py, which are all a user runs.
Nothing in the product imports from here.
"""

import osfoundry_tools.minimum_python  # noqa: F401  (refuses a Python older than 3.9 in one line)
