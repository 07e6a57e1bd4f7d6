"""Every command: safe to try (results/ only for the canonical run), every option checked before any work,
--version, Ctrl-C in one line with exit 130, progress that says how long is left."""

import argparse
import contextlib
import dataclasses
import datetime
import errno
import glob
import io
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

from tests.helpers import ROOT
import bench
from osfoundry_tools import cli
import sim
import triage
from lab import experiments

COMMANDS = (  # every command a user runs, as argv after the interpreter
    ["sim.py"], ["triage.py"], ["bench.py"], ["mcp_server.py"],
    ["-m", "benchmark.round_trips"], ["-m", "benchmark.writers"], ["-m", "benchmark.growth"],
)
WAIT = 60  # seconds any one command here may take at most


def toy_command(results, runs, measured):
    """An experiment script in miniature: --n moves its figure, --jobs does not."""
    def parser():
        p = cli.OneLineParser(prog="toy.py")
        p.add_argument("--n", type=cli.positive, default=1)
        p.add_argument("--jobs", type=cli.positive, default=2)
        p.add_argument("--out")
        return p

    def measure(options, made_by=None):
        measured.append(options)
        return {"a.md": f"n = {options.n}\n", "b.svg": "<svg/>\n"}, 0.5

    return experiments.Command(prog="toy.py", parser=parser, check_options=lambda p, options: None,
                               measure=measure, run_name=lambda options: "toy", results=results, runs=runs)


def run_quietly(command, argv):
    """run_command's status and what it said on stderr; what it prints on stdout (each page's answer) is dropped."""
    with contextlib.redirect_stderr(io.StringIO()) as said, contextlib.redirect_stdout(io.StringIO()):
        status = experiments.run_command(command, argv)
    return status, said.getvalue()


def files_under(folder):
    """Every file below `folder`, relative to it."""
    return sorted(os.path.relpath(os.path.join(path, name), folder)
                  for path, _, names in os.walk(folder) for name in names)


