"""Changes pushed as they happen: listen streams (subscriptions/listen; resources/subscribe over stdio in the
handshake era) fed from the stores' event logs, resumable from a sequence, each bounded.

Layer: server, beside the methods; it reads the logs through the tools' poll (routing.Tools), as the caller-less
store.

How a change reaches a listener: one watcher thread per process polls, for each log some stream watches, the events
after the lowest cursor of its watchers, every WATCH_SECONDS, and at once after a write made through this process.
A save in another --workers process or another server on the same database is seen at the next poll: one indexed
read of each watched log per interval, nothing while no stream is open. A stream that asked for list changes
watches every log of its grant, and those begun later too: the logs are listed again every DISCOVER_SECONDS. Each
event goes to every stream watching its article or item, or its whole log, once; a stream's cursor per watch then
passes it, so a stream that resumes from an older sequence is first replayed what the log holds after it, by the
same loop, with no gap and no duplicate. An event that tells of a save of a resource already gone (an unpublished
article saved again: resources.repeated_removals) reaches no stream, though poll_resource_events lists it.

Bounds: at most max_streams streams in all and max_per_caller for one caller (a -32000 error beyond, before any
ack); at most OUTBOX messages waiting for one stream. A stream with more than half its outbox waiting is not fed
until it has taken most of them, and a full outbox holds the stream's cursors where they are (the log keeps the
rest, read again once it has room: a long replay goes at the pace the client reads, and a slow reader costs only
the reads that refill its outbox, never the same events read again and again). A stream that leaves a message
unread for SLOW_SECONDS with more than half its outbox waiting cannot keep up, and gets, instead of more, one
notice per log naming the sequence to resume from (resyncFrom), and is then ended.

Glossary:
  position   where a session's GET stream stands: for each subscription (by its revision, sessions.py) the last
             sequence handed out for it; each of its messages carries the position after it as its event ID
             (position_id), which a GET resumes from when the client sends it back as Last-Event-ID (SessionFeed)
"""

import collections
import hashlib
import logging
import threading
import time
from typing import Any, Callable, Deque, Dict, List, NamedTuple, Optional, Set, Tuple

from osfoundry_tools.core.checks import SQLITE_INTEGER_MAX
from osfoundry_tools.server import resources, sessions, tokens
from osfoundry_tools.server.protocol import ProtocolError, same_request_id
from osfoundry_tools.server.routing import POLL, Tools

WATCH_SECONDS = 0.05  # how often the logs are read while a stream is open
DISCOVER_SECONDS = 1.0  # how often a stream that asked for list changes looks for logs begun since it opened
OUTBOX = 256  # notifications waiting for one stream; past them its cursors wait
SLOW_SECONDS = 5.0  # a stream that leaves a message unread this long, its outbox over half full, is told to resync
MAX_STREAMS, MAX_PER_CALLER = 1000, 32
EVENTS_PER_READ = 100  # the poll's own limit
READS_PER_TICK = 20  # of one log: a long replay goes on at the next tick
REPEATS_KEPT = 10_000  # events judged by repeated_removals, remembered so that a replay asks the log no more
STOP_SECONDS = 10.0  # how long stopping waits for the watcher to finish its read (a write lock may hold it up)
EVENT_ID_CHARACTERS = 8192  # the longest Last-Event-ID read; ours hold at most MAX_SUBSCRIPTIONS cursors
TAG_CHARACTERS = 8  # of the session's tag that opens each of its event IDs
TOO_MANY = -32000
log = logging.getLogger("osfoundry.mcp")
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
UPDATED = "notifications/resources/updated"
LIST_CHANGED = "notifications/resources/list_changed"
LIST_EVENTS = frozenset({"created", "published", "unpublished", "deleted", "renamed"})  # what resources/list shows


class Closed(Exception):
    """The stream has ended: nothing more comes."""


class Opened(Exception):
    """A listen request's answer is a stream: the transport writes its messages, then its closing result."""

    def __init__(self, stream: "Stream") -> None:
        super().__init__("a listen stream")
        self.stream = stream


class Watch:
    """One URI a stream watches, and the last sequence of its log already sent for it; or (`lists`) one granted
    log whose changes to resources/list (LIST_EVENTS) the stream is told of. `revision`: the session's
    subscription it follows, on a session's GET stream (None elsewhere)."""

    __slots__ = ("target", "cursor", "lists", "revision")

    def __init__(self, target: resources.Target, cursor: int, lists: bool = False,
                 revision: Optional[int] = None) -> None:
        self.target = target
        self.cursor = cursor
        self.lists = lists
        self.revision = revision

    def wants(self, subject: str) -> bool:
        return self.target.subject is None or self.target.subject == subject


