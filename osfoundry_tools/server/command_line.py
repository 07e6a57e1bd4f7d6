"""The MCP server's command (mcp_server.py, osfoundry-mcp, python3 -m osfoundry_tools): serving over stdio, over
HTTP, or from several worker processes, as its options (options.py) say, and stopping on EOF, SIGTERM or Ctrl-C.

A signal that stops a server only marks the stop (stop_on_signals, record_sigterm), never raises where it lands:
the serving loop sees the mark between two connections (HTTP), woken as the signal arrives on whichever thread, or
two messages (stdio) and stops in order. Only a workers' parent, which serves nothing itself, is stopped by an
exception (stop_on_sigterm).

Layer: server, its top.
"""

import argparse
import functools
import logging
import os
import signal
import socket
import sqlite3
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from osfoundry_tools.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, run_main
from osfoundry_tools.content import own_content
from osfoundry_tools.core import rejections
from osfoundry_tools.engines import database
from osfoundry_tools.server import approval, http_workers, sessions, streamable_http, tokens
from osfoundry_tools.server.methods import Server
from osfoundry_tools.server.options import PROG, parse_options
from osfoundry_tools.server.protocol import PROTOCOL_VERSIONS, STATELESS_VERSIONS, loggable_message
from osfoundry_tools.server.stdio import serve
from osfoundry_tools.server.workspace import Workspace, open_workspace

log = logging.getLogger("osfoundry.mcp")


class OneRecordALine(logging.Formatter):
    """A log record whose only line starts are its own: every further line (a traceback's, or a line break a
    client smuggled into an error) is indented under it, and other line separators are escaped."""

    SEPARATORS = {"\r": "\\r", "\x0b": "\\x0b", "\x0c": "\\x0c", "\x1c": "\\x1c", "\x1d": "\\x1d",
                  "\x1e": "\\x1e", "\x85": "\\x85", "\u2028": "\\u2028", "\u2029": "\\u2029"}

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        for separator, escaped in self.SEPARATORS.items():
            text = text.replace(separator, escaped)
        return text.replace("\n", "\n    | ")


def approvals_for(options: argparse.Namespace) -> approval.Approvals:
    """Who must have a person approve each write: every caller with --approve-writes, else only tokens that say
    approve_writes."""
    return approval.Approvals(approval.Seal(options.approval_key), options.approve_writes, options.approval_timeout)


def serve_command(argv: Optional[Sequence[str]] = None, prog: str = PROG) -> int:
    """Serve until stdin closes; 0 on EOF, 2 for bad options, content files that cannot be served, or a database
    that cannot be opened."""
    options = parse_options(argv, prog)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneRecordALine("mcp_server: %(message)s"))
    logging.basicConfig(level=logging.DEBUG if options.verbose else logging.INFO, handlers=[handler])
    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print() must never corrupt the protocol
    started = time.perf_counter()
    listener = None
    if options.http is not None:  # before anything is opened or written: a port taken changes nothing
        try:
            host, port = options.http
            listener = http_workers.listen(host, port, options.http_limits.backlog)
        except OSError as error:
            print(f"{prog}: error: cannot listen on {shown_address(*options.http)}: "
                  f"{os.strerror(error.errno) if error.errno else error}; "
                  "choose another port, or stop the process that holds it", file=sys.stderr)
            return EXIT_USAGE
    try:
        workspace = open_workspace(options)
    except (database.UnusableFile, own_content.ContentError) as error:
        return refused_start(listener, f"{prog}: error: {error}")
    except (sqlite3.DatabaseError, rejections.Rejection) as error:
        return refused_start(listener, f"{prog}: error: cannot open the databases: {error}")
    revisions = f"MCP {', '.join(STATELESS_VERSIONS)} (stateless) and {', '.join(PROTOCOL_VERSIONS)} (initialize)"
    if listener is not None and options.workers > 1:
        return serve_in_workers(options, workspace, listener, f"{revisions}; {workspace.description}", started)
    tools = workspace.tools()
    server = Server(tools, workspace.instructions, approvals_for(options))
    if workspace.colleague is not None:
        workspace.colleague.start()
    if listener is not None:
        return serve_over_http(server, options, workspace, listener, f"{revisions}; {workspace.description}",
                               started)
    log.info("serving %d tools over stdio, %s; %s; ready in %.2f s", len(tools.listing()), revisions,
             workspace.description, time.perf_counter() - started)
    sigterm: List[int] = []
    signal.signal(signal.SIGTERM, functools.partial(record_sigterm, sigterm))
    try:
        serve(server, sys.stdin.buffer, protocol_out, stopping=lambda: bool(sigterm))
        log.info("SIGTERM: stopping" if sigterm else "stdin closed: stopping")
    except BrokenPipeError:  # the client closed our stdout: nobody is left to answer
        os.dup2(os.open(os.devnull, os.O_WRONLY), protocol_out.fileno())  # so the exit's flush cannot fail
        log.info("stdout closed: stopping")
    finally:
        server.hub.stop()
        log_approvals(server)
        workspace.close()
    return EXIT_OK


