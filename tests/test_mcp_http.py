"""The Streamable HTTP transport: each status it answers with, who it admits, and that it serves many clients at once.

A real server on 127.0.0.1 (any free port) in a thread, in front of a fake handler that records what it was
given; the client is http.client, so every header is the one on the wire.
"""

import _thread
import base64
import contextlib
import gc
import http.client
import http.server
import io
import json
import logging
import signal
import socket
import threading
import time
import unittest
import warnings
from typing import Any, Dict, List, Mapping, Optional, Tuple

from osfoundry_tools.server import protocol, streamable_http
from osfoundry_tools.server.tokens import Grant, Tokens
from tests.helpers import ROOT  # noqa: F401  (puts the repository on the path)

TOKEN = "alice-token-0123456789abcdef"
UNKNOWN_TOKEN = "mallory-token-0123456789abcdef"
ALICE = Grant.of("alice", {"knowledge_base": frozenset({"kb-support"}), "record": None}, frozenset({"osfoundry:write"}))
LISTED_ORIGIN = "https://agents.example.com"
MODERN = "2026-07-28"
CLIENTS, REQUESTS = 8, 20  # the concurrent clients, and the requests each sends on its connection
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


class FakeHandler:
    """Answers like mcp_server's handler: echoes params, None for notifications, errors and failures on demand."""

    def __init__(self) -> None:
        self.calls: List[Tuple[Any, Any, Optional[str]]] = []  # (message, grant, protocol_version)
        self.lock = threading.Lock()
        self.meeting = threading.Barrier(CLIENTS, timeout=3)  # "meet": passed only by CLIENTS calls at once

    def __call__(self, message: Any, grant: Any = None, protocol_version: Optional[str] = None) -> Any:
        with self.lock:
            self.calls.append((message, grant, protocol_version))
        if not isinstance(message, dict):
            return protocol.error_message(None, -32600, "Invalid Request: a message must be a JSON object")
        if "id" not in message:
            return None
        if message.get("method") == "fail":
            return protocol.error_message(message["id"], message["params"]["code"], "failed on demand")
        if message.get("method") == "crash":
            raise RuntimeError("a bug in the handler")
        if message.get("method") == "meet":
            self.meeting.wait()
        return {"jsonrpc": "2.0", "id": message["id"], "result": {"echo": message.get("params")}}


def routing_headers(body: bytes, headers: Mapping[str, Optional[str]]) -> Dict[str, str]:
    """The Mcp-Method and Mcp-Name a stateless request's body calls for (none for another revision or a body that
    is no request)."""
    if headers.get("MCP-Protocol-Version") != MODERN:
        return {}
    try:
        message = json.loads(body)
    except ValueError:
        return {}
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        return {}
    found = {"Mcp-Method": message["method"]}
    name = (message.get("params") or {}).get("name") if isinstance(message.get("params"), dict) else None
    if isinstance(name, str):
        found["Mcp-Name"] = name
    return found


def request(method: str = "echo", request_id: Any = 1, **params: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}).encode()


class Reply:
    """One HTTP response, read whole."""

    def __init__(self, response: http.client.HTTPResponse) -> None:
        self.status = response.status
        self.headers = response.headers
        self.body = response.read()

    def json(self) -> Any:
        return json.loads(self.body)


