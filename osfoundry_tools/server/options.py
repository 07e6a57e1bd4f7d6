"""The MCP server command's options: each explained, each checked, and all checked together before anything is
opened, so that a bad one costs one line on stderr and exit status 2.

Layer: server, below command_line.py; the token file and the approval key are read here, as options.
"""

import argparse
import functools
import os
import secrets
import shlex
from typing import Any, Optional, Sequence, Tuple

from osfoundry_tools import cli
from osfoundry_tools.cli import OneLineParser, kind_of
from osfoundry_tools.content import demo, own_content
from osfoundry_tools.core import checks
from osfoundry_tools.core.tools import DEFAULT_CALLER
from osfoundry_tools.engines import database
from osfoundry_tools.server import approval, http_front, http_workers, shown_change, streamable_http, tokens
from osfoundry_tools.server.workspace import SERVED
from osfoundry_tools.stores import kb_rerank, record_fields, record_store

# ---------------------------------------------------------------------------
# The command line.


def seconds(text: str) -> float:
    """A positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return value


def caller_name(text: str) -> str:
    """A caller's name: 1 to checks.ID_CHARACTERS printable characters, as a store takes it."""
    if not 0 < len(text) <= checks.ID_CHARACTERS or not text.isprintable():
        raise argparse.ArgumentTypeError(f"{text!r} is not a caller name of 1 to {checks.ID_CHARACTERS} printable "
                                         "characters")
    return text


PROG = "mcp_server.py"  # the command's name in its messages, unless started by another name (osfoundry-mcp)


def parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The command line, each option explained."""
    p = OneLineParser(prog=prog, description=(
        "Serve the seven osFoundry tools (knowledge bases and record channels) over MCP: on stdio by default "
        "(newline-delimited JSON-RPC on stdin and stdout, logs on stderr), or over Streamable HTTP with --http. "
        "Give --demo, a database file, your own content (--kb-from-dir, --channel-from), or several of them."))
    p.add_argument("--demo", action="store_true", help=(
        f"serve a demo workspace: knowledge base {demo.KNOWLEDGE_BASE} (a help centre of {demo.ARTICLES} "
        f"published articles in English on accounts, billing, integrations and troubleshooting, beside "
        f"{demo.DRAFTS} drafts and {demo.UNPUBLISHED} unpublished one) and "
        f"the bug tracker channel {demo.CHANNEL} ({demo.ITEMS} New items); in memory, unless a database "
        "file below is given, in which case the demo is written into it, whole, if the file does not hold it yet, "
        "and served as found if it does"))
    p.add_argument("--kb-db", metavar="PATH", help="a knowledge-base database file, created if absent; several "
                   "processes may share it (default: in memory); or a postgresql:// URL, which servers on several "
                   "machines may share (needs psycopg 3)")
    p.add_argument("--records-db", metavar="PATH", help="a record-channel database file, created if absent "
                   "(default: in memory), which must differ from --kb-db; or a postgresql:// URL, which may be the "
                   "same database as --kb-db's (each store keeps a schema of its own)")
    p.add_argument("--kb-from-dir", metavar="DIR", action="append", help=(
        "serve a folder of Markdown files as a knowledge base, repeatable: one article per .md file (subfolders "
        "too), titled by its front matter's title: (else its first '# ' heading, else its file name), a draft if "
        "its front matter says draft: true; the knowledge base's ID is the folder's name, each article's its "
        "path in the folder without .md, both lower-cased with Latin letters' accents dropped, other scripts' "
        "letters kept and other ASCII characters than a-z, 0-9, _ and - as - (a folder 'My Docs' serves my-docs). "
        "Every file is checked "
        "before anything is written; with --kb-db, it is written into the file only if that knowledge base is "
        "not there yet (one that is, is served as found)"))
    p.add_argument("--channel-from", metavar=("ROWS", "FIELDS"), nargs=2, action="append", help=(
        "serve a record channel, repeatable: ROWS a CSV file (a header row of field keys, one item per row) or "
        "a JSON Lines file (.jsonl, one object per line), FIELDS a JSON file of its field definitions (a list "
        "as create_channel takes them, or {\"name\": ..., \"fields\": [...]}); the channel's ID is ROWS's "
        "name without extension. Every row is checked before anything is written; with --records-db, it is "
        "written into the file only if that channel is not there yet (one that is, is served as found)"))
    p.add_argument("--grant-kb", metavar="ID", action="append", help="a knowledge base the agent may use; "
                   "repeat for several (default: all); others answer not_found, as if absent")
    p.add_argument("--grant-channel", metavar="ID", action="append", help="a record channel the agent may use; "
                   "repeat for several (default: all)")
    p.add_argument("--no-write-scope", dest="scopes", action="store_const", const=(),
                   default=(record_store.WRITE_SCOPE,), help=f"connect without the {record_store.WRITE_SCOPE} "
                   "OAuth scope: edit_knowledge_article and edit_record_item then answer forbidden (reads need no "
                   "scope)")
    p.add_argument("--rejection-detail", choices=record_fields.DETAILS, default="labels", help=(
        "how much a failed record edit says: terse (the code only), field (the keys), values (what each allows), "
        "labels (also each option's label; the default)"))
    p.add_argument("--people-edit-every", metavar="SECONDS", type=seconds, help=(
        "with --demo: every SECONDS, a simulated colleague saves a random published article and moves a random "
        "item (new status or owner), so the agent meets stale citations and version conflicts"))
    p.add_argument("--seed", type=int, help=f"with --demo: the seed the demo's content is drawn from (default "
                   f"{demo.SEED})")
    p.add_argument("--caller", metavar="NAME", type=caller_name, default=DEFAULT_CALLER, help=(
        "who the agent is: its idempotency keys are its own, so two servers with different callers on one "
        f"database never meet each other's keys (default {DEFAULT_CALLER})"))
    p.add_argument("--durability", choices=tuple(database.DURABILITY), default=database.DURABILITY_DEFAULT, help=(
        "full: every acknowledged edit survives a power cut (the default); normal: faster, an edit survives the "
        "server being killed, but a power cut may lose the last ones"))
    p.add_argument("--read-only", action="store_true", help=(
        "serve the database files for reading only: searches, reads, listings and polls work, edits answer "
        "read_only (a file this process may not write is served so anyway)"))
    p.add_argument("--http", metavar="[HOST:]PORT", type=http_address, help=(
        "serve MCP's Streamable HTTP at http://HOST:PORT/mcp instead of stdio (HOST defaults to 127.0.0.1; port 0 "
        "picks a free one, logged at startup); a HOST other than a loopback address needs --tokens"))
    p.add_argument("--tokens", metavar="FILE", help=(
        "with --http: a JSON file mapping each bearer token to its grant, {\"TOKEN\": {\"caller\": NAME, "
        "\"knowledge_bases\": [IDs] or \"*\", \"channels\": [IDs] or \"*\", \"scopes\": [\"osfoundry:write\"]}}; "
        "a request without a valid token is refused (401). It replaces --grant-kb, --grant-channel, "
        "--no-write-scope and --caller, and must belong to this user (or root) and not be readable by other "
        "users (chmod 600). Each token is 16 to 512 visible ASCII characters, hard to guess: make each with "
        "openssl rand -hex 32"))
    p.add_argument("--allow-origin", metavar="ORIGIN", action="append", help=(
        "with --http: a browser Origin allowed besides the loopback ones, e.g. https://app.example (repeatable); "
        "requests from any other Origin are refused (403), against DNS rebinding"))
    p.add_argument("--workers", metavar="N", type=workers, default=1, help=(
        f"with --http: serve from N processes sharing the port, 1 to {http_workers.MAX_WORKERS} (default 1); each "
        "opens the databases itself, so they must be files or PostgreSQL, and each has the limits below. One "
        "process runs Python one thread at a time: more workers serve more calls at once, up to the cores"))
    p.add_argument("--approve-writes", action="store_true", help=(
        "put every agent write (edit_knowledge_article, edit_record_item) to a person before it is saved, through "
        "MCP elicitation: the request shows every character the change would make, each changed line, title or "
        "field as - old and + new lines with the changed words between « and » in their context, whitespace, "
        "line ends and look-alike letters that change marked; the person approves or declines, and nothing is "
        "saved without an approval of that exact change. A change that cannot be shown whole (more than "
        f"{shown_change.SPAN_CHARACTERS} characters changed in one place, or a request of more than "
        f"{shown_change.QUESTION_CHARACTERS} characters) is refused, change_too_large_to_approve, nobody asked. "
        "A client that cannot ask its user gets every write refused. With --tokens, a token's "
        "\"approve_writes\": true holds that token's agent alone"))
    p.add_argument("--approval-timeout", metavar="SECONDS", type=approval_seconds, default=approval.APPROVAL_SECONDS,
                   help=f"how long a person may take to answer an approval request, up to a day (default "
                   f"{approval.APPROVAL_SECONDS:g}); past it the write is answered declined (no answer) and nothing "
                   "is saved")
    p.add_argument("--approval-key-file", metavar="FILE", help=(
        "a private file (chmod 600) holding the key, 16 bytes or more, that seals approval requests "
        "(MCP 2026-07-28's requestState): servers given the same file accept each other's, so several "
        "machines can serve one workspace. Default: a random key per server start, which its --workers share"))
    p.add_argument("--http-grace-seconds", metavar="SECONDS", type=grace_seconds, help=(
        "with --http: on SIGTERM or Ctrl-C, how long the requests in progress may take to finish (default "
        f"{streamable_http.GRACE_SECONDS:g}; 0 cuts them at once). Meanwhile idle connections are closed, new "
        "connections and requests are answered 503 with Retry-After, and at its end so is a request still "
        "arriving, and the other connections still open are cut; the server then exits 0 after SIGTERM, 130 "
        "after Ctrl-C, with one line. With --workers, "
        "each worker stops so"))
    p.add_argument("--rerank", action="store_true", help=(
        "re-order each search's best matches by a small local sentence-embedding model (all-MiniLM-L6-v2, run "
        "with numpy; no network): the question's nearness to each match's nearest section, blended with the "
        f"words' score. Needs the extra: `{kb_rerank.MAKE_TARGET}` installs it into .venv"))
    p.add_argument("--rerank-model", metavar="DIR", help=(
        "with --rerank: a folder holding your own copy of all-MiniLM-L6-v2's model.safetensors and vocab.txt "
        "(checked against the published files' SHA-256) instead of the packaged weights"))
    p.add_argument("--verbose", action="store_true", help=(
        "log the start of every message received on stderr (its first 300 characters, as JSON in ASCII, "
        "credential-like keys' values replaced), and over HTTP each request's method, path and version, never its "
        "query string or a header"))
    limits = p.add_argument_group("limits of the HTTP server", "with --http: what clients, authenticated or not, "
                                  "can make the server hold; BYTES as 4096, 16KiB or 4MiB")
    for field, (unit, meaning) in http_front.LIMITS_EXPLAINED.items():
        default = getattr(http_front.Limits(), field)
        shown = http_front.size(default) if unit == "BYTES" else f"{default:g}"
        limits.add_argument(limit_flag(field), metavar=unit, type=functools.partial(limit_value, unit),
                            help=f"{meaning} (default {shown})")
    return p


def grace_seconds(text: str) -> float:
    """--http-grace-seconds: a number of seconds from 0 to an hour."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds from 0 to 3600")
    return value


