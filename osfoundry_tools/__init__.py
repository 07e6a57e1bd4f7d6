"""osFoundry's agent tools over knowledge bases and record channels, reconstructed: the product, as one package.

Its folders are its layers, each importing only those below it:

  server/    the MCP server: the protocol in both eras, the tools routed by resource type, stdio, Streamable
             HTTP with its bounded front and workers, bearer tokens, a person's approval, the workspace, the command
  content/   what the stores are filled with: a user's own files, the demo, the help centre, the experiments' workload
  stores/    the knowledge-base store and its search, the record-channel store and its field types
  core/      what every store shares: tools as data, the argument check, rejections, the clock, the keyed edit,
             idempotency, the event log
  engines/   where rows live: a sqlite file, or PostgreSQL

cli.py and minimum_python.py sit beneath them all. This file holds nothing but these words, so that the oldest
Python can read it on its way to minimum_python's one-line refusal.
"""
