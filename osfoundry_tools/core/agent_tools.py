"""The agent side of every store: its tools listed, each call checked against them, failures turned into
rejections, the one keyed edit, and the preview a person approves.

Layer: core. A store hands in its tools and one `_tool_<name>` method per tool, and gets back `call_tool`: JSON in,
a JSON-serialisable dict out, never an exception.
"""

import copy
import logging
import sqlite3
import sys
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Tuple, TypeVar

from osfoundry_tools.core.checks import ID_CHARACTERS, check, screen
from osfoundry_tools.core.clock import format_time
from osfoundry_tools.core.events import POLL_LIMIT_DEFAULT, POLL_TOOL, EventLog, unsupported_resource_type
from osfoundry_tools.core.idempotency import KeyScope, idempotent, result_text
from osfoundry_tools.core.rejections import Forbidden, Rejection, UnknownTool, loggable, quote, show
from osfoundry_tools.core.tools import DEFAULT_CALLER, WRITE_SCOPE, Tool

log = logging.getLogger("osfoundry")
EMPTY_VALUE = "(empty)"  # how a person asked to approve a change is shown a field that holds nothing


# ---------------------------------------------------------------------------
# The agent side of a store: list the tools, check each call, turn failures into rejections.

Tools = TypeVar("Tools", bound="AgentTools")  # a store's own class: `with connect() as store` keeps its methods