class SafeResultsTest(unittest.TestCase):
    """Nothing a user tries can overwrite the committed results: only the canonical run writes results/."""

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)
        self.results = os.path.join(self.folder.name, "results")
        self.runs = os.path.join(self.folder.name, "runs")
        os.makedirs(self.results)
        cli.write_text(os.path.join(self.results, "a.md"), "committed\n")
        self.measured = []
        self.command = toy_command(self.results, self.runs, self.measured)

    def committed(self):
        with open(os.path.join(self.results, "a.md"), encoding="utf-8") as file:
            return file.read()

    def test_a_run_with_other_settings_writes_a_folder_of_its_own_under_runs_and_says_where(self):
        status, said = run_quietly(self.command, ["--n", "3"])
        self.assertEqual(status, cli.EXIT_OK)
        self.assertEqual(self.committed(), "committed\n")
        (folder,) = os.listdir(self.runs)
        self.assertRegex(folder, r"^toy-\d{8}-\d{6}$")
        self.assertEqual(files_under(os.path.join(self.runs, folder)), ["a.md", "b.svg"])
        first, last = said.splitlines()
        self.assertIn("--n differs from the committed results' settings", first)
        self.assertIn(folder, first)
        self.assertIn(folder, last)

    def test_the_out_the_first_line_offers_names_results_from_wherever_the_run_was_started(self):
        elsewhere = os.path.join(self.folder.name, "elsewhere")
        os.makedirs(elsewhere)
        self.addCleanup(os.chdir, os.getcwd())
        for started_in in (self.folder.name, elsewhere):
            with self.subTest(started_in=started_in):
                os.chdir(started_in)
                first = run_quietly(self.command, ["--n", "3"])[1].splitlines()[0]
                (offered,) = re.findall(r"\(--out (.+) would replace the committed page\)$", first)
                self.assertEqual(os.path.abspath(shlex.split(offered)[0]), self.results)

    def test_the_canonical_run_writes_results_and_a_destination_option_does_not_make_a_run_other(self):
        for argv in ([], ["--jobs", "1"]):
            with self.subTest(argv=argv):
                self.assertEqual(run_quietly(self.command, argv)[0], cli.EXIT_OK)
                self.assertEqual(self.committed(), "n = 1\n")
                self.assertFalse(os.path.exists(self.runs))

    def test_an_explicit_out_is_obeyed_even_for_results(self):
        self.assertEqual(run_quietly(self.command, ["--n", "4", "--out", self.results])[0], cli.EXIT_OK)
        self.assertEqual(self.committed(), "n = 4\n")
        self.assertFalse(os.path.exists(self.runs))

    def test_two_runs_in_one_second_get_two_folders_each_made_when_chosen(self):
        now = lambda: datetime.datetime(2026, 12, 1, 9, 30, 5)  # noqa: E731
        p = argparse.ArgumentParser()
        first = cli.output_folder(p, None, ["--n"], self.results, self.runs, "toy", now)
        second = cli.output_folder(p, None, ["--n"], self.results, self.runs, "toy", now)
        self.assertEqual([os.path.basename(first.folder), os.path.basename(second.folder)],
                         ["toy-20261201-093005", "toy-20261201-093005-2"])
        self.assertTrue(os.path.isdir(first.folder) and first.reserved and second.reserved)

    def test_a_run_that_fails_or_is_interrupted_leaves_no_folder_of_its_own_behind(self):
        for stop in (KeyboardInterrupt, RuntimeError):
            def measure(options, made_by=None, stop=stop):
                raise stop()

            with self.subTest(stop=stop.__name__), self.assertRaises(stop):
                run_quietly(dataclasses.replace(self.command, measure=measure), ["--n", "2"])
            self.assertEqual(os.listdir(self.runs), [])
        self.assertEqual(self.committed(), "committed\n")

    def test_the_experiment_scripts_call_only_their_default_settings_canonical(self):
        cases = [(sim.COMMAND, [], []), (sim.COMMAND, ["--jobs", "1", "--sensitivity"], []),
                 (sim.COMMAND, ["--seeds", "1", "--ranges", "0"], ["--seeds", "--ranges"]),
                 (sim.COMMAND, ["--seeds", "1-5", "--zipf-s", "0.5"], ["--zipf-s"])]
        cases += [(triage.COMMAND, ["--jobs", "3"], []), (triage.COMMAND, ["--timed-runs", "0"], ["--timed-runs"])]
        for command, argv, changed in cases:
            with self.subTest(prog=command.prog, argv=argv):
                p = command.parser()
                self.assertEqual(cli.changed_settings(p, p.parse_args(argv), command.apart), changed)
        self.assertEqual(sim.COMMAND.run_name(sim.parser().parse_args(["--sensitivity"])), "sim-sensitivity")

    def test_a_one_seed_look_of_sim_py_leaves_results_alone(self):
        command = dataclasses.replace(sim.COMMAND, results=self.results, runs=self.runs)
        self.assertEqual(run_quietly(command, ["--seeds", "1", "--ranges", "0", "--jobs", "1"])[0], cli.EXIT_OK)
        self.assertEqual(self.committed(), "committed\n")
        (folder,) = os.listdir(self.runs)
        self.assertEqual(files_under(os.path.join(self.runs, folder)), ["knowledge_base.md", "knowledge_base.svg"])

    def test_bench_py_writes_results_only_for_a_full_run_or_a_render_of_the_committed_facts(self):
        committed = os.path.join(self.results, bench.FACTS)
        cli.write_text(committed, "{}\n")
        cli.write_text(os.path.join(self.folder.name, "other.json"), "{}\n")
        p = bench.parser()
        cases = ((["--quick"], "runs"), (["--only", "tools"], "runs"), ([], "results"),
                 (["--render", committed], "results"), (["--render", os.path.join(self.folder.name, "other.json")],
                                                        "runs"))
        with mock.patch.object(bench, "RESULTS", self.results), mock.patch.object(bench, "RUNS", self.runs):
            for argv, where in cases:
                with self.subTest(argv=argv), contextlib.redirect_stderr(io.StringIO()):
                    folder = bench.destination(p, p.parse_args(argv + ["--quiet"])).folder
                    self.assertEqual(os.path.dirname(folder) if where == "runs" else folder,
                                     self.runs if where == "runs" else self.results)


class ShownDefaultsTest(unittest.TestCase):
    """What --help gives as each option's default is what the option takes when typed, and changes nothing."""

    def test_each_option_s_shown_default_typed_back_is_taken_and_keeps_the_run_canonical(self):
        for command in (sim.COMMAND, triage.COMMAND):
            p = command.parser()
            for action in p._actions:
                if not action.option_strings or action.nargs == 0 or action.dest in command.apart:
                    continue
                flag = action.option_strings[-1]
                with self.subTest(prog=command.prog, option=flag):
                    (shown,) = re.findall(r"\(default:? ([^)]*)\)", action.help)
                    taken = [word for word in (word.strip(",;") for word in shown.split()) if accepts(action, word)]
                    self.assertTrue(taken, f"{flag}: no word of its shown default {shown!r} is taken")
                    options = p.parse_args([flag, taken[0]])
                    self.assertEqual(cli.changed_settings(p, options, command.apart), [])

    def test_a_derived_default_typed_back_is_no_change_and_another_value_is(self):
        p = sim.parser()
        for argv, changed in ((["--area-articles", "20"], []), (["--ranges", "10"], []),
                              (["--articles", "100", "--area-articles", "10"], ["--articles"]),
                              (["--articles", "100", "--area-articles", "20"], ["--articles", "--area-articles"]),
                              (["--area-articles", "40"], ["--area-articles"])):
            with self.subTest(argv=argv):
                self.assertEqual(cli.changed_settings(p, p.parse_args(argv), sim.COMMAND.apart), changed)


