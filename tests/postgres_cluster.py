"""Run a command against a throwaway PostgreSQL cluster: `python3 tests/postgres_cluster.py [--durable] -- COMMAND`.

Starts a private cluster in a temporary folder (Unix socket only, no TCP port), creates the database osfoundry,
runs COMMAND with OSFOUNDRY_TEST_POSTGRES set to its URL, then stops the cluster and removes the folder; exits with
the command's status. The server skips fsync (tests need no durability) unless --durable, which the benchmark
gives. As root the server runs as the user `postgres` (initdb refuses root). POSTGRES_BIN, when
set, is the only folder searched for initdb, pg_ctl and postgres.
"""

import glob
import os
import pwd
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.parse
from typing import List, Optional

Account = Optional[pwd.struct_passwd]  # who runs the server: None for the invoking user
SERVER_PROGRAMS = ("initdb", "pg_ctl", "postgres")
INSTALL = "install PostgreSQL 15 or newer (Debian: apt install postgresql) and run make postgres again"


class ClusterError(Exception):
    """A problem that ends the run before the command: the message to print and the exit status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def find_bin_dir() -> Optional[str]:
    """The folder holding initdb, pg_ctl and postgres: POSTGRES_BIN alone if set, else PATH's, else the newest
    /usr/lib/postgresql/*/bin; None when there is none."""
    on_path = [shutil.which(name) for name in SERVER_PROGRAMS]
    folders = [os.path.dirname(os.path.realpath(on_path[0]))] if on_path[0] and all(on_path) else []
    installed = glob.glob("/usr/lib/postgresql/*/bin")
    folders += sorted(installed, key=lambda folder: [int(n) for n in re.findall(r"\d+", folder)], reverse=True)
    if "POSTGRES_BIN" in os.environ:
        folders = [os.environ["POSTGRES_BIN"]]
    usable = [f for f in folders if all(os.access(os.path.join(f, name), os.X_OK) for name in SERVER_PROGRAMS)]
    return usable[0] if usable else None


def server_version(bin_dir: str) -> str:
    """The server's version, e.g. "15.18"; refuses versions older than 15."""
    output = subprocess.run([os.path.join(bin_dir, "postgres"), "--version"], capture_output=True, text=True).stdout
    version = re.search(r"\)\s*(\d+)(\.\d+)?", output)
    if not version or int(version.group(1)) < 15:
        raise ClusterError(f"postgres_cluster: {bin_dir}/postgres is {output.strip() or '?'}; {INSTALL}", 2)
    return version.group(1) + (version.group(2) or "")


def server_account() -> Account:
    """The account the server runs as: None (the invoking user) unless root, then the existing user `postgres`."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam("postgres")
    except KeyError:
        message = ("postgres_cluster: running as root and there is no user `postgres` to run the server as (initdb "
                   "refuses root); create one (useradd -r postgres) or run as another user")
        raise ClusterError(message, 2) from None


def as_server(account: Account, argv: List[str]) -> List[str]:
    """argv run as the server's account."""
    if account is None:
        return argv
    if shutil.which("runuser"):
        return ["runuser", "-u", account.pw_name, "--"] + argv
    return ["su", account.pw_name, "-s", "/bin/sh", "-c", shlex.join(argv)]


def hand_over(home: str, account: Account) -> None:
    """Make the socket folder and give it and the temporary folder (both 0700) to the server's account."""
    os.mkdir(os.path.join(home, "socket"), 0o700)
    if account:
        for folder in (home, os.path.join(home, "socket")):
            os.chown(folder, account.pw_uid, account.pw_gid)
        if subprocess.run(as_server(account, ["test", "-w", home]), cwd="/").returncode != 0:
            raise ClusterError(f"postgres_cluster: the user {account.pw_name} cannot reach {home}", 2)


def run_quietly(argv: List[str], what: str, cwd: str) -> None:
    """Run a setup step; on failure show its output and end with status 1."""
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise ClusterError(f"{done.stdout}{done.stderr}postgres_cluster: {what} failed ({done.returncode})", 1)