class AgentTools:
    """The base of a store: its database, grant and clock, `list_tools` and `call_tool`, and the poll.

    A store supplies TOOLS and one `_tool_<name>` method per tool. A store that lists POLL_RESOURCE_EVENTS
    also declares RESOURCE_TYPE (the resource_type its event logs answer to), EVENTS (how its events read)
    and `_granted_log`; the poll itself is this class's.
    """

    TOOLS: Tuple[Tool, ...] = ()
    RESOURCE_TYPE: Optional[str] = None  # e.g. "knowledge_base": what poll_resource_events asks this store for
    GRANT_KEY: Optional[str] = None  # e.g. "knowledge_bases": where a token file's grant lists its resources
    EVENTS: Optional["EventLog"] = None
    # call_tool's way to a tool by name: its definition and its method's name, made once from _ROUTED (the TOOLS
    # the class was made with), and used only while TOOLS is still that tuple; `tool()` finds any other
    _ROUTED: Tuple[Tool, ...] = ()
    _ROUTES: Dict[str, Tuple[Tool, str]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        poll = next((tool for tool in cls.TOOLS if tool.name == POLL_TOOL), None)
        kinds = poll.input_schema["properties"]["resource_type"]["enum"] if poll is not None else []
        if poll is not None and (cls.RESOURCE_TYPE not in kinds or cls.EVENTS is None):
            raise TypeError(f"{cls.__name__} lists {POLL_TOOL}, so it needs a RESOURCE_TYPE among "
                            f"{', '.join(kinds)} and an EVENTS log, not {cls.RESOURCE_TYPE!r} and {cls.EVENTS!r}")
        cls._ROUTED, cls._ROUTES = cls.TOOLS, {}
        for tool in cls.TOOLS:  # the first of a name, as tool() finds it
            cls._ROUTES.setdefault(tool.name, (tool, sys.intern("_tool_" + tool.name)))

    def __init__(self, database: Any, *, granted: Optional[Iterable[str]], clock: Callable[[], Any],
                 caller: str = DEFAULT_CALLER, scopes: Iterable[str] = (WRITE_SCOPE,)) -> None:
        self.database = database
        self.clock = clock
        self._serve(caller, granted, scopes)

    def _serve(self, caller: str, granted: Optional[Iterable[str]], scopes: Iterable[str]) -> None:
        """Whom this store answers: the caller's name, its grant and its OAuth scopes, each checked."""
        if isinstance(granted, str):
            raise TypeError("granted is a collection of resource IDs, not one string")
        if isinstance(scopes, str):
            raise TypeError("scopes is a collection of OAuth scopes, not one string")
        if not isinstance(caller, str) or not caller or len(caller) > ID_CHARACTERS:
            raise ValueError(f"caller must be a name of 1 to {ID_CHARACTERS} characters, not {caller!r}")
        self.caller = caller
        self.granted = None if granted is None else frozenset(granted)
        self.scopes = frozenset(scopes)

    def for_caller(self: "Tools", caller: str, granted: Optional[Iterable[str]], scopes: Iterable[str]) -> "Tools":
        """This store answering another caller, with that caller's grant and scopes, on the same database and
        clock: what a server gives each bearer token's requests. Closing it closes the shared database."""
        view = copy.copy(self)
        view._serve(caller, granted, scopes)
        return view

    def on(self: "Tools", database: Any) -> "Tools":
        """This store, for the same caller, grant and scopes, on another connection to its database (a server's
        reader: database.Database.reader()). Closing it closes that connection only."""
        view = copy.copy(self)
        view.database = database
        return view

    def require_scope(self, tool: str, scope: str = WRITE_SCOPE) -> None:
        """Forbidden unless this caller holds `scope` (an edit's, by default)."""
        if scope not in self.scopes:
            raise Forbidden(f"{tool} needs the OAuth scope {scope}, which this connection was not granted; nothing "
                            "was saved. Do not retry: tell the person what you wanted to change, or ask them to "
                            "reconnect with write access.", required_scope=scope)

    def is_granted(self, resource_id: str) -> bool:
        """Whether this caller may use the resource (None as the grant: every resource)."""
        return self.granted is None or resource_id in self.granted

    def __enter__(self: "Tools") -> "Tools":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def close(self) -> None:
        """Close the database connection."""
        self.database.close()

    def list_tools(self) -> List[Dict[str, Any]]:
        """Every tool as an MCP tools/list entry, from the same definitions call_tool enforces."""
        return [tool.listing() for tool in self.TOOLS]

    def tool(self, name: str) -> Tool:
        """The definition of one tool; UnknownTool if this store has none by that name."""
        for tool in self.TOOLS:
            if tool.name == name:
                return tool
        names = ", ".join(t.name for t in self.TOOLS)
        raise UnknownTool(f"there is no tool named {quote(name, ascii_only=True)}; this store has {names}.")

    def call_tool(self, name: str, arguments: Any) -> Dict[str, Any]:
        """Run one tool call as an agent would: JSON in, a JSON-serialisable dict out, never an exception."""
        try:
            route = self._ROUTES.get(name) if type(name) is str and self.TOOLS is self._ROUTED else None
            if route is None:
                tool = self.tool(name)
                route = tool, "_tool_" + tool.name
            tool = route[0]
            if not tool.admits(arguments):  # the compiled test of both; their words for a call it refuses
                screen(arguments)
                if not tool.accepts(arguments):
                    check(tool.input_schema, arguments)
            return getattr(self, route[1])(arguments)
        except Rejection as rejection:
            return rejection.as_result()
        except self.database.ENGINE_ERROR as error:  # outside a transaction: the transaction helpers convert their own
            failure = self.database.failure(error)
            return failure.as_result() if failure is not None else _internal_error(name, error)
        except Exception as error:  # a bug must still reach the agent as a rejection, not a traceback
            return _internal_error(name, error)

    def keyed_edit(self, tool: Tool, resource_id: str, arguments: Dict[str, Any],
                   granted: Callable[[Dict[str, Any], Any], Any],
                   swap: Callable[[Dict[str, Any], Any, Any, Any, str], Dict[str, Any]],
                   digest: Optional[str] = None,
                   text_of: Callable[[Dict[str, Any]], str] = result_text) -> Dict[str, Any]:
        """One agent's edit, the same in every store: the write scope, then in one write transaction the store's
        grant check (`granted(arguments, cursor)`: what the edit needs of the resource, or NotFound), the
        idempotency key (the first result again, on a replay), and the store's compare-and-swap (`swap(arguments,
        cursor, granted, now, stamp)`: the clock's moment, and the same as format_time writes it). A rejection
        anywhere rolls it all back and leaves the key free.

        Both are handed the arguments, so that a store may pass its own methods rather than make a closure on every
        call, and what runs their statements (execute, executemany): on sqlite3's own connection, one cursor of it
        (no cursor() of its own), since sqlite3's Connection.execute makes a cursor for each statement; anything
        else as it is (PostgreSQL's connection; a stand-in wrapping sqlite3's, which times or fails statements, so
        that it sees every one). `digest`: the arguments' fingerprint, where the store took it already; `text_of`:
        the first result as the key keeps it (idempotency.result_text, or the same text written by a store that
        knows its result's shape)."""
        if WRITE_SCOPE not in self.scopes:  # as require_scope asks, without its call when the scope is held
            self.require_scope(tool.name)
        with self.database.write() as connection:
            cursor: Any = connection.cursor() if type(connection) is sqlite3.Connection else connection
            resource = granted(arguments, cursor)
            now = self.clock()
            stamp = format_time(now)
            return idempotent(cursor, KeyScope(self.caller, tool.name, resource_id), arguments, stamp,
                              lambda: swap(arguments, cursor, resource, now, stamp), digest, text_of)

    def preview(self, name: str, arguments: Any) -> "Preview":
        """What one call would answer and change if it ran now, found by running it in a write transaction that is
        then rolled back: nothing is written, no event is appended, no idempotency key is kept. `before` and
        `after` are the call's subject as a person reads it (_as_people_see), after only when the call would
        write. What a server asks a person to approve is this, and the rejection a call would meet (a stale
        version, a bad value) is answered without asking anyone."""
        try:
            with self.database.write():
                before = self._as_people_see(name, arguments)
                answer = self.call_tool(name, arguments)
                writes = "error" not in answer and answer.get("replay") is False
                raise _Undone(Preview(answer, before, self._as_people_see(name, arguments) if writes else None))
        except _Undone as undone:
            return undone.preview
        except Rejection as rejection:  # the transaction could not begin: a read-only file, a busy database
            return Preview(rejection.as_result(), None, None)

    def _as_people_see(self, name: str, arguments: Any) -> Optional[Dict[str, Any]]:
        """The subject of a write call (the article, the item) as a person reads it, or None if the call names
        none this caller may see. A store whose tools write supplies it; its keys are Subject's."""
        return None

    def _tool_poll_resource_events(self, arguments: Dict[str, Any]) -> Dict[str, Any]:
        """poll_resource_events, for every store: its own resource_type only, a granted resource only."""
        resource_type, events = self.RESOURCE_TYPE, self.EVENTS
        if resource_type is None or events is None:  # __init_subclass__ refuses such a store; this says so to mypy
            raise NotImplementedError(f"{type(self).__name__} lists {POLL_TOOL} but has no "
                                      "RESOURCE_TYPE or EVENTS")
        if arguments["resource_type"] != resource_type:
            raise unsupported_resource_type(arguments["resource_type"], [resource_type])
        with self.database.read() as connection:
            log_id = self._granted_log(connection, arguments["resource_id"])
            return events.poll(connection, log_id, arguments.get("after_sequence", 0),
                               arguments.get("limit", POLL_LIMIT_DEFAULT))

    def _granted_log(self, connection: sqlite3.Connection, resource_id: str) -> str:
        """Inside a read: the event-log ID of the resource `resource_id` names, if it exists and is granted;
        NotFound, worded as the store's other tools word it, otherwise. A store that polls supplies it."""
        raise NotImplementedError(f"{type(self).__name__} lists {POLL_TOOL} but has no _granted_log")


class Preview(NamedTuple):
    """What AgentTools.preview found: the answer the call would get now, and its subject before and after (each
    None when there is none to show: the call is rejected, replayed, or names nothing visible).

    A subject is a dict: "kind" ("article" or "item"), "id", "where" (its knowledge base or channel), "title",
    and either "content" (an article's text) or "fields" (an item's [label, value as shown, value as stored]
    triples in schema order: the stored value as its JSON, record_fields.stored_text; None for both where a field
    holds nothing). Two subjects that differ never read the same: what a person approves is what they were
    shown."""

    answer: Dict[str, Any]
    before: Optional[Dict[str, Any]]
    after: Optional[Dict[str, Any]]


class _Undone(Exception):
    """Raised inside a preview's transaction to roll it back, carrying what it found."""

    def __init__(self, preview: Preview) -> None:
        super().__init__("preview")
        self.preview = preview


def _internal_error(name: Any, error: Exception) -> Dict[str, Any]:
    log.exception("tool %s failed", loggable(name))
    return {"error": "internal_error",
            "message": f"the store failed ({type(error).__name__}: {show(str(error))}); nothing was saved. "
                       "Retrying will probably fail the same way: report it to a person."}
