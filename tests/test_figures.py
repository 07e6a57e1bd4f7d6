"""lab/figures.py and what both reports take from it: a figure's cells, its verdict cell, the causes tried in order, the
marginal miss; and lab/experiments.py's bytes_of and run_command, which both scripts use."""

import contextlib
import io
import os
import shutil
import subprocess
import tempfile
import types
import unittest

from osfoundry_tools import cli
import sim
from lab import evidence, experiments, figures
from lab.knowledge_base import measured as kb_measured
from lab.knowledge_base import reasons as kb_reasons
from lab.knowledge_base import report as kb_report
from lab.record_channels import reasons as record_reasons
from lab.record_channels import report as record_report

NO_BASIS = evidence.Basis(restated={}, checks={})  # every figure independent, none a check
MADE_BY = experiments.Provenance("python3 x.py", "abc", "3.9.6", "3.40.1", ())


def row(ours, low, high, published=None, decimals=1, **flags):
    """A figure's row as experiments.measure makes it (with triage.py's flags where given)."""
    made = dict({"ours": ours, "low": low, "high": high, "decimals": decimals, "groups": [low, high]}, **flags)
    if published is not None:
        made["published"] = published
        made["verdict"] = experiments.verdict(published, ours, low, high, decimals)
    return made


NEAR = row(10.0, 9.0, 11.0, published=11.3)  # outside by 11.25 - 11 = 0.25, a range 2 wide: marginal
FAR = row(10.0, 9.0, 11.0, published=14.0)  # outside by 2.95: not marginal
FIXED = row(600.0, 600.0, 600.0, published=590.0, decimals=0, deterministic=True)  # a count the seeds cannot move


def sim_report_of(rows, groups=20):
    """A knowledge-base report of one model whose rows under the distinct reading are `rows`."""
    scenario = sim.scenario_from(sim.parser().parse_args([]))
    run = kb_measured.ModelRun(scenario=scenario, main={}, groups=[{}] * groups, rows={"distinct": rows})
    return kb_measured.Report(models={kb_measured.POPULAR: run}, seeds=[1], groups=[], k1={}, published_k1={},
                             published={}, published_hours=[], calibrated=frozenset(), basis=NO_BASIS,
                             provenance=MADE_BY, timing=(0.0, 0.0, 1))


def triage_report_of(rows, *further):
    """Just what the record-channel report's rows, numbers and reasons read of a report (`further`: the rows of
    further draws of the range seeds)."""
    return types.SimpleNamespace(rows=rows, basis=NO_BASIS, draw_rows=lambda: [rows, *further],
                                 numbers=lambda: figures.numbered(NO_BASIS, [key for key, r in rows.items()
                                                                             if "verdict" in r]))


class CellsTest(unittest.TestCase):
    def test_a_figure_shows_published_ours_range_and_verdict_at_their_precisions(self):
        fine = row(0.137, 0.12, 0.15, published=0, decimals=0, shown_decimals=2)
        self.assertEqual(figures.published_cell(fine, " KiB"), "0 KiB")
        self.assertEqual(figures.figure_cells(fine, " KiB", "v"), ["0.14 KiB", "0.12 KiB – 0.15 KiB", "v"])
        self.assertEqual(figures.published_cell(row(3.0, None, None)), "—")
        self.assertEqual(figures.range_cell(row(3.0, None, None)), "—")
        self.assertEqual(figures.range_cell(row(3.0, 2.0, 4.0, single=True), "%"), "2.0% – 4.0% (one page)")

    def test_a_deterministic_figure_has_no_range_and_never_a_marginal_miss(self):
        self.assertEqual(FIXED["verdict"], experiments.OUTSIDE)
        self.assertEqual(figures.range_cell(FIXED), "deterministic")
        self.assertIsNone(figures.marginal(FIXED))
        cells = record_report.figure_row(triage_report_of({"R5.x": FIXED}), "a count", "R5.x")
        self.assertEqual(cells[:5], ["a count", "1", "590", "600", "deterministic"])
        self.assertEqual(cells[5], "outside range: " + record_reasons.UNEXPLAINED)

    def test_only_an_outside_verdict_is_followed_by_its_pointer(self):
        pointer = lambda: " [3]"  # noqa: E731
        self.assertEqual(figures.verdict_cell(experiments.OUTSIDE, pointer), "outside range [3]")
        self.assertEqual(figures.verdict_cell(experiments.INSIDE, pointer), "inside range")
        self.assertEqual(figures.verdict_cell(None, pointer), "—")


