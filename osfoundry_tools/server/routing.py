"""The tools of whatever stores a server is given: listed once, each call routed to its store by name and by
resource_type, a token's grant applied, reads run on readers of their own beside the writes.

Layer: server, below its methods; a client of the stores.
"""

import collections
import threading
import time
from typing import Any, Deque, Dict, Iterable, List, Mapping, Optional

from osfoundry_tools.core import agent_tools, checks, events, rejections
from osfoundry_tools.engines import database
from osfoundry_tools.server import tokens
from osfoundry_tools.stores import resource_events

POLL = resource_events.POLL_RESOURCE_EVENTS.name


# ---------------------------------------------------------------------------
# The tools: every store's definitions listed once, each call routed to the store that serves it.


def by_resource_type(stores: Iterable[agent_tools.AgentTools]) -> Dict[str, agent_tools.AgentTools]:
    """The stores keyed by the RESOURCE_TYPE each declares, in the order given; ValueError for two of one type."""
    keyed: Dict[str, agent_tools.AgentTools] = {}
    for store in stores:
        kind = store.RESOURCE_TYPE
        if kind is None or kind in keyed:
            raise ValueError(f"{type(store).__name__} needs a resource_type of its own, not {kind!r}")
        keyed[kind] = store
    return keyed


class Turn:
    """One read waiting for a reader: its lock is held until Readers.give_back hands it one (None: the readers
    closed)."""

    __slots__ = ("handed", "reader")

    def __init__(self) -> None:
        self.handed = threading.Lock()
        self.handed.acquire()
        self.reader: Optional[agent_tools.AgentTools] = None

    def hand(self, reader: Optional[agent_tools.AgentTools]) -> None:
        self.reader = reader
        self.handed.release()


def stopping() -> rejections.StorageError:
    """The answer to a read that comes as the readers close."""
    return rejections.StorageError("the server is stopping; nothing was read. Send the same call to a server that is "
                                 "running.")


class Readers:
    """A store's connections for reads (database.Database.reader), each serving one read at a time: a read takes an
    idle one for the length of its call and gives it back. When all are busy, reads wait their turn, first come
    first served: a reader given back goes straight to the read that has waited longest (with a plain queue, a
    thread giving one back and taking one again would take it before any waiting thread woke, for ever)."""

    def __init__(self, store: agent_tools.AgentTools, count: int) -> None:
        """`count` readers of the store's database, opened now; UnusableFile in one line if one cannot be (those
        opened are closed again)."""
        self.readers: List[agent_tools.AgentTools] = []
        self.idle: List[agent_tools.AgentTools] = []
        self.waiting: Deque[Turn] = collections.deque()
        self.guard = threading.Lock()  # held only to look at idle and waiting
        self.closed = False
        try:
            for _ in range(count):
                self.readers.append(store.on(store.database.reader()))
                self.idle.append(self.readers[-1])
        except database.UnusableFile as error:
            self.close()
            shown = database.shown_location(store.database.path)
            raise database.UnusableFile(f"{shown}: a connection for reads (of {count}) cannot be opened beside the "
                                        f"store's own ({error}); raise the limit it met (open files, or "
                                        "PostgreSQL's max_connections) or run fewer server processes") from error
        except BaseException:
            self.close()
            raise

    def take(self) -> agent_tools.AgentTools:
        """An idle reader, at once or in turn; StorageError once the readers are closed (the server is stopping)."""
        with self.guard:
            if self.closed:
                raise stopping()
            if self.idle:
                return self.idle.pop()
            turn = Turn()
            self.waiting.append(turn)
        turn.handed.acquire()
        if turn.reader is None:
            raise stopping()
        return turn.reader

    def give_back(self, reader: agent_tools.AgentTools) -> None:
        """A reader done with its read: to the read that has waited longest, else idle."""
        with self.guard:
            if self.waiting:
                self.waiting.popleft().hand(reader)
            else:
                self.idle.append(reader)

    def close(self, wait: float = database.BUSY_TIMEOUT_SECONDS) -> None:
        """Close every reader once the reads under way have given theirs back (`wait` seconds at most); the reads
        waiting, and any later one, answer StorageError."""
        with self.guard:
            if self.closed:
                return
            self.closed = True
            for turn in self.waiting:
                turn.hand(None)
            busy = [Turn() for _ in range(len(self.readers) - len(self.idle))]  # each served as a read given back
            self.waiting = collections.deque(busy)
        deadline = time.monotonic() + wait
        for turn in busy:
            turn.handed.acquire(timeout=max(0.0, deadline - time.monotonic()))
        for reader in self.readers:
            reader.close()


