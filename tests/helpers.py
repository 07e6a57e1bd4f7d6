"""Fixtures the tests share: a clock moved by hand, a small support knowledge base, a database snapshot, and the
demo served over HTTP by a real server that a test stops."""

import contextlib
import datetime
import importlib.util
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from lab.experiments import VARYING_MARKS  # noqa: E402  (needs ROOT on the path)
from osfoundry_tools.engines import database  # noqa: E402
from osfoundry_tools.server.options import parse_options  # noqa: E402
from osfoundry_tools.stores import kb_store, record_store  # noqa: E402
from tests import postgres_helpers  # noqa: E402

UTC = datetime.timezone.utc
KB = "kb-support"
OTHER_KB = "kb-billing"

ARTICLES = [  # (title, content): the published articles of KB, in creation order
    ("Reset a password", "Open Settings, then Security, and choose Reset password. A link arrives by email."),
    ("Export invoices", "Invoices can be exported as PDF from the Billing page, one month at a time."),
    ("Invite a teammate", "Admins invite teammates from the Members page; the invitation lasts seven days."),
]


class ManualClock:
    """A clock that stands still until a test moves it."""

    def __init__(self, start: datetime.datetime = datetime.datetime(2026, 11, 9, 9, 0, tzinfo=UTC)) -> None:
        self.now = start

    def __call__(self) -> datetime.datetime:
        return self.now

    def advance(self, seconds: float = 1.0) -> None:
        self.now += datetime.timedelta(seconds=seconds)


def support_store(path: Optional[str] = None,
                  **options: Any) -> Tuple[kb_store.KnowledgeBaseStore, ManualClock, List[str]]:
    """A store with KB (three published articles, one draft, one unpublished) and OTHER_KB (one article), at `path`
    (None: in memory, or on the test PostgreSQL database where make postgres runs the tests).

    Returns the store, its clock and the IDs of KB's published articles.
    """
    clock = options.pop("clock", None) or ManualClock()
    store = kb_store.connect(path or postgres_helpers.default_location(), clock=clock, **options)
    store.create_knowledge_base(KB, "Support")
    store.create_knowledge_base(OTHER_KB, "Billing")
    ids = []
    for title, content in ARTICLES:
        clock.advance()
        ids.append(store.create_article(KB, title, content)["article_id"])
    store.create_article(KB, "Password policy draft", "Passwords will need twelve characters.",
                         published=False, article_id="draft-1")
    store.create_article(KB, "Old password page", "Passwords were reset by phone.", article_id="gone-1")
    store.unpublish_article(KB, "gone-1")
    store.create_article(OTHER_KB, "Refunds", "Refunds take five days.", article_id="refund-1")
    clock.advance()
    return store, clock, ids