def accepts(action, word):
    """Whether the option `action` takes `word` as its value."""
    try:
        action.type(word)
    except (argparse.ArgumentTypeError, ValueError):
        return False
    return True


class RunTimeInHelpTest(unittest.TestCase):
    """The help says about how long the default run takes, as the committed page's run took it on 2 cores: the
    same order, since a run's time moves with whatever else the machine does (the page says what this one took)."""

    def test_the_minutes_the_help_gives_are_between_half_and_twice_the_committed_runs_seconds(self):
        sensitivity = next(action.help for action in sim.parser()._actions if "--sensitivity" in action.option_strings)
        for said, page in ((sim.parser().description, "knowledge_base.md"),
                           (sensitivity, "knowledge_base_sensitivity.md"),
                           (triage.parser().description, "record_channels.md")):
            with self.subTest(page=page):
                (minutes,) = re.findall(r"about ([\d.]+) minutes on 2 cores", said)
                with open(os.path.join(ROOT, "results", page), encoding="utf-8") as file:
                    seconds = max(float(s) for s in re.findall(r"([\d.]+) s on 2 processes", file.read()))
                self.assertLessEqual(seconds / 2, float(minutes) * 60, (minutes, seconds))
                self.assertLessEqual(float(minutes) * 60, 2 * seconds, (minutes, seconds))


