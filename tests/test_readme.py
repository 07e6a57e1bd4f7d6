"""The README's Python examples run as pasted and print what the README says they print."""

import os
import re
import subprocess
import sys
import unittest

from tests.helpers import ROOT


def readme_blocks(language):
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as readme:
        return re.findall(rf"```{language}\n(.*?)```", readme.read(), re.S)


class ReadmeTest(unittest.TestCase):
    def test_each_python_example_prints_the_output_shown_after_it(self):
        examples, outputs = readme_blocks("python"), readme_blocks("text")
        self.assertEqual(len(examples), len(outputs))
        self.assertGreaterEqual(len(examples), 2)
        for example, output in zip(examples, outputs):
            run = subprocess.run([sys.executable], input=example, cwd=ROOT, capture_output=True, text=True,
                                 timeout=60)
            with self.subTest(example=example[:60]):
                self.assertEqual(run.returncode, 0, run.stderr)
                self.assertEqual(run.stdout, output)

    def test_the_table_of_files_names_every_module_of_the_tree_and_nothing_that_is_not_there(self):
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as readme:
            table = re.findall(r"^\| `([\w/]+\.py)` \|", readme.read(), re.M)
        modules = {os.path.join(folder, name) if folder else name
                   for folder in ("", "lab", "benchmark") for name in os.listdir(os.path.join(ROOT, folder))
                   if name.endswith(".py") and name != "__init__.py"}
        self.assertEqual(sorted(table), sorted(modules))

    def test_the_readme_shows_the_two_commands(self):
        (commands,) = readme_blocks("sh")
        self.assertIn("python3 sim.py --seeds 1-5", commands)
        self.assertIn("make test", commands)


if __name__ == "__main__":
    unittest.main()
