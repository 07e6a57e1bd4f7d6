"""One seed of each record-channel experiment (docs/source-figures.md, tables R1-R5) and the R6 timing.

Layer: below rerun.py (which triage.py hands its options to), on record_store.py and
agent.py. People act through the store's plain methods (create_item, edit_item,
delete_item); the agent only through call_tool. Every count is taken from what the tools returned or from the
store's ground truth afterwards, never from what the script meant to happen.

Glossary:
  bug       an item of the bug tracker channel (workload.BUG_TRACKER_FIELDS), created New
  intent    what a person wrote to triage one bug: six words, and the values they mean
  pass      the agent reading a whole channel page by page
  offset    the pagination the article argues against, built here as a counterfactual store
"""

import dataclasses
import datetime
import gc
import json
import random
import sqlite3
import statistics
import time
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Set, Tuple

from osfoundry_tools.stores import record_store
from osfoundry_tools.content import workload
from osfoundry_tools.content.workload import new_bug
from osfoundry_tools.core.tools import Tool, integer, object_schema
from osfoundry_tools.stores.record_fields import DETAILS  # how much a rejection says (R1's rows)
from lab.experiments import bytes_of, compact_bytes
from lab.record_channels.agent import TriageAgent, resolve_date

UTC = datetime.timezone.utc
CHANNEL = workload.BUG_TRACKER
TARGET_FIELDS = ("status", "owner", "severity", "points", "due", "area")
UNTRIAGED = {"status": "new"}  # a New bug's target fields before triage; the others are unset


@dataclasses.dataclass(frozen=True)
class Scenario:
    """Every constant of the experiments; triage.py fills it from the command line."""

    items: int  # New bugs per seed (R1, R2, R5)
    statuses: Tuple[str, ...]  # the status values intents ask for
    bare_severity_share: float  # of severity intents, the share written as a bare word ("major")
    points: Tuple[int, ...]  # intents draw points uniformly from these
    weekday_share: float  # of due intents, the share written as a weekday ("Friday")
    weekday: str
    description: Tuple[int, int]  # characters, uniform
    preview_characters: int
    page_limit: int
    offset_items: int  # R3
    offset_changes: int  # R3: items created, or already-read items deleted, after each page
    changes_items: int  # R4: the channel of the first pass
    changes: Tuple[int, int, int]  # R4: modified, created, deleted
    move_share: float  # R5: share of items a person moves between the agent's read and write
    timed_edits: int  # R6, per run
    timed_runs: int  # R6
    today: datetime.date

    @property
    def now(self) -> datetime.datetime:
        return datetime.datetime.combine(self.today, datetime.time(9, 0), tzinfo=UTC)


def fixed_clock(moment: datetime.datetime) -> Callable[[], datetime.datetime]:
    """A clock that never moves: versions are integers, and age_days must not depend on the machine's speed."""
    return lambda: moment


# ---------------------------------------------------------------------------
# The triage: the words people write to triage a bug (the bugs themselves are workload.new_bug's).

class Intent(NamedTuple):
    """One person's triage of one bug: the words they wrote, and the values those words mean."""

    words: Dict[str, Any]
    meant: Dict[str, Any]  # field key -> the value to store; None where no value may be stored (20 points)


def options_of(key: str) -> List[Dict[str, str]]:
    """The options of one select field of the bug tracker."""
    return workload.tracker_field(key)["options"]


def label_of(key: str, value: str) -> str:
    return next(o["label"] for o in options_of(key) if o["value"] == value)


def listing_limit_max() -> int:
    """The most previews one list_record_items page may hold (the tool's `limit` maximum)."""
    return record_store.LIST_RECORD_ITEMS.input_schema["properties"]["limit"]["maximum"]


def points_max() -> float:
    return workload.tracker_field("points")["max"]


