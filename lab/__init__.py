"""The experiments' internals, one package per experiment, and what both share.

Layer: above the product (the stores, the server, workload.py), below the two
entry scripts at the top level, sim.py and triage.py, which are all a user runs.
Nothing in the product imports from here.

  knowledge_base/   the knowledge-base article, run by sim.py: the simulated support day, its models, its pages
  record_channels/  the record-channel article, run by triage.py: the bug-tracker triage, its scripted agent, its page
  experiments.py    what both commands share: main(), seeds, runs over processes, ranges, verdicts, markdown
  evidence.py       how strong the evidence is: each published figure once, checks apart, firm and loose
  figures.py        what both pages show of one figure: its cells, its verdict cell, why it misses
"""

import osfoundry_tools.minimum_python  # noqa: F401  (refuses a Python older than 3.9 in one line)
