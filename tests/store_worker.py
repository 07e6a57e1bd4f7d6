"""A separate process editing a shared store file, for the concurrency and crash tests of both stores.

    python3 tests/store_worker.py KIND cas PATH SUBJECT NAME SUCCESSES SECONDS START_AT
        from the wall time START_AT, read, then edit with the version read, until SUCCESSES edits
        saved (or 40x as many tries, or SECONDS passed); prints one JSON line per attempt
    python3 tests/store_worker.py KIND same-key PATH SUBJECT VERSION START_AT
        waits until the wall time START_AT, sends one edit with idempotency key "shared", prints the result
    python3 tests/store_worker.py KIND crash PATH SUBJECT VERSION
        sends one edit that stops inside its transaction just before storing its key, prints "inside", sleeps

PATH is a store file or a postgresql:// URL. KIND is "kb" (SUBJECT an article of kb-support) or "record" (SUBJECT an
item of bugs; its title is edited).
"""

import json
import os
import sys
import time
from typing import Any, Dict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from osfoundry_tools.stores import kb_store  # noqa: E402
from osfoundry_tools.stores import record_store  # noqa: E402


class KnowledgeBaseSide:
    """How an agent reads and edits one article of kb-support."""

    connect = staticmethod(kb_store.connect)
    TABLE = "articles"  # where the edited row lives

    @staticmethod
    def version(text: str) -> Any:
        return text

    @staticmethod
    def read(store: Any, subject: str) -> Dict[str, Any]:
        result = store.call_tool("read_knowledge_article", {"knowledge_base_id": "kb-support", "article_id": subject})
        return {"version": result["updated_at"], "content": result["content"]}

    @staticmethod
    def edit(store: Any, subject: str, version: Any, key: str, content: str) -> Dict[str, Any]:
        return store.call_tool("edit_knowledge_article", {"knowledge_base_id": "kb-support", "article_id": subject,
                                                          "content": content, "expected_version": version,
                                                          "idempotency_key": key})

    @staticmethod
    def saved(result: Dict[str, Any]) -> Any:
        return result["citation"]["updated_at"]


class RecordSide:
    """How an agent reads and edits the title of one item of bugs."""

    connect = staticmethod(record_store.connect)
    TABLE = "items"

    @staticmethod
    def version(text: str) -> Any:
        return int(text)

    @staticmethod
    def read(store: Any, subject: str) -> Dict[str, Any]:
        result = store.call_tool("read_record_item", {"record_channel_id": "bugs", "item_id": subject})
        return {"version": result["version"], "content": result["values"]["title"]}

    @staticmethod
    def edit(store: Any, subject: str, version: Any, key: str, content: str) -> Dict[str, Any]:
        return store.call_tool("edit_record_item", {"record_channel_id": "bugs", "item_id": subject,
                                                    "values": {"title": content}, "expected_version": version,
                                                    "idempotency_key": key})

    @staticmethod
    def saved(result: Dict[str, Any]) -> Any:
        return result["version"]


SIDES = {"kb": KnowledgeBaseSide, "record": RecordSide}


def compare_and_swap_loop(side, store, subject, name, successes, seconds, start_at):
    time.sleep(max(0.0, float(start_at) - time.time()))
    deadline, saved, tries = time.monotonic() + float(seconds), 0, 0
    while saved < int(successes) and tries < 40 * int(successes) and time.monotonic() < deadline:
        tries += 1
        version = side.read(store, subject)["version"]
        content = f"{name} try {tries}"
        result = side.edit(store, subject, version, f"{name}-{tries}", content)
        won = "error" not in result
        print(json.dumps({"expected": version, "content": content, "result": result,
                          "saved": side.saved(result) if won else None}), flush=True)
        saved += won


def same_key(side, store, subject, version, start_at):
    time.sleep(max(0.0, float(start_at) - time.time()))
    print(json.dumps(side.edit(store, subject, side.version(version), "shared", "Everyone sends this.")), flush=True)


def crash(side, store, subject, version):
    def pause(statement):
        if statement.startswith(("INSERT INTO idempotency_keys", "UPDATE idempotency_keys")):  # sqlite's, PostgreSQL's
            print("inside", flush=True)
            time.sleep(60)
    connection = store.database.connection
    if hasattr(connection, "set_trace_callback"):
        connection.set_trace_callback(pause)
    else:  # PostgreSQL: the same pause, before the statement runs
        execute = connection.execute
        connection.execute = lambda statement, *arguments: (pause(statement), execute(statement, *arguments))[1]
    side.edit(store, subject, side.version(version), "crash-key", "Never committed.")


def main(kind, mode, path, subject, *rest):
    side = SIDES[kind]
    store = side.connect(path)
    {"cas": compare_and_swap_loop, "same-key": same_key, "crash": crash}[mode](side, store, subject, *rest)


if __name__ == "__main__":
    main(*sys.argv[1:])
