"""A separate process editing a shared knowledge-base file, for the concurrency and crash tests.

    python3 tests/kb_worker.py cas PATH ARTICLE NAME SUCCESSES SECONDS START_AT
        from the wall time START_AT, read, then edit with the version read, until SUCCESSES edits
        saved (or 40x as many tries, or SECONDS passed); prints one JSON line per attempt
    python3 tests/kb_worker.py same-key PATH ARTICLE VERSION START_AT
        waits until the wall time START_AT, sends one edit with idempotency key "shared", prints the result
    python3 tests/kb_worker.py crash PATH ARTICLE VERSION
        sends one edit that stops inside its transaction just before storing its key, prints "inside", sleeps
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import kb_store  # noqa: E402

KB = "kb-support"


def edit(store, article, version, key, content):
    return store.call_tool("edit_knowledge_article", {"knowledge_base_id": KB, "article_id": article,
                                                      "content": content, "expected_version": version,
                                                      "idempotency_key": key})


def compare_and_swap_loop(store, article, name, successes, seconds, start_at):
    time.sleep(max(0.0, float(start_at) - time.time()))
    deadline, saved, tries = time.monotonic() + float(seconds), 0, 0
    while saved < int(successes) and tries < 40 * int(successes) and time.monotonic() < deadline:
        tries += 1
        version = store.call_tool("read_knowledge_article", {"knowledge_base_id": KB, "article_id": article})
        content = f"{name} try {tries}"
        result = edit(store, article, version["updated_at"], f"{name}-{tries}", content)
        print(json.dumps({"expected": version["updated_at"], "content": content, "result": result}), flush=True)
        saved += "error" not in result


def same_key(store, article, version, start_at):
    time.sleep(max(0.0, float(start_at) - time.time()))
    print(json.dumps(edit(store, article, version, "shared", "Everyone sends this.")), flush=True)


def crash(store, article, version):
    def pause(statement):
        if statement.startswith("INSERT INTO idempotency_keys"):
            print("inside", flush=True)
            time.sleep(60)
    store.database.connection.set_trace_callback(pause)
    edit(store, article, version, "crash-key", "Never committed.")


def main(mode, path, article, *rest):
    store = kb_store.connect(path)
    {"cas": compare_and_swap_loop, "same-key": same_key, "crash": crash}[mode](store, article, *rest)


if __name__ == "__main__":
    main(*sys.argv[1:])