class PackageCommandTest(unittest.TestCase):
    def test_python_m_osfoundry_tools_calls_itself_so_in_its_version_usage_and_errors(self):
        run = [sys.executable, "-m", "osfoundry_tools"]
        version = subprocess.run([*run, "--version"], cwd=ROOT, capture_output=True, text=True, timeout=WAIT)
        self.assertEqual(version.stdout, f"python3 -m osfoundry_tools {cli.VERSION}\n")
        usage = subprocess.run([*run, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=WAIT)
        self.assertTrue(usage.stdout.startswith("usage: python3 -m osfoundry_tools [-h]"), usage.stdout[:80])
        refused = subprocess.run([*run, "--frobnicate"], cwd=ROOT, capture_output=True, text=True, timeout=WAIT,
                                 stdin=subprocess.DEVNULL)
        self.assertEqual(refused.stderr, "python3 -m osfoundry_tools: error: unrecognized arguments: --frobnicate "
                         "(python3 -m osfoundry_tools --help explains every option)\n")


class OptionsCheckedFirstTest(unittest.TestCase):
    """Every option, --out included, is checked before any work: one line, exit 2, nothing measured or written."""

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)
        self.measured = []
        self.command = toy_command(os.path.join(self.folder.name, "results"), os.path.join(self.folder.name, "runs"),
                                   self.measured)

    def refused(self, argv):
        """What the toy command said when it refused argv; fails unless it refused before measuring."""
        with contextlib.redirect_stderr(io.StringIO()) as said, self.assertRaises(SystemExit) as stop:
            experiments.run_command(self.command, argv)
        self.assertEqual(stop.exception.code, cli.EXIT_USAGE)
        self.assertEqual(self.measured, [])
        self.assertEqual(len(said.getvalue().splitlines()), 1, said.getvalue())
        return said.getvalue()

    def test_an_out_that_is_a_file_is_refused_before_the_run(self):
        a_file = os.path.join(self.folder.name, "a-file")
        cli.write_text(a_file, "keep me\n")
        self.assertIn("is a file, not a folder", self.refused(["--out", a_file]))
        self.assertIn("is a file", self.refused(["--out", os.path.join(a_file, "inside")]))
        with open(a_file, encoding="utf-8") as file:
            self.assertEqual(file.read(), "keep me\n")
        self.assertEqual(files_under(self.folder.name), ["a-file"])

    @unittest.skipIf(hasattr(os, "geteuid") and os.geteuid() == 0, "root may write anywhere")
    def test_an_out_in_a_folder_that_cannot_be_written_is_refused_before_the_run(self):
        locked = os.path.join(self.folder.name, "locked")
        os.makedirs(locked)
        os.chmod(locked, 0o500)
        self.addCleanup(os.chmod, locked, 0o700)
        self.assertIn("is not writable", self.refused(["--out", os.path.join(locked, "new")]))

    def test_an_empty_out_and_a_results_folder_that_is_a_file_are_refused_before_the_run(self):
        self.assertIn("give the name of a folder", self.refused(["--out", ""]))
        cli.write_text(self.command.results, "not a folder\n")
        self.assertIn("is a file, not a folder", self.refused([]))

    def test_an_out_whose_folders_are_missing_is_made_and_the_line_says_so(self):
        deep = os.path.join(self.folder.name, "a", "b")
        status, said = run_quietly(self.command, ["--out", deep])
        self.assertEqual(status, cli.EXIT_OK)
        self.assertEqual(files_under(deep), ["a.md", "b.svg"])
        self.assertIn("(a new folder)", said)

    @unittest.skipUnless(os.path.isdir("/proc"), "needs /proc")
    def test_an_out_under_proc_is_refused_before_the_run_and_nothing_is_made(self):
        # As root the early checks pass (root may write anywhere, says os.access): only the probe finds out.
        self.assertRegex(self.refused(["--out", "/proc/nope"]), r"^toy\.py: error: --out: '/proc/nope' cannot be "
                                                                 r"(written \(|written: )")
        self.assertFalse(os.path.exists("/proc/nope"))

    def test_an_out_that_cannot_be_made_is_refused_before_the_run_and_the_folders_made_for_it_removed(self):
        too_long = os.path.join(self.folder.name, "a", "b", "x" * 300)  # passes the early checks, whoever runs it
        self.assertIn("cannot be written (File name too long)", self.refused(["--out", too_long]))
        self.assertEqual(os.listdir(self.folder.name), [])

    def test_an_out_the_probe_cannot_write_is_refused_before_the_run_and_the_folders_made_for_it_removed(self):
        full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        with mock.patch.object(cli, "probe", side_effect=full):
            said = self.refused(["--out", os.path.join(self.folder.name, "a", "b")])
        self.assertIn(f"b' cannot be written ({os.strerror(errno.ENOSPC)})", said)
        self.assertEqual(os.listdir(self.folder.name), [])
        cli.write_text(os.path.join(self.folder.name, "keep.md"), "kept\n")
        with mock.patch.object(cli, "probe", side_effect=full):
            self.refused(["--out", self.folder.name])  # an existing folder stays, with what it holds
        self.assertEqual(files_under(self.folder.name), ["keep.md"])

    def test_the_probe_leaves_nothing_in_an_existing_out(self):
        self.assertEqual(run_quietly(self.command, ["--out", self.folder.name])[0], cli.EXIT_OK)
        self.assertEqual(files_under(self.folder.name), ["a.md", "b.svg"])

    def test_a_run_that_fails_after_its_out_was_made_leaves_none_of_the_folders_made(self):
        def measure(options, made_by=None):
            raise RuntimeError("the run failed")

        with self.assertRaises(RuntimeError):
            run_quietly(dataclasses.replace(self.command, measure=measure),
                        ["--out", os.path.join(self.folder.name, "a", "b")])
        self.assertEqual(os.listdir(self.folder.name), [])

    def test_files_the_disk_refuses_after_the_run_cost_one_line_and_exit_1_and_leave_nothing(self):
        out = os.path.join(self.folder.name, "new")

        def full(path, text):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        with mock.patch.object(cli, "write_text", full), contextlib.redirect_stderr(io.StringIO()) as said:
            status = cli.run_main("toy.py", lambda argv: experiments.run_command(self.command, argv), ["--out", out])
        self.assertEqual(status, cli.EXIT_FAILED)
        self.assertEqual(said.getvalue().splitlines()[-1], f"toy.py: error: cannot write into {cli.shown(out)}/ "
                         f"({os.strerror(errno.ENOSPC)}); nothing was written")
        self.assertNotIn("Traceback", said.getvalue())
        self.assertEqual(os.listdir(self.folder.name), [])

    @unittest.skipUnless(os.path.isdir("/proc"), "needs /proc")
    def test_every_command_refuses_an_out_under_proc_in_one_line_before_any_work(self):
        for argv in (["sim.py", "--seeds", "1", "--ranges", "0", "--jobs", "1"], ["triage.py"],
                     ["bench.py", "--quick", "--only", "growth"]):
            with self.subTest(command=argv[0]):
                done = subprocess.run([sys.executable, *argv, "--out", "/proc/nope"], cwd=ROOT, capture_output=True,
                                      text=True, timeout=WAIT, stdin=subprocess.DEVNULL)
                self.assertEqual((done.returncode, done.stdout), (cli.EXIT_USAGE, ""))
                self.assertRegex(done.stderr, rf"^{argv[0]}: error: --out: '/proc/nope' cannot be [^\n]*\n$")
        self.assertFalse(os.path.exists("/proc/nope"))

    def test_numbers_that_are_not_finite_are_refused_by_every_command(self):
        cases = [("sim.py", "--zipf-s", "inf"), ("sim.py", "--word-zipf-s", "nan"), ("sim.py", "--topic-share", "nan"),
                 ("triage.py", "--bare-severity-share", "inf"), ("triage.py", "--move-share", "nan"),
                 ("mcp_server.py", "--people-edit-every", "inf")]
        for script, option, value in cases:
            with self.subTest(script=script, option=option, value=value):
                done = subprocess.run([sys.executable, script, "--demo", option, value] if script == "mcp_server.py"
                                      else [sys.executable, script, option, value, "--out", self.folder.name],
                                      cwd=ROOT, capture_output=True, text=True, timeout=WAIT, stdin=subprocess.DEVNULL)
                self.assertEqual(done.returncode, cli.EXIT_USAGE)
                self.assertRegex(done.stderr, rf"^{script}: error: [^\n]*{option}[^\n]*\n$")
        self.assertEqual(files_under(self.folder.name), [])

    def test_the_round_trip_timer_refuses_arguments_that_are_no_object_and_a_tool_the_server_lacks(self):
        for argv, said in ((["--arguments", "[1]"], "is not a JSON object"),
                           (["--arguments", '{"limit": NaN}'], "NaN is not JSON"),
                           (["--tool", "delete_everything", "--count", "1"], "lists no tool 'delete_everything'"),
                           (["--count", "1", "--", "no-such-program-here"], "is not a program on the PATH")):
            with self.subTest(argv=argv):
                done = subprocess.run([sys.executable, "-m", "benchmark.round_trips", *argv], cwd=ROOT,
                                      capture_output=True, text=True, timeout=WAIT)
                self.assertEqual(done.returncode, cli.EXIT_USAGE)
                self.assertEqual(len(done.stderr.splitlines()), 1, done.stderr)
                self.assertIn(said, done.stderr)
                self.assertEqual(done.stdout, "")

    def test_the_round_trip_timer_says_in_one_line_that_the_server_died(self):
        done = subprocess.run([sys.executable, "-m", "benchmark.round_trips", "--count", "1", "--",
                               sys.executable, "-c", "import sys; sys.exit(3)"], cwd=ROOT, capture_output=True,
                              text=True, timeout=WAIT)
        self.assertEqual(done.returncode, cli.EXIT_FAILED)
        self.assertEqual(done.stderr, "benchmark.round_trips: the server exited (status 3) before answering\n")


