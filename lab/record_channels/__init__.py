"""The record-channel experiments, which triage.py runs (published figures: docs/source-figures.md): the scenario,
one seed of tables R1-R5 with its scripted agent, the R6 timing, the runs over seeds, and the page they write
(results/record_channels.md).
"""