def approval_seconds(text: str) -> float:
    """--approval-timeout: a positive number of seconds up to a day."""
    value = seconds(text)
    if value > 86_400:
        raise argparse.ArgumentTypeError(f"{text!r} is more than a day (86400 seconds)")
    return value


def check_approval(p: argparse.ArgumentParser, options: argparse.Namespace) -> None:
    """The key that seals approval requests, read now (one line if the file is refused), else made for this start
    (before any worker is forked, so that all share it); a changed --approval-timeout where no write can be put to
    a person (no --approve-writes, no --tokens whose grants could ask for it) is refused, as it would time nothing."""
    if options.approval_timeout != approval.APPROVAL_SECONDS and not options.approve_writes and options.tokens is None:
        p.error("--approval-timeout times a person's answer to a write put to them: add --approve-writes (or --tokens "
                'with a token whose grant has "approve_writes": true)')
    if options.approval_key_file is None:
        options.approval_key = secrets.token_bytes(approval.KEY_BYTES)
        return
    try:
        options.approval_key = approval.load_key(options.approval_key_file, read_private_key)
    except FileNotFoundError as error:
        p.error(f"--approval-key-file: {options.approval_key_file}: {error.strerror}; make the key once with: "
                f"(umask 077; openssl rand -hex 32 > {shlex.quote(options.approval_key_file)})")
    except OSError as error:
        p.error(f"--approval-key-file: {options.approval_key_file}: {error.strerror or error}")
    except ValueError as error:
        p.error(f"--approval-key-file: {error}")


