"""The README's Python examples work when pasted into the python3 prompt, and print what the README says they print.

A prompt reads a paste line by line: a compound statement ends only at a blank line, and every expression
statement echoes its value. So each block is fed to code.InteractiveConsole one line at a time, under this
Python and under the other Pythons the project supports where this machine has them (3.9, 3.11, 3.13), and
what it prints, echoes included, must be the text block that follows it in the README.
"""

import glob
import os
import re
import subprocess
import sys
import unittest

from tests.helpers import ROOT

PROMPT = """
import code, contextlib, io, sys
block = sys.stdin.read()
console, printed, errors = code.InteractiveConsole(), io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(errors):
    for line in block.splitlines():
        console.push(line)
    console.push("")
sys.stdout.write(printed.getvalue())
sys.stderr.write(errors.getvalue())
"""
SUPPORTED = ("3.9", "3.11", "3.13")


def readme_blocks(language):
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as readme:
        return re.findall(rf"```{language}\n(.*?)```", readme.read(), re.S)


def pythons():
    """This interpreter, and one of each other supported minor version this machine has (pyenv's included)."""
    found = {f"{sys.version_info.major}.{sys.version_info.minor}": sys.executable}
    for version in SUPPORTED:
        candidates = sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python{version}")))
        if version not in found and candidates:
            found[version] = candidates[-1]
    return found


class ReadmeTest(unittest.TestCase):
    def test_each_python_example_pasted_into_a_prompt_prints_the_output_shown_after_it(self):
        examples, outputs = readme_blocks("python"), readme_blocks("text")
        self.assertEqual(len(examples), len(outputs))
        self.assertGreaterEqual(len(examples), 2)
        found = pythons()
        for version in sorted(set(SUPPORTED) | set(found)):
            with self.subTest(python=version):
                if version not in found:
                    self.skipTest(f"no Python {version} on this machine")
                for example, output in zip(examples, outputs):
                    run = subprocess.run([found[version], "-c", PROMPT], input=example, cwd=ROOT,
                                         capture_output=True, text=True, timeout=60)
                    self.assertEqual((run.returncode, run.stderr), (0, ""), example[:60])
                    self.assertEqual(run.stdout, output, example[:60])

    def test_a_block_the_prompt_would_break_is_caught(self):
        broken = "for n in range(2):\n    print(n)\nprint('after')\n"  # no blank line after the loop's body
        run = subprocess.run([sys.executable, "-c", PROMPT], input=broken, capture_output=True, text=True, timeout=60)
        self.assertIn("SyntaxError", run.stderr)
        echoed = subprocess.run([sys.executable, "-c", PROMPT], input="1 + 1\n", capture_output=True, text=True,
                                timeout=60)
        self.assertEqual(echoed.stdout, "2\n")

    def test_the_table_of_files_names_every_module_of_the_tree_and_nothing_that_is_not_there(self):
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as readme:
            table = re.findall(r"^\| `([\w/]+\.py)` \|", readme.read(), re.M)
        modules = {os.path.join(folder, name) if folder else name
                   for folder in ("", "benchmark") for name in os.listdir(os.path.join(ROOT, folder))
                   if name.endswith(".py") and name != "__init__.py"}
        modules |= {os.path.relpath(os.path.join(where, name), ROOT)  # lab/ and its package per experiment
                    for where, _, names in os.walk(os.path.join(ROOT, "lab")) for name in names
                    if name.endswith(".py") and name != "__init__.py"}
        self.assertEqual(sorted(table), sorted(modules))

    def test_the_readme_quotes_each_committed_pages_answer_word_for_word(self):
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as readme:
            text = readme.read()
        for page in ("knowledge_base.md", "record_channels.md"):
            with open(os.path.join(ROOT, "results", page), encoding="utf-8") as file:
                (answer,) = re.findall(r"^\*\*In one sentence\.\*\* (.+)$", file.read(), re.M)
            with self.subTest(page=page):
                self.assertIn(f"\n> {answer}\n", text)

    def test_the_readme_shows_the_two_commands(self):
        (commands,) = readme_blocks("sh")
        self.assertIn("python3 sim.py --seeds 1-5", commands)
        self.assertIn("make test", commands)


if __name__ == "__main__":
    unittest.main()