def start_cluster(bin_dir: str, account: Account, home: str, durable: bool) -> None:
    """initdb, start the server on its Unix socket only (`durable`: with fsync, as a real server; else without,
    which is enough for tests), create the database osfoundry."""
    data, socket, log = (os.path.join(home, name) for name in ("data", "socket", "server.log"))
    run_quietly(as_server(account, [os.path.join(bin_dir, "initdb"), "-D", data, "-A", "trust", "-U", "postgres",
                                    "--no-sync", "-E", "UTF8", "--locale=C"]), "initdb", home)
    fsync = "on" if durable else "off"
    options = f"-c listen_addresses='' -c unix_socket_directories='{socket}' -c fsync={fsync} -c max_connections=100"
    start = [os.path.join(bin_dir, "pg_ctl"), "-D", data, "-w", "-t", "60", "-l", log, "-o", options, "start"]
    if subprocess.run(as_server(account, start), cwd=home, capture_output=True).returncode != 0:
        with open(log, errors="replace") if os.path.exists(log) else open(os.devnull) as lines:
            tail = "".join(lines.readlines()[-20:])
        raise ClusterError(f"{tail}postgres_cluster: the server did not start; its log's last lines are above", 1)
    run_quietly([os.path.join(bin_dir, "createdb"), "-h", socket, "-U", "postgres", "osfoundry"], "createdb", home)


def postmaster(data: str) -> Optional[int]:
    """The pid of the server still running on the data folder, or None when none is."""
    try:
        with open(os.path.join(data, "postmaster.pid")) as lines:
            pid = int(lines.readline())
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return pid if data.encode() in cmdline.read().split(b"\0") else None
    except (OSError, ValueError):
        return None


def stop_cluster(bin_dir: str, account: Account, home: str) -> None:
    """Stop the server at once, then make sure none of it is left running."""
    data = os.path.join(home, "data")
    if os.path.exists(os.path.join(data, "postmaster.pid")):
        stop = [os.path.join(bin_dir, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"]
        subprocess.run(as_server(account, stop), cwd=home, capture_output=True)
    pid = postmaster(data)
    if pid:
        os.kill(pid, signal.SIGKILL)
        print(f"postgres_cluster: pg_ctl stop left the server running (pid {pid}); killed it", file=sys.stderr)


def run_command(command: List[str], socket: str, version: str) -> int:
    """Run the command with OSFOUNDRY_TEST_POSTGRES set; its exit status (128 + N when killed by signal N)."""
    url = "postgresql://postgres@/osfoundry?host=" + urllib.parse.quote(socket, safe="/")
    print(f"postgres_cluster: PostgreSQL {version} on {socket} (throwaway), running: {shlex.join(command)}", flush=True)
    status = subprocess.run(command, env=dict(os.environ, OSFOUNDRY_TEST_POSTGRES=url)).returncode
    return 128 - status if status < 0 else status


def leave(signum: int, frame: object) -> None:
    """On SIGTERM or SIGINT, unwind through the cleanup (subprocess.run kills a running command)."""
    raise SystemExit(128 + signum)


def main(argv: List[str]) -> int:
    """Parse `[--durable] -- COMMAND ARGS...`, run the command against a throwaway cluster, return its exit status
    (`--check`: 0 where PostgreSQL's programs are found, 1 where not, silently: make bench measures PostgreSQL only
    there). `--durable` keeps fsync on, so that a benchmark compares it with sqlite's durable commits."""
    if argv == ["--check"]:
        return 0 if find_bin_dir() is not None else 1
    durable = argv[:1] == ["--durable"]
    argv = argv[1:] if durable else argv
    if len(argv) < 2 or argv[0] != "--":
        print("usage: python3 tests/postgres_cluster.py [--durable] -- COMMAND ARGS...", file=sys.stderr)
        return 2
    bin_dir = find_bin_dir()
    if bin_dir is None:
        print(f"postgres_cluster: PostgreSQL's initdb, pg_ctl and postgres are not on PATH; {INSTALL}", file=sys.stderr)
        return 2
    account: Account = None
    home: Optional[str] = None
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, leave)
    try:
        version, account = server_version(bin_dir), server_account()
        home = tempfile.mkdtemp(prefix="osfoundry-pg-", dir="/tmp" if account else None)
        hand_over(home, account)
        start_cluster(bin_dir, account, home, durable)
        return run_command(argv[1:], os.path.join(home, "socket"), version)
    except ClusterError as error:
        print(error, file=sys.stderr)
        return error.status
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, signal.SIG_IGN)
        if home:
            stop_cluster(bin_dir, account, home)
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