def log_approvals(server: Server) -> None:
    """At the end, how the approvals went, where any was asked or answered at once."""
    if server.approvals is not None and any(server.approvals.tally.counts.values()):
        log.info("approvals: %s", server.approvals.tally.summary())


def refused_start(listener: Optional[socket.socket], message: str) -> int:
    """A start that cannot go on: the port let go, `message` on stderr, EXIT_USAGE."""
    if listener is not None:
        listener.close()
    print(message, file=sys.stderr)
    return EXIT_USAGE


def serve_over_http(server: Server, options: argparse.Namespace, workspace: Workspace, listener: socket.socket,
                    description: str, started: float, worker: bool = False) -> int:
    """Serve Streamable HTTP on `listener` (bound to options.http) until SIGTERM (0) or Ctrl-C (KeyboardInterrupt,
    once stopped in the same order; a Ctrl-C during a SIGTERM's grace ends the grace, then so). As one worker of
    several (`worker`), without the startup line (the parent says when all serve), and deaf to Ctrl-C (its parent
    stops it with SIGTERM)."""
    host, port = options.http
    shared_folder = getattr(options, "sessions_folder", None)  # the workers' parent's, which removes it
    folder = shared_folder or sessions.new_folder()
    http_options = streamable_http.HttpOptions(host, port, options.tokens, frozenset(options.allow_origin or ()),
                                               options.http_limits, options.http_grace_seconds,
                                               sessions.book_in(folder), server.hub)

    def ready(address: Tuple[str, int]) -> None:
        if worker:
            return
        log.info("serving %d tools over Streamable HTTP at http://%s/mcp, %s; limits: %s; ready in %.2f s",
                 len(server.tools.listing()), shown_address(*address), description, options.http_limits.describe(),
                 time.perf_counter() - started)

    stop = streamable_http.Stop()
    stopped = stop_on_signals(stop, (signal.SIGTERM, signal.SIGINT))
    try:
        streamable_http.serve_http(functools.partial(handle_logged, server), http_options, ready, listener, stop,
                                   announce_stop)
    finally:
        stopped()
        server.hub.stop()
        log_approvals(server)
        workspace.close()
        if shared_folder is None:
            sessions.remove_folder(folder)
        stop.close()
    if stop.reason == "SIGINT" or stop.hurried:
        raise KeyboardInterrupt  # stopped as SIGTERM stops it; the command's one line and status 130 follow
    return EXIT_OK


def announce_stop(reason: Optional[str]) -> None:
    """The line that says the server stops, as its grace begins: none for Ctrl-C, whose line ends the run."""
    if reason == "SIGTERM":
        log.info("SIGTERM: stopping")


def serve_in_workers(options: argparse.Namespace, workspace: Workspace, listener: socket.socket, description: str,
                     started: float) -> int:
    """Serve Streamable HTTP on `listener` from options.workers processes (http_workers) until Ctrl-C or SIGTERM
    (0), each worker that ends by itself replaced, until too many have (EXIT_FAILED, the others stopped).
    `workspace`, opened to check and fill the databases once, is closed before the fork: each worker opens its
    own, the demo's colleague in the first alone."""
    tool_count = len(workspace.tools().listing())
    workspace.close()
    address = listener.getsockname()
    pool = http_workers.Workers(listener, options.workers,
                                stop_seconds=options.http_grace_seconds + http_workers.STOP_MARGIN_SECONDS,
                                backlog=options.http_limits.backlog)
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    options.sessions_folder = sessions.new_folder()  # every worker's sessions, in one book
    work = functools.partial(serve_as_worker, options, description, listener)
    try:
        pool.start(work)
        pool.wait_ready()
        log.info("serving %d tools over Streamable HTTP at http://%s/mcp, %s; %d worker processes, each with "
                 "these limits: %s; ready in %.2f s", tool_count, shown_address(*address[:2]), description,
                 options.workers, options.http_limits.describe(), time.perf_counter() - started)
        pool.supervise(work, lambda line: log.warning("%s", line))
    except http_workers.WorkerEnded as ended:
        log.error("%s", ended)
        return EXIT_FAILED
    finally:
        try:
            pool.stop()
        except KeyboardInterrupt:  # a second Ctrl-C: the workers are cut at once, as one process cuts its requests
            pool.kill()
            raise
        finally:
            sessions.remove_folder(options.sessions_folder)
    return EXIT_OK  # never reached: supervise() ends in WorkerEnded, SIGTERM or Ctrl-C


