"""Which engine serves a store: sqlite for a file or ":memory:", PostgreSQL for a postgresql:// URL.

Layer: above database.py and postgres_database.py, below the stores: `open_store` is every store's connect().
The PostgreSQL side, and its driver, are imported only when a location asks for them, so sqlite needs nothing
beyond the standard library.
"""

from typing import Any, Callable, Iterable, Optional, Type, TypeVar

from osfoundry_tools.core.agent_tools import AgentTools
from osfoundry_tools.core.clock import wall_clock
from osfoundry_tools.core.tools import DEFAULT_CALLER
from osfoundry_tools.engines.database import BUSY_TIMEOUT_SECONDS, DURABILITY_DEFAULT, Database, Layout, is_postgres

Store = TypeVar("Store", bound=AgentTools)


def open_database(location: str, layout: Layout, *, busy_timeout: float = BUSY_TIMEOUT_SECONDS,
                  durability: str = DURABILITY_DEFAULT, read_only: Optional[bool] = None) -> Database:
    """A store's database at `location`: a sqlite file (or ":memory:"), or a PostgreSQL URL, whose driver is
    imported only then (postgres_database.py)."""
    if is_postgres(location):
        from osfoundry_tools.engines import postgres_database  # here, not above: only a PostgreSQL location needs it
        return postgres_database.PostgresDatabase(location, layout, busy_timeout=busy_timeout, durability=durability,
                                                  read_only=read_only)
    return Database(location, layout, busy_timeout=busy_timeout, durability=durability, read_only=read_only)


def open_store(store: Type[Store], path: str, layout: Layout, *, granted: Optional[Iterable[str]] = None,
               clock: Optional[Callable[[], Any]] = None, caller: str = DEFAULT_CALLER,
               busy_timeout: float = BUSY_TIMEOUT_SECONDS, durability: str = DURABILITY_DEFAULT,
               read_only: Optional[bool] = None, **options: Any) -> Store:
    """What every store's connect() does: open `path` (a file, ":memory:" or a postgresql:// URL) as a `layout`
    database (busy_timeout, durability and read_only as for Database), then serve it as `store` to `caller` with
    its grant and clock (None: wall_clock).

    `options`: the store's own arguments, passed on as they are. The database is closed again if the store refuses
    its arguments.
    """
    database = open_database(path, layout, busy_timeout=busy_timeout, durability=durability, read_only=read_only)
    try:
        return store(database, granted=granted, clock=clock or wall_clock, caller=caller, **options)
    except BaseException:
        database.close()
        raise