class Tools:
    """The stores' tools as one list; poll_resource_events goes to the store of its resource_type.

    Each tool's definition decides where its calls run: one whose annotations say readOnlyHint true, on one of
    its store's readers, beside every other call; any other (an edit), on the store's own connection under the
    workspace lock, one at a time. A store without readers (one in memory, which no second connection can
    open) serves its reads under the lock too."""

    def __init__(self, stores: Mapping[str, agent_tools.AgentTools], lock: threading.Lock,
                 readers: Optional[Mapping[str, Readers]] = None) -> None:
        """`stores`: resource_type -> the store that keeps that type's event logs, in listing order
        (by_resource_type makes it from the stores); `readers`: resource_type -> that store's readers, if any."""
        self.stores = dict(stores)
        self.lock = lock
        self.readers = dict(readers or {})
        self.views: Dict[Any, agent_tools.AgentTools] = {}  # (store, grant) -> the store as that caller sees it
        self.definitions: Dict[str, Dict[str, Any]] = {}
        self.route: Dict[str, agent_tools.AgentTools] = {}
        for store in self.stores.values():
            for definition in store.list_tools():
                name = definition["name"]
                if name in self.definitions:  # poll_resource_events: every store lists the very same definition
                    if definition != self.definitions[name]:
                        raise ValueError(f"two stores define the tool {name} differently; one definition is listed")
                    continue
                self.definitions[name] = definition
                self.route[name] = store
        self.reads = frozenset(name for name, definition in self.definitions.items()
                               if definition.get("annotations", {}).get("readOnlyHint") is True)

    def listing(self) -> List[Dict[str, Any]]:
        """The tools/list entries, exactly as the stores define them."""
        return list(self.definitions.values())

    def call(self, name: str, arguments: Dict[str, Any], grant: Optional[tokens.Grant] = None) -> Dict[str, Any]:
        """The store's answer to one call (a result or a rejection): a read on one of its readers, anything else
        under the workspace lock; with a token's `grant`, the store answers as that caller, with its grant and
        scopes."""
        store = self.route[name]
        if name == POLL:
            kind = arguments.get("resource_type")
            if not isinstance(kind, str) or kind not in self.stores:  # a list or an object is no key to look up
                return self.unserved_poll(arguments)
            store = self.stores[kind]
        readers = self.readers.get(store.RESOURCE_TYPE or "") if name in self.reads else None
        if readers is None:
            with self.lock:
                return self.as_caller(store, grant).call_tool(name, arguments)
        try:
            reader = readers.take()
        except rejections.Rejection as rejection:
            return rejection.as_result()
        try:
            return self.as_caller(reader, grant).call_tool(name, arguments)
        finally:
            readers.give_back(reader)

    def preview(self, name: str, arguments: Dict[str, Any],
                grant: Optional[tokens.Grant] = None) -> agent_tools.Preview:
        """What a write would answer and change if it ran now (agent_tools.AgentTools.preview), under the workspace
        lock, on the store's own connection, as the caller sees it; nothing is written."""
        with self.lock:
            return self.as_caller(self.route[name], grant).preview(name, arguments)

    def store_identity(self, name: str) -> str:
        """The identity of the data the tool `name` writes (its store's Database.identity): what an approval's
        sealed state is bound to, so that a copy of the store refuses it."""
        return str(self.route[name].database.identity)

    def caller(self, name: str, grant: Optional[tokens.Grant] = None) -> str:
        """Who a call of `name` is answered as: the token's caller, else the store's own."""
        return grant.caller if grant is not None else self.route[name].caller

    def as_caller(self, store: agent_tools.AgentTools, grant: Optional[tokens.Grant]) -> agent_tools.AgentTools:
        """The store itself without a token, else as the token's caller sees it."""
        return store if grant is None else self.as_granted(store, grant)

    def as_granted(self, store: agent_tools.AgentTools, grant: tokens.Grant) -> agent_tools.AgentTools:
        """The store (its own connection, or one of its readers) as a token's caller sees it (kept, one per
        connection and grant). A store of a resource type the grant does not name serves that caller nothing."""
        key = (store, grant)
        view = self.views.get(key)
        if view is None:
            granted = grant.granted(store.RESOURCE_TYPE or "")
            view = self.views[key] = store.for_caller(grant.caller, granted, grant.scopes)
        return view

    def unserved_poll(self, arguments: Dict[str, Any]) -> Dict[str, Any]:
        """A poll no store serves: its arguments checked as a store checks them, then a rejection naming the
        resource types served."""
        try:
            checks.screen(arguments)
            checks.check(resource_events.POLL_RESOURCE_EVENTS.input_schema, arguments)
        except rejections.Rejection as rejection:
            return rejection.as_result()
        return events.unsupported_resource_type(arguments["resource_type"], list(self.stores),
                                                  "this server").as_result()


def open_readers(stores: Mapping[str, agent_tools.AgentTools], count: Optional[int] = None) -> Dict[str, Readers]:
    """Readers for each store that can have them (none for a store in memory, which only its own connection can
    see): `count` each, or as many as its engine says (database.Database.READERS); UnusableFile in one line if one
    cannot be opened, with every reader opened so far closed again."""
    opened: Dict[str, Readers] = {}
    try:
        for kind, store in stores.items():
            if store.database.shareable:
                opened[kind] = Readers(store, store.database.READERS if count is None else count)
    except BaseException:
        for readers in opened.values():
            readers.close()
        raise
    return opened