def snapshot(store: Any) -> Dict[str, List[Tuple[Any, ...]]]:
    """Every row of every table, the search index included: compare two to prove nothing was written."""
    if database.is_postgres(store.database.path):
        return postgres_helpers.snapshot(store)
    connection = store.database.connection
    tables = [row[0] for row in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    return {table: sorted((tuple(row) for row in connection.execute(f'SELECT * FROM "{table}"')), key=repr)
            for table in tables}


def dump(store: Any) -> Any:
    """Everything a store's database holds, schema and rows: sqlite's iterdump, or the snapshot on PostgreSQL."""
    if database.is_postgres(store.database.path):
        return postgres_helpers.snapshot(store)
    return list(store.database.connection.iterdump())


def poll_events(store: Any, resource_type: str, resource_id: str, after: int = 0) -> List[Dict[str, Any]]:
    """Every event of one resource after `after`, following has_more, as an agent would poll."""
    events = []
    while True:
        page = store.call_tool("poll_resource_events", {"resource_type": resource_type, "resource_id": resource_id,
                                                        "after_sequence": after})
        assert "error" not in page, page
        events += page["events"]
        after = page["last_sequence"]
        if not page["has_more"]:
            return events


def poll_all(store: kb_store.KnowledgeBaseStore, kb: str = KB, after: int = 0) -> List[Dict[str, Any]]:
    """Every event of a knowledge base after `after`."""
    return poll_events(store, "knowledge_base", kb, after)


def read(store: kb_store.KnowledgeBaseStore, article_id: str, kb: str = KB) -> Dict[str, Any]:
    """read_knowledge_article as an agent calls it."""
    return store.call_tool("read_knowledge_article", {"knowledge_base_id": kb, "article_id": article_id})


def edit(store: kb_store.KnowledgeBaseStore, article_id: str, version: str, key: str, content: str = "New text.",
         kb: str = KB, **more: Any) -> Dict[str, Any]:
    """edit_knowledge_article as an agent calls it."""
    return store.call_tool("edit_knowledge_article", dict(
        knowledge_base_id=kb, article_id=article_id, content=content, expected_version=version,
        idempotency_key=key, **more))


def as_json(result: Dict[str, Any]) -> str:
    """A result as an MCP client receives it; raises if it is not strict JSON."""
    return json.dumps(result, allow_nan=False)


SDK_PYTHON = (3, 10)  # the oldest Python the official MCP SDK (mcp 2.3.0) installs on


def sdk_missing(error: ImportError) -> str:
    """Why the tests of the official MCP SDK are skipped here, given the ImportError of their imports: one line,
    the same whichever module's import failed first (the SDK's own or one it brings, such as httpx2), naming the
    cause and what runs them."""
    if sys.version_info < SDK_PYTHON:
        return (f"the official MCP SDK needs Python {SDK_PYTHON[0]}.{SDK_PYTHON[1]} or newer, and this is "
                f"{sys.version.split()[0]}: make conformance runs these tests in .venv, made with a newer one")
    if importlib.util.find_spec("mcp") is None:
        return "the official MCP SDK is not installed here: make conformance installs it into .venv and runs them"
    return f"the official MCP SDK cannot be imported ({error}); make conformance installs it into .venv"


def store_definitions() -> Dict[str, Dict[str, Any]]:
    """The seven tool definitions by name, from the stores themselves (poll_resource_events once)."""
    with kb_store.connect() as kb, record_store.connect() as records:
        return {d["name"]: d for d in kb.list_tools() + records.list_tools()}


RESULTS_CHECK = bool(os.environ.get("RESULTS_CHECK"))  # make results-check: rerun sim.py and triage.py in full
fresh_default_run = unittest.skipUnless(  # for the tests that compare results/ with a fresh default run
    RESULTS_CHECK, "a fresh default run of sim.py or triage.py takes minutes: make results-check (CI runs it)")


def without_timing(path: str) -> List[str]:
    """A results file's lines, less those that report a wall time or what made the page (the only lines two runs
    of the same settings may differ in)."""
    with open(path, encoding="utf-8") as file:
        return [line for line in file.read().splitlines() if not any(mark in line for mark in VARYING_MARKS)]


def server_options_refused(argv: Sequence[str]) -> Tuple[Any, str]:
    """The exit status and stderr of mcp_server's option parser refusing `argv`; AssertionError if it accepts."""
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        try:
            parse_options(list(argv))
        except SystemExit as exit:
            return exit.code, stderr.getvalue()
    raise AssertionError(f"mcp_server accepted {list(argv)}")


def assert_server_refuses(test: Any, cases: Dict[Tuple[str, ...], str]) -> None:
    """Each argv of `cases` refused by mcp_server's option parser with exit status 2 and one line holding its
    reason."""
    for argv, reason in cases.items():
        with test.subTest(argv=argv):
            code, stderr = server_options_refused(argv)
            test.assertEqual(code, 2)
            test.assertEqual(stderr.count("\n"), 1, stderr)
            test.assertIn(reason, stderr)


def listed_strength(cell: str) -> str:
    """The strength a cell of 'Each published figure once' names first: 'check', 'fixed by the inputs', 'firm', ...
    (what follows it, a reason, the strengths per draw or a shared cause, left off)."""
    return cell.split(":")[0].split(";")[0].split(" (")[0]


def recounted(numbers: Sequence[str], cells: Sequence[str]) -> Dict[str, int]:
    """The tally a page's per-figure strengths add up to: each figure once, the measured figures that name one
    cause with others ('; one cause with 27: ...') as one piece, the weakest of theirs."""
    from lab import evidence  # noqa: E402  (the lab is imported only by the tests that read its pages)
    pieces: Dict[str, str] = {}
    for number, cell in zip(numbers, cells):
        strength = listed_strength(cell)
        shared = cell.split("; one cause with ")[1].split(":")[0].split(", ") if "; one cause with " in cell else []
        piece = min([number, *shared], key=int)
        known = pieces.get(piece)
        pieces[piece] = strength if known is None else min((known, strength), key=evidence.WEAKEST_FIRST.index)
    counts = dict.fromkeys(evidence.STRENGTHS, 0)
    for strength in pieces.values():
        counts[strength] += 1
    counts["measured figures"] = sum(1 for cell in cells if listed_strength(cell) in evidence.MEASURED)
    counts["independent figures"] = len(cells)
    return counts


def headline_count(cell: str) -> int:
    """A tally cell's count over every draw: '9 (11; 9–12)' -> 9."""
    return int(cell.split()[0])


ctrl_c_heard = unittest.skipIf(  # for the tests that Ctrl-C a server they start, which inherits this process's
    signal.getsignal(signal.SIGINT) is signal.SIG_IGN,  # disposition
    "Ctrl-C is ignored in this process (started in the background, say), and so in the servers it starts")
WAIT_SECONDS = 20.0  # the bound of each wait on a server that serves or stops: it ends a wait that failed


def until(condition: Callable[[], bool], seconds: float = WAIT_SECONDS, every: float = 0.01) -> bool:
    """Whether `condition()` holds within `seconds`, asked every `every` seconds."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(every)
    return True


def database_files(folder: str) -> Tuple[str, str]:
    """(--kb-db, --records-db): two files of `folder`."""
    return os.path.join(folder, "kb.db"), os.path.join(folder, "records.db")


def demo_over_http(test: unittest.TestCase, *extra: str,
                   databases: Callable[[str], Tuple[str, str]] = database_files) -> Any:
    """mcp_server.py --http serving the demo (with `extra` options) from the databases `databases` names in a
    temporary folder, returned once its startup line names its port (test_mcp_server_http.HttpServer). When the
    test ends, a server still running is stopped (SIGTERM; SIGKILL if it has not ended within WAIT_SECONDS), its
    log closed and the folder removed."""
    from tests.test_mcp_server_http import HttpServer  # here: that module imports this one
    folder = tempfile.TemporaryDirectory()
    test.addCleanup(folder.cleanup)
    kb_db, records_db = databases(folder.name)
    server = HttpServer("--demo", "--kb-db", kb_db, "--records-db", records_db, *extra)
    test.addCleanup(server.log.close)
    test.addCleanup(end, server.process)
    return server


def end(process: "subprocess.Popen[Any]") -> None:
    """Stop `process` if it still runs: SIGTERM, then SIGKILL once WAIT_SECONDS have passed."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(WAIT_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(WAIT_SECONDS)
