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
same loop, with no gap and no duplicate.

Bounds: at most max_streams streams in all and max_per_caller for one caller (a -32000 error beyond, before any
ack); at most OUTBOX messages waiting for one stream. A full outbox holds the stream's cursors where they are (the
log keeps the rest, read again at the next tick: a long replay goes at the pace the client reads); a stream whose
outbox stays full for SLOW_SECONDS cannot keep up, and gets, instead of more, one notice per log naming the
sequence to resume from (resyncFrom), and is then ended.
"""

import collections
import logging
import threading
import time
from typing import Any, Callable, Deque, Dict, List, NamedTuple, Optional, Set, Tuple

from osfoundry_tools.server import resources, sessions, tokens
from osfoundry_tools.server.protocol import ProtocolError
from osfoundry_tools.server.routing import POLL, Tools

WATCH_SECONDS = 0.05  # how often the logs are read while a stream is open
DISCOVER_SECONDS = 1.0  # how often a stream that asked for list changes looks for logs begun since it opened
OUTBOX = 256  # notifications waiting for one stream; past them its cursors wait
SLOW_SECONDS = 5.0  # a stream whose outbox stays full this long is told to resync, and ended
MAX_STREAMS, MAX_PER_CALLER = 1000, 32
EVENTS_PER_READ = 100  # the poll's own limit
READS_PER_TICK = 20  # of one log: a long replay goes on at the next tick
STOP_SECONDS = 10.0  # how long stopping waits for the watcher to finish its read (a write lock may hold it up)
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
    log whose changes to resources/list (LIST_EVENTS) the stream is told of."""

    __slots__ = ("target", "cursor", "lists")

    def __init__(self, target: resources.Target, cursor: int, lists: bool = False) -> None:
        self.target = target
        self.cursor = cursor
        self.lists = lists

    def wants(self, subject: str) -> bool:
        return self.target.subject is None or self.target.subject == subject


class ListInterest(NamedTuple):
    """A stream's wish to hear of every change to resources/list its caller may see: in each log of its grant
    (resources.granted_logs), those begun after it opened included."""

    grant: Optional[tokens.Grant]


