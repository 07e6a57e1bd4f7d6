"""The benchmark's internals: timing, fixtures, growth, writers, round trips, and the page they write.

Layer: a client of the product, like lab/; bench.py at the top level is its entry
point (`make bench`). Nothing in the product imports from here.
"""

import sys

if sys.version_info < (3, 9):  # before an import fails on it: say which Python is needed
    sys.exit(f"this project needs Python 3.9 or newer; this is Python {sys.version.split()[0]}")
