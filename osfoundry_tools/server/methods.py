"""The MCP methods both eras answer (initialize, ping, server/discover, tools/list, tools/call, the resources/
methods, subscriptions/listen), one parsed message in, at most one message out (or a listen stream, which the
transport writes), and a write held for a person's approval.

Layer: server, above the routing and the approval, below the transports, which hand it one message at a time.
"""

import logging
from typing import TYPE_CHECKING, Any, Callable, Dict, NamedTuple, Optional, Union, cast

from osfoundry_tools.core import rejections
from osfoundry_tools.server import approval, listening, resources, sessions, tokens
from osfoundry_tools.server.protocol import (
    CAPABILITIES_KEY, CLIENT_INFO_KEY, DISCOVER_NEEDS_META, HANDSHAKE_OVER_HTTP, HEADER_MISMATCH, INTERNAL_ERROR,
    INVALID_PARAMS, INVALID_REQUEST, LATEST_VERSION, METHOD_NOT_FOUND, PROTOCOL_VERSIONS, SERVER_INFO, SERVER_INFO_KEY,
    STATELESS_VERSIONS, SUPPORTED_VERSIONS, TOOLS_TTL_MS, UNSUPPORTED_VERSION, VERSION_KEY, CallCancelled,
    ProtocolError, check_handshake_header, error_message, tool_result,
)
from osfoundry_tools.server.routing import Tools

if TYPE_CHECKING:  # for the annotations only: the stdio transport imports this module
    from osfoundry_tools.server.stdio import Peer


log = logging.getLogger("osfoundry.mcp")
INSTRUCTIONS = (
    "Knowledge-base and record-channel tools on a shared workspace where people edit too. Keep each citation "
    "(article_id and updated_at) with your answer. Right before an edit, read the article or item again and pass "
    "its updated_at or version as expected_version; on version_conflict read again, re-apply your change and "
    "edit again (the same idempotency_key is fine). To learn what changed, call poll_resource_events with the "
    "last_sequence of your previous poll (0 the first time) instead of re-reading everything. Every "
    "list_record_items page carries the channel's schema: read it there and send option values, never labels. "
    "A result with isError true says what to do next."
)
APPROVAL_INSTRUCTIONS = (
    " Every edit is put to a person for approval before it is saved: make each edit one complete change they can "
    "judge, and if one comes back declined, do not send it again unless they ask for it.")


# ---------------------------------------------------------------------------
# The protocol: one message in, at most one message out.


class Exchange(NamedTuple):
    """Whom a request comes from and how they can be answered: a token's grant (HTTP), the stdio connection that
    can ask its user (the handshake era over stdio; None over HTTP), the stateless era's _meta (None in the
    handshake era), the request's id, and the handshake era's HTTP session (sessions.Held) when it names one."""

    grant: Optional[tokens.Grant] = None
    peer: Optional["Peer"] = None
    meta: Optional[Dict[str, Any]] = None
    request_id: Any = None
    session: Optional[sessions.Held] = None


CAPABILITIES = {"tools": {}, "resources": {"subscribe": True, "listChanged": False}}
# At 2026-07-28 a listen may ask for resourcesListChanged, which is honoured (the tools never change while the server
# runs, and it has no prompts: toolsListChanged and promptsListChanged are left out of the ack); in the handshake era
# no list_changed notification is ever sent.
STATELESS_CAPABILITIES = {"tools": {}, "resources": {"subscribe": True, "listChanged": True}}
MAX_LISTENED_URIS = 100  # per listen request
NO_EXCHANGE = Exchange()  # a request with no token, no stdio connection and no _meta
Method = Callable[[Dict[str, Any], Exchange], Dict[str, Any]]