class ListInterest(NamedTuple):
    """A stream's wish to hear of every change to resources/list its caller may see: in each log of its grant
    (resources.granted_logs), those begun after it opened included."""

    grant: Optional[tokens.Grant]


class Waiting(NamedTuple):
    """One message in a stream's outbox: its event ID (None: it has none) and when it was queued."""

    message: Dict[str, Any]
    event_id: Optional[str]
    since: float


class Stream:
    """One listener's notifications waiting to be written (the transport takes them with next() or take()); its
    watches."""

    def __init__(self, caller: str, subscription_id: Any, watches: List[Watch], outbox: int = OUTBOX) -> None:
        self.caller = caller
        self.subscription_id = subscription_id  # the listen request's id; None: a stdio connection's subscribe
        self.watches = watches
        self.limit = outbox
        self.outbox: Deque[Waiting] = collections.deque()
        self.ready = threading.Condition()
        self.behind: Dict[str, int] = {}  # log URI -> the sequence to resync from, once the outbox overflowed
        self.ended = False
        self.closing: Optional[Dict[str, Any]] = None  # the listen request's result, written once the stream ends
        self.hub: Optional["Hub"] = None  # that opened it
        self.owner: Any = None  # the connection that opened it (over stdio), whose cancellation of its id ends it
        self.tag: Optional[str] = None  # a session's GET stream: its tag, and each message an event ID (position_id)
        self.lists: Optional[ListInterest] = None  # set: it asked for list changes, in logs begun later too
        self.listed = -1  # the hub's listing of logs (Hub.listing's number) its watches were last matched with

    def meta(self) -> Dict[str, Any]:
        return {} if self.subscription_id is None else {SUBSCRIPTION_ID: self.subscription_id}

    def put(self, messages: List[Dict[str, Any]], event_id: Optional[str] = None, now: float = 0.0) -> bool:
        """Queue the messages of one event, `event_id` on the last (the position once all are read); False (and
        nothing queued) when the outbox has no room for all of them."""
        with self.ready:
            if self.ended or len(self.outbox) + len(messages) > self.limit:
                return False
            for number, message in enumerate(messages, 1):
                self.outbox.append(Waiting(message, event_id if number == len(messages) else None, now))
            self.ready.notify()
            return True

    def crowded(self) -> bool:
        """More than half its outbox waits: it is fed again once it has taken most of it."""
        return len(self.outbox) * 2 > self.limit

    def oldest(self) -> Optional[float]:
        """When the message that has waited longest was queued; None with nothing waiting."""
        with self.ready:
            return self.outbox[0].since if self.outbox else None

    def fall_behind(self, log_uri: str, sequence: int) -> None:
        with self.ready:
            self.behind.setdefault(log_uri, sequence)
            self.ready.notify()

    def fall_behind_everywhere(self) -> None:
        """It cannot keep up: for each log it watches, a notice naming the lowest sequence it had of it."""
        lowest: Dict[str, int] = {}
        for watch in list(self.watches):
            uri = watch.target.log_uri
            lowest[uri] = min(lowest.get(uri, watch.cursor), watch.cursor)
        if not lowest:
            self.end()
        for uri, sequence in lowest.items():
            self.fall_behind(uri, sequence)

    def take(self, timeout: Optional[float]) -> Optional[Tuple[Dict[str, Any], Optional[str]]]:
        """The next message to write and its event ID (None: it has none), None after `timeout` seconds without
        one (a keep-alive is due); Closed once the stream has ended and everything before its end was taken."""
        with self.ready:
            if not self.outbox and not self.behind and not self.ended:
                self.ready.wait(timeout)
            if self.outbox:
                waiting = self.outbox.popleft()
                return waiting.message, waiting.event_id
            if self.behind:
                log_uri, sequence = self.behind.popitem()
                if not self.behind:
                    self.ended = True
                return {"jsonrpc": "2.0", "method": UPDATED, "params": {"uri": log_uri, "_meta": {
                    **self.meta(), resources.META_LOG: log_uri, resources.META_RESYNC: sequence}}}, None
            if self.ended:
                raise Closed()
            return None

    def next(self, timeout: Optional[float]) -> Optional[Dict[str, Any]]:
        """take()'s message alone."""
        taken = self.take(timeout)
        return None if taken is None else taken[0]

    def end(self) -> None:
        with self.ready:
            self.ended = True
            self.ready.notify_all()

    def release(self) -> None:
        """Ended and written: its place in the hub freed."""
        if self.hub is not None:
            self.hub.close(self)
        else:
            self.end()

    def add(self, watch: Watch) -> None:
        self.watches.append(watch)

    def drop(self, uri: str) -> None:
        self.watches[:] = [watch for watch in self.watches if watch.target.uri != uri]

    def event_id(self, passing: List[Watch], sequence: int) -> Optional[str]:
        """A session's GET stream: the event ID of the message that hands `sequence` out to the watches
        `passing`, its position once read (None on any other stream)."""
        if self.tag is None:
            return None
        moving = {id(watch) for watch in passing}
        revisions: Dict[int, List[int]] = collections.defaultdict(list)  # cursor -> the revisions at it
        for watch in list(self.watches):
            if watch.revision is not None:
                revisions[sequence if id(watch) in moving else watch.cursor].append(watch.revision)
        return position_id(self.tag, revisions)