def intent(rng: random.Random, scenario: Scenario) -> Intent:
    """A person's six triage words: labels as people see them, a bare severity word or a weekday at times."""
    status, owner = rng.choice(scenario.statuses), rng.choice([o["value"] for o in options_of("owner")])
    severity, area = rng.choice([o["value"] for o in options_of("severity")]), rng.choice(
        [o["value"] for o in options_of("area")])
    points = rng.choice(scenario.points)
    severity_word = label_of("severity", severity)
    if rng.random() < scenario.bare_severity_share:
        severity_word = severity_word.split()[-1].lower()  # "S2 Major" -> "major"
    if rng.random() < scenario.weekday_share:
        due_word = scenario.weekday
        due = resolve_date(due_word, scenario.today)
    else:
        due = due_word = (scenario.today + datetime.timedelta(days=rng.randint(1, 30))).isoformat()
    words = {"status": label_of("status", status), "owner": label_of("owner", owner), "severity": severity_word,
             "points": points, "due": due_word, "area": label_of("area", area)}
    meant = {"status": status, "owner": owner, "severity": severity, "points": points if points <= points_max()
             else None, "due": due, "area": area}
    return Intent(words, meant)


def bug_store(rng: random.Random, scenario: Scenario, count: int, **options: Any) -> record_store.RecordStore:
    """A fresh in-memory bug tracker with `count` New bugs, created by people."""
    store = open_store(scenario, **options)
    store.create_channel(CHANNEL, "Bug tracker", workload.BUG_TRACKER_FIELDS)
    for number in range(1, count + 1):
        store.create_item(CHANNEL, new_bug(rng, number, scenario.description))
    return store


def open_store(scenario: Scenario, kind: type = record_store.RecordStore, **options: Any) -> record_store.RecordStore:
    """An empty in-memory store of `kind` on the scenario's clock and preview length."""
    settings = dict({"granted": None, "scopes": (record_store.WRITE_SCOPE,), "rejection_detail": "labels"}, **options)
    return kind(record_store.Database(":memory:", record_store.LAYOUT), clock=fixed_clock(scenario.now),
                preview_characters=scenario.preview_characters, **settings)


def copy_of(template: record_store.RecordStore, scenario: Scenario, kind: type = record_store.RecordStore,
            **options: Any) -> record_store.RecordStore:
    """A fresh store of `kind` holding the template's channels and items (sqlite's backup: nothing re-created)."""
    store = open_store(scenario, kind, **options)
    template.database.copy_to(store.database)
    return store


# ---------------------------------------------------------------------------
# R1: does the schema in the page matter? R2: what a page weighs.


def r1_configuration(template: record_store.RecordStore, intents: Sequence[Intent], scenario: Scenario,
                     reads_schema: bool, detail: str) -> Dict[str, Any]:
    """One row of R1: the agent triages every bug of a copy of the template; counts from the store afterwards."""
    with copy_of(template, scenario, rejection_detail=detail) as store:
        agent = TriageAgent(store, CHANNEL, reads_schema=reads_schema, today=scenario.today)
        schema, previews = agent.listing(scenario.page_limit)
        for preview, wish in zip(reversed(previews), intents):  # oldest first: bug 1 gets intent 1
            agent.triage(preview["item_id"], preview["version"], wish.words, schema)
        saved, wrong = 0, 0
        for preview, wish in zip(reversed(previews), intents):
            stored = store.item(CHANNEL, preview["item_id"])["values"]
            for key in TARGET_FIELDS:
                if wish.meant[key] is not None and stored.get(key) == wish.meant[key]:
                    saved += 1
                elif stored.get(key) != UNTRIAGED.get(key):
                    wrong += 1  # a value nobody asked for: a clamped number, a mismatched option
    flagged_keys = {key: sum(1 for _, k in agent.flagged if k == key) for key in TARGET_FIELDS}
    return {"items": len(intents), "saved": saved, "wrong": wrong, "flagged": len(agent.flagged),
            "flagged_by_field": flagged_keys, "edit_calls": agent.calls.get("edit_record_item", 0),
            "first_failed": agent.first_failed, "nothing_left": agent.nothing_left,
            "twenty": sum(1 for wish in intents if wish.meant["points"] is None)}


def without_nulls(page: Dict[str, Any]) -> Dict[str, Any]:
    """A page of previews with every unset (null) value left out: what R2 and R4 weigh the nulls by."""
    return dict(page, items=[dict(item, values={k: v for k, v in item["values"].items() if v is not None})
                             for item in page["items"]])


