"""The HTTP server's strictness: headers that decide who asks or what is asked come once, a token travels only in
Authorization and never reaches a log, and whatever is no HTTP/1.0 or 1.1 request is answered the same way, with a
status line and a JSON body (never an HTML page).

Real servers on 127.0.0.1 in threads (tests.test_mcp_http's ServerCase); raw sockets for what no HTTP client sends.
"""

from tests.helpers import ROOT  # noqa: F401  (puts the repository on the path)

import http.client
import io
import logging
import socket
import unittest
from typing import Any, Dict, Optional

from osfoundry_tools.server import streamable_http
from osfoundry_tools.server import command_line, protocol
from osfoundry_tools.server.tokens import Tokens
from tests.test_http_limits import Refusals
from tests.test_mcp_http import ALICE, TOKEN, ServerCase, request

OTHER_TOKEN = "bob-token-0123456789abcdef"


class StrictHeadersTest(ServerCase):
    tokens = Tokens({TOKEN: ALICE, OTHER_TOKEN: ALICE._replace(caller="bob")})

    def twice(self, name: str, first: str, second: str,
              headers: Optional[Dict[str, str]] = None) -> http.client.HTTPResponse:
        """A POST of a request whose header `name` comes twice, with a valid token unless that is the header."""
        connection = self.connection()
        body = request()
        connection.putrequest("POST", "/mcp", skip_host=True, skip_accept_encoding=True)
        sent = {"Host": "localhost", "Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json",
                "Content-Length": str(len(body)), **(headers or {})}
        for header, value in sent.items():
            if header != name:
                connection.putheader(header, value)
        connection.putheader(name, first)
        connection.putheader(name, second)
        connection.endheaders(body)
        return connection.getresponse()

    def test_each_header_that_decides_who_asks_or_what_is_asked_is_refused_400_when_repeated(self):
        cases = {"Origin": ("http://localhost:3000", "http://evil.example"), "Host": ("localhost", "evil.example"),
                 "Authorization": (f"Bearer {TOKEN}", f"Bearer {OTHER_TOKEN}"),
                 "Content-Length": (str(len(request())), str(len(request()))),
                 "Content-Type": ("application/json", "text/plain"),
                 "MCP-Protocol-Version": ("2026-07-28", "2025-11-25"), "Mcp-Method": ("echo", "tools/call"),
                 "Mcp-Name": ("a", "b"), "Mcp-Session-Id": ("1", "2")}
        for name, (first, second) in cases.items():
            with self.subTest(header=name):
                response = self.twice(name, first, second)
                reply = response.read()
                self.assertEqual((response.status, response.headers["Content-Type"]), (400, "application/json"))
                self.assertIn(f"send one {name.lower()} header", reply.decode())
                self.assertNotIn(TOKEN, reply.decode())
        self.assertEqual(self.handler.calls, [], "nothing reached the handler")

    def test_other_headers_may_repeat(self):
        response = self.twice("X-Trace", "1", "2")
        self.assertEqual(response.status, 200, response.read())

    def test_an_http_1_1_request_without_host_is_400_and_an_http_1_0_one_is_served(self):
        body = request()
        without_host = (f"POST /mcp HTTP/1.1\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\n"
                        f"Content-Length: {len(body)}\r\n\r\n").encode() + body
        self.assertTrue(self.raw(without_host).startswith(b"HTTP/1.1 400 "))
        old = self.raw(without_host.replace(b"HTTP/1.1", b"HTTP/1.0", 1))
        self.assertTrue(old.startswith(b"HTTP/1.1 200 "), old)
        self.assertIn(b"Connection: close", old)

    def test_a_token_in_the_query_string_is_refused_and_never_logged_nor_echoed(self):
        for query in (f"access_token={TOKEN}", f"token={TOKEN}", f"api_key={TOKEN}", f"x=1&Access%5FToken={TOKEN}",
                      f"authorization=Bearer%20{TOKEN}"):
            with self.subTest(query=query), self.assertLogs("osfoundry.mcp", logging.DEBUG) as logs:
                reply = self.post(request(), {"Authorization": f"Bearer {TOKEN}"}, path=f"/mcp?{query}")
                self.assertEqual(reply.status, 400)
                self.assertIn("Authorization: Bearer header", reply.json()["error"]["message"])
                self.assertNotIn(TOKEN.encode(), reply.body)
                self.assertNotIn(TOKEN, "\n".join(logs.output))
                self.assertIn('"POST /mcp HTTP/1.1" 400', "\n".join(logs.output))
        self.assertEqual(self.handler.calls, [])

    def test_no_query_string_and_no_credential_of_a_url_reaches_the_log(self):
        with self.assertLogs("osfoundry.mcp", logging.DEBUG) as logs:
            self.assertEqual(self.post(request(), {"Authorization": f"Bearer {TOKEN}"},
                                       path="/mcp?client=visible-only-here").status, 200)
            self.raw(b"GET http://user:hunter2-password@localhost/other?x=1 HTTP/1.1\r\nHost: localhost\r\n"
                     b"Cookie: session=cookie-secret\r\n\r\n")
        logged = "\n".join(logs.output)
        self.assertIn('"POST /mcp HTTP/1.1" 200', logged)
        self.assertIn('"GET /other HTTP/1.1" 400', logged)  # a target naming a user is refused
        for secret in ("visible-only-here", "hunter2", "cookie-secret", TOKEN):
            self.assertNotIn(secret, logged)


