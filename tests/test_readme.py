"""The README and the docs/ pages say what is so: their Python examples work when pasted into the python3 prompt
and print what the page says they print, the architecture page's table names every module of the tree, the
committed results' answers are quoted word for word, and every relative link names a file that is there.

A prompt reads a paste line by line: a compound statement ends only at a blank line, and every expression
statement echoes its value. So each block is fed to code.InteractiveConsole one line at a time, under this
Python and under the other Pythons the project supports where this machine has them (3.9, 3.11, 3.13), and
what it prints, echoes included, must be the text block that follows it on its page.
"""

import glob
import json
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


ARCHITECTURE = os.path.join("docs", "architecture.md")  # the page whose table names every module
PACKAGE_FOLDERS = ("osfoundry_tools", "lab")  # walked with their subfolders; benchmark/ and the root are not
FLAT_FOLDERS = ("", "benchmark")
ANSWERS_QUOTED = {  # each committed results page, and the pages beside the README that quote its answer
    "knowledge_base.md": [os.path.join("docs", "knowledge-base-experiments.md")],
    "record_channels.md": [os.path.join("docs", "record-experiments.md")],
}


def pages():
    """The README and every page of docs/, as paths from the repository's root."""
    return ["README.md"] + sorted(os.path.relpath(path, ROOT) for path in glob.glob(os.path.join(ROOT, "docs", "*.md")))


def read(page):
    with open(os.path.join(ROOT, page), encoding="utf-8") as file:
        return file.read()


def blocks(page, language):
    return re.findall(rf"```{language}\n(.*?)```", read(page), re.S)


def readme_blocks(language):
    return blocks("README.md", language)


def anchors(path):
    """The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped, spaces as hyphens
    (headings outside code blocks only)."""
    with open(path, encoding="utf-8") as file:
        text = re.sub(r"```.*?```", "", file.read(), flags=re.S)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
            for heading in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def modules():
    """Every module of the tree the architecture page must list: the root's and benchmark/'s, and those of
    osfoundry_tools/ and lab/ with their subfolders, package markers (__init__.py) aside."""
    found = {os.path.join(folder, name) if folder else name
             for folder in FLAT_FOLDERS for name in os.listdir(os.path.join(ROOT, folder))
             if name.endswith(".py") and name != "__init__.py"}
    for top in PACKAGE_FOLDERS:
        for where, folders, names in os.walk(os.path.join(ROOT, top)):
            folders[:] = [name for name in folders if name != "__pycache__"]
            found |= {os.path.relpath(os.path.join(where, name), ROOT).replace(os.sep, "/")
                      for name in names if name.endswith(".py") and name != "__init__.py"}
    return found


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
        pairs = []  # (page, example, the output shown after it), over the README and every docs page
        for page in pages():
            examples, outputs = blocks(page, "python"), blocks(page, "text")
            with self.subTest(page=page):
                self.assertEqual(len(examples), len(outputs), "each python block needs the text block it prints")
            pairs += [(page, example, output) for example, output in zip(examples, outputs)]
        self.assertGreaterEqual(len(pairs), 2)
        self.assertTrue(any(page == "README.md" for page, _, _ in pairs))
        found = pythons()
        for version in sorted(set(SUPPORTED) | set(found)):
            with self.subTest(python=version):
                if version not in found:
                    self.skipTest(f"no Python {version} on this machine")
                for page, example, output in pairs:
                    run = subprocess.run([found[version], "-c", PROMPT], input=example, cwd=ROOT,
                                         capture_output=True, text=True, timeout=60)
                    self.assertEqual((run.returncode, run.stderr), (0, ""), f"{page}: {example[:60]}")
                    self.assertEqual(run.stdout, output, f"{page}: {example[:60]}")

    def test_a_block_the_prompt_would_break_is_caught(self):
        broken = "for n in range(2):\n    print(n)\nprint('after')\n"  # no blank line after the loop's body
        run = subprocess.run([sys.executable, "-c", PROMPT], input=broken, capture_output=True, text=True, timeout=60)
        self.assertIn("SyntaxError", run.stderr)
        echoed = subprocess.run([sys.executable, "-c", PROMPT], input="1 + 1\n", capture_output=True, text=True,
                                timeout=60)
        self.assertEqual(echoed.stdout, "2\n")

    def test_the_table_of_files_names_every_module_of_the_tree_and_nothing_that_is_not_there(self):
        table = re.findall(r"^\| `([\w/]+\.py)` \|", read(ARCHITECTURE), re.M)
        self.assertEqual(len(table), len(set(table)), "a module listed twice")
        self.assertEqual(sorted(table), sorted(modules()))

    def test_the_readme_and_the_experiments_pages_quote_each_committed_pages_answer_word_for_word(self):
        for results, quoting in ANSWERS_QUOTED.items():
            (answer,) = re.findall(r"^\*\*In one sentence\.\*\* (.+)$", read(os.path.join("results", results)), re.M)
            for page in ["README.md"] + quoting:
                with self.subTest(results=results, page=page):
                    self.assertIn(f"\n> {answer}\n", read(page))

    def test_every_relative_link_of_the_readme_and_the_docs_names_a_file_that_is_there(self):
        for page in pages():
            for target in re.findall(r"\]\(([^()\s]+)\)", read(page)):
                if re.match(r"[a-z]+:", target):
                    continue
                file, _, anchor = target.partition("#")
                path = os.path.normpath(os.path.join(ROOT, os.path.dirname(page), file)) if file else \
                    os.path.join(ROOT, page)
                with self.subTest(page=page, link=target):
                    self.assertTrue(os.path.exists(path))
                    if anchor:
                        self.assertIn(anchor, anchors(path))

    def test_each_request_of_the_readme_is_answered_by_the_server_it_is_shown_with(self):
        """Each tools/call line of the README, sent to the server the README starts for it: the one serving
        --kb-from-dir docs for the knowledge base docs, the demo for the others; none may answer an error."""
        requests = [json.loads(block) for block in readme_blocks("json") if '"tools/call"' in block]
        on_docs = [request for request in requests if request["params"]["arguments"]["knowledge_base_id"] == "docs"]
        self.assertEqual([request["params"]["name"] for request in on_docs], ["read_knowledge_article"])
        for request in requests:
            served = ["--kb-from-dir", "docs"] if request in on_docs else ["--demo"]
            with self.subTest(tool=request["params"]["name"], served=served):
                done = subprocess.run([sys.executable, "mcp_server.py", *served], input=json.dumps(request) + "\n",
                                      cwd=ROOT, capture_output=True, text=True, timeout=60)
                answer = json.loads(done.stdout)
                self.assertFalse(answer["result"]["isError"], answer["result"]["content"])

    def test_the_readme_shows_the_two_commands(self):
        (commands,) = readme_blocks("sh")
        self.assertIn("python3 sim.py --seeds 1-5", commands)
        self.assertIn("make test", commands)


if __name__ == "__main__":
    unittest.main()