class ServerCase(unittest.TestCase):
    """A server for the class's tests, started once and shut down at the end."""

    tokens: Optional[Tokens] = None
    limits = streamable_http.Limits()
    handler: FakeHandler
    server: http.server.ThreadingHTTPServer
    port: int
    thread: threading.Thread

    @classmethod
    def setUpClass(cls) -> None:
        cls.handler = cls.make_handler()
        options = streamable_http.HttpOptions("127.0.0.1", 0, cls.tokens, frozenset({LISTED_ORIGIN}), cls.limits)
        cls.server = streamable_http.make_server(cls.handler, options)
        cls.port = cls.server.server_address[1]
        cls.thread = threading.Thread(target=cls.server.serve_forever, kwargs={"poll_interval": 0.05})
        cls.thread.start()

    @classmethod
    def make_handler(cls) -> FakeHandler:
        return FakeHandler()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.shutdown()
        cls.server.server_close()
        cls.thread.join(5)

    def setUp(self) -> None:
        with self.handler.lock:
            self.handler.calls.clear()

    def connection(self) -> http.client.HTTPConnection:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
        self.addCleanup(connection.close)
        return connection

    def post(self, body: bytes = b"", headers: Optional[Dict[str, str]] = None, path: str = "/mcp",
             connection: Optional[http.client.HTTPConnection] = None) -> Reply:
        """A POST with JSON headers, `headers` added (a value of None leaves that header out); under the stateless
        revision, the routing headers its body calls for unless `headers` names them."""
        sent = {**JSON_HEADERS, **routing_headers(body, headers or {}), **(headers or {})}
        connection = connection or self.connection()
        connection.request("POST", path, body, {name: value for name, value in sent.items() if value is not None})
        return Reply(connection.getresponse())

    def send(self, method: str, path: str, headers: Optional[Dict[str, str]] = None,
             connection: Optional[http.client.HTTPConnection] = None) -> Reply:
        """A request with exactly these headers (and Host), no body and no Content-Length unless given."""
        connection = connection or self.connection()
        connection.putrequest(method, path, skip_host="Host" in (headers or {}), skip_accept_encoding=True)
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        connection.endheaders()
        return Reply(connection.getresponse())

    def raw(self, data: bytes) -> bytes:
        """The server's whole response to bytes sent as they are, the client then sending nothing more."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as client:
            client.sendall(data)
            client.shutdown(socket.SHUT_WR)
            with client.makefile("rb") as response:
                return response.read()

    def assertRefused(self, reply: Reply, status: int, code: int = -32600) -> Dict[str, Any]:
        """A JSON-RPC error body with id null, under `status`, before the handler saw anything."""
        self.assertEqual(reply.status, status, reply.body)
        self.assertEqual(reply.headers["Content-Type"], "application/json")
        answer = reply.json()
        self.assertEqual((answer["jsonrpc"], answer["id"], answer["error"]["code"]), ("2.0", None, code))
        self.assertEqual(self.handler.calls, [])
        return answer


class AnswerTest(ServerCase):
    def test_a_request_is_answered_200_with_the_handlers_answer_in_compact_json(self):
        reply = self.post(request(request_id=7, text="café"), {"MCP-Protocol-Version": "2025-11-25"})
        self.assertEqual(reply.status, 200)
        self.assertEqual(reply.headers["Content-Type"], "application/json")
        self.assertEqual(reply.body, '{"jsonrpc":"2.0","id":7,"result":{"echo":{"text":"café"}}}'.encode())
        self.assertEqual(int(reply.headers["Content-Length"]), len(reply.body))
        self.assertIsNone(reply.headers["Mcp-Session-Id"])
        message, grant, version = self.handler.calls[0]
        self.assertEqual((message["id"], grant, version), (7, None, "2025-11-25"))

    def test_the_protocol_version_is_none_without_its_header(self):
        self.assertEqual(self.post(request()).status, 200)
        self.assertIsNone(self.handler.calls[0][2])

    def test_a_notification_is_accepted_202_with_an_empty_body(self):
        reply = self.post(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        self.assertEqual((reply.status, reply.body, reply.headers["Content-Length"]), (202, b"", "0"))
        self.assertEqual(len(self.handler.calls), 1)

    def test_a_body_that_is_not_strict_json_in_utf8_is_a_400_parse_error(self):
        for body in (b"{not json", b'{"id": NaN}', b'"\xff"', b""):
            with self.subTest(body=body):
                answer = self.assertRefused(self.post(body), 400, -32700)
                self.assertIn("Parse error", answer["error"]["message"])

    def test_a_body_holding_a_key_twice_is_a_400_invalid_request_to_its_id(self):
        for body, answered in ((b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x","name":"y"}}', 4),
                               (b'{"jsonrpc":"2.0","method":"notifications/initialized","method":"ping"}', None)):
            with self.subTest(body=body):
                reply = self.post(body)
                self.assertEqual(reply.status, 400, reply.body)
                answer = reply.json()
                self.assertEqual((answer["id"], answer["error"]["code"]), (answered, -32600))
                self.assertIn('key "name" appears twice' if answered else 'key "method" appears twice',
                              answer["error"]["message"])
                self.assertEqual(self.handler.calls, [])

    def test_errors_about_the_request_or_its_version_are_400(self):
        for code in (-32700, -32600, -32020, -32022):
            with self.subTest(code=code):
                reply = self.post(request("fail", code=code), {"MCP-Protocol-Version": MODERN})
                self.assertEqual((reply.status, reply.json()["error"]["code"]), (400, code))

    def test_an_unknown_method_is_404_under_2026_07_28_and_200_before(self):
        for version, status in ((MODERN, 404), ("2025-11-25", 200), (None, 200)):
            with self.subTest(version=version):
                reply = self.post(request("fail", code=-32601), {"MCP-Protocol-Version": version})
                self.assertEqual((reply.status, reply.json()["error"]["code"]), (status, -32601))

    def test_a_stateless_request_whose_routing_headers_miss_or_differ_from_its_body_is_400_32020(self):
        call = request("tools/call", name="read_knowledge_article")
        cases = {"no Mcp-Method": {"Mcp-Method": None}, "another method": {"Mcp-Method": "tools/list"},
                 "no Mcp-Name": {"Mcp-Name": None}, "another name": {"Mcp-Name": "edit_record_item"}}
        for case, headers in cases.items():
            with self.subTest(case=case):
                reply = self.post(call, dict(headers, **{"MCP-Protocol-Version": MODERN}))
                answer = reply.json()
                self.assertEqual((reply.status, answer["id"], answer["error"]["code"]), (400, 1, -32020))
                self.assertIn("Header mismatch", answer["error"]["message"])
        with self.handler.lock:
            self.assertEqual(self.handler.calls, [], "nothing reached the handler")

    def test_routing_headers_may_carry_a_name_in_base64_and_matter_only_under_2026_07_28(self):
        call = request("tools/call", name="lire_l_article_é")
        encoded = "=?base64?" + base64.b64encode("lire_l_article_é".encode()).decode() + "?="
        reply = self.post(call, {"MCP-Protocol-Version": MODERN, "Mcp-Name": encoded})
        self.assertEqual(reply.status, 200)
        reply = self.post(call, {"MCP-Protocol-Version": "2025-11-25", "Mcp-Method": None, "Mcp-Name": None})
        self.assertEqual(reply.status, 200)

    def test_other_errors_are_200(self):
        reply = self.post(request("fail", code=-32602))
        self.assertEqual((reply.status, reply.json()["error"]["code"]), (200, -32602))

    def test_a_handler_that_raises_is_a_500_internal_error_logged_with_its_traceback(self):
        with self.assertLogs("osfoundry.mcp", logging.ERROR) as logs:
            reply = self.post(request("crash"))
        self.assertEqual((reply.status, reply.json()["id"], reply.json()["error"]["code"]), (500, 1, -32603))
        self.assertIn("RuntimeError: a bug in the handler", "\n".join(logs.output))
        self.assertEqual(self.post(request()).status, 200)  # and the server goes on


class LoggingTest(ServerCase):
    def test_each_request_line_goes_to_the_debug_log_and_nothing_to_stderr(self):
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr), self.assertLogs("osfoundry.mcp", logging.DEBUG) as logs:
            self.post(request(), {"Authorization": "Bearer not-logged-0123456789"})
        self.assertIn('"POST /mcp HTTP/1.1" 200', "\n".join(logs.output))
        self.assertNotIn("not-logged", "\n".join(logs.output))
        self.assertEqual(stderr.getvalue(), "")

    def test_control_characters_of_a_request_line_are_escaped_in_the_log(self):
        with self.assertLogs("osfoundry.mcp", logging.DEBUG) as logs:
            self.raw(b"GET /x\x1b[2J HTTP/1.1\r\nHost: localhost\r\n\r\n")
        self.assertIn("/x\\x1b[2J", "\n".join(logs.output))

    def test_a_connection_that_fails_is_logged_not_printed_on_stderr(self):
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr), self.assertLogs("osfoundry.mcp", logging.DEBUG) as logs:
            for error in (ConnectionResetError("reset by peer"), KeyError("a bug")):
                try:
                    raise error
                except Exception:
                    self.server.handle_error(None, ("127.0.0.9", 1))
        self.assertEqual([record.levelno for record in logs.records], [logging.DEBUG, logging.ERROR])
        self.assertIn("reset by peer", logs.output[0])
        self.assertEqual(stderr.getvalue(), "")


class RoutingTest(ServerCase):
    def test_other_paths_are_404(self):
        for path in ("/", "/mcp/", "/sse", "/.well-known/oauth-protected-resource"):
            with self.subTest(path=path):
                self.assertRefused(self.post(request(), path=path), 404)
        self.assertRefused(self.send("GET", "/other"), 404)

    def test_get_delete_and_other_methods_on_the_endpoint_are_405_allowing_post(self):
        for method in ("GET", "DELETE", "PUT", "PATCH", "OPTIONS"):
            with self.subTest(method=method):
                reply = self.send(method, "/mcp")
                self.assertRefused(reply, 405)
                self.assertEqual(reply.headers["Allow"], "POST")
        connection = self.connection()
        head = self.send("HEAD", "/mcp", connection=connection)
        self.assertEqual((head.status, head.headers["Allow"]), (405, "POST"))
        self.assertEqual(self.post(request(), connection=connection).status, 200)  # no body was sent after HEAD

    def test_a_query_string_does_not_change_the_endpoint(self):
        self.assertEqual(self.post(request(), path="/mcp?client=x").status, 200)


class RebindingTest(ServerCase):
    def test_a_foreign_origin_is_refused_403_saying_which_and_how_to_allow_it(self):
        for origin in ("http://evil.example", "null", "http://localhost.evil.example", "ftp://localhost",
                       "https://agents.example.com:443", "http://localhost:99999", "http://127.0.0.2"):
            with self.subTest(origin=origin):
                answer = self.assertRefused(self.post(request(), {"Origin": origin}), 403)
                self.assertIn(json.dumps(origin), answer["error"]["message"])
                self.assertIn("--allow-origin", answer["error"]["message"])

    def test_loopback_origins_on_any_port_and_listed_origins_pass(self):
        for origin in ("http://localhost", "http://localhost:6274", "https://127.0.0.1:8443", "http://[::1]:3000",
                       LISTED_ORIGIN):
            with self.subTest(origin=origin):
                self.assertEqual(self.post(request(), {"Origin": origin}).status, 200)

    def test_a_foreign_host_on_a_loopback_server_is_misdirected_421(self):
        for host in ("evil.example", f"evil.example:{self.port}", "127.0.0.1.evil.example", "bad host"):
            with self.subTest(host=host):
                answer = self.assertRefused(self.post(request(), {"Host": host}), 421)
                self.assertIn("Misdirected Request", answer["error"]["message"])

    def test_two_host_headers_are_400(self):
        self.assertRefused(self.send("GET", "/mcp", {"Host": "localhost", "host": "evil.example"}), 400)

    def test_loopback_hosts_on_any_port_pass(self):
        for host in ("localhost", f"localhost:{self.port}", "127.0.0.1:1", "[::1]:8000", "LOCALHOST"):
            with self.subTest(host=host):
                self.assertEqual(self.post(request(), {"Host": host}).status, 200)

    def test_only_a_server_bound_to_a_loopback_address_checks_the_host(self):
        for host in ("localhost", "127.0.0.1", "127.0.0.53", "::1", "[::1]"):
            self.assertTrue(streamable_http.is_loopback(host), host)
        for host in ("0.0.0.0", "", "::", "192.168.1.10", "example.com"):
            self.assertFalse(streamable_http.is_loopback(host), host)


class HeaderAndBodyTest(ServerCase):
    def test_a_body_not_declared_json_is_415(self):
        for content_type in ("text/plain", "application/jsonx", None):
            with self.subTest(content_type=content_type):
                self.assertRefused(self.post(request(), {"Content-Type": content_type}), 415)
        self.assertEqual(self.post(request(), {"Content-Type": "Application/JSON; charset=utf-8"}).status, 200)

    def test_an_accept_that_admits_no_json_is_406(self):
        for accept in ("text/event-stream", "text/html, application/xml", "application/json;q=0"):
            with self.subTest(accept=accept):
                self.assertRefused(self.post(request(), {"Accept": accept}), 406)

    def test_an_accept_naming_json_either_form_or_a_wildcard_passes(self):
        for accept in ("application/json", "text/event-stream, application/json", "application/*", "*/*", None):
            with self.subTest(accept=accept):
                self.assertEqual(self.post(request(), {"Accept": accept}).status, 200)

    def test_a_body_without_a_content_length_is_411(self):
        reply = self.send("POST", "/mcp", {"Content-Type": "application/json"})
        self.assertRefused(reply, 411)
        chunked = self.send("POST", "/mcp", {"Content-Type": "application/json", "Transfer-Encoding": "chunked"})
        self.assertRefused(chunked, 411)
        self.assertEqual(chunked.headers["Connection"], "close")

    def test_a_body_over_4_mib_is_413_and_is_not_read(self):
        reply = self.send("POST", "/mcp", {"Content-Type": "application/json",
                                           "Content-Length": str(streamable_http.MAX_BODY_BYTES + 1)})  # and no body
        self.assertRefused(reply, 413)
        self.assertEqual(reply.headers["Connection"], "close")

    def test_a_body_of_exactly_4_mib_is_answered(self):
        body = request(request_id=3)
        reply = self.post(body + b" " * (streamable_http.MAX_BODY_BYTES - len(body)))
        self.assertEqual((reply.status, reply.json()["id"]), (200, 3))

    def test_a_body_shorter_than_its_content_length_is_400(self):
        response = self.raw(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            b"Content-Length: 100\r\n\r\n{\"id\": 1")
        self.assertTrue(response.startswith(b"HTTP/1.1 400 "), response)
        self.assertIn(b"the body ended after 8 of the 100 bytes", response)
        self.assertEqual(self.handler.calls, [])

    def test_a_malformed_content_length_is_400(self):
        reply = self.send("POST", "/mcp", {"Content-Type": "application/json", "Content-Length": "1_0"})
        self.assertRefused(reply, 400)


class ConnectionTest(ServerCase):
    def test_two_requests_share_one_kept_alive_connection_even_after_a_parse_error(self):
        connection = self.connection()
        first = self.post(b"{", connection=connection)
        opened = connection.sock
        second = self.post(request(request_id=2), connection=connection)
        self.assertEqual((first.status, second.status), (400, 200))
        self.assertIsNotNone(opened)
        self.assertIs(connection.sock, opened)
        self.assertIsNone(second.headers["Connection"])

    def test_eight_clients_are_served_at_once_and_all_their_requests_answered_correctly(self) -> None:
        wrong: List[Any] = []

        def client(number: int) -> None:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
            try:
                for count in range(REQUESTS):
                    request_id = number * 100 + count
                    method = "meet" if count == 0 else "echo"  # all at once first: the server is threaded
                    reply = self.post(request(method, request_id, n=request_id), connection=connection)
                    if reply.status != 200 or reply.json() != {"jsonrpc": "2.0", "id": request_id,
                                                               "result": {"echo": {"n": request_id}}}:
                        wrong.append((request_id, reply.status, reply.body))
            except Exception as error:  # counted as a wrong answer, not lost in the thread
                wrong.append((number, repr(error)))
            finally:
                connection.close()

        threads = [threading.Thread(target=client, args=(number,)) for number in range(CLIENTS)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        self.assertEqual(wrong, [])
        self.assertEqual(len(self.handler.calls), CLIENTS * REQUESTS)
        self.assertLess(time.monotonic() - started, 5)


class AuthenticationTest(ServerCase):
    tokens = Tokens({TOKEN: ALICE})

    def challenge(self) -> str:
        metadata = f"http://127.0.0.1:{self.port}/.well-known/oauth-protected-resource"
        return f'Bearer realm="osfoundry", resource_metadata="{metadata}"'

    def test_a_request_without_a_bearer_token_is_401_with_the_challenge(self):
        for authorization in (None, "Basic YWxpY2U6c2VjcmV0", "Bearer", "Bearer "):
            with self.subTest(authorization=authorization):
                reply = self.post(request(), {"Authorization": authorization})
                answer = self.assertRefused(reply, 401)
                self.assertEqual(reply.headers["WWW-Authenticate"], self.challenge())
                self.assertIn("valid bearer token", answer["error"]["message"])

    def test_an_unknown_token_is_401_invalid_token_and_is_never_echoed_or_logged(self):
        with self.assertLogs("osfoundry.mcp", logging.DEBUG) as logs:
            reply = self.post(request(), {"Authorization": f"Bearer {UNKNOWN_TOKEN}"})
        self.assertRefused(reply, 401)
        self.assertEqual(reply.headers["WWW-Authenticate"], self.challenge() + ', error="invalid_token"')
        self.assertNotIn(UNKNOWN_TOKEN.encode(), reply.body)
        self.assertNotIn("mallory", "\n".join(logs.output))

    def test_a_granted_request_passes_its_grant_and_logs_only_the_caller(self):
        with self.assertLogs("osfoundry.mcp", logging.DEBUG) as logs:
            reply = self.post(request(), {"Authorization": f"bearer {TOKEN}", "MCP-Protocol-Version": MODERN})
        self.assertEqual(reply.status, 200)
        self.assertEqual(self.handler.calls[0][1:], (ALICE, MODERN))
        self.assertIsInstance(self.handler.calls[0][1], Grant)
        self.assertIn("alice", "\n".join(logs.output))
        self.assertNotIn(TOKEN, "\n".join(logs.output))

    def test_origin_and_host_are_checked_before_the_token(self):
        self.assertRefused(self.post(request(), {"Origin": "http://evil.example"}), 403)
        self.assertRefused(self.post(request(), {"Host": "evil.example"}), 421)

    def test_the_protected_resource_metadata_is_served_without_a_token(self):
        for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"):
            with self.subTest(path=path):
                reply = self.send("GET", path)
                self.assertEqual((reply.status, reply.headers["Content-Type"]), (200, "application/json"))
                self.assertEqual(reply.json(), {"resource": f"http://127.0.0.1:{self.port}/mcp",
                                                "bearer_methods_supported": ["header"],
                                                "scopes_supported": ["osfoundry:write"],
                                                "authorization_servers": []})

    def test_the_metadata_names_the_host_the_client_used(self):
        reply = self.send("GET", "/.well-known/oauth-protected-resource", {"Host": "localhost:8000"})
        self.assertEqual(reply.json()["resource"], "http://localhost:8000/mcp")


class NoMetadataWithoutTokensTest(ServerCase):
    def test_the_metadata_is_404_when_no_tokens_are_configured(self):
        self.assertRefused(self.send("GET", "/.well-known/oauth-protected-resource"), 404)
        self.assertRefused(self.send("GET", "/.well-known/oauth-protected-resource/mcp"), 404)


class LifetimeTest(unittest.TestCase):
    def options(self) -> streamable_http.HttpOptions:
        return streamable_http.HttpOptions("127.0.0.1", 0, None, frozenset())

    def setUp(self) -> None:
        """Record the sockets that are garbage-collected instead of closed."""
        catcher = warnings.catch_warnings(record=True)
        self.warnings = catcher.__enter__()
        self.addCleanup(catcher.__exit__, None, None, None)
        warnings.simplefilter("always", ResourceWarning)

    def assertNoSocketLeft(self) -> None:
        gc.collect()
        unclosed = [str(warning.message) for warning in self.warnings if warning.category is ResourceWarning]
        self.assertEqual([text for text in unclosed if "socket" in text], [])

    def assertClosed(self, port: int) -> None:
        with self.assertRaises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=2).close()

    def test_a_server_shut_down_stops_serving_and_frees_its_port(self):
        server = streamable_http.make_server(FakeHandler(), self.options())
        port = server.server_address[1]
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
        thread.start()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        connection.request("POST", "/mcp", request(), JSON_HEADERS)
        self.assertEqual(connection.getresponse().status, 200)
        connection.close()
        server.shutdown()
        server.server_close()
        thread.join(5)
        self.assertFalse(thread.is_alive())
        self.assertClosed(port)

    def test_serve_http_reports_its_address_and_stops_on_keyboard_interrupt_then_raises_it(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            self.skipTest("a KeyboardInterrupt reaches only the main thread")
        if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:  # started in the background, say
            self.skipTest("Ctrl-C is ignored or handled otherwise in this process: interrupt_main would do nothing")
        addresses: List[Tuple[str, int]] = []
        statuses: List[int] = []
        bound = threading.Event()

        def client() -> None:
            if not bound.wait(5):
                return  # serve_http failed before it was ready: there is nothing to interrupt
            try:
                connection = http.client.HTTPConnection(*addresses[0], timeout=5)
                connection.request("POST", "/mcp", request(), JSON_HEADERS)
                statuses.append(connection.getresponse().status)
                connection.close()
            finally:
                _thread.interrupt_main()  # as Ctrl-C would

        def ready(address: Tuple[str, int]) -> None:
            addresses.append(address)
            bound.set()

        thread = threading.Thread(target=client)
        thread.start()
        with self.assertRaises(KeyboardInterrupt):  # raised on once the server has stopped, for the exit status
            streamable_http.serve_http(FakeHandler(), self.options(), ready)
        thread.join(5)
        self.assertEqual(addresses[0][0], "127.0.0.1")
        self.assertEqual(statuses, [200])
        self.assertClosed(addresses[0][1])
        self.assertNoSocketLeft()

    def test_serve_http_closes_its_socket_even_when_ready_fails(self) -> None:
        ports: List[int] = []

        def ready(address: Tuple[str, int]) -> None:
            ports.append(address[1])
            raise ValueError("the caller failed")

        with self.assertRaises(ValueError):
            streamable_http.serve_http(FakeHandler(), self.options(), ready)
        self.assertClosed(ports[0])
        self.assertNoSocketLeft()


if __name__ == "__main__":
    unittest.main()