class NoWriteScopeTest(unittest.TestCase):
    """mcp_server.py --no-write-scope connects without osfoundry:write, as a token without the scope does: both
    edit tools answer forbidden and save nothing, and the startup line says so."""

    def test_both_edit_tools_answer_forbidden_and_the_article_keeps_its_version(self):
        process = subprocess.Popen([sys.executable, "mcp_server.py", "--demo", "--no-write-scope"], cwd=ROOT,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(process.wait, WAIT)
        self.addCleanup(process.stderr.close)
        self.addCleanup(process.stdout.close)

        def call(number, name, arguments):
            process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": number, "method": "tools/call",
                                            "params": {"name": name, "arguments": arguments}}) + "\n")
            process.stdin.flush()
            answer = json.loads(process.stdout.readline())
            self.assertEqual(answer["id"], number)
            return json.loads(answer["result"]["content"][0]["text"])

        article = {"knowledge_base_id": "kb-support", "article_id": "art-00001"}
        version = call(1, "read_knowledge_article", article)["updated_at"]
        edited = call(2, "edit_knowledge_article", dict(article, content="Saved without the scope.",
                                                        expected_version=version, idempotency_key="k1"))
        item = call(3, "edit_record_item", {"record_channel_id": "bugs", "item_id": "itm-00001",
                                            "values": {"status": "triaged"}, "expected_version": 1,
                                            "idempotency_key": "k2"})
        read_again = call(4, "read_knowledge_article", article)
        process.stdin.close()
        said = process.stderr.read()
        self.assertEqual((edited.get("error"), item.get("error")), ("forbidden", "forbidden"), edited)
        self.assertEqual(read_again["updated_at"], version)
        self.assertNotEqual(read_again["content"], "Saved without the scope.")
        self.assertIn("scopes: none (edits answer forbidden)", said)


class VersionTest(unittest.TestCase):
    def test_every_command_answers_version_with_the_project_version(self):
        for argv in COMMANDS:
            with self.subTest(command=argv):
                done = subprocess.run([sys.executable, *argv, "--version"], cwd=ROOT, capture_output=True, text=True,
                                      timeout=WAIT, stdin=subprocess.DEVNULL)
                self.assertEqual((done.returncode, done.stderr), (0, ""))
                self.assertEqual(done.stdout, f"{argv[-1]} {cli.VERSION}\n")

    def test_an_older_python_is_told_which_python_is_needed_in_one_line(self):
        older = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.[678].*/bin/python3")))
        if not older:
            self.skipTest("no Python older than 3.9 on this machine")
        for python in older:
            for argv in (["sim.py", "--version"], ["triage.py"], ["bench.py"], ["mcp_server.py", "--demo"],
                         ["-m", "benchmark.round_trips"]):
                with self.subTest(python=python, command=argv):
                    done = subprocess.run([python, *argv], cwd=ROOT, capture_output=True, text=True, timeout=WAIT,
                                          stdin=subprocess.DEVNULL)
                    self.assertEqual(done.returncode, cli.EXIT_FAILED)
                    self.assertEqual(len(done.stderr.splitlines()), 1, done.stderr)
                    self.assertRegex(done.stderr, r"needs Python 3\.9 or newer; this is Python 3\.[678]\.\d+\n$")