# The shapes of a tool result the article never shows, which the page's sweeps weigh ours in (measured.sweeps).
EVENT_TIME = "2026-11-09T09:00:00.000000Z"  # a change's time as a knowledge-base version is written, RFC 3339 with µs


def timed_events(result: Dict[str, Any]) -> Dict[str, Any]:
    """A poll's result with each event carrying the time of its change as well (EVENT_TIME)."""
    return dict(result, events=[dict(event, updated_at=EVENT_TIME) for event in result["events"]])


def r2_page(template: record_store.RecordStore, scenario: Scenario) -> Dict[str, Any]:
    """The bytes of the first page of previews, of reading its items in full, and of its schema."""
    page = template.call_tool("list_record_items", {"record_channel_id": CHANNEL, "limit": scenario.page_limit})
    reads = [template.call_tool("read_record_item", {"record_channel_id": CHANNEL, "item_id": item["item_id"]})
             for item in page["items"]]
    plain = json.loads(json.dumps(page["schema"]))
    for field in plain["fields"]:
        for option in field.get("options", ()):
            option.pop("color", None)
    no_colour = bytes_of(plain)
    for field in plain["fields"]:
        for flag in ("is_required", "is_unique"):
            if field[flag] is False:
                del field[flag]
    lengths = [len(r["values"]["description"]) for r in reads]
    lean = dict(without_nulls(page), schema=plain)
    lean_reads = [without_nulls({"items": [read]})["items"][0] for read in reads]  # a read is one item, in full
    return {"pages": 1, "page_bytes": bytes_of(page), "full_bytes": sum(bytes_of(r) for r in reads),
            "full_bytes_no_nulls": sum(bytes_of(r) for r in lean_reads),
            "full_bytes_lean_compact": sum(compact_bytes(r) for r in lean_reads),
            "schema_bytes": bytes_of(page["schema"]), "schema_bytes_no_colour": no_colour,
            "schema_bytes_plain": bytes_of(plain), "page_bytes_no_nulls": bytes_of(without_nulls(page)),
            "page_bytes_lean": bytes_of(lean), "page_bytes_lean_compact": compact_bytes(lean),
            "previews": len(page["items"]), "description_characters": sum(lengths),
            "description_squares": sum(n * n for n in lengths)}


# ---------------------------------------------------------------------------
# R3: offset against before_id, while the channel changes under the pass.

LIST_BY_OFFSET = dataclasses.replace(
    record_store.LIST_RECORD_ITEMS,
    title="List record items (by offset: the counterfactual of table R3)",
    description="List a bounded page of item previews, newest first, skipping the first `offset` live items.",
    input_schema=object_schema({
        "record_channel_id": record_store.LIST_RECORD_ITEMS.input_schema["properties"]["record_channel_id"],
        "offset": integer(0, None, "Live items to skip, newest first."),
        "limit": record_store.LIST_RECORD_ITEMS.input_schema["properties"]["limit"],
    }, ["record_channel_id"]),
    output_schema=object_schema({
        "schema": record_store.CHANNEL_SCHEMA,
        "items": {"type": "array", "items": record_store.ITEM_SCHEMA},
    }, ["schema", "items"]),
)


class OffsetPagedStore(record_store.RecordStore):
    """The record store with list_record_items paged by offset instead of before_id: what R3 argues against."""

    TOOLS: Tuple[Tool, ...] = (LIST_BY_OFFSET,) + record_store.RecordStore.TOOLS[1:]

    def _tool_list_record_items(self, arguments: Dict[str, Any]) -> Dict[str, Any]:
        limit = arguments.get("limit", record_store.PAGE_LIMIT_DEFAULT)
        with self.database.read() as connection:
            channel = self._granted_channel(connection, arguments["record_channel_id"])
            rows = connection.execute(
                "SELECT * FROM items WHERE channel_id = ? AND deleted_at IS NULL ORDER BY number DESC "
                "LIMIT ? OFFSET ?", (channel.id, limit, arguments.get("offset", 0))).fetchall()
            now = self.clock()
        return {"schema": self._schema_seen(channel), "items": [self._shown(channel, row, now, preview=True)
                                                                 for row in rows]}


