"""The official MCP Python SDK's side of the round-trip and load benchmarks: the demo's knowledge base, read, searched
and edited.

Run it through benchmark/round_trips.py, which finds an interpreter with the `mcp`
package (this one, or .venv's that `make conformance` creates):

    python3 -m benchmark.round_trips --sdk --count 500
    python3 -m benchmark.round_trips --sdk --http --count 500
    .venv/bin/python benchmark/sdk_server.py          # by hand: an MCP server on stdio, until stdin closes
    .venv/bin/python benchmark/sdk_server.py --http   # Streamable HTTP on 127.0.0.1, a free port, until stopped
    .venv/bin/python benchmark/sdk_server.py --http --kb-db /tmp/kb.db   # the demo written into a database file

An MCP client starts it by its path, from any folder, so it puts the project's
root on the import path itself before it imports the product.

Layer: a client of kb_store.py and mcp_demo.py, like mcp_server.py, but the
protocol is the SDK's (mcp 2.x, MCPServer). It serves the knowledge base of
`mcp_server.py --demo` (same seed, so round_trips.demo_article() reads the same
article), in memory or, with --kb-db, in a database file as `mcp_server.py --demo
--kb-db` keeps it, and answers each call of its three tools (read_knowledge_article,
search_knowledge_base, edit_knowledge_article) with the store's own call_tool(),
returned as the SDK's structured result: the same store work as ours, so the
difference between the two benchmarks is protocol overhead. Nothing else is served.

With --http it serves the SDK's own Streamable HTTP instead, as `run("streamable-http")`
starts it (uvicorn; its log on stderr names the port, and it writes an access line
per request on stdout): on 127.0.0.1 at a free port, stateless (no session, as
ours) and answering each POST with one JSON body rather than an event stream (as
ours). Stop it with SIGINT or SIGTERM.

Left out on purpose: the other four tools, the record store, the lock (one
coroutine at a time touches the store), other options. The tools are `async def`
so the SDK calls them on its event loop, as ours calls the store in line; a plain
`def` would add the SDK's hop to a worker thread on every call.
"""

import json
import os
import sys
from typing import Any, Dict, List, Optional

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the project's root, run by path

try:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    SDK_MISSING = False
except ImportError:  # the SDK is optional: make conformance installs it into .venv
    SDK_MISSING = True

from osfoundry_tools.stores import kb_store  # noqa: E402  (after the root is on the path)
from osfoundry_tools.cli import EXIT_OK, EXIT_USAGE, OneLineParser  # noqa: E402
from osfoundry_tools.content import demo  # noqa: E402

TOOL = "read_knowledge_article"
HOST = "127.0.0.1"


def demo_store(path: str = ":memory:") -> kb_store.KnowledgeBaseStore:
    """The knowledge base of mcp_server.py --demo, from the demo's default seed: in memory, or in the database file
    at `path` (written into it if it does not hold it yet)."""
    store = kb_store.connect(path)
    if not store.has_knowledge_base(demo.KNOWLEDGE_BASE):
        demo.write_knowledge_base(store, demo.draw_plan(demo.SEED))
    return store


def build_server(store: kb_store.KnowledgeBaseStore) -> "MCPServer":
    """An MCPServer whose tools hand their arguments to the store and return the store's answer."""
    definitions = {d["name"]: d for d in store.list_tools()}
    server = MCPServer("bench-sdk-server", instructions="The demo's knowledge base, for round_trips.py and "
                       "http_load.py.")

    def answer(tool: str, arguments: Dict[str, Any]) -> Dict[str, Any]:
        answered = store.call_tool(tool, arguments)
        if "error" in answered:  # a rejection is an error result, as in mcp_server.py
            raise ToolError(json.dumps(answered, ensure_ascii=False))
        return answered

    # The tools' results are annotated dict[str, Any], the builtin generic: the SDK returns that as the structured
    # result itself, where typing.Dict[str, Any] (another kind of alias to it) would be wrapped in {"result": ...}.
    async def read_knowledge_article(knowledge_base_id: str, article_id: str) -> dict[str, Any]:
        return answer(TOOL, {"knowledge_base_id": knowledge_base_id, "article_id": article_id})

    async def search_knowledge_base(knowledge_base_id: str, query: str,
                                    limit: int = kb_store.SEARCH_LIMIT_DEFAULT) -> dict[str, Any]:
        return answer("search_knowledge_base", {"knowledge_base_id": knowledge_base_id, "query": query,
                                                "limit": limit})

    async def edit_knowledge_article(knowledge_base_id: str, article_id: str, content: str, expected_version: str,
                                     idempotency_key: str, title: Optional[str] = None) -> dict[str, Any]:
        arguments = {"knowledge_base_id": knowledge_base_id, "article_id": article_id, "content": content,
                     "expected_version": expected_version, "idempotency_key": idempotency_key}
        return answer("edit_knowledge_article", arguments if title is None else dict(arguments, title=title))

    for tool in (read_knowledge_article, search_knowledge_base, edit_knowledge_article):
        definition = definitions[tool.__name__]
        server.add_tool(tool, name=definition["name"], title=definition["title"],
                        description=definition["description"])
    return server


def serve_http(server: "MCPServer") -> None:
    """The SDK's own Streamable HTTP on HOST at a free port (port 0), stateless, each answer one JSON body."""
    server.run("streamable-http", host=HOST, port=0, json_response=True, stateless_http=True)


def parser() -> OneLineParser:
    p = OneLineParser(prog="benchmark/sdk_server.py", description=(
        "Serve the demo's knowledge base (read, search, edit) through the official MCP SDK: on stdio, or with --http "
        "over its Streamable HTTP."))
    p.add_argument("--http", action="store_true", help=f"serve Streamable HTTP on {HOST} at a free port, which the "
                   "log on stderr names (stateless, JSON answers), until SIGINT or SIGTERM")
    p.add_argument("--kb-db", metavar="PATH", default=":memory:", help="the database file to serve the demo from, "
                   "written into it if it does not hold it yet (default: in memory)")
    return p


def main(argv: Optional[List[str]] = None) -> int:
    """Serve on stdio until stdin closes, or over HTTP until stopped; 2 without the mcp package."""
    options = parser().parse_args(argv)
    if SDK_MISSING:
        print("benchmark/sdk_server.py: error: needs the mcp package (Python >= 3.10); make conformance installs "
              "it in .venv: .venv/bin/python benchmark/sdk_server.py", file=sys.stderr)
        return EXIT_USAGE
    server = build_server(demo_store(options.kb_db))
    if options.http:
        serve_http(server)
    else:
        server.run("stdio")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