def serve_as_worker(options: argparse.Namespace, description: str, listener: socket.socket, number: int,
                    ready: Callable[[], None]) -> int:
    """One worker: its own workspace, opened only (the parent filled the databases; the colleague in worker 1
    alone), its log lines named by its number, served on `listener` until SIGTERM (the parent's, on Ctrl-C too);
    a workspace that cannot be opened ends it with one line and status 2."""
    for handler in logging.getLogger().handlers:
        handler.setFormatter(OneRecordALine(f"mcp_server worker {number}: %(message)s"))
    own = argparse.Namespace(**vars(options))
    if number > 1:
        own.people_edit_every = None
    try:
        workspace = open_workspace(own, fill=False)
    except (database.UnusableFile, own_content.ContentError, sqlite3.DatabaseError, rejections.Rejection) as error:
        log.error("cannot open the databases: %s", error)
        return EXIT_USAGE
    server = Server(workspace.tools(), workspace.instructions, approvals_for(own))
    if workspace.colleague is not None:
        workspace.colleague.start()
    ready()
    return serve_over_http(server, own, workspace, listener, description, time.perf_counter(), worker=True)


def shown_address(host: str, port: int) -> str:
    """host:port as a URL writes it: an IPv6 host in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def handle_logged(server: Server, message: Any, grant: Optional[tokens.Grant] = None,
                  protocol_version: Optional[str] = None,
                  session: Optional[sessions.Held] = None) -> Optional[Dict[str, Any]]:
    """Server.handle for one HTTP request, each message logged as stdio logs its lines (with --verbose), the value
    of any key that looks like a credential left out."""
    if log.isEnabledFor(logging.DEBUG):
        log.debug("received %s%s", loggable_message(message),
                  f" from {rejections.loggable(grant.caller)}" if grant is not None else "")
    if session is None:
        return server.handle(message, grant, protocol_version)
    return server.handle(message, grant, protocol_version, session=session)


def stop_on_signals(stop: streamable_http.Stop, numbers: Sequence[int]) -> Callable[[], None]:
    """Make each signal of `numbers` (SIGTERM, SIGINT) only ask `stop`, never raise where it lands (between an
    accept and its connection's thread, say): the first asks the stop (its name the reason), a Ctrl-C after it
    hurries it (the grace ends now), and a SIGTERM after it is ignored (a service manager's to the whole group of
    processes, then a worker's parent's), so that none cuts the grace short. A signal ignored already stays so
    (Ctrl-C in a worker, which its parent hears, or in a server started in the background or under nohup). The
    stop hears the signals (Stop.hear_signals): the serving loop wakes as one arrives, whichever thread the kernel
    delivers it to. Returns what to call once stopped: Ctrl-C raises again (it can cut the closing of the
    databases short), SIGTERM stays ignored, and the signals' wake-up goes back to what it was."""
    def asked(number: int, frame: Any) -> None:
        if stop.reason is None:
            stop.ask(signal.Signals(number).name)
        elif number == signal.SIGINT:
            stop.hurry()

    previous = {number: signal.signal(number, asked) for number in numbers
                if signal.getsignal(number) is not signal.SIG_IGN}
    stop.hear_signals()

    def stopped() -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if signal.SIGINT in previous:
            signal.signal(signal.SIGINT, previous[signal.SIGINT] or signal.SIG_DFL)
        stop.deaf_to_signals()

    return stopped


def record_sigterm(sigterms: List[int], number: int, frame: Any) -> None:
    """Over stdio, SIGTERM (each one) only marks the stop in `sigterms`: the message under way is answered (a
    question to a person is given up, unanswered), then the server stops as at EOF, with status 0."""
    sigterms.append(number)


def stop_on_sigterm(number: int, frame: Any) -> None:
    """A workers' parent's SIGTERM: one line, then the exception that stops the workers (Workers.stop: each stops
    gracefully, answering the requests under way within the grace), status 0. The parent only waits for its
    workers, so an exception may land anywhere in it. The SIGTERMs that follow the first are ignored (a service
    manager's to the whole group of processes), so that none cuts the grace short: Ctrl-C or SIGKILL does."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    log.info("SIGTERM: stopping")
    raise SystemExit(EXIT_OK)


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> int:
    """The command (and the package's osfoundry-mcp): serve_command, with Ctrl-C ending it in one line and exit
    status 130; its messages name it as it was started (`prog`, where the caller knows better than sys.argv:
    python3 -m osfoundry_tools, whose sys.argv[0] is __main__.py's path)."""
    started_as = os.path.basename(sys.argv[0]) if argv is None else ""
    prog = prog or (started_as if started_as and not started_as.startswith("-") else PROG)
    return run_main(prog, functools.partial(serve_command, prog=prog), argv, interrupted="interrupted; stopped")