class UnvalidatedStore(record_store.RecordStore):
    """The record store with validation stubbed out: what R6 weighs it against."""

    def _validate(self, *arguments: Any, **options: Any) -> List[Any]:
        return []


class UnreadSchemaStore(UnvalidatedStore):
    """Validation stubbed and the channel's schema read once, then kept: R6's check of what the schema read costs."""

    def _granted_channel(self, connection: sqlite3.Connection, channel_id: str) -> record_store.Channel:
        kept: Dict[str, record_store.Channel] = self.__dict__.setdefault("_kept_channels", {})
        if channel_id not in kept:
            kept[channel_id] = super()._granted_channel(connection, channel_id)
        return kept[channel_id]


def r3_pass(template: record_store.RecordStore, rng: random.Random, scenario: Scenario, pagination: str,
            change: str) -> Dict[str, int]:
    """One pass over the template's items by offset or before_id; after each page, bugs are created or deleted."""
    kind = OffsetPagedStore if pagination == "offset" else record_store.RecordStore
    with copy_of(template, scenario, kind) as store:
        at_start = set(store.item_ids(CHANNEL))
        deleted: Set[str] = set()
        reads: Dict[str, int] = {}
        pages, position, before_id, number = 0, 0, None, len(at_start)
        while True:
            arguments: Dict[str, Any] = {"record_channel_id": CHANNEL, "limit": scenario.page_limit}
            if pagination == "offset":
                arguments["offset"] = position
            elif before_id is not None:
                arguments["before_id"] = before_id
            page = store.call_tool("list_record_items", arguments)
            pages += 1
            for item in page["items"]:
                reads[item["item_id"]] = reads.get(item["item_id"], 0) + 1
            position += len(page["items"])
            before_id = page.get("next_before_id")
            if (len(page["items"]) < scenario.page_limit) if pagination == "offset" else before_id is None:
                break
            for _ in range(scenario.offset_changes):
                if change == "create":
                    number += 1
                    store.create_item(CHANNEL, new_bug(rng, number, scenario.description))
                else:
                    victim = rng.choice(sorted(set(reads) - deleted))
                    store.delete_item(CHANNEL, victim)
                    deleted.add(victim)
    return {"pages": pages, "reads": sum(reads.values()), "twice": sum(n - 1 for n in reads.values()),
            "never": len(at_start - deleted - set(reads)), "runs": 1}


# ---------------------------------------------------------------------------
# R4: what changed since the last pass. R5: the version check.


def listing_cost(store: record_store.RecordStore, scenario: Scenario) -> Tuple[Dict[str, int], Dict[str, int]]:
    """Every page by before_id: item ID -> version, and the cost (calls, bytes, and the bytes of nulls and schemas)."""
    versions: Dict[str, int] = {}
    cost = {"calls": 0, "bytes": 0, "bytes_no_nulls": 0, "schema_bytes": 0}
    arguments: Dict[str, Any] = {"record_channel_id": CHANNEL, "limit": scenario.page_limit}
    while True:
        page = store.call_tool("list_record_items", arguments)
        cost = {"calls": cost["calls"] + 1, "bytes": cost["bytes"] + bytes_of(page),
                "bytes_no_nulls": cost["bytes_no_nulls"] + bytes_of(without_nulls(page)),
                "schema_bytes": cost["schema_bytes"] + bytes_of(page["schema"])}
        versions.update((item["item_id"], item["version"]) for item in page["items"])
        if page["next_before_id"] is None:
            return versions, cost
        arguments = dict(arguments, before_id=page["next_before_id"])