class MalformedInputTest(ServerCase, Refusals):
    CASES = {
        "garbage bytes (a TLS handshake)": b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 32,
        "words that are no request": b"hello there, server\r\n\r\n",
        "an HTTP/0.9 request line": b"GET /mcp\r\n",
        "the HTTP/2 preface": b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
        "HTTP/1.2": b"GET /mcp HTTP/1.2\r\nHost: localhost\r\n\r\n",
        "a lower-case version": b"GET /mcp http/1.1\r\nHost: localhost\r\n\r\n",
        "two spaces in the request line": b"GET  /mcp HTTP/1.1\r\nHost: localhost\r\n\r\n",
        "an empty line before the request": b"\r\nGET /mcp HTTP/1.1\r\nHost: localhost\r\n\r\n",
        "a header line without a colon": b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nNoColonHere\r\n\r\n",
        "a space before a header's colon": b"POST /mcp HTTP/1.1\r\nHost : localhost\r\n\r\n",
        "a folded header line": b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nX-A: 1\r\n  folded\r\n\r\n",
        "a control character in a value": b"POST /mcp HTTP/1.1\r\nHost: local\x00host\r\n\r\n",
        "a bare CR in a value": b"POST /mcp HTTP/1.1\r\nHost: localhost\rX-Injected: 1\r\n\r\n",
        "headers cut off by the end of the connection": b"POST /mcp HTTP/1.1\r\nHost: local",
        "a request line cut off": b"POST /mc",
    }

    def test_whatever_is_no_http_1x_request_is_answered_400_with_a_status_line_and_a_json_body(self):
        for case, data in self.CASES.items():
            with self.subTest(case=case):
                body = self.assertJsonRefusal(self.raw(data), 400)
                self.assertTrue(body["error"]["message"].startswith("Bad Request: "), body)
        self.assertEqual(self.handler.calls, [])

    def test_a_connection_that_ends_without_a_byte_gets_no_reply(self):
        self.assertEqual(self.raw(b""), b"")

    def test_the_server_answers_a_well_formed_request_after_all_of_that(self):
        self.assertEqual(self.post(request()).status, 200)

    def test_what_http_server_itself_would_refuse_in_html_is_refused_in_json(self):
        handler = streamable_http.RequestHandler.__new__(streamable_http.RequestHandler)  # serving no connection
        near, far = socket.socketpair()
        self.addCleanup(near.close)
        self.addCleanup(far.close)
        handler.server, handler.connection, handler.wfile = self.server, near, io.BytesIO()
        handler.client_address, handler.request_version, handler.command = ("127.0.0.1", 1), "HTTP/1.1", "GET"
        handler.requestline, handler.headers = "GET / HTTP/1.1", http.client.HTTPMessage()
        handler.close_connection = False
        with self.assertLogs("osfoundry.mcp", logging.DEBUG):
            handler.send_error(400, "Bad request syntax ('x')")
        written = handler.wfile.getvalue()
        self.assertJsonRefusal(written, 400)
        self.assertIn(b"Bad Request: Bad request syntax", written)
        self.assertTrue(handler.close_connection)


