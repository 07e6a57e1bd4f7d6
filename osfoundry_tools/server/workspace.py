"""What one server process serves: the stores the command line describes, their readers, the demo's colleague, and
the startup line that says so.

Layer: server; the one module of it that opens stores and content.
"""

import argparse
import dataclasses
import random
import threading
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from osfoundry_tools.content import demo, own_content
from osfoundry_tools.core import agent_tools, rejections
from osfoundry_tools.core.clock import wall_clock
from osfoundry_tools.engines import database
from osfoundry_tools.server import resources
from osfoundry_tools.server.methods import APPROVAL_INSTRUCTIONS, INSTRUCTIONS
from osfoundry_tools.server.routing import Readers, Tools, by_resource_type, open_readers
from osfoundry_tools.stores import kb_store, kb_vectors, record_store

# ---------------------------------------------------------------------------
# The workspace: the stores the command line describes, and the colleague.

SERVED = (kb_store.KnowledgeBaseStore, record_store.RecordStore)  # the stores the command serves, in listing order


@dataclasses.dataclass
class Workspace:
    """What one server process serves."""

    stores: Dict[str, agent_tools.AgentTools]  # resource_type -> its store, as by_resource_type keys them
    lock: threading.Lock  # held by every call that may write (an edit, a change of the colleague's)
    colleague: Optional[demo.Colleague]
    description: str  # for the startup line
    instructions: str
    readers: Dict[str, Readers] = dataclasses.field(default_factory=dict)  # resource_type -> its store's readers

    def tools(self) -> Tools:
        return Tools(self.stores, self.lock, self.readers)

    def close(self, wait: float = database.BUSY_TIMEOUT_SECONDS) -> None:
        """Stop the colleague, then close every connection, each once the calls under way on it are answered
        (`wait` seconds at most for each kind): the readers, then the stores' own. A connection closed under a
        call still running on it may take the process down with it."""
        if self.colleague is not None:
            self.colleague.stop()
        for readers in self.readers.values():
            readers.close(wait)
        edits_done = self.lock.acquire(timeout=wait)
        try:
            for store in self.stores.values():
                store.close()
        finally:
            if edits_done:
                self.lock.release()


def open_workspace(options: argparse.Namespace, clock: Callable[[], Any] = wall_clock,
                   fill: bool = True) -> Workspace:
    """Open both stores as the options say; with --demo, write the demo's knowledge base and bug tracker into each
    database that does not hold them yet; write each --kb-from-dir and --channel-from source whose ID the database
    does not hold yet. With fill=False (a worker of --workers, whose parent filled the databases) only open: no
    source is read again and nothing is written.

    The sources are read and checked before any database is opened: own_content.ContentError leaves every
    file as it was. Serving HTTP, where requests are answered at once, each store of a file or a PostgreSQL
    database also opens its connections for reads (open_readers; over stdio, answered one at a time, reads would
    gain nothing by them); one that cannot be opened fails the start with database.UnusableFile, in one line."""
    content = (own_content.read_content(options.kb_from_dir, options.channel_from) if fill
               else own_content.Content())
    kb_path, records_path = options.kb_db or ":memory:", options.records_db or ":memory:"
    kb_shown, records_shown = database.shown_location(kb_path), database.shown_location(records_path)  # no password
    read_only = True if options.read_only else None  # None: read-only where the process may not write
    kb = kb_store.connect(kb_path, granted=options.grant_kb, clock=clock, caller=options.caller,
                          durability=options.durability, read_only=read_only, scopes=options.scopes)
    try:
        if getattr(options, "reranker", None):  # --rerank: each search's best matches re-ordered, vectors kept
            kb.reranker = kb_vectors.attach(kb, options.reranker, fill)
        records = record_store.connect(records_path, granted=options.grant_channel, scopes=options.scopes,
                                       rejection_detail=options.rejection_detail, clock=clock,
                                       caller=options.caller, durability=options.durability, read_only=read_only)
    except BaseException:
        kb.close()
        raise
    lock, colleague, plan, kept = threading.Lock(), None, None, []
    try:
        if options.demo:
            plan = demo.draw_plan(options.seed)
            kept = write_demo(plan, kb, records, kb_shown, records_shown) if fill else []
            if options.people_edit_every:
                colleague = demo.Colleague(kb, records, plan, random.Random(options.seed), lock,
                                               options.people_edit_every)
        kept_content = own_content.write_content(content, kb, records)
        stores = by_resource_type([kb, records])
        nothing = fill and holds_nothing(stores)  # a worker (fill=False) prints no startup line
        over_http = getattr(options, "http", None) is not None
        readers = open_readers(stores) if over_http else {}
    except BaseException:
        kb.close()
        records.close()
        raise
    loaded = describe_content(content, kept_content, kb_shown, records_shown)
    description = describe(options, kb_shown, records_shown, plan, kept, loaded, nothing)
    if over_http:
        description += describe_readers(stores, readers)
    return Workspace(stores, lock, colleague, description, instructions_for(options), readers)