def polling_cost(store: record_store.RecordStore, after: int) -> Tuple[Set[str], int, Dict[str, Any]]:
    """Poll from `after` until has_more is false: item IDs named, the new cursor, and the cost (calls, bytes,
    events, and how many events held each key)."""
    named: Set[str] = set()
    cost: Dict[str, Any] = {"calls": 0, "bytes": 0, "events": 0, "event_keys": {}, "bytes_compact": 0,
                            "bytes_timed": 0, "bytes_timed_compact": 0}
    while True:
        result = store.call_tool("poll_resource_events", {"resource_type": "record", "resource_id": CHANNEL,
                                                          "after_sequence": after})
        cost["calls"], cost["bytes"] = cost["calls"] + 1, cost["bytes"] + bytes_of(result)
        cost["bytes_compact"] += compact_bytes(result)
        cost["bytes_timed"] += bytes_of(timed_events(result))
        cost["bytes_timed_compact"] += compact_bytes(timed_events(result))
        for event in result["events"]:
            named.add(event["item_id"])
            cost["events"] += 1
            for key in event:
                cost["event_keys"][key] = cost["event_keys"].get(key, 0) + 1
        after = result["last_sequence"]
        if not result["has_more"]:
            return named, after, cost


def r4_changes(rng: random.Random, scenario: Scenario) -> Dict[str, Any]:
    """A pass, then people modify, create and delete; re-listing and one poll must each find exactly those."""
    modified, created, deleted = scenario.changes
    with bug_store(rng, scenario, scenario.changes_items) as store:
        before, _ = listing_cost(store, scenario)
        _, cursor, _ = polling_cost(store, 0)
        ids = sorted(before)
        touched = rng.sample(ids, modified + deleted)
        for item_id in touched[:modified]:
            store.edit_item(CHANNEL, item_id, {"status": "triaged"})
        for item_id in touched[modified:]:
            store.delete_item(CHANNEL, item_id)
        new = [store.create_item(CHANNEL, new_bug(rng, len(ids) + n, scenario.description))["item_id"]
               for n in range(1, created + 1)]
        truth = set(touched) | set(new)
        after, relist = listing_cost(store, scenario)
        relisted = {i for i in set(before) | set(after) if before.get(i) != after.get(i)}
        polled, _, poll = polling_cost(store, cursor)
    for name, found in (("re-listing", relisted), ("polling", polled)):
        if found != truth:
            raise AssertionError(f"R4: {name} found {len(found & truth)} of the {len(truth)} changes "
                                 f"and {len(found - truth)} that did not happen")
    return {"runs": 1, "changes": len(truth), "relist": dict(relist, found=len(relisted & truth), previews=len(after)),
            "poll": dict(poll, found=len(polled & truth))}


def r5_version_check(template: record_store.RecordStore, rng: random.Random, scenario: Scenario) -> Dict[str, Any]:
    """Each bug: the agent reads, a person moves 1 in 8 of them, the agent writes; two ways to get the version."""
    owners = [o["value"] for o in options_of("owner")]
    severities = [o["value"] for o in options_of("severity")]
    ids = template.item_ids(CHANNEL)
    plans = [{"status": "triaged", "owner": rng.choice(owners), "severity": rng.choice(severities)} for _ in ids]
    moves = [{"status": "in_progress", "owner": rng.choice(owners)} if rng.random() < scenario.move_share else None
             for _ in ids]
    result: Dict[str, Any] = {"edits": len(ids), "moved": sum(1 for m in moves if m)}
    for strategy in ("from_read", "reread"):
        with copy_of(template, scenario) as store:
            conflicts = 0
            for number, (item_id, plan, move) in enumerate(zip(ids, plans, moves)):
                conflicts += r5_edit(store, item_id, plan, move, strategy, f"{strategy}-{number}")
            overwritten = sum(1 for item_id, move in zip(ids, moves) if move and any(
                store.item(CHANNEL, item_id)["values"].get(k) != v for k, v in move.items()))
        result[strategy] = {"conflicts": conflicts, "overwritten": overwritten}
    return result