class ReasonsTest(unittest.TestCase):
    def test_the_first_matching_cause_whose_check_holds_gives_the_reason(self):
        tried = []

        def declines(key):
            tried.append("declines")

        causes = [(r"^B", lambda key: "never: the pattern does not match"), (r"^A", declines),
                  (r"^A\.", lambda key: f"holds for {key}"), (r"", lambda key: "too late")]
        self.assertEqual(figures.reason(causes, "A.x", ("A.x",), lambda: "otherwise"), "holds for A.x")
        self.assertEqual(tried, ["declines"])
        self.assertEqual(figures.reason(causes[:2], "A.x", ("A.x",), lambda: "otherwise"), "otherwise")

    def test_a_near_miss_is_marginal_measured_from_the_published_figures_rounding_interval(self):
        self.assertEqual(NEAR["verdict"], experiments.OUTSIDE)
        self.assertEqual(figures.marginal(NEAR), "marginal: 0.3 outside a range 2.0 wide")  # 0.25, halves up
        below = row(10.0, 9.0, 11.0, published=8.7)
        self.assertEqual(figures.marginal(below), "marginal: 0.3 outside a range 2.0 wide")
        self.assertIsNone(figures.marginal(FAR))
        self.assertIsNone(figures.marginal(row(10.0, 9.0, 11.0, published=11.65)))  # 0.6 > a quarter of 2
        self.assertIsNone(figures.marginal(row(10.0, 10.0, 10.0, published=10.2)))  # a range of no width
        self.assertIsNone(figures.marginal(row(10.0, None, None, published=10.2)))

    def test_both_reports_call_a_near_miss_marginal_each_in_its_own_words(self):
        report = triage_report_of({"R5.x": NEAR, "R5.y": FAR})
        self.assertEqual(record_reasons.reason(report, "R5.x"),
                         "marginal: 0.3 outside a range 2.0 wide, within what another draw of seeds could give")
        self.assertEqual(record_reasons.reason(report, "R5.y"), record_reasons.UNEXPLAINED)
        kb = sim_report_of({"top10.saves": NEAR, "top10.questions": FAR})
        name, text = kb_reasons.reason(kb, kb_measured.POPULAR, "top10.saves", "distinct")
        self.assertEqual(name, "marginal")
        self.assertTrue(text.startswith("marginal: 0.3 outside a range 2.0 wide; a further group of our own seeds "
                                        "falls outside such a range 10% of the time"), text)
        self.assertEqual(kb_reasons.reason(kb, kb_measured.POPULAR, "top10.questions", "distinct")[0],
                         kb_reasons.UNKNOWN)

    def test_a_range_that_meets_the_figure_is_no_miss_however_near_its_edge(self):
        for published in (10.9, 11.0, 9.0):  # inside, and at either edge: a miss would come out 0 or less
            self.assertIsNone(figures.marginal(row(10.0, 9.0, 11.0, published=published)), published)
        self.assertIsNotNone(figures.marginal(row(10.0, 9.0, 11.0, published=11.2)))  # 11.15, where 11.2 starts,
        # lies past the range's 11.0

    def test_a_figure_outside_in_a_later_draw_only_is_explained_by_that_draw(self):
        inside = row(10.0, 9.0, 11.0, published=10.9)
        report = triage_report_of({"R5.x": inside}, {"R5.x": inside}, {"R5.x": NEAR})
        self.assertEqual(record_reasons.reason(report, "R5.x"), "in draw 3 of the range seeds, marginal: 0.3 "
                         "outside a range 2.0 wide, within what another draw of seeds could give")

    def test_ours_exact_beside_a_range_that_misses_is_explained_as_the_main_seeds_alone(self):
        edge = row(11.3, 9.0, 11.0, published=11.3)
        self.assertEqual(edge["verdict"], experiments.OUTSIDE)  # shown as outside, where its reason is listed
        reason = record_reasons.reason(triage_report_of({"R5.x": edge}), "R5.x")
        self.assertTrue(reason.startswith("ours over the main seeds rounds to the published figure, but our range "
                                          "over the range seeds lies below it (9.0 to 11.0)"), reason)

    def test_a_range_that_ends_where_the_published_figures_rounding_begins_is_a_marginal_miss(self):
        edge = row(11.6, 11.35, 12.0, published=11.3)  # 11.3 stands for [11.25, 11.35): the range starts past it
        self.assertEqual(edge["verdict"], experiments.OUTSIDE)
        self.assertEqual(figures.marginal(edge), "marginal: a range 0.7 wide that ends where the published "
                         "figure's rounding begins")

    def test_the_knowledge_base_table_numbers_the_marginal_note_its_verdict_points_to(self):
        kb = sim_report_of({"top10.saves": NEAR})
        lines = kb_report.figure_table(kb, [("saves", "top10.saves", "distinct", "%")])
        self.assertIn("| saves | 1 | 11.3% | 10.0% | 9.0% – 11.0% | outside range [1] |", lines)
        self.assertTrue(lines[-1].startswith("[1] Marginal: 0.3 outside a range 2.0 wide; "), lines[-1])


