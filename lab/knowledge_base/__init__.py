"""The knowledge-base experiments, which sim.py runs: the scenario, the simulated day and its models, the runs
over seeds, and the two pages they write (results/knowledge_base.md with its chart, and the sensitivity page).
The published figures they compare with are listed in docs/source-figures.md.
"""
