"""The official MCP Python SDK's side of the round-trip benchmark: one tool, read_knowledge_article, on the demo.

Run it through benchmark/round_trips.py, which finds an interpreter with the `mcp`
package (this one, or .venv's that `make conformance` creates):

    python3 -m benchmark.round_trips --sdk --count 500
    python3 -m benchmark.round_trips --sdk --http --count 500
    .venv/bin/python benchmark/sdk_server.py          # by hand: an MCP server on stdio, until stdin closes
    .venv/bin/python benchmark/sdk_server.py --http   # Streamable HTTP on 127.0.0.1, a free port, until stopped

An MCP client starts it by its path, from any folder, so it puts the project's
root on the import path itself before it imports the product.

Layer: a client of kb_store.py and mcp_demo.py, like mcp_server.py, but the
protocol is the SDK's (mcp 2.x, MCPServer). It serves the knowledge base of
`mcp_server.py --demo` (same seed, so round_trips.demo_article() reads the same
article) and answers each call with the store's own call_tool(), returned as the
SDK's structured result: the same store work as ours, so the difference between
the two benchmarks is protocol overhead. Nothing else is served.

With --http it serves the SDK's own Streamable HTTP instead, as `run("streamable-http")`
starts it (uvicorn; its log on stderr names the port, and it writes an access line
per request on stdout): on 127.0.0.1 at a free port, stateless (no session, as
ours) and answering each POST with one JSON body rather than an event stream (as
ours). Stop it with SIGINT or SIGTERM.

Left out on purpose: the other six tools, the record store, the lock (one
coroutine at a time touches the store), options. The tool is `async def` so the
SDK calls it on its event loop, as ours calls the store in line; a plain `def`
would add the SDK's hop to a worker thread on every call.
"""

import json
import os
import sys
from typing import Any, List, Optional

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the project's root, run by path

try:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    SDK_MISSING = False
except ImportError:  # the SDK is optional: make conformance installs it into .venv
    SDK_MISSING = True

import kb_store  # noqa: E402  (after the root is on the path)
from cli import EXIT_OK, EXIT_USAGE, OneLineParser  # noqa: E402
import mcp_demo  # noqa: E402

TOOL = "read_knowledge_article"
HOST = "127.0.0.1"


def demo_store() -> kb_store.KnowledgeBaseStore:
    """The knowledge base of mcp_server.py --demo, in memory, from the demo's default seed."""
    store = kb_store.connect(":memory:")
    mcp_demo.write_knowledge_base(store, mcp_demo.draw_plan(mcp_demo.SEED))
    return store


def build_server(store: kb_store.KnowledgeBaseStore) -> "MCPServer":
    """An MCPServer with one tool that hands its arguments to the store and returns the store's answer."""
    (definition,) = [d for d in store.list_tools() if d["name"] == TOOL]
    server = MCPServer("bench-sdk-server", instructions="One tool, read_knowledge_article, for round_trips.py.")

    async def read_knowledge_article(knowledge_base_id: str, article_id: str) -> dict[str, Any]:
        answer = store.call_tool(TOOL, {"knowledge_base_id": knowledge_base_id, "article_id": article_id})
        if "error" in answer:  # a rejection is an error result, as in mcp_server.py
            raise ToolError(json.dumps(answer, ensure_ascii=False))
        return answer

    server.add_tool(read_knowledge_article, name=TOOL, title=definition["title"],
                    description=definition["description"])
    return server


def serve_http(server: "MCPServer") -> None:
    """The SDK's own Streamable HTTP on HOST at a free port (port 0), stateless, each answer one JSON body."""
    server.run("streamable-http", host=HOST, port=0, json_response=True, stateless_http=True)


def parser() -> OneLineParser:
    p = OneLineParser(prog="benchmark/sdk_server.py", description=(
        f"Serve {TOOL} on the demo's knowledge base through the official MCP SDK: on stdio, or with --http over "
        "its Streamable HTTP."))
    p.add_argument("--http", action="store_true", help=f"serve Streamable HTTP on {HOST} at a free port, which the "
                   "log on stderr names (stateless, JSON answers), until SIGINT or SIGTERM")
    return p


def main(argv: Optional[List[str]] = None) -> int:
    """Serve on stdio until stdin closes, or over HTTP until stopped; 2 without the mcp package."""
    options = parser().parse_args(argv)
    if SDK_MISSING:
        print("benchmark/sdk_server.py: error: needs the mcp package (Python >= 3.10); make conformance installs "
              "it in .venv: .venv/bin/python benchmark/sdk_server.py", file=sys.stderr)
        return EXIT_USAGE
    server = build_server(demo_store())
    if options.http:
        serve_http(server)
    else:
        server.run("stdio")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