def position_id(tag: str, revisions: Dict[int, List[int]]) -> str:
    """TAG:CURSOR=REVISION.REVISION:CURSOR=... : a session's tag, then each cursor with the revisions of the
    subscriptions it is the last sequence handed out for.

    >>> position_id("0123abcd", {17: [2, 1], 9: [3]})
    '0123abcd:9=3:17=1.2'
    """
    return tag + "".join(f":{cursor}=" + ".".join(str(revision) for revision in sorted(held))
                         for cursor, held in sorted(revisions.items()))


def position_of(text: Any, tag: str) -> Dict[int, int]:
    """The revision -> cursor an event ID of this session's stream names; {} for anything else (another
    session's, one made up or altered, one too long), which a GET then ignores. Only ASCII digits are numbers,
    and none past sqlite's integers.

    >>> position_of("0123abcd:9=3:17=1.2", "0123abcd")
    {3: 9, 1: 17, 2: 17}
    >>> position_of("0123abcd:\\u00b2=1", "0123abcd"), position_of("0123abcd:9=3", "ffffffff")
    ({}, {})
    """
    if not isinstance(text, str) or len(text) > EVENT_ID_CHARACTERS or not text.isascii():
        return {}
    head, *groups = text.split(":")
    found: Dict[int, int] = {}
    if head != tag:
        return {}
    for group in groups:
        cursor, _, revisions = group.partition("=")
        numbers = [cursor, *revisions.split(".")]
        if not all(number.isdigit() and len(number) <= 19 for number in numbers):
            return {}
        values = [int(number) for number in numbers]
        if max(values) > SQLITE_INTEGER_MAX:
            return {}
        found.update((revision, values[0]) for revision in values[1:])
    return found


def session_tag(session: sessions.Session) -> str:
    """What opens each event ID of the session's GET stream: a GET of another session ignores it."""
    return hashlib.sha256(session.id_hash.encode("ascii")).hexdigest()[:TAG_CHARACTERS]


