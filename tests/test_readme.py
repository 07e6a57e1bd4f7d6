"""The README and the docs/ pages say what is so: their Python examples work when pasted into the python3 prompt
and print what the page says they print, the architecture page's table names every module of the tree, the
committed results' answers are quoted word for word, the figures copied from the performance page are on it, and
every relative link names a file that is there.

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
PERFORMANCE = os.path.join("results", "performance.md")
COPIED_FIGURES = {  # figures pages copy from the committed performance page: (as the page words it, as that page does)
    os.path.join("docs", "postgresql.md"): [
        ("cost 3.23× as much on PostgreSQL (867 µs against 269 µs", "| PostgreSQL ÷ sqlite | 3.23× ("),
        ("(867 µs against", "| PostgreSQL | 867 ("), ("against 269 µs", "| sqlite | 269 ("),
        ("saved 1.12× as many edits", "at 8 writers are 1.12× its rate at 1"),
        ("rate was 0.75× its own", "sqlite's 0.75×"),
    ],
    os.path.join("docs", "knowledge-base-store.md"): [
        ("694 of 785 questions (88.4%, out of sample)", "| pooled | 785 | 637 of 785 | 694 of 785 |"),
        ("(the lowest, fastapi, 30 of 37)", "| fastapi | 37 | 25 of 37 | 30 of 37 | 81% |"),
        ("0.2 and 0.3 (698 first)", "| 694 of 785 | 88% | 698 of 785 |"),
        ("24 ms at the median, 41 ms at the 95th percentile", "24 ms at the median and 41 ms at the 95th percentile"),
        ("23 and 36 ms; the same questions without `--rerank` 4.4 and 9.3 ms",
         "23 and 36 ms; without --rerank 4.4 and 9.3 ms"),
        ("19 ms at the median, 20 ms at the 95th percentile", "19 ms at the median and 20 ms at the 95th percentile"),
        ("1,249 ms more than without `--rerank`, the mean over 613 pages",
         "1249 ms more than without --rerank, its sections embedded and kept (the mean over 613 pages)"),
        ("the model 135 MB of resident memory", "the model 135 MB"), ("grew by 443 MB", "grown by 443 MB"),
        ("folder 92 MB and numpy with its BLAS library 83 MB", "folder 92 MB, numpy with its BLAS library 83 MB"),
        ("against 637 (81.1%) without it", "| pooled | 785 | 637 of 785 |"),
    ],
    os.path.join("docs", "performance.md"): [
        ("took 2089 s in all", "took 2089 s (growth 114 s, "),
        ("measured again on its own, took 935 s", "with `.venv/bin/python`, in 935 s."),
        ("costs 2.4× the floor in memory", "| `edit_record_item` within 3× the floor, in memory | 2.4× ("),
        ("it costs 1.73×", "| 1.73× ("), ("Validation is\n  4.2% of an edit", "| 4.2% ("),
        ("costs 1.8× its own floor", "| 1.8× (1.5–1.8) | meets the goal |"),
        ("p99 is 3.0× its median in this run", "| 3.0× (2.7–3.1) | meets the goal |"),
        ("costs 8.5× the floor", "| 8.5× (8.0–8.8) | meets the goal |"),
        ("`full` costs 2.2× `normal`", "| 2.2× ("),
        ("takes 2.45 ms", "takes 2.45 ms"), ("takes 3.86× the bare FTS5 query", "3.86×"),
        ("a mid one 2.06×", "2.06×"), ("take 23.5×", "the ordinary question: 23.5×"),
        ("takes\n  17.5× the ordinary question", "takes 17.5× ("),
        ("ours 637 first and 760 in five", "| ours | 637 of 785 (81%) | 760 (97%)"),
        ("tantivy plain, 534 and\n  723", "| tantivy | 534 of 785 (68%) | 723 (92%)"),
        ("A question took 7.75 ms of ours", "| ours | 637 of 785 (81%) | 760 (97%) | 0.874 | 7.75 |"),
        ("is met by 12 of the 32 pairs", ": 12 of 32 set and engine pairs"),
        ("took 108.7 s on two processes", "| `sim.py --seeds 1-5` (the main job, 2 processes) | 108.7 |"),
        ("265.3 s with `--jobs 1`", "(the main job on one process) | 265.3 |"),
        ("the main seeds alone 6.1 s", "(the main seeds alone) | 6.1 |"),
        ("Two processes run 2.31× the seed days per second", "Two processes run 2.31× ("),
        ("takes 1.45× its own sqlite statements",
         "| a seed day within 1.5× its own sqlite part | 1.45× (1.33–1.80) | meets the goal"),
        ("shows 1.63×", "| **the seed × its sqlite part, both on the stopwatches** | 1.87× | | 1.63× ("),
        ("(2,894 against 3,992)", "| 4 | 2,894 ("), ("takes 0.171 ms over stdio and 0.242 ms over Streamable HTTP",
                                                    "| stdio | 0.171 ("),
        ("takes 0.747 ms and 0.987 ms", "(official mcp SDK) | Streamable HTTP | 0.987 ("),
        ("by 52.1 MiB at most", "| +52.1 MiB at most"), ("and 4.2 MiB\n  stay", "| +4.2 MiB at most"),
        ("is missed in this run\n  at 1.49×", "--workers 2 1.49×"), ("(its repetitions ranged from 1.30× to 2.16×",
                                                                     "| 1.49× (1.30–2.16) |"),
        ("Two server processes on the same files got 2.12×; one alone 0.97×",
         "ours 0.97×; ours, two processes 2.12×"),
        ("At 64 clients ours answers 1.64× the SDK's", "At 64 clients ours answers 1.64× ("),
    ],
}
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

    def test_the_figures_the_pages_copy_from_the_performance_page_are_on_it(self):
        measured = " ".join(read(PERFORMANCE).split())
        for page, figures in COPIED_FIGURES.items():
            text = " ".join(read(page).split())
            for copied, source in figures:
                with self.subTest(page=page, figure=copied):
                    self.assertTrue(" ".join(copied.split()) in text, f"{page} no longer says: {copied}")
                    self.assertTrue(source in measured, f"{PERFORMANCE} no longer says: {source}")

    def test_the_share_of_first_answers_the_own_content_page_gives_is_the_performance_page_s_range(self):
        rows = re.findall(r"^\| [\w-]+ \| \d+ \| sqlite \| (\d+) of (\d+) \|", read(PERFORMANCE), re.M)
        self.assertEqual(len(rows), 16)
        shares = [int(first) / int(asked) for first, asked in rows]
        stated = f"for {min(shares):.0%} to {max(shares):.0%} of each set's questions"
        self.assertIn(stated, " ".join(read(os.path.join("docs", "own-content.md")).split()))

    def test_the_questions_the_postgresql_page_says_both_engines_answer_alike_are_the_performance_page_s(self):
        (line,) = re.findall(r"^The same first page on sqlite and PostgreSQL .*$", read(PERFORMANCE), re.M)
        pairs = [(int(same), int(asked)) for same, asked in re.findall(r" (\d+) of (\d+)", line)]
        self.assertEqual(len(pairs), 16)
        stated = f"{sum(same for same, _ in pairs)} of their {sum(asked for _, asked in pairs)} questions"
        self.assertIn(stated, " ".join(read(os.path.join("docs", "postgresql.md")).split()))

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
