"""IDs people did not give: a prefix and a number counted per owner (art-00001, art-00002 ...), so that an ID says
nothing of any other owner, and one a person took already is passed over.

Layer: core.
"""

import functools
from typing import Any, Tuple


def next_id(connection: Any, counter: Tuple[str, str], owner_id: str, prefix: str, taken: str) -> str:
    """Inside a write: the owner's next free ID. `counter`: the owner's table and the column counting the IDs it
    made (its row found by `id`); `taken`: a SELECT of a row holding an ID, given (owner_id, the ID)."""
    count, read = _counting(*counter)
    while True:
        connection.execute(count, (owner_id,))
        (made,) = connection.execute(read, (owner_id,)).fetchone()
        candidate = f"{prefix}-{made:05d}"
        if connection.execute(taken, (owner_id, candidate)).fetchone() is None:
            return candidate


@functools.lru_cache(maxsize=16)
def _counting(table: str, column: str) -> Tuple[str, str]:
    """The statements that count one more ID made by an owner, and read the count."""
    return (f"UPDATE {table} SET {column} = {column} + 1 WHERE id = ?", f"SELECT {column} FROM {table} WHERE id = ?")