def describe_readers(stores: Mapping[str, agent_tools.AgentTools], readers: Mapping[str, Readers]) -> str:
    """The startup line's account of where reads run, serving HTTP."""
    shared = [f"{kind} {len(readers[kind].readers)}" for kind in stores if kind in readers]
    alone = [kind for kind in stores if kind not in readers]
    parts = [f"connections for reads beside each store's own: {', '.join(shared)}"] if shared else []
    parts += [f"reads under the workspace lock (in memory): {', '.join(alone)}"] if alone else []
    return "".join("; " + part for part in parts)


def holds_nothing(stores: Mapping[str, agent_tools.AgentTools]) -> bool:
    """Whether the stores hold no knowledge base and no channel at all, so that every tool call would answer
    not_found (one read of each store)."""
    for kind in resources.KINDS:
        with stores[kind.resource_type].database.read() as connection:
            if connection.execute(kind.logs).fetchone() is not None:
                return False
    return True


def write_demo(plan: demo.Plan, kb: kb_store.KnowledgeBaseStore, records: record_store.RecordStore,
               kb_path: str, records_path: str) -> List[str]:
    """The demo's knowledge base and bug tracker, each written (in one transaction) where its database does not
    hold it yet; returns the paths of the databases that held it, served as found."""
    kept = []
    for holds, write, path in ((lambda: kb.has_knowledge_base(demo.KNOWLEDGE_BASE),
                                lambda: demo.write_knowledge_base(kb, plan), kb_path),
                               (lambda: records.has_channel(demo.CHANNEL),
                                lambda: demo.write_bug_tracker(records, plan), records_path)):
        try:
            if not holds():
                write()
                continue
        except rejections.IdTaken:  # another server, sharing the database, wrote it in between
            pass
        kept.append(path)
    return kept


NOTHING = ("nothing served yet: the databases hold no knowledge base and no channel, so every call answers "
           "not_found (start once with --demo, or give --kb-from-dir or --channel-from, to write some there)")


def describe(options: argparse.Namespace, kb_path: str, records_path: str, plan: Optional[demo.Plan],
             kept: Sequence[str], loaded: Sequence[str] = (), nothing: bool = False) -> str:
    """The startup line's account of what is served; `kept`: database files that already held something;
    `loaded`: what describe_content says of the --kb-from-dir and --channel-from sources; `nothing`: whether the
    stores hold nothing at all (holds_nothing), which the line then says first."""
    parts = [NOTHING] if nothing else []
    parts += [f"knowledge bases in {kb_path}", f"record channels in {records_path}"]
    if plan is not None:
        served = f"demo (seed {options.seed}): {demo.describe(plan)}"
        parts.append(served + (f", written only where new: {', '.join(kept)} served as found" if kept else ""))
    parts.extend(loaded)
    if getattr(options, "tokens", None) is not None:
        parts.append(f"callers, grants and scopes from the token file: {options.tokens.described()}")
    else:
        parts.append("granted knowledge bases: " + (", ".join(options.grant_kb) if options.grant_kb else "all"))
        parts.append("granted record channels: " + (", ".join(options.grant_channel) if options.grant_channel
                                                    else "all"))
        parts.append("scopes: " + (", ".join(options.scopes) or "none (edits answer forbidden)"))
        parts.append(f"caller: {options.caller}")
    if getattr(options, "approve_writes", False):
        parts.append(f"writes: each put to a person for approval (answer within {options.approval_timeout:g} s)")
    parts.append(f"durability: {options.durability}")
    parts.append(f"rejection detail: {options.rejection_detail}")
    if options.people_edit_every:
        parts.append(f"people save an article and move an item every {options.people_edit_every:g} s")
    return "; ".join(parts)


def describe_content(content: own_content.Content, kept: Sequence[own_content.Source], kb_path: str,
                     records_path: str) -> List[str]:
    """Each source as loaded, or as found already in its database file (written only where new)."""
    parts = []
    for source in content.sources():
        path = kb_path if isinstance(source, own_content.KnowledgeBase) else records_path
        if any(source is found for found in kept):
            parts.append(f"{source.label()} already in {path}, served as found, not loaded from {source.source} "
                         f"(to load the files again, remove {path} or serve from memory)")
        else:
            parts.append(source.summary())
    return parts


def instructions_for(options: argparse.Namespace) -> str:
    """INSTRUCTIONS, plus the IDs an agent may use where the server knows them (no tool lists them)."""
    kbs = options.grant_kb or ([demo.KNOWLEDGE_BASE] if options.demo else []) + [
        own_content.knowledge_base_id(folder) for folder in options.kb_from_dir]
    channels = options.grant_channel or ([demo.CHANNEL] if options.demo else []) + [
        own_content.channel_id(rows) for rows, _ in options.channel_from]
    known = [f"knowledge base IDs: {', '.join(kbs)}"] if kbs else []
    known += [f"record channel IDs: {', '.join(channels)}"] if channels else []
    held = APPROVAL_INSTRUCTIONS if getattr(options, "approve_writes", False) else ""
    return INSTRUCTIONS + held + (f" Served here: {'; '.join(known)}." if known else "")