class Server:
    """JSON-RPC 2.0 in both of MCP's eras, chosen per request: a request whose params' _meta names a protocol
    version is served statelessly (2026-07-28: server/discover, tools/list, tools/call, each result marked
    complete and stamped with the server's identity); any other is served in the handshake era (initialize, ping,
    tools/list, tools/call), as every client before 2026-07-28 speaks; both read resources (resources.py).
    Notifications are never answered. Nothing is kept between requests but the open listen streams (self.hub,
    listening.py), so one Server answers every stdio line and every HTTP request alike."""

    def __init__(self, tools: Tools, instructions: str = INSTRUCTIONS,
                 approvals: Optional[approval.Approvals] = None) -> None:
        """`approvals`: who must have a person approve each write (approval.Approvals), None for nobody."""
        self.tools = tools
        self.instructions = instructions
        self.approvals = approvals
        self.hub = listening.Hub(tools)
        shared: Dict[str, Method] = {
            "resources/list": self.list_resources, "resources/templates/list": self.list_templates,
            "resources/read": self.read_resource,
        }
        self.methods: Dict[str, Method] = {
            "initialize": self.initialize, "ping": lambda params, exchange: {},
            "tools/list": self.list_tools, "tools/call": self.call_tool, **shared,
            "resources/subscribe": self.subscribe, "resources/unsubscribe": self.unsubscribe,
        }
        self.stateless_methods: Dict[str, Method] = {
            "server/discover": self.discover, "tools/list": self.list_cached_tools, "tools/call": self.call_tool,
            "resources/list": self.uncached(self.list_resources), "resources/read": self.uncached(self.read_resource),
            "resources/templates/list": lambda params, exchange: dict(
                self.list_templates(params, exchange), ttlMs=TOOLS_TTL_MS, cacheScope="public"),
            "subscriptions/listen": self.listen,
        }

    def handle(self, message: Any, grant: Optional[tokens.Grant] = None,
               protocol_version: Optional[str] = None, peer: Optional["Peer"] = None,
               session: Optional[sessions.Held] = None) -> Optional[Dict[str, Any]]:
        """The answer to one parsed message, or None when nothing may be answered. `grant`: a bearer token's, whose
        caller, grant and scopes its tool calls get (None: the stores' own); `protocol_version`: the request's
        MCP-Protocol-Version header, over HTTP; `peer`: the stdio connection, over stdio; `session`: the HTTP
        session the request names (the handshake era)."""
        if isinstance(message, list):
            return error_message(None, INVALID_REQUEST, "Invalid Request: batches (JSON arrays) are not supported "
                                 "since MCP 2025-06-18; send one message per line")
        if not isinstance(message, dict):
            return error_message(None, INVALID_REQUEST, "Invalid Request: a message must be a JSON object")
        if "id" not in message:
            self.notification(message, peer)
            return None
        request_id = message["id"]
        if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
            return error_message(None, INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
        if "method" not in message and ("result" in message or "error" in message):
            log.warning("ignored a response to id %s: this server sends no requests", rejections.loggable(request_id))
            return None
        try:
            exchange = Exchange(grant, peer, None, request_id, session)
            return {"jsonrpc": "2.0", "id": request_id, "result": self.request(message, exchange, protocol_version)}
        except CallCancelled:  # the client cancelled the call while its user was asked: nothing may be answered
            return None
        except listening.Opened as opened:  # a listen stream: the transport writes it, and its result at its end
            opened.stream.owner = peer  # over stdio, whose notifications/cancelled may end it
            return cast(Dict[str, Any], opened.stream)
        except ProtocolError as error:
            return error_message(request_id, error.code, error.message, error.data)
        except Exception as error:  # a bug must reach the client as an error, and the server must go on
            log.exception("request %s failed", rejections.loggable(request_id))
            return error_message(request_id, INTERNAL_ERROR, f"Internal error: {type(error).__name__}: {error}")

    def request(self, message: Dict[str, Any], exchange: Exchange = NO_EXCHANGE,
                header: Optional[str] = None) -> Dict[str, Any]:
        """The result of a request, in the era it asks for, or ProtocolError."""
        if message.get("jsonrpc") != "2.0":
            raise ProtocolError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
        method, params = message.get("method"), message.get("params", {})
        if not isinstance(method, str):
            raise ProtocolError(INVALID_REQUEST, 'Invalid Request: "method" must be a string')
        if not isinstance(params, dict):
            raise ProtocolError(INVALID_PARAMS, f'Invalid params: "params" of {rejections.quote(method)} must be an '
                                "object")
        meta = params.get("_meta")
        if method != "initialize" and isinstance(meta, dict) and VERSION_KEY in meta:
            return self.stateless(method, params, exchange._replace(meta=meta, peer=None, session=None), header)
        check_handshake_header(method, header)
        if method not in self.methods:
            raise ProtocolError(METHOD_NOT_FOUND, f"Method not found: {rejections.quote(method)}"
                                + (DISCOVER_NEEDS_META if method == "server/discover" else ""))
        return self.methods[method](params, exchange)

    def stateless(self, method: str, params: Dict[str, Any], exchange: Exchange,
                  header: Optional[str]) -> Dict[str, Any]:
        """A request of the stateless era: its version and capabilities checked, its result marked complete (unless
        it asks for input) and stamped with who answered."""
        meta = exchange.meta or {}
        version = meta[VERSION_KEY]
        if version not in STATELESS_VERSIONS:
            raise ProtocolError(UNSUPPORTED_VERSION, "Unsupported protocol version",
                                {"supported": list(SUPPORTED_VERSIONS), "requested": version})
        if header is not None and header != version:
            raise ProtocolError(HEADER_MISMATCH, f"Header mismatch: MCP-Protocol-Version {rejections.quote(header)} "
                                f"but _meta names {rejections.quote(version)}; send the same version in both")
        if not isinstance(meta.get(CAPABILITIES_KEY), dict):
            raise ProtocolError(INVALID_PARAMS, f'Invalid params: _meta needs "{CAPABILITIES_KEY}", an object (the '
                                "client's capabilities, {} for none)")
        if method not in self.stateless_methods:
            raise ProtocolError(METHOD_NOT_FOUND, f"Method not found: {rejections.quote(method)} is not served in MCP "
                                f"{version}; this server answers {', '.join(self.stateless_methods)} there")
        result = self.stateless_methods[method](params, exchange)
        return {"resultType": "complete", **result, "_meta": {SERVER_INFO_KEY: dict(SERVER_INFO)}}

    def discover(self, params: Dict[str, Any], exchange: Exchange) -> Dict[str, Any]:
        """server/discover: the versions served, the capabilities, the instructions."""
        return {"supportedVersions": list(SUPPORTED_VERSIONS), "capabilities": dict(STATELESS_CAPABILITIES),
                "instructions": self.instructions, "ttlMs": TOOLS_TTL_MS, "cacheScope": "public"}

    def list_cached_tools(self, params: Dict[str, Any], exchange: Exchange) -> Dict[str, Any]:
        """tools/list in the stateless era: the same list, with how long and by whom it may be cached (every
        caller gets the same tools; what a grant allows is judged at each call)."""
        return dict(self.list_tools(params, exchange), ttlMs=TOOLS_TTL_MS, cacheScope="public")

    def notification(self, message: Dict[str, Any], peer: Optional["Peer"] = None) -> None:
        """Note a notification; never answer one, not even a malformed or unknown one."""
        method, params = message.get("method"), message.get("params")
        if method == "notifications/cancelled":
            # Requests are answered one at a time before the next line is read, so a cancellation names a request
            # answered already (or none), or a listen whose stream is open on this stdio connection: that stream
            # ends, unanswered. Over HTTP a listen is cancelled by closing its stream.
            cancelled = params.get("requestId") if isinstance(params, dict) else None
            if not self.hub.cancel(peer, cancelled):
                log.debug("cancellation of request %s: already answered", rejections.loggable(cancelled))
        elif method != "notifications/initialized":
            log.debug("ignored notification %s", rejections.loggable(method))

    def initialize(self, params: Dict[str, Any], exchange: Exchange = NO_EXCHANGE) -> Dict[str, Any]:
        """Negotiate: echo a supported version, otherwise offer the latest (the client decides whether to go on).
        Over stdio, the connection keeps what the client can do (its capabilities) and its name."""
        asked = params.get("protocolVersion")
        if not isinstance(asked, str):
            raise ProtocolError(INVALID_PARAMS, 'Invalid params: initialize needs "protocolVersion", a string '
                                f'such as "{LATEST_VERSION}"')
        version = asked if asked in PROTOCOL_VERSIONS else LATEST_VERSION
        client = params.get("clientInfo")
        if not isinstance(client, dict):
            client = {}
        if exchange.peer is not None:
            exchange.peer.met(params.get("capabilities"), client)
        log.info("client %s (version %s) asked for MCP %s; speaking %s", rejections.loggable(client.get("name", "?")),
                 rejections.loggable(client.get("version", "?")), rejections.loggable(asked), version)
        return {"protocolVersion": version, "capabilities": dict(CAPABILITIES), "serverInfo": dict(SERVER_INFO),
                "instructions": self.instructions}

    def list_tools(self, params: Dict[str, Any], exchange: Exchange = NO_EXCHANGE) -> Dict[str, Any]:
        """Every tool on one page."""
        if params.get("cursor") is not None:
            raise ProtocolError(INVALID_PARAMS, "Invalid params: unknown cursor; tools/list has one page, ask "
                                "without a cursor")
        return {"tools": self.tools.listing()}

    def call_tool(self, params: Dict[str, Any], exchange: Exchange = NO_EXCHANGE) -> Dict[str, Any]:
        """One tool call; a wrong name or non-object arguments are protocol errors, the rest the store judges."""
        name, arguments = params.get("name"), params.get("arguments", {})
        if "name" not in params or not isinstance(name, str):
            raise ProtocolError(INVALID_PARAMS, 'Invalid params: tools/call needs "name", a tool name from '
                                "tools/list")
        if name not in self.tools.definitions:
            raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {rejections.quote(name)}; tools/list names the "
                                f"{len(self.tools.definitions)} tools")
        if not isinstance(arguments, dict):
            raise ProtocolError(INVALID_PARAMS, f'Invalid params: "arguments" of {name} must be an object')
        if self.approvals is not None and self.approvals.holds(name not in self.tools.reads, exchange.grant):
            held = self.held_call_stateless if exchange.meta is not None else self.held_call
            return held(name, arguments, params, exchange)
        answer = tool_result(self.tools.call(name, arguments, exchange.grant))
        if name not in self.tools.reads:
            self.hub.wake()
        return answer

    # -- resources and listening ----------------------------------------------

    @staticmethod
    def uncached(method: Method) -> Method:
        """The stateless era's form of a resources method: its result may not be kept (a save can change it at any
        moment, and what it holds depends on the caller's grant)."""
        return lambda params, exchange: dict(method(params, exchange), ttlMs=0, cacheScope="private")

    def list_resources(self, params: Dict[str, Any], exchange: Exchange = NO_EXCHANGE) -> Dict[str, Any]:
        """resources/list: the caller's published articles and live items, a page at a time."""
        return resources.listing(self.tools, exchange.grant, params.get("cursor"))

    def list_templates(self, params: Dict[str, Any], exchange: Exchange = NO_EXCHANGE) -> Dict[str, Any]:
        if params.get("cursor") is not None:
            raise ProtocolError(INVALID_PARAMS, "Invalid params: unknown cursor; resources/templates/list has one "
                                "page, ask without a cursor")
        return resources.templates()

    def read_resource(self, params: Dict[str, Any], exchange: Exchange = NO_EXCHANGE) -> Dict[str, Any]:
        return resources.read(self.tools, exchange.grant, params.get("uri"))

    def watch(self, uri: Any, exchange: Exchange) -> listening.Watch:
        """A URI to watch, checked against the caller's grant, its cursor at its after_sequence or the log's head;
        a sequence past the head was never sent and is refused."""
        target = resources.parse(uri, resume=True)
        head = resources.head_of(self.tools, exchange.grant, target)
        if target.after is not None and target.after > head:
            raise ProtocolError(INVALID_PARAMS, f"Invalid params: {resources.AFTER}={target.after} in "
                                f"{rejections.quote(target.uri[:300])} is past the last sequence of its log "
                                f"{target.log_uri}, {head}: no notification carried it. Resume from the "
                                f"{resources.META_SEQUENCE} of the last notification you received, or leave "
                                f"{resources.AFTER} out to start from now")
        return listening.Watch(target, head if target.after is None else target.after)

    def caller_of(self, exchange: Exchange) -> str:
        return exchange.grant.caller if exchange.grant is not None else "(this server's own caller)"

    def listen(self, params: Dict[str, Any], exchange: Exchange) -> Dict[str, Any]:
        """subscriptions/listen (2026-07-28): acknowledge the URIs honoured, then stream their changes (the
        transport writes the stream; listening.Opened carries it there)."""
        wanted = params.get("notifications")
        if not isinstance(wanted, dict):
            raise ProtocolError(INVALID_PARAMS, 'Invalid params: subscriptions/listen needs "notifications", an '
                                'object such as {"resourceSubscriptions": ["osfoundry://knowledge_base/<id>"]}')
        uris = wanted.get("resourceSubscriptions") or []
        if not isinstance(uris, list) or len(uris) > MAX_LISTENED_URIS:
            raise ProtocolError(INVALID_PARAMS, f'Invalid params: "resourceSubscriptions" is a list of at most '
                                f"{MAX_LISTENED_URIS} URIs from resources/list or its templates")
        lists = wanted.get("resourcesListChanged", False)
        if not isinstance(lists, bool):
            raise ProtocolError(INVALID_PARAMS, 'Invalid params: "resourcesListChanged" is true or false')
        watches = [self.watch(uri, exchange) for uri in dict.fromkeys(uris)]
        honored: Dict[str, Any] = {"resourceSubscriptions": [watch.target.uri for watch in watches]} if watches else {}
        if lists:
            watches += [listening.Watch(target, resources.head_of(self.tools, exchange.grant, target), lists=True)
                         for target in resources.granted_logs(self.tools, exchange.grant)]
            honored["resourcesListChanged"] = True
        subscription = {listening.SUBSCRIPTION_ID: exchange.request_id}
        ack = {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
               "params": {"notifications": honored, "_meta": subscription}}
        stream = self.hub.open(self.caller_of(exchange), exchange.request_id, watches, ack,
                               listening.ListInterest(exchange.grant) if lists else None)
        stream.closing = {"jsonrpc": "2.0", "id": exchange.request_id, "result": {
            "resultType": "complete", "_meta": {**subscription, SERVER_INFO_KEY: dict(SERVER_INFO)}}}
        raise listening.Opened(stream)

    def subscribe(self, params: Dict[str, Any], exchange: Exchange) -> Dict[str, Any]:
        """resources/subscribe (the handshake era): over stdio the connection's stream watches one URI more; over
        HTTP the session keeps it, for its GET stream (in whichever worker holds it) to watch."""
        if exchange.session is not None:
            watch = self.watch(params.get("uri"), exchange)
            try:
                exchange.session.subscribe(watch.target.uri, watch.cursor)
            except ValueError as full:
                raise ProtocolError(INVALID_PARAMS, f"Invalid params: {full}") from None
            return {}
        if exchange.peer is None:
            raise ProtocolError(INVALID_REQUEST, "resources/subscribe came over HTTP in the handshake era without a "
                                "session to send notifications on: initialize first and send the Mcp-Session-Id it "
                                "answers with each request (and GET the endpoint with it for the notifications); an "
                                "initialize answered without one met the limit on sessions (end one you hold with "
                                "DELETE, or wait for an idle one to expire). Or listen with subscriptions/listen "
                                f"(MCP {STATELESS_VERSIONS[0]})")
        watch = self.watch(params.get("uri"), exchange)
        peer = exchange.peer
        if peer.subscriptions is None or peer.subscriptions.ended:
            peer.subscriptions = self.hub.open(self.caller_of(exchange), None, [])
            peer.stream(peer.subscriptions, self.hub)
        peer.subscriptions.drop(watch.target.uri)
        peer.subscriptions.add(watch)
        self.hub.wake()
        return {}

    def unsubscribe(self, params: Dict[str, Any], exchange: Exchange) -> Dict[str, Any]:
        """resources/unsubscribe: the URI as it was subscribed; unknown ones change nothing."""
        uri = params.get("uri")
        if not isinstance(uri, str):
            raise ProtocolError(INVALID_PARAMS, 'Invalid params: "uri" must be the string you subscribed')
        if exchange.session is not None:
            exchange.session.unsubscribe(uri)
        elif exchange.peer is not None and exchange.peer.subscriptions is not None:
            exchange.peer.subscriptions.drop(uri)
        return {}

    # -- a write a person must approve ----------------------------------------

    def held_call(self, name: str, arguments: Dict[str, Any], params: Dict[str, Any],
                  exchange: Exchange) -> Dict[str, Any]:
        """The handshake era: ask the client's user during the call (elicitation/create over stdio), then save the
        change if they approve. Over HTTP, where this server keeps no session to ask back on, refused."""
        approvals, peer, grant = cast(approval.Approvals, self.approvals), exchange.peer, exchange.grant
        if peer is None:
            return tool_result(approval.unavailable(HANDSHAKE_OVER_HTTP).as_result())
        if not approval.can_elicit(peer.capabilities):
            return tool_result(approval.unavailable(
                "your client did not declare the elicitation capability (form mode) when it connected").as_result())
        question = self.question(name, arguments, grant)
        if isinstance(question, dict):
            return tool_result(question)
        approvals.tally.add("asked")
        answer = approval.Answer.of(peer.ask(approval.ELICIT, approval.elicitation(question), approvals.bound,
                                             exchange.request_id))
        if answer.outcome == "unanswered" and peer.stopping():  # given up for a stop, not for the person's time
            answer = approval.Answer("stopped")
        if not answer.approved:
            return tool_result(approvals.refused(answer, approval.who_answers(peer.client)))
        return tool_result(approvals.committed(self.tools.call(name, arguments, grant)))

    def held_call_stateless(self, name: str, arguments: Dict[str, Any], params: Dict[str, Any],
                            exchange: Exchange) -> Dict[str, Any]:
        """The stateless era: the first round answers input_required (the question, and a sealed requestState);
        the retry carrying the person's answer and that state saves the change if they approved."""
        if "requestState" in params:
            return self.answered_stateless(name, arguments, params, exchange)
        approvals, meta = cast(approval.Approvals, self.approvals), exchange.meta or {}
        if not approval.can_elicit(meta.get(CAPABILITIES_KEY)):
            return tool_result(approval.unavailable(
                f'your client did not declare the elicitation capability (form mode) in "{CAPABILITIES_KEY}"'
            ).as_result())
        question = self.question(name, arguments, exchange.grant)
        if isinstance(question, dict):
            return tool_result(question)
        approvals.tally.add("asked")
        state = approvals.seal.issue(self.tools.caller(name, exchange.grant), name, arguments, approvals.bound,
                                     self.tools.store_identity(name))
        return {"resultType": "input_required", "requestState": state,
                "inputRequests": {approval.INPUT_KEY: {"method": approval.ELICIT,
                                                       "params": approval.elicitation(question)}}}

    def answered_stateless(self, name: str, arguments: Dict[str, Any], params: Dict[str, Any],
                           exchange: Exchange) -> Dict[str, Any]:
        """The stateless era's retry: its requestState checked against the seal, then the person's answer. A
        round whose call its key has saved already (the approved round sent again, its answer lost) gets the
        call's stored result, replay: true, whatever the answer, and writes nothing: the approval was of exactly
        that call, and a decline cannot say that nothing was saved."""
        approvals, grant, meta = cast(approval.Approvals, self.approvals), exchange.grant, exchange.meta or {}
        refusal = approvals.seal.refusal(params["requestState"], self.tools.caller(name, grant), name, arguments,
                                         self.tools.store_identity(name))
        if refusal is not None:
            return tool_result(approval.state_refused(refusal))
        answer = approval.Answer.of(approval.answers_of(params.get("inputResponses")))
        if not answer.approved:
            stored = self.tools.preview(name, arguments, grant).answer  # "nothing was saved" must be true
            if stored.get("replay") is True:
                return tool_result(stored)
            return tool_result(approvals.refused(answer, approval.who_answers(meta.get(CLIENT_INFO_KEY))))
        saved = self.tools.call(name, arguments, grant)
        if saved.get("replay") is True:  # the approved round sent again: its stored result, as the key gives anywhere
            return tool_result(saved)
        return tool_result(approvals.committed(saved))

    def question(self, name: str, arguments: Dict[str, Any],
                 grant: Optional[tokens.Grant]) -> Union[str, Dict[str, Any]]:
        """What to ask the person about a write, or the answer to give at once (a rejection, a replay) when the
        call, run now and rolled back, would write nothing."""
        preview = self.tools.preview(name, arguments, grant)
        at_once = cast(approval.Approvals, self.approvals).screen(preview.answer)
        if at_once is not None:
            return at_once
        title = self.tools.definitions[name].get("title", name)
        try:
            return approval.request_message(self.tools.caller(name, grant), title, preview.before, preview.after,
                                            arguments)
        except rejections.Rejection as refused:  # a change too large to show a person whole: nobody is asked
            cast(approval.Approvals, self.approvals).tally.add("too large to show")
            return refused.as_result()
