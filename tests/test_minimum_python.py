"""A Python older than 3.9 is refused in one line naming what was started, by every command and by the stores' names.

Run under each older Python this machine has (pyenv's 3.6, 3.7 and 3.8 where they are installed); with none, the
tests skip saying so.
"""

import glob
import os
import subprocess
import unittest

from tests.helpers import ROOT

OLDER = ("3.6", "3.7", "3.8")
STARTS = {  # what a user may start -> the name the refusal gives it
    ("sim.py", "--seeds", "1"): "sim.py",
    ("triage.py",): "triage.py",
    ("bench.py", "--quick"): "bench.py",
    ("mcp_server.py", "--demo"): "mcp_server.py",
    ("-m", "osfoundry_tools", "--demo"): "osfoundry_tools",
    ("-c", "import kb_store"): "this project",
    ("-c", "import record_store"): "this project",
}


def older_pythons():
    """One interpreter of each older minor version this machine has."""
    found = {}
    for version in OLDER:
        candidates = sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python{version}")))
        if candidates:
            found[version] = candidates[-1]
    return found


class RefusalTest(unittest.TestCase):
    def test_every_command_and_store_refuses_an_older_python_in_one_line(self):
        pythons = older_pythons()
        if not pythons:
            self.skipTest("no Python older than 3.9 on this machine (pyenv's 3.6 to 3.8 are tried)")
        for version, python in sorted(pythons.items()):
            for argv, name in STARTS.items():
                with self.subTest(python=version, argv=argv):
                    done = subprocess.run([python, *argv], cwd=ROOT, capture_output=True, text=True, timeout=60,
                                          stdin=subprocess.DEVNULL)
                    self.assertEqual(done.returncode, 1)
                    self.assertEqual(done.stdout, "")
                    self.assertRegex(done.stderr, rf"\A{name} needs Python 3\.9 or newer; this is Python "
                                                  rf"{version}\.\d+\n\Z")


if __name__ == "__main__":
    unittest.main()
