"""The knowledge-base experiments (SPEC §2), which sim.py runs: the scenario, the simulated day and its models,
the runs over seeds, and the two pages they write (results/knowledge_base.md with its chart, and the sensitivity
page).
"""
