"""The test databases on PostgreSQL: where the shared contract tests run when OSFOUNDRY_TEST_POSTGRES names one.

`make postgres` sets it to a throwaway cluster's database (tests/postgres_cluster.py) and runs the contract tests
through tests/run_postgres.py. Each store a test makes without a path gets a new database of that cluster (a
test may make several, as on sqlite it makes several in memory); run_postgres.py drops them after each test.
Without the variable, every test runs on sqlite as always.
"""

import itertools
import os
import threading
import unittest
import urllib.parse
from typing import Any, Callable, Dict, List, Optional, Tuple

POSTGRES_URL = os.environ.get("OSFOUNDRY_TEST_POSTGRES", "")
STORE_SCHEMAS = ("osfoundry_knowledge_base", "osfoundry_record_channel")


def on_postgres() -> bool:
    """Whether this run's stores are on the test PostgreSQL database."""
    return bool(POSTGRES_URL)


_MADE = itertools.count(1)
DATABASE_PREFIX = "osfoundry_test_"


def default_location() -> str:
    """Where a test's store lives unless the test says: a new database of the test cluster, or a private sqlite
    memory."""
    return new_database() if POSTGRES_URL else ":memory:"


def new_database() -> str:
    """The URL of a new, empty database of the test cluster."""
    name = f"{DATABASE_PREFIX}{os.getpid()}_{next(_MADE)}"
    with raw_connection() as connection:
        connection.execute(f"CREATE DATABASE {name}")
    parts = urllib.parse.urlsplit(POSTGRES_URL)
    return urllib.parse.urlunsplit(parts._replace(path="/" + name))


def sqlite_only(reason: str) -> Callable[[Any], Any]:
    """Skip a test on PostgreSQL, saying why it is sqlite's alone."""
    return unittest.skipIf(on_postgres(), f"sqlite only: {reason}")


def needs_postgres(test: Any) -> Any:
    """Run a test only where the test database is set (make postgres)."""
    return unittest.skipUnless(on_postgres(), "needs OSFOUNDRY_TEST_POSTGRES (make postgres)")(test)


def raw_connection(url: str = "") -> Any:
    """A plain psycopg connection to the test database, in autocommit mode (the test is skipped without psycopg)."""
    try:
        import psycopg
    except ImportError:
        raise unittest.SkipTest("psycopg is not installed: make postgres installs it into .venv") from None
    return psycopg.connect(url or POSTGRES_URL, autocommit=True)


def drop_test_databases() -> None:
    """Drop every database new_database made, ending any connection a finished test left open to one."""
    with raw_connection() as connection:
        names = [row[0] for row in connection.execute(
            "SELECT datname FROM pg_database WHERE datname LIKE %s", (DATABASE_PREFIX + "%",))]
        for name in names:
            connection.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def snapshot(store: Any) -> Dict[str, List[Tuple[Any, ...]]]:
    """Every row of every table of a store's schema on PostgreSQL (the stored search column aside: it follows
    its row)."""
    with raw_connection(store.database.path) as connection:
        tables = [row[0] for row in connection.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s ORDER BY table_name",
            (store.database.schema,))]
        found = {}
        for table in tables:
            columns = [row[0] for row in connection.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = %s AND table_name = %s "
                "AND column_name <> 'search' ORDER BY ordinal_position", (store.database.schema, table))]
            rows = connection.execute(f'SELECT {", ".join(columns)} FROM {store.database.schema}."{table}"')
            found[table] = sorted((tuple(row) for row in rows), key=repr)
        return found


def hold_row_lock(test: unittest.TestCase, url: str, table: str, row_id: str, seconds: float,
                  schema: Optional[str] = None) -> None:
    """Another connection locks one row of `table` (by its ID) now, and commits after `seconds`."""
    other = raw_connection(url)
    other.execute("BEGIN")
    other.execute(f"SELECT 1 FROM {schema or table_schema(table)}.{table} WHERE id = %s FOR UPDATE", (row_id,))
    release = threading.Timer(seconds, lambda: (other.execute("COMMIT"), other.close()))
    release.start()
    test.addCleanup(release.join)


def table_schema(table: str) -> str:
    return STORE_SCHEMAS[0] if table in ("articles", "knowledge_bases") else STORE_SCHEMAS[1]