class SharedByBothScriptsTest(unittest.TestCase):
    def test_bytes_of_counts_utf8_bytes_of_the_json_as_written_without_ascii_escapes(self):
        self.assertEqual(experiments.bytes_of({"a": "é"}), len('{"a": "é"}'.encode("utf-8")))
        self.assertEqual(experiments.bytes_of([1, 2]), len("[1, 2]"))
        self.assertEqual(experiments.compact_bytes({"a": ["é", 1]}), len('{"a":["é",1]}'.encode("utf-8")))
        self.assertEqual(experiments.compact_bytes({"a": [" ", 1]}), len('{"a":[" ",1]}'))

    def test_run_command_checks_the_options_writes_the_files_and_says_so(self):
        def parser():
            p = cli.OneLineParser(prog="x.py")
            p.add_argument("--out")
            p.add_argument("--n", type=int, default=1)
            return p

        def check(p, options):
            if options.n < 1:
                p.error("--n must be at least 1")

        def measure(options, made_by):
            return {"a.md": f"n = {options.n}\n", "b.svg": "<svg/>\n"}, 1.25

        with tempfile.TemporaryDirectory() as out, contextlib.redirect_stderr(io.StringIO()) as said:
            folder = os.path.join(out, "new")
            command = experiments.Command("x.py", parser, check, measure, lambda options: "x")
            status = experiments.run_command(command, ["--out", folder, "--n", "3"])
            self.assertEqual(status, cli.EXIT_OK)
            self.assertEqual(sorted(os.listdir(folder)), ["a.md", "b.svg"])
            with open(os.path.join(folder, "a.md"), encoding="utf-8") as file:
                self.assertEqual(file.read(), "n = 3\n")
            self.assertEqual(said.getvalue(), f"x.py: wrote {folder}/a.md and b.svg in 1.2 s (a new folder)\n")
            with self.assertRaises(SystemExit) as stopped:
                experiments.run_command(command, ["--out", folder, "--n", "0"])
            self.assertEqual(stopped.exception.code, cli.EXIT_USAGE)

@unittest.skipUnless(shutil.which("git"), "needs git")
class CommitOfTest(unittest.TestCase):
    """The commit a page names says whether the code differed from it, and the pages themselves do not count."""

    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.folder)
        os.mkdir(os.path.join(self.folder, "results"))
        for name in ("sim.py", os.path.join("results", "page.md")):
            self.write(name, "first\n")
        identity = ["-c", "user.name=t", "-c", "user.email=t@t"]
        for words in (["init", "-q"], ["add", "."], [*identity, "commit", "-qm", "c"]):
            subprocess.run(["git", "-C", self.folder, *words], check=True, capture_output=True)

    def write(self, name, text):
        with open(os.path.join(self.folder, name), "w", encoding="utf-8") as file:
            file.write(text)

    def test_a_page_a_run_rewrote_leaves_the_commit_clean(self):
        self.write(os.path.join("results", "page.md"), "second\n")
        self.assertRegex(experiments.commit_of(self.folder), r"^[0-9a-f]{12}$")

    def test_changed_code_is_named(self):
        self.write("sim.py", "second\n")
        self.assertRegex(experiments.commit_of(self.folder), r"^[0-9a-f]{12} with uncommitted changes$")

    def test_a_folder_outside_git_says_so(self):
        self.assertTrue(experiments.commit_of(tempfile.gettempdir() + "/no-such-folder").startswith("unknown"))


if __name__ == "__main__":
    unittest.main()