class AbsoluteTargetTest(ServerCase, Refusals):
    """An absolute-form target (POST http://HOST/mcp) names a host as Host does, and is checked as Host is: on a
    loopback server only a loopback host is answered (421 otherwise), and a malformed one is refused (400)."""

    def status_of(self, target: str, host: str = "127.0.0.1") -> bytes:
        body = request()
        head = (f"POST {target} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode("latin-1")
        return self.raw(head + body)

    def test_a_target_naming_another_host_is_misdirected_whatever_the_host_header_says(self):
        for target in ("http://attacker.example/mcp", "HTTP://attacker.example:80/mcp",
                       "http://localhost.attacker.example/mcp", "https://10.0.0.1/mcp?x=1"):
            with self.subTest(target=target):
                body = self.assertJsonRefusal(self.status_of(target), 421)
                self.assertIn("loopback", body["error"]["message"])
        self.assertEqual(self.handler.calls, [])

    def test_a_target_naming_this_machine_is_served(self):
        for target in (f"http://127.0.0.1:{self.port}/mcp", "http://localhost/mcp", "http://[::1]:1/mcp"):
            with self.subTest(target=target):
                self.assertTrue(self.status_of(target).startswith(b"HTTP/1.1 200 "), target)

    def test_a_malformed_target_or_one_with_a_user_is_400(self):
        for target in ("http://127.0.0.1@attacker.example/mcp", "http://attacker.example@127.0.0.1/mcp",
                       "ftp://127.0.0.1/mcp", "http://127.0.0.1:port/mcp", "http:///mcp", "http://[x/mcp"):
            with self.subTest(target=target):
                self.assertJsonRefusal(self.status_of(target), 400)
        self.assertEqual(self.handler.calls, [])

    def test_a_path_that_starts_with_two_slashes_is_a_path_not_a_host(self):
        self.assertTrue(self.status_of("//attacker.example/mcp").startswith(b"HTTP/1.1 404 "))


class LoggedMessageTest(unittest.TestCase):
    def test_a_logged_message_keeps_its_tool_arguments_but_not_what_looks_like_a_credential(self):
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "search_knowledge_base", "arguments": {"query": "reset password", "api_key": "k-123-secret"},
            "_meta": {"authorization": "Bearer meta-secret", "progressToken": 7}, "access_token": "top-secret"}}
        self.assertEqual(protocol.redacted(message), {
            "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "search_knowledge_base", "arguments": {"query": "reset password", "api_key": "[redacted]"},
            "_meta": {"authorization": "[redacted]", "progressToken": "[redacted]"}, "access_token": "[redacted]"}})
        self.assertEqual(protocol.redacted({"a": {"b": {"c": {"token": "deeper"}}}}),
                         {"a": {"b": {"c": {"token": "deeper"}}}}, "three objects deep at most")
        logged = protocol.loggable_message({"params": {"password": "p-secret", "text": "x" * 1000}}, 300)
        self.assertTrue(logged.startswith('{"params": {"password": "[redacted]", "text": "xxx'), logged)
        self.assertNotIn("p-secret", logged)
        self.assertEqual((len(logged), logged[-3:]), (300, "..."))  # as long as the limit, not the 80 of a value
        logged = protocol.loggable_message({"method": "ping\n\u2028\u202e\u0085", "params": {"\ud800": 1}})
        self.assertTrue(logged.isascii() and logged.isprintable(), logged)  # no character can begin a log line

    def test_handle_logged_logs_the_message_without_credentials_and_the_caller(self):
        class Answering:
            def handle(self, message: Any, grant: Any, protocol_version: Any) -> Dict[str, Any]:
                return {"jsonrpc": "2.0", "id": 1, "result": {}}

        message = {"id": 1, "method": "tools/list", "params": {"_meta": {"token": "t-secret"}}}
        with self.assertLogs("osfoundry.mcp", logging.DEBUG) as logs:
            answer = command_line.handle_logged(Answering(), message, ALICE)  # type: ignore[arg-type]
        self.assertEqual(answer["id"], 1)
        self.assertIn("tools/list", logs.output[0])
        self.assertIn("from \"alice\"", logs.output[0])
        self.assertNotIn("t-secret", logs.output[0])


if __name__ == "__main__":
    unittest.main()