class OptionEdgesTest(unittest.TestCase):
    """Options at their edges, refused in one line before any work: a seed list or ranges too long to hold, a
    fraction where a count is meant, an exponent or a delay past what the day can compute."""

    def refused(self, main, argv):
        with contextlib.redirect_stderr(io.StringIO()) as said, self.assertRaises(SystemExit) as stop:
            main(argv)
        self.assertEqual(stop.exception.code, cli.EXIT_USAGE)
        self.assertEqual(len(said.getvalue().splitlines()), 1, said.getvalue())
        return said.getvalue()

    def test_seeds_past_the_last_are_refused_before_the_list_is_built(self):
        for main in (sim.main, triage.main):
            self.assertIn("'1-10000000000' reaches past seed 1,000,000", self.refused(main, ["--seeds",
                                                                                              "1-10000000000"]))
        self.assertEqual(cli.parse_seeds("999999-1000000"), [999999, 1000000])

    def test_ranges_and_draws_reaching_past_the_last_seed_are_refused(self):
        for main in (sim.main, triage.main):
            for argv in (["--ranges", "99999999999999"], ["--draws", "99999999999999"]):
                self.assertIn("--ranges and --draws reach seed", self.refused(main, argv + ["--jobs", "1"]))

    def test_a_fraction_where_a_count_is_meant_is_called_not_a_whole_number(self):
        self.assertIn("argument --jobs: '1.5' is not a whole number (", self.refused(sim.main, ["--jobs", "1.5"]))
        self.assertIn("'0' is not a whole number of at least 1", self.refused(triage.main, ["--items", "0"]))

    def test_an_exponent_or_a_delay_the_day_cannot_compute_is_refused(self):
        self.assertIn("'1e308' is not a number from 0.0 to 20.0", self.refused(sim.main, ["--zipf-s", "1e308"]))
        self.assertIn("'21' is not a number from 0.0 to 20.0", self.refused(sim.main, ["--word-zipf-s", "21"]))
        self.assertIn("'8761h' is longer than 8760h", self.refused(sim.main, ["--delays", "20s,8761h"]))
        self.assertIn("is longer than", self.refused(sim.main, ["--approval-delays", "99999999999999h"]))


