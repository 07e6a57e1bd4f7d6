"""JSON text from an encoder built once: what json.dumps writes, without building an encoder on every call.

Layer: core. json.dumps, and a JSONEncoder's encode, build the C encoder anew on each call of an object, a list or a
number, which takes longer than encoding a small result does; every edit encodes several.
`encoder(...)` builds it once, with the same options json.dumps takes, and falls back to JSONEncoder's encode
where the C encoder is missing.

    >>> canonical = encoder(sort_keys=True, separators=(",", ":"))
    >>> canonical({"b": [1, 2.5, None], "a": "é"}) == json.dumps({"b": [1, 2.5, None], "a": "é"}, sort_keys=True,
    ...                                                          separators=(",", ":"))
    True
"""

import json
from json import encoder as _json_encoder
from typing import Any, Callable, Tuple


def encoder(*, ensure_ascii: bool = True, sort_keys: bool = False,
            separators: Tuple[str, str] = (", ", ": ")) -> Callable[[Any], str]:
    """A function writing what json.dumps(value, ensure_ascii=..., sort_keys=..., separators=...) writes."""
    made = json.JSONEncoder(ensure_ascii=ensure_ascii, sort_keys=sort_keys, separators=separators)
    make = getattr(_json_encoder, "c_make_encoder", None)
    if make is None:
        return made.encode
    strings = _json_encoder.encode_basestring_ascii if ensure_ascii else _json_encoder.encode_basestring
    chunks = make({}, made.default, strings, None, separators[1], separators[0], sort_keys, False, True)

    def encode(value: Any) -> str:
        if isinstance(value, str):  # as JSONEncoder.encode: the C encoder takes containers and numbers
            return strings(value)
        return "".join(chunks(value, 0))
    return encode