class Stream:
    """One listener's notifications waiting to be written (the transport takes them with next()); its watches."""

    def __init__(self, caller: str, subscription_id: Any, watches: List[Watch], outbox: int = OUTBOX) -> None:
        self.caller = caller
        self.subscription_id = subscription_id  # the listen request's id; None: a stdio connection's subscribe
        self.watches = watches
        self.limit = outbox
        self.outbox: Deque[Dict[str, Any]] = collections.deque()
        self.ready = threading.Condition()
        self.behind: Dict[str, int] = {}  # log URI -> the sequence to resync from, once the outbox overflowed
        self.ended = False
        self.closing: Optional[Dict[str, Any]] = None  # the listen request's result, written once the stream ends
        self.hub: Optional["Hub"] = None  # that opened it
        self.full_since: Optional[float] = None  # when the hub last found its outbox full, if it still is
        self.lists: Optional[ListInterest] = None  # set: it asked for list changes, in logs begun later too
        self.listed = -1  # the hub's listing of logs (Hub.listing's number) its watches were last matched with

    def meta(self) -> Dict[str, Any]:
        return {} if self.subscription_id is None else {SUBSCRIPTION_ID: self.subscription_id}

    def put(self, message: Dict[str, Any]) -> bool:
        """Queue one message; False (and nothing queued) when the outbox is full."""
        with self.ready:
            if self.ended or len(self.outbox) >= self.limit:
                return False
            self.outbox.append(message)
            self.ready.notify()
            return True

    def fall_behind(self, log_uri: str, sequence: int) -> None:
        with self.ready:
            self.behind.setdefault(log_uri, sequence)
            self.ready.notify()

    def next(self, timeout: Optional[float]) -> Optional[Dict[str, Any]]:
        """The next message to write, None after `timeout` seconds without one (a keep-alive is due); Closed once
        the stream has ended and everything before its end was taken."""
        with self.ready:
            if not self.outbox and not self.behind and not self.ended:
                self.ready.wait(timeout)
            if self.outbox:
                return self.outbox.popleft()
            if self.behind:
                log_uri, sequence = self.behind.popitem()
                if not self.behind:
                    self.ended = True
                return {"jsonrpc": "2.0", "method": UPDATED, "params": {"uri": log_uri, "_meta": {
                    **self.meta(), resources.META_LOG: log_uri, resources.META_RESYNC: sequence}}}
            if self.ended:
                raise Closed()
            return None

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

    def open(self, caller: str, subscription_id: Any, watches: List[Watch],
             first: Optional[Dict[str, Any]] = None, lists: Optional[ListInterest] = None) -> Stream:
        """A new stream for `caller`, its `first` message (the ack) queued before any event, told of list changes
        in logs begun later too where it asks (`lists`); ProtocolError beyond the caps."""
        stream = Stream(caller, subscription_id, watches, self.outbox)
        stream.hub, stream.lists = self, lists
        if first is not None:
            stream.outbox.append(first)
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
                    self.woken.set()  # a log had more than one tick's reads: go on at once
            except Exception:  # a log that cannot be read now (a busy database): the next tick tries again
                log.exception("reading the event logs for listeners failed")

    def watched(self) -> Dict[Tuple[str, str], List[Tuple[Stream, Watch]]]:
        with self.guard:
            streams = list(self.streams)
        logs: Dict[Tuple[str, str], List[Tuple[Stream, Watch]]] = collections.defaultdict(list)
        for stream in streams:
            if stream.behind or stream.ended:
                continue
            for watch in list(stream.watches):
                logs[(watch.target.kind.resource_type, watch.target.log_id)].append((stream, watch))
        return logs

    def tick(self) -> bool:
        """Read each watched log once after its lowest cursor and hand its events out; True if one has more."""
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
        after = min(watch.cursor for _, watch in watchers)
        blocked: Set[int] = set()  # the streams whose outbox is full: nothing more for them this tick
        for _ in range(READS_PER_TICK):
            polled = self.tools.call(POLL, {"resource_type": kind, "resource_id": log_id, "after_sequence": after,
                                            "limit": EVENTS_PER_READ})
            if "error" in polled:
                return False
            for event in polled["events"]:
                self.hand_out(event, watchers, blocked)
            after = polled["last_sequence"]
            if not polled["has_more"] or len(blocked) == len({id(stream) for stream, _ in watchers}):
                return False
        return True

    def hand_out(self, event: Dict[str, Any], watchers: List[Tuple[Stream, Watch]], blocked: Set[int]) -> None:
        """One event to each stream that watches it and has not had it: once per stream however many of its
        watches it matches. A stream whose outbox is full keeps its cursors, so the event comes again."""
        sequence = event["sequence"]
        sent: Set[int] = set()
        told: Set[int] = set()  # the streams told of this event's change to the list
        for stream, watch in watchers:
            if watch.cursor >= sequence or stream.behind or id(stream) in blocked:
                continue
            subject = str(event.get(watch.target.kind.subject_key))
            if watch.lists:
                if event["type"] in LIST_EVENTS and id(stream) not in told:
                    if not self.delivered(stream, watch, list_changed(stream.meta(), watch.target, event), blocked):
                        continue
                    told.add(id(stream))
            elif watch.wants(subject) and id(stream) not in sent:
                if not self.delivered(stream, watch, notification(stream.meta(), watch.target, subject, event),
                                      blocked):
                    continue
                sent.add(id(stream))
            watch.cursor = sequence

    def delivered(self, stream: Stream, watch: Watch, message: Dict[str, Any], blocked: Set[int]) -> bool:
        """`message` put in the stream's outbox; False, the stream blocked for this round and its full outbox
        noted, if there was no room."""
        if not stream.put(message):
            blocked.add(id(stream))
            self.outbox_full(stream, watch)
            return False
        stream.full_since = None
        return True

    def outbox_full(self, stream: Stream, watch: Watch) -> None:
        """A stream's outbox was full: noted, and once it has stayed full SLOW_SECONDS, the stream falls behind."""
        now = self.clock()
        if stream.full_since is None:
            stream.full_since = now
        elif now - stream.full_since >= self.slow_seconds:
            stream.fall_behind(watch.target.log_uri, watch.cursor)


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
    worker), and whose progress is saved there, so that a GET opened again, in any worker, goes on from it."""

    def __init__(self, hub: Hub, book: sessions.Book, session: sessions.Session) -> None:
        self.hub, self.book, self.session = hub, book, session
        self.turn = book.take_turn(session)
        self.stream = hub.open(session.caller, None, [])
        self.revisions: Dict[str, int] = {}  # URI -> the revision of its subscription the stream watches
        self.saved: Dict[str, Tuple[int, int]] = {}  # URI -> the (revision, cursor) last saved

    def look(self) -> bool:
        """Save the progress, follow the subscriptions; False once the session is gone or another GET took over.
        Progress is saved only while nothing waits in the outbox: then every cursor read was written."""
        watches = list(self.stream.watches)
        cursors = {watch.target.uri: watch.cursor for watch in watches}
        with self.stream.ready:
            idle = not self.stream.outbox
        progress = {uri: (self.revisions[uri], cursor) for uri, cursor in cursors.items()
                    if idle and uri in self.revisions and self.saved.get(uri) != (self.revisions[uri], cursor)}
        found = self.book.look(self.session, self.turn, progress)
        if found is None:
            return False
        self.saved.update(progress)
        added = False
        for subscription in found:
            if self.revisions.get(subscription.uri) != subscription.revision:
                self.stream.drop(subscription.uri)
                self.stream.add(Watch(resources.parse(subscription.uri, resume=True), subscription.cursor))
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
