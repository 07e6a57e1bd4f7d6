"""The Makefile's .venv: made with a Python 3.10 or newer where the machine has one, since `make conformance` (the
official SDK) and `make lint` (mypy 2.x) need it; where it has none, those two stop in one line saying what to do.

Each test runs make on a .venv of its own in a temporary folder; they skip without make, or without a Python 3.9
to stand for macOS's python3 (this one, or pyenv's).
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from tests.helpers import ROOT

WAIT = 120  # seconds: making a venv installs pip into it


def python_3_9():
    """An interpreter of Python 3.9: this one, or pyenv's; None where the machine has none."""
    if sys.version_info[:2] == (3, 9):
        return sys.executable
    found = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.9.*/bin/python3.9")))
    return found[-1] if found else None


@unittest.skipUnless(shutil.which("make") and python_3_9(), "needs make and a Python 3.9")
class VenvPythonTest(unittest.TestCase):
    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = folder.name
        self.venv = os.path.join(self.folder, "venv")

    def make(self, *arguments, path=None):
        """make with PYTHON a Python 3.9 and VENV this test's own; its exit status and stderr."""
        env = dict(os.environ, PATH=path or os.environ.get("PATH", ""))
        for inherited in ("VENV_PYTHON", "MAKELEVEL", "MAKEFLAGS", "MFLAGS"):  # as typed, not as `make test` runs it
            env.pop(inherited, None)
        done = subprocess.run(["make", "-s", f"PYTHON={python_3_9()}", f"VENV={self.venv}", *arguments], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=WAIT, stdin=subprocess.DEVNULL)
        return done.returncode, done.stderr

    def venv_version(self):
        python = os.path.join(self.venv, "bin", "python")
        done = subprocess.run([python, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True, text=True,
                              timeout=WAIT)
        return done.stdout.strip()

    @unittest.skipIf(sys.version_info < (3, 10), "needs this Python to be 3.10 or newer, to put on the PATH")
    def test_venv_is_made_with_a_newer_python_on_the_path_even_when_python_is_3_9(self):
        tools = os.path.join(self.folder, "bin")
        os.makedirs(tools)
        os.symlink(sys.executable, os.path.join(tools, "python3.12"))  # the first name the Makefile tries after PYTHON
        status, said = self.make("venv", path=os.pathsep.join([tools, os.environ.get("PATH", "")]))
        self.assertEqual(status, 0, said)
        self.assertEqual(self.venv_version(), str(sys.version_info[:2]))

    def test_without_a_newer_python_the_targets_that_need_one_stop_in_one_line_saying_what_to_do(self):
        status, said = self.make("venv-3.10", "VENV_PYTHON=")
        self.assertEqual(status, 2)
        (line,) = [line for line in said.splitlines() if not re.match(r"make(\[\d+\])?: \*\*\*", line)]
        self.assertRegex(line, r"^make venv-3\.10: needs Python 3\.10 or newer in .*, which has Python 3\.9\.\d+: "
                               r"install Python 3\.10 or newer .* or name one with VENV_PYTHON=")
        self.assertEqual(self.venv_version(), "(3, 9)")  # the other targets run on 3.9: .venv stays

    def test_conformance_and_lint_go_through_that_check(self):
        with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as file:
            makefile = file.read()
        for target in ("conformance", "lint"):
            self.assertRegex(makefile, rf"(?m)^{target}: venv-3\.10 ")


if __name__ == "__main__":
    unittest.main()