def read_private_key(path: str) -> bytes:
    """A key file's bytes: a regular file of 4 KiB at most that no other user may read (as a token file)."""
    try:
        return cli.read_file(path, 4096, lambda status: tokens.check_private(path, status))
    except cli.FileTooLarge:
        raise ValueError(f"{path} is larger than 4 KiB: a key file holds one key") from None
    except cli.FileRefused as refused:
        raise ValueError(f"{path}: {refused}; give the path of a file holding the key") from None
    except ValueError as refused:
        raise ValueError(f"{path} {refused}") from None


def workers(text: str) -> int:
    """--workers' N."""
    count = http_workers.worker_count(text)
    if count is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of workers from 1 to "
                                         f"{http_workers.MAX_WORKERS}")
    return count


def limit_flag(field: str) -> str:
    """The option of one of http_front.Limits: --http-max-connections for max_connections."""
    return "--http-" + field.replace("_", "-")


def limit_value(unit: str, text: str) -> Any:
    """A limit's value: N a whole number from 1 to 1,000,000, BYTES a size up to 1 GiB, SECONDS up to a day."""
    if unit == "BYTES":
        try:
            return http_front.parse_size(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    if unit == "SECONDS":
        if seconds(text) <= 86_400:
            return seconds(text)
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds up to 86400")
    digits = text.strip()
    if digits.isascii() and digits.isdigit() and 0 < int(digits) <= 1_000_000:
        return int(digits)
    raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 1 to 1000000")


def parse_options(argv: Optional[Sequence[str]] = None, prog: str = PROG) -> argparse.Namespace:
    """The options, checked together; a bad one exits with status 2 and one line on stderr."""
    p = parser(prog)
    options = p.parse_args(argv)
    options.kb_from_dir, options.channel_from = options.kb_from_dir or [], options.channel_from or []
    content = options.kb_from_dir or options.channel_from
    if not (options.demo or options.kb_db or options.records_db or content):
        p.error("nothing to serve: give --demo, --kb-db and/or --records-db, or --kb-from-dir or --channel-from")
    if not options.demo and (options.people_edit_every or options.seed is not None):
        p.error("--people-edit-every and --seed act on the demo workspace: add --demo")
    if options.read_only and (options.demo or content or not (options.kb_db and options.records_db)):
        p.error("--read-only serves existing files: give --kb-db and --records-db, without --demo, --kb-from-dir "
                "or --channel-from")
    check_sources(p, options)
    for flag, path in (("--kb-db", options.kb_db), ("--records-db", options.records_db)):
        if path and database.is_postgres(path):
            continue
        if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            p.error(f"{flag}: the folder of {path!r} does not exist")
        if path and os.path.exists(path) and not os.path.isfile(path):  # a folder, a FIFO, a device: never opened
            p.error(f"{flag}: {path!r} is {kind_of(os.stat(path).st_mode)}, not a database file")
    if options.kb_db and options.records_db and not database.is_postgres(options.kb_db) and \
            same_file(options.kb_db, options.records_db):
        p.error("--kb-db and --records-db must be different files (each store keeps its own event logs)")
    if options.seed is None:
        options.seed = demo.SEED
    check_http(p, options)
    check_approval(p, options)
    check_rerank(p, options)
    return options


def check_rerank(p: argparse.ArgumentParser, options: argparse.Namespace) -> None:
    """--rerank: the re-ranker made (its weights checked and loaded) into options.reranker, or one line naming what
    to install."""
    options.reranker = None
    if options.rerank_model and not options.rerank:
        p.error("--rerank-model names the re-ranker's weights: add --rerank")
    if options.rerank:
        try:
            options.reranker = kb_rerank.Reranker(options.rerank_model)
        except kb_rerank.RerankNotInstalled as missing:  # its advice fits mcp_server.py in a checkout
            p.error(str(missing) if p.prog.endswith(".py")
                    else kb_rerank.MISSING.format(install=rerank_install(p.prog)))
        except kb_rerank.RerankUnavailable as unusable:
            p.error(str(unusable))


def rerank_install(prog: str) -> str:
    """How to install the re-ranker's extra for the server started as `prog` other than mcp_server.py (whose
    advice, make rerank in the checkout, is kb_rerank.IN_A_CHECKOUT): run as a module, or installed as a command."""
    if prog.startswith("python3 -m "):
        return (f"run `{kb_rerank.MAKE_TARGET}` in the checkout, then start the server with .venv/bin/python -m "
                f"{prog[len('python3 -m '):]} --rerank; or pip install '.[rerank]' into the Python that runs it")
    return (f"install {prog} again with its rerank extra, from the checkout: pip install '.[rerank]' into its "
            f"environment, pipx install --force '.[rerank]', or uvx --from '.[rerank]' {prog} --rerank")


def check_http(p: argparse.ArgumentParser, options: argparse.Namespace) -> None:
    """--tokens, --allow-origin and the limits only with --http, the limits gathered into options.http_limits, a
    token file in place of the command line's grant, a host beyond this machine only with tokens; the token file
    read now (one line if it is refused)."""
    limits = {field: getattr(options, f"http_{field}") for field in http_front.Limits._fields
              if getattr(options, f"http_{field}") is not None}
    if options.http is None:
        for flag, given in (("--tokens", options.tokens), ("--allow-origin", options.allow_origin),
                            ("--workers", options.workers != 1), ("--http-grace-seconds",
                                                                   options.http_grace_seconds is not None),
                            *((limit_flag(field), True) for field in limits)):
            if given:
                p.error(f"{flag} acts on the HTTP transport: add --http [HOST:]PORT")
        return
    options.http_limits = http_front.Limits(**limits)
    if options.http_grace_seconds is None:
        options.http_grace_seconds = streamable_http.GRACE_SECONDS
    check_workers(p, options)
    problem = options.http_limits.problem()
    if problem is not None:
        p.error(f"{limit_flag('body_budget')}: {problem} ({limit_flag('max_body')})")
    host, _ = options.http
    if options.tokens is None:
        if not streamable_http.is_loopback(host):
            p.error(f"--http {host}: serving beyond this machine needs --tokens FILE, so that every request carries "
                    "a token and its grant")
        return
    commanded = [flag for flag, given in (("--grant-kb", options.grant_kb), ("--grant-channel", options.grant_channel),
                                          ("--no-write-scope", options.scopes != (record_store.WRITE_SCOPE,)),
                                          ("--caller", options.caller != DEFAULT_CALLER)) if given]
    if commanded:
        p.error(f"--tokens gives each token its own caller, grant and scopes: leave out {', '.join(commanded)}")
    try:
        options.tokens = tokens.Tokens.load(options.tokens, tokens.grant_keys(SERVED))
    except tokens.TokenFileError as refused:
        p.error(f"--tokens: {refused}")


def check_workers(p: argparse.ArgumentParser, options: argparse.Namespace) -> None:
    """More than one worker only where processes can be forked, and on databases every worker can open: files or
    PostgreSQL, not memory, which one process alone sees."""
    if options.workers == 1:
        return
    if not http_workers.can_fork():
        p.error("--workers: this platform cannot fork processes (Windows): run several servers behind a load "
                "balancer instead")
    in_memory = [flag for flag, path in (("--kb-db", options.kb_db), ("--records-db", options.records_db))
                 if not path or path == ":memory:"]
    if in_memory:
        p.error(f"--workers {options.workers}: each worker opens the databases itself, and a database in memory "
                f"is one process's alone: give {' and '.join(in_memory)} a file or a postgresql:// URL")


def http_address(text: str) -> Tuple[str, int]:
    """[HOST:]PORT, the host 127.0.0.1 unless given ([::1]:8765 for an IPv6 one), the port 0 to 65535."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not [HOST:]PORT with a port from 0 to 65535, e.g. 8765 or "
                                         "127.0.0.1:8765")
    return host, int(port)


def check_sources(p: argparse.ArgumentParser, options: argparse.Namespace) -> None:
    """Each --kb-from-dir a folder, each --channel-from a .csv or .jsonl file and a field file, and no two
    sources (the demo's included) of one ID; what the files hold is checked when the workspace opens."""
    demo_sources = [("knowledge base", demo.KNOWLEDGE_BASE, "--demo"),
                    ("record channel", demo.CHANNEL, "--demo")] if options.demo else []
    try:
        own_content.check_paths(options.kb_from_dir, options.channel_from, demo_sources)
    except own_content.ContentError as problem:
        p.error(str(problem))


def same_file(first: str, second: str) -> bool:
    """Whether two paths name one file: the same path, a symbolic link or a hard link to it."""
    if os.path.exists(first) and os.path.exists(second):
        return os.path.samefile(first, second)
    return os.path.realpath(first) == os.path.realpath(second)
