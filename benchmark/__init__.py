"""The benchmark's internals: timing, fixtures, growth, writers, round trips, and the page they write.

Layer: a client of the product, like lab/; bench.py at the top level is its entry
point (`make bench`). Nothing in the product imports from here.
"""

import osfoundry_tools.minimum_python  # noqa: F401  (refuses a Python older than 3.9 in one line)