class Hub:
    """Every open stream of this process, and the thread that feeds them from the logs."""

    def __init__(self, tools: Tools, max_streams: int = MAX_STREAMS, max_per_caller: int = MAX_PER_CALLER,
                 interval: float = WATCH_SECONDS, outbox: int = OUTBOX,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.tools = tools
        self.clock = clock
        self.slow_seconds = SLOW_SECONDS
        self.max_streams, self.max_per_caller, self.interval, self.outbox = (max_streams, max_per_caller, interval,
                                                                              outbox)
        self.streams: List[Stream] = []
        self.guard = threading.Lock()
        self.woken = threading.Event()
        self.thread: Optional[threading.Thread] = None
        self.stopped = False
        self.autostart = True  # False: no watcher thread, the caller ticks (a test that must decide when)
        self.discover_seconds = DISCOVER_SECONDS
        self.discovered_at: Optional[float] = None  # when discover() last looked for new logs
        self.listing: Tuple[int, Dict[str, List[str]]] = (0, {})  # the logs it found then, numbered anew on a change
        self.repeats: Dict[Tuple[str, str, int], bool] = {}  # (kind, log, sequence) -> whether it repeats a removal

    def open(self, caller: str, subscription_id: Any, watches: List[Watch],
             first: Optional[Dict[str, Any]] = None, lists: Optional[ListInterest] = None) -> Stream:
        """A new stream for `caller`, its `first` message (the ack) queued before any event, told of list changes
        in logs begun later too where it asks (`lists`); ProtocolError beyond the caps."""
        stream = Stream(caller, subscription_id, watches, self.outbox)
        stream.hub, stream.lists = self, lists
        if first is not None:
            stream.put([first], now=self.clock())
        with self.guard:
            if self.stopped:
                raise ProtocolError(TOO_MANY, "the server is stopping; listen again to it or another in a moment")
            if len(self.streams) >= self.max_streams:
                raise ProtocolError(TOO_MANY, f"this server holds {self.max_streams} listen streams, its limit; "
                                    "close one of yours or listen again later")
            if sum(1 for open_ in self.streams if open_.caller == caller) >= self.max_per_caller:
                raise ProtocolError(TOO_MANY, f"you hold {self.max_per_caller} listen streams, the limit for one "
                                    "caller; watch several URIs on one stream instead of one stream each")
            self.streams.append(stream)
            if self.thread is None and self.autostart:
                self.thread = threading.Thread(target=self.run, name="listen-watcher", daemon=True)
                self.thread.start()
        self.woken.set()
        return stream

    def close(self, stream: Stream) -> None:
        stream.end()
        with self.guard:
            if stream in self.streams:
                self.streams.remove(stream)

    def cancel(self, owner: Any, request_id: Any) -> bool:
        """notifications/cancelled from `owner` (a stdio connection) naming a listen of its own: that stream ends
        and frees its place, and no result is written for it (a cancelled request is not answered). False when
        `owner` has no open listen of that id (one ended already, or another request): nothing changes."""
        if owner is None:
            return False
        with self.guard:
            named = [stream for stream in self.streams
                     if stream.owner is owner and same_request_id(request_id, stream.subscription_id)]
        for stream in named:
            stream.closing = None
            self.close(stream)
        return bool(named)

    def wake(self) -> None:
        """A write went through this process: read the logs now, not at the next tick."""
        if self.streams:
            self.woken.set()

    def stop(self, wait: float = STOP_SECONDS) -> None:
        """End every stream (each transport then closes it cleanly) and the watcher, waiting for it to finish the
        read it may be in (`wait` seconds at most), so that nothing reads the stores once this returns."""
        with self.guard:
            self.stopped = True
            streams, self.streams = self.streams, []
        for stream in streams:
            stream.end()
        self.woken.set()
        if self.thread is not None and self.thread is not threading.current_thread():
            self.thread.join(wait)

    def run(self) -> None:
        while not self.stopped:
            self.woken.wait(self.interval)
            self.woken.clear()
            try:
                if self.tick():
                    self.woken.set()  # a stream that can take more had more than one tick's reads: go on at once
            except Exception:  # a log that cannot be read now (a busy database): the next tick tries again
                log.exception("reading the event logs for listeners failed")

    def watched(self) -> Dict[Tuple[str, str], List[Tuple[Stream, Watch]]]:
        """The watches of each log to feed now: those of every stream but one whose outbox is over half full (it
        is fed once it has taken most of it; if its oldest message has waited slow_seconds, it falls behind)."""
        with self.guard:
            streams = list(self.streams)
        now = self.clock()
        logs: Dict[Tuple[str, str], List[Tuple[Stream, Watch]]] = collections.defaultdict(list)
        for stream in streams:
            if stream.behind or stream.ended:
                continue
            if stream.crowded():
                since = stream.oldest()
                if since is not None and now - since >= self.slow_seconds:
                    stream.fall_behind_everywhere()
                continue
            for watch in list(stream.watches):
                logs[(watch.target.kind.resource_type, watch.target.log_id)].append((stream, watch))
        return logs

    def tick(self) -> bool:
        """Read each watched log after its lowest cursor and hand its events out; True if a log has more for a
        stream that can take it."""
        self.discover()
        more = False
        for (kind, log_id), watchers in self.watched().items():
            more = self.feed(kind, log_id, watchers) or more
        return more

    def discover(self) -> None:
        """Every discover_seconds at most, while a stream asks for list changes: each such stream's granted logs
        begun since it opened (a knowledge base or channel created since) watched for them from their start, so
        that everything in them is news to it. The logs are listed once for all the streams, and a stream already
        matched with the same listing is passed over, so a quiet second costs one listing."""
        now = self.clock()
        if self.discovered_at is not None and now - self.discovered_at < self.discover_seconds:
            return
        with self.guard:
            listeners = [stream for stream in self.streams if stream.lists is not None and not stream.ended]
        if not listeners:
            return
        self.discovered_at = now
        every = resources.every_log(self.tools)
        if every != self.listing[1]:
            self.listing = (self.listing[0] + 1, every)
        number = self.listing[0]
        granted: Dict[int, List[resources.Target]] = {}  # by grant: the streams of one token share it
        for stream in listeners:
            assert stream.lists is not None  # for mypy: listeners are the streams that asked
            if stream.listed == number:  # matched with these very logs already: nothing begun since
                continue
            grant = stream.lists.grant
            if id(grant) not in granted:
                granted[id(grant)] = resources.granted_logs(self.tools, grant, every)
            watched = {watch.target.log_uri for watch in stream.watches if watch.lists}
            for target in granted[id(grant)]:
                if target.log_uri not in watched:
                    stream.add(Watch(target, 0, lists=True))
            stream.listed = number

    def feed(self, kind: str, log_id: str, watchers: List[Tuple[Stream, Watch]]) -> bool:
        """Hand out the log's events after its watchers' lowest cursor, READS_PER_TICK reads at most; a stream
        whose outbox fills takes nothing more this tick, and the reads go on from the lowest cursor of the others
        (none left: done). True if the log has more for a stream that can take it."""
        blocked: Set[int] = set()  # the streams whose outbox is full: nothing more for them this tick
        after = min(watch.cursor for _, watch in watchers)
        for _ in range(READS_PER_TICK):
            polled = self.tools.call(POLL, {"resource_type": kind, "resource_id": log_id, "after_sequence": after,
                                            "limit": EVENTS_PER_READ})
            if "error" in polled:
                return False
            repeated = self.repeated(kind, log_id, polled["events"])
            for event in polled["events"]:
                self.hand_out(event, watchers, blocked, event["sequence"] in repeated)
            open_ = [watch.cursor for stream, watch in watchers if id(stream) not in blocked]
            if not polled["has_more"] or not open_:
                return False
            after = max(polled["last_sequence"], min(open_))
        return True

    def repeated(self, kind: str, log_id: str, events: List[Dict[str, Any]]) -> Set[int]:
        """The sequences among `events` that tell of a save of a resource gone already (resources.
        repeated_removals), each judged once."""
        resource_kind = resources.BY_TYPE.get(kind)
        if resource_kind is None or resource_kind.gone_again is None:
            return set()
        asked = [event for event in events if event["type"] == resource_kind.gone_again and
                 (kind, log_id, event["sequence"]) not in self.repeats]
        if asked:
            if len(self.repeats) > REPEATS_KEPT:
                self.repeats.clear()
            judged = resources.repeated_removals(self.tools, resource_kind, log_id, events)
            self.repeats.update(((kind, log_id, event["sequence"]), event["sequence"] in judged) for event in asked)
        return {event["sequence"] for event in events if self.repeats.get((kind, log_id, event["sequence"]))}

    def hand_out(self, event: Dict[str, Any], watchers: List[Tuple[Stream, Watch]], blocked: Set[int],
                 silent: bool = False) -> None:
        """One event to each stream that watches it and has not had it: once per stream however many of its
        watches it matches (`silent`: to none, every cursor passing it). A stream whose outbox has no room keeps
        its cursors, so the event comes again."""
        sequence = event["sequence"]
        due: Dict[int, Tuple[Stream, List[Watch]]] = {}
        for stream, watch in watchers:
            if watch.cursor < sequence and not stream.behind and id(stream) not in blocked:
                due.setdefault(id(stream), (stream, []))[1].append(watch)
        for stream, watches in due.values():
            messages = [] if silent else messages_for(stream, watches, event)
            if messages and not stream.put(messages, stream.event_id(watches, sequence), self.clock()):
                blocked.add(id(stream))
                continue
            for watch in watches:
                watch.cursor = sequence


def messages_for(stream: Stream, watches: List[Watch], event: Dict[str, Any]) -> List[Dict[str, Any]]:
    """What one stream is sent for one event of a log, given its watches of that log: a resources/updated if one
    watches the article or item (or the log), a list_changed if one asked for list changes and the event is one."""
    kind = watches[0].target.kind
    subject = str(event.get(kind.subject_key))
    messages = []
    updating = [watch for watch in watches if not watch.lists and watch.wants(subject)]
    if updating:
        messages.append(notification(stream.meta(), updating[0].target, subject, event))
    listing = [watch for watch in watches if watch.lists]
    if listing and event["type"] in LIST_EVENTS:
        messages.append(list_changed(stream.meta(), listing[0].target, event))
    return messages


def notification(meta: Dict[str, Any], target: resources.Target, subject: str,
                 event: Dict[str, Any]) -> Dict[str, Any]:
    """What a stream is sent for one event of the log `target` watches: the article's or item's URI, and in
    _meta the event's sequence in its log (what a listen resumes from; the log is the URI's knowledge base or
    channel), its type and the version it made."""
    kind = target.kind
    return {"jsonrpc": "2.0", "method": UPDATED, "params": {
        "uri": resources.resource_uri(kind, target.log_id, subject),
        "_meta": {**meta, resources.META_SEQUENCE: event["sequence"], resources.META_EVENT: event["type"],
                  resources.META_VERSION: event.get(kind.version_key)}}}


class SessionFeed:
    """The GET stream of an HTTP session (the handshake era): a stream of the hub whose watches follow what the
    session subscribed, read from the sessions' book at each look (a POST that subscribed may have reached another
    worker). Each of its messages carries its position as event ID; a GET that sends one back (Last-Event-ID)
    goes on from it exactly, in any worker, and the book keeps it as what the client has confirmed. A GET without
    one goes on from what the book keeps, so that nothing is lost: what the client read since comes again."""

    def __init__(self, hub: Hub, book: sessions.Book, session: sessions.Session,
                 last_event_id: Optional[str] = None) -> None:
        """ProtocolError beyond the caps on streams, before the session's turn is taken: a GET refused leaves the
        session's open one alone."""
        self.hub, self.book, self.session = hub, book, session
        self.stream = hub.open(session.caller, None, [])
        try:
            self.turn = book.take_turn(session)
        except BaseException:
            self.stream.release()
            raise
        self.stream.tag = session_tag(session)
        self.resumed: Optional[Dict[int, int]] = position_of(last_event_id, self.stream.tag)  # until the first look
        self.revisions: Dict[str, int] = {}  # URI -> the revision of its subscription the stream watches

    def look(self) -> bool:
        """Follow the subscriptions; False once the session is gone or another GET took over. At the first look,
        each subscription the Last-Event-ID names starts where it says, and the book keeps that as confirmed (what
        a later GET without one goes on from); nothing else the stream hands out is ever saved as read."""
        found = self.book.look(self.session, self.turn, {})
        if found is None:
            return False
        resumed, self.resumed = self.resumed or {}, None
        confirmed = {subscription.uri: (subscription.revision, resumed[subscription.revision])
                     for subscription in found if subscription.revision in resumed}
        if confirmed and self.book.look(self.session, self.turn, confirmed) is None:
            return False
        added = False
        for subscription in found:
            if self.revisions.get(subscription.uri) != subscription.revision:
                cursor = resumed.get(subscription.revision, subscription.cursor)
                self.stream.drop(subscription.uri)
                self.stream.add(Watch(resources.parse(subscription.uri, resume=True), cursor,
                                      revision=subscription.revision))
                self.revisions[subscription.uri] = subscription.revision
                added = True
        for uri in set(self.revisions) - {subscription.uri for subscription in found}:
            self.stream.drop(uri)
            del self.revisions[uri]
        if added:
            self.hub.wake()
        return True


def list_changed(meta: Dict[str, Any], target: resources.Target, event: Dict[str, Any]) -> Dict[str, Any]:
    """What a stream that asked for list changes is sent for one event that changes resources/list: in _meta the
    log, the event's sequence and its type (the article or item it names)."""
    kind = target.kind
    return {"jsonrpc": "2.0", "method": LIST_CHANGED, "params": {"_meta": {
        **meta, resources.META_LOG: target.log_uri, resources.META_SEQUENCE: event["sequence"],
        resources.META_EVENT: event["type"],
        "io.osfoundry/uri": resources.resource_uri(kind, target.log_id, str(event.get(kind.subject_key)))}}}


def writer_thread(stream: Stream, write: Callable[[Dict[str, Any]], None], on_end: Callable[[], None]) -> None:
    """Over stdio: a thread that writes the stream's messages as they come, then `on_end` once it has ended."""

    def pump() -> None:
        try:
            while True:
                message = stream.next(None)
                if message is not None:
                    write(message)
        except Closed:
            on_end()
        except (OSError, ValueError):  # stdout closed: the client is gone
            stream.end()

    threading.Thread(target=pump, name="listen-writer", daemon=True).start()