def r5_edit(store: record_store.RecordStore, item_id: str, plan: Dict[str, Any], move: Optional[Dict[str, Any]],
            strategy: str, key: str) -> int:
    """One triage edit; returns 1 if it met a version conflict (then re-reads and adds only what is missing)."""
    def read() -> Dict[str, Any]:
        return store.call_tool("read_record_item", {"record_channel_id": CHANNEL, "item_id": item_id})

    def edit(values: Dict[str, Any], version: int, suffix: str) -> Dict[str, Any]:
        return store.call_tool("edit_record_item", {"record_channel_id": CHANNEL, "item_id": item_id,
                                                    "values": values, "expected_version": version,
                                                    "idempotency_key": key + suffix})

    version = read()["version"]
    if move:
        store.edit_item(CHANNEL, item_id, move)
    if strategy == "reread":
        version = read()["version"]
    result = edit(plan, version, "")
    if result.get("error") != "version_conflict":
        if "error" in result:
            raise AssertionError(f"R5: unexpected rejection {result}")
        return 0
    fresh = read()
    missing = {k: v for k, v in plan.items() if fresh["values"].get(k) == UNTRIAGED.get(k)}
    if missing and "error" in edit(missing, fresh["version"], "-retry"):
        raise AssertionError(f"R5: the retry of {item_id} was refused")
    return 1


# ---------------------------------------------------------------------------
# One seed, and the R6 timing.


def run_seed(seed: int, scenario: Scenario, *, with_r3: bool = True) -> Dict[str, Any]:
    """Tables R1-R5 for one seed; each table draws from its own random stream, so one change moves no other.

    R3's counts do not depend on the seed, so range groups leave it out (with_r3=False).
    """
    stream = lambda name: random.Random(f"{seed}:{name}")  # noqa: E731
    template = bug_store(stream("bugs"), scenario, scenario.items)
    intents_rng = stream("intents")
    intents = [intent(intents_rng, scenario) for _ in range(scenario.items)]
    r1 = {f"{'yes' if schema else 'no'}.{detail}": r1_configuration(template, intents, scenario, schema, detail)
          for schema in (False, True) for detail in DETAILS}
    result = {"R1": r1, "R2": r2_page(template, scenario), "R4": r4_changes(stream("r4"), scenario),
              "R5": r5_version_check(template, stream("r5"), scenario)}
    if with_r3:
        r3_template = bug_store(stream("r3 bugs"), scenario, scenario.offset_items)
        result["R3"] = {f"{change}.{pagination}": r3_pass(r3_template, stream(f"r3 {change}"), scenario,
                                                          pagination, change)
                        for change in ("create", "delete") for pagination in ("offset", "before_id")}
    return result


def r6_timing(scenario: Scenario, seed: int = 1) -> Dict[str, List[float]]:
    """Median microseconds per valid six-field edit, per run: with validation, with it stubbed out, and with
    the schema read stubbed out too.

    Runs alternate between the three stores on copies of one channel, so all see the same machine load.
    """
    rng = random.Random(f"{seed}:r6")
    template = bug_store(rng, scenario, scenario.items)
    ids = template.item_ids(CHANNEL)
    edits = []
    for n in range(scenario.timed_edits):
        wish = intent(rng, scenario).meant
        wish["points"] = wish["points"] if wish["points"] is not None else 13
        edits.append((ids[n % len(ids)], wish))
    medians: Dict[str, List[float]] = {"validated": [], "stubbed": [], "unread": []}
    for _ in range(scenario.timed_runs):
        for variant, kind in (("validated", record_store.RecordStore), ("stubbed", UnvalidatedStore),
                              ("unread", UnreadSchemaStore)):
            with copy_of(template, scenario, kind) as store:
                medians[variant].append(timed_edits(store, edits))
    return medians


def timed_edits(store: record_store.RecordStore, edits: Sequence[Tuple[str, Dict[str, Any]]]) -> float:
    """The median wall time of one edit_record_item call, in microseconds; every edit must succeed."""
    versions: Dict[str, int] = {}
    samples = []
    gc.collect()
    for number, (item_id, values) in enumerate(edits):
        arguments = {"record_channel_id": CHANNEL, "item_id": item_id, "values": values,
                     "expected_version": versions.get(item_id, 1), "idempotency_key": f"r6-{number}"}
        started = time.perf_counter()
        result = store.call_tool("edit_record_item", arguments)
        samples.append(time.perf_counter() - started)
        if "error" in result:
            raise AssertionError(f"R6: a valid edit was refused: {result}")
        versions[item_id] = result["version"]
    return statistics.median(samples) * 1e6