class ReaderGoneTest(unittest.TestCase):
    """A run piped into `head`, or started with stdout and stderr closed, still writes its files."""

    def test_triage_py_whose_readers_left_at_once_writes_its_page(self):
        with tempfile.TemporaryDirectory() as out:
            process = subprocess.Popen([sys.executable, "triage.py", "--seeds", "1", "--ranges", "0", "--timed-runs",
                                        "0", "--jobs", "1", "--out", out], cwd=ROOT, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            process.stdout.close()  # as `| head -0` does, before the first line
            process.stderr.close()
            self.assertEqual(process.wait(timeout=WAIT), cli.EXIT_OK)
            self.assertEqual(files_under(out), ["record_channels.md"])

    def test_a_closed_stream_takes_every_write_and_says_it_is_no_terminal(self):
        for stream in (None, io.StringIO()):
            if stream is not None:
                stream.close()
            gone = cli.ReaderMayLeave(stream)
            self.assertEqual(gone.write("sim.py: 1/2 seed runs\n"), 22)
            gone.flush()
            self.assertFalse(gone.isatty())
        here = cli.ReaderMayLeave(io.StringIO())
        self.assertEqual(here.encoding, None)  # what it does not define is its stream's (io.StringIO's: None)
        self.assertEqual((here.write("x"), here.getvalue()), (1, "x"))


class InterruptTest(unittest.TestCase):
    """Ctrl-C, as a terminal sends it (SIGINT to the whole foreground process group): one line, exit 130, every
    worker stopped, no partial result file."""

    def interrupt(self, argv, ready, out=None, stop=lambda pid: os.killpg(pid, signal.SIGINT),
                  status=cli.EXIT_INTERRUPTED):
        """Start a command in a process group of its own, send the group SIGINT (or what `stop` sends) once stderr
        shows `ready` (None: after a second and a half); fails unless it ends with `status`."""
        process = subprocess.Popen([sys.executable, *argv], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, start_new_session=True)
        seen = []
        while ready is not None:
            line = process.stderr.readline()
            self.assertTrue(line, f"{argv} ended before {ready!r}: {''.join(seen)}")
            seen.append(line)
            if ready in line:
                break
        time.sleep(0.3 if ready is not None else 1.5)  # well inside the work
        stop(process.pid)
        try:
            stdout, rest = process.communicate(timeout=WAIT)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
        self.assertEqual(process.returncode, status, rest)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.group_alive(process.pid):
            time.sleep(0.05)
        self.assertFalse(self.group_alive(process.pid), "a worker outlived the command")
        if out is not None:
            self.assertEqual(files_under(out), [])
        return rest

    @staticmethod
    def group_alive(group):
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return False
        return True

    def assert_one_line(self, said, prog):
        self.assertNotIn("Traceback", said)
        self.assertNotIn("KeyboardInterrupt", said)
        interrupted = [line for line in said.splitlines() if "interrupted" in line]
        self.assertEqual(interrupted, [f"{prog}: interrupted; nothing was written"], said)
        self.assertTrue(said.endswith(interrupted[0] + "\n"), said)

    def test_sim_py_with_its_workers(self):
        with tempfile.TemporaryDirectory() as out:
            said = self.interrupt(["sim.py", "--seeds", "1-5", "--ranges", "4", "--jobs", "2", "--out", out],
                                  "seed runs", out)
        self.assert_one_line(said, "sim.py")

    def test_sigterm_to_sim_py_alone_stops_its_workers_and_writes_nothing(self):
        # `kill PID`, a CI timeout: only the command is told; its workers must not outlive it, nor its folder.
        with tempfile.TemporaryDirectory() as out:
            said = self.interrupt(["sim.py", "--seeds", "1-5", "--ranges", "4", "--jobs", "2", "--out", out],
                                  "seed runs", out, stop=lambda pid: os.kill(pid, signal.SIGTERM),
                                  status=cli.EXIT_TERMINATED)
        self.assert_one_line(said, "sim.py")

    def test_sigterm_to_triage_py_removes_the_folder_made_for_its_run(self):
        with tempfile.TemporaryDirectory() as folder:
            said = self.interrupt(["triage.py", "--seeds", "1-5", "--ranges", "4", "--jobs", "2", "--out",
                                   os.path.join(folder, "new")], "seed runs",
                                  stop=lambda pid: os.kill(pid, signal.SIGTERM), status=cli.EXIT_TERMINATED)
            self.assertEqual(os.listdir(folder), [])
        self.assert_one_line(said, "triage.py")

    def test_triage_py(self):
        with tempfile.TemporaryDirectory() as out:
            said = self.interrupt(["triage.py", "--seeds", "1-5", "--ranges", "4", "--out", out], "seed runs", out)
        self.assert_one_line(said, "triage.py")

    def test_bench_py_with_its_child_processes(self):
        with tempfile.TemporaryDirectory() as out:
            said = self.interrupt(["bench.py", "--quick", "--only", "growth", "--out", out], "growth: building", out)
        self.assert_one_line(said, "bench.py")

    def test_the_round_trip_timer_and_the_server_it_runs(self):
        said = self.interrupt(["-m", "benchmark.round_trips", "--count", "10000000", "--", sys.executable,
                               os.path.join(ROOT, "mcp_server.py"), "--demo"], None)
        self.assert_one_line(said, "benchmark.round_trips")

    def test_the_mcp_server(self):
        said = self.interrupt(["mcp_server.py", "--demo"], "serving")
        self.assertNotIn("Traceback", said)
        self.assertEqual([line for line in said.splitlines() if "interrupted" in line],
                         ["mcp_server.py: interrupted; stopped"])


def children_of(pid):
    """The process IDs of pid's children, as Linux lists them under /proc."""
    found = []
    for children in glob.glob(f"/proc/{pid}/task/*/children"):
        with open(children) as listed:
            found += [int(word) for word in listed.read().split()]
    return found


@unittest.skipUnless(os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children"), "lists children from /proc")
class DeadWorkerTest(unittest.TestCase):
    """A worker process killed in the middle of a seed day (out of memory, a user's kill): the command ends with
    one line naming that seed, exit 1, and nothing written; no worker outlives it."""

    def kill_a_worker(self, argv, out):
        process = subprocess.Popen([sys.executable, *argv, "--out", out], cwd=ROOT, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            line = process.stderr.readline()
            self.assertIn("seed runs", line)
            workers, deadline = [], time.monotonic() + WAIT
            while not workers and time.monotonic() < deadline:
                workers = children_of(process.pid)
                time.sleep(0.02)
            self.assertTrue(workers, "the command started no worker")
            os.kill(workers[0], signal.SIGKILL)
            _, said = process.communicate(timeout=WAIT)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
        self.assertEqual(process.returncode, cli.EXIT_FAILED, said)
        self.assertNotIn("Traceback", said)
        self.assertEqual(files_under(out), [])
        self.assertFalse(InterruptTest.group_alive(process.pid), "a worker outlived the command")
        return said.splitlines()[-1]

    def test_sim_py_names_the_seed_whose_worker_died(self):
        with tempfile.TemporaryDirectory() as out:
            last = self.kill_a_worker(["sim.py", "--seeds", "1-5", "--ranges", "4", "--jobs", "2"], out)
        self.assertRegex(last, r"^sim\.py: error: seed \d+ of the model '[^']+': its worker process died "
                               r"\(killed by SIGKILL\); nothing was written$")

    def test_triage_py_names_the_seed_whose_worker_died(self):
        with tempfile.TemporaryDirectory() as out:
            last = self.kill_a_worker(["triage.py", "--seeds", "1-5", "--ranges", "4", "--jobs", "2"], out)
        self.assertRegex(last, r"^triage\.py: error: seed \d+: its worker process died \(killed by SIGKILL\); "
                               r"nothing was written$")


@unittest.skipUnless(hasattr(signal, "pthread_sigmask"), "needs signal masks")
class DeafChildrenTest(unittest.TestCase):
    """Starting a child deaf to Ctrl-C loses no Ctrl-C of the parent's: one that comes meanwhile arrives after."""

    def run_python(self, code):
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
        return done.stdout.split()

    def test_a_ctrl_c_inside_the_block_arrives_when_it_ends(self):
        code = ("import os, signal\nfrom osfoundry_tools import cli\ntry:\n    with cli.deaf_children():\n"
                "        os.kill(os.getpid(), signal.SIGINT)\n        print('inside')\n    print('after')\n"
                "except KeyboardInterrupt:\n    print('interrupted')\n")
        self.assertEqual(self.run_python(code), ["inside", "interrupted"])

    def test_a_child_started_by_run_deaf_ignores_ctrl_c(self):
        child = "import os, signal; os.kill(os.getpid(), signal.SIGINT); print('alive')"
        code = (f"import sys\nfrom osfoundry_tools import cli\n"
                f"print(cli.run_deaf([sys.executable, '-c', {child!r}]).stdout.strip())\n")
        self.assertEqual(self.run_python(code), ["alive"])


class ProgressTest(unittest.TestCase):
    class Stream(io.StringIO):
        def __init__(self, terminal):
            super().__init__()
            self.terminal = terminal

        def isatty(self):
            return self.terminal

    def test_away_from_a_terminal_progress_is_plain_lines_at_every_tenth_with_the_time_left(self):
        stream, now = self.Stream(terminal=False), [0.0]
        progress = cli.Progress("sim.py", 40, "seed runs", stream, clock=lambda: now[0])
        for done in range(41):
            progress.update(done)
            now[0] += 1.5
        lines = stream.getvalue().splitlines()
        self.assertNotIn("\r", stream.getvalue())
        self.assertEqual(len(lines), 11)
        self.assertEqual(lines[0], "sim.py: 0/40 seed runs")
        self.assertEqual(lines[1], "sim.py: 4/40 seed runs, about 54 s left")
        self.assertEqual(lines[-1], "sim.py: 40/40 seed runs in 60.0 s")

    def test_on_a_terminal_one_line_is_rewritten_in_place(self):
        stream, now = self.Stream(terminal=True), [0.0]
        progress = cli.Progress("triage.py", 3, "seed runs", stream, clock=lambda: now[0])
        for done in range(4):
            progress.update(done)
            now[0] += 60.0
        self.assertEqual(stream.getvalue().count("\n"), 1)
        self.assertTrue(stream.getvalue().endswith("\r\x1b[Ktriage.py: 3/3 seed runs in 180.0 s\n"))
        self.assertIn("\r\x1b[Ktriage.py: 2/3 seed runs, about 1 min 0 s left", stream.getvalue())

    def test_bench_py_estimates_from_the_committed_run_s_section_times_at_this_run_s_pace(self):
        now = [0.0]
        estimate = bench.Estimate(["growth", "tools", "mcp"], {"growth": 60.0, "tools": 10.0, "mcp": 20.0},
                                  clock=lambda: now[0])
        estimate.enter("growth")
        now[0] = 20.0
        self.assertEqual(estimate.left(), (40.0, 30.0))
        self.assertEqual(estimate.said(), " (about 1 min 10 s left, by the committed run's times)")
        now[0] = 120.0  # growth took twice as long as in the committed run: so will the rest, it is assumed
        estimate.enter("tools")
        now[0] = 130.0
        self.assertEqual(estimate.left(), (10.0, 40.0))
        now[0] = 150.0
        self.assertEqual(estimate.left(), (0.0, 40.0))
        self.assertEqual(estimate.said(), " (longer than the committed run took here; then about 40 s of other "
                                          "sections)")
        self.assertIsNone(bench.Estimate(["growth"], {}).left())
        self.assertEqual(bench.Estimate(["growth"], {}).said(), "")


class AllOrNothingFilesTest(unittest.TestCase):
    def test_a_failure_while_writing_leaves_neither_a_page_nor_a_temporary_file(self):
        with tempfile.TemporaryDirectory() as out:
            cli.write_text(os.path.join(out, "a.md"), "before\n")
            real = cli.write_text
            calls = []

            def failing(path, text):
                calls.append(path)
                if len(calls) == 2:
                    raise KeyboardInterrupt
                real(path, text)

            with mock.patch.object(cli, "write_text", failing), self.assertRaises(KeyboardInterrupt):
                cli.write_files(out, {"a.md": "after\n", "b.svg": "<svg/>\n"})
            self.assertEqual(files_under(out), ["a.md"])
            with open(os.path.join(out, "a.md"), encoding="utf-8") as file:
                self.assertEqual(file.read(), "before\n")


if __name__ == "__main__":
    unittest.main()
