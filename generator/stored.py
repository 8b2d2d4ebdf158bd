"""Each data file's built record, kept in the cache and read back instead of parsed and built again.

Reading a data file is parsing its YAML (`loader.py`) and building its record from the located
values (`schema.py`), a pure function of the file's bytes and its path: so the result is stored
under a key made of those (`cache.key`, which also holds the generator's own hash) and an unchanged
file is read back from plain values in a fraction of the time. `cadence check`, `cadence build` and
`cadence serve` all read data through `built_documents` (via `pages.load_project`): a rebuild after
one edit parses and builds that one file.

The stored form is plain nested tuples of strings and numbers (see `cache` for the file format).
Records are rebuilt through their own constructors, by the class name stored, from the model's
record classes only; a shape the encoder never writes raises, and the file is read from its YAML.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import cache
from .catalogue import Built
from .loader import LocFloat, LocInt, LocStr, YList, YMap, data_files, located_float, located_int, located_str, parse_yaml, read_text
from .model import Record
from .problems import Location, Problem, Severity, located
from .schema import build_document

# A value is itself when it is None, true, false, or a plain string or number; otherwise a tuple
# whose first item says what it is.
_STR, _INT, _FLOAT, _MAP, _LIST, _TUPLE, _DICT, _RECORD, _LOC = range(9)


def _record_classes() -> dict[str, tuple[type[Record], tuple[str, ...]]]:
    """Every record class by name, with its field names in order."""
    found: dict[str, tuple[type[Record], tuple[str, ...]]] = {}
    pending: list[type[Record]] = [Record]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.__name__ in found and found[cls.__name__][0] is not cls:
            raise TypeError(f"two record classes are named {cls.__name__}")
        found[cls.__name__] = (cls, tuple(f.name for f in dataclasses.fields(cls)))
    return found


_CLASSES: dict[str, tuple[type[Record], tuple[str, ...]]] = {}


def _scalar(value: Any) -> Any:
    return value


def _text(value: LocStr) -> tuple[Any, ...]:
    loc = value.loc
    return (_STR, loc.path, loc.line, loc.column, str(value))


def _number(value: LocInt | LocFloat) -> tuple[Any, ...]:
    loc = value.loc
    if type(value) is LocInt:
        return (_INT, loc.path, loc.line, loc.column, int(value), value.source)
    return (_FLOAT, loc.path, loc.line, loc.column, float(value), value.source)


def _yaml_map(value: YMap) -> tuple[Any, ...]:
    items = tuple([part for name, item in value.items() for part in (name, encode(value.key_locs[name]), encode(item))])
    return (_MAP, encode(value.loc), items)


#: How each type is stored (records, of many classes, are looked for last).
_ENCODERS: dict[type, Any] = {
    type(None): _scalar,
    bool: _scalar,
    str: _scalar,
    int: _scalar,
    float: _scalar,
    LocStr: _text,
    LocInt: _number,
    LocFloat: _number,
    tuple: lambda value: (_TUPLE, tuple([encode(item) for item in value])),
    YList: lambda value: (_LIST, encode(value.loc), tuple([encode(item) for item in value])),
    dict: lambda value: (_DICT, tuple([encode(part) for pair in value.items() for part in pair])),
    YMap: _yaml_map,
    Location: lambda value: (_LOC, value.path, value.line, value.column),
}


def encode(value: Any) -> Any:
    """A record, a located value or a container of them as plain values; TypeError for anything else."""
    encoder = _ENCODERS.get(type(value))
    if encoder is not None:
        return encoder(value)
    if isinstance(value, Record):
        names = _NAMES.get(type(value)) or _names(type(value))
        return (_RECORD, type(value).__name__, tuple([encode(getattr(value, name)) for name in names]))
    raise TypeError(f"the cache does not store {type(value).__name__}")


_NAMES: dict[type, tuple[str, ...]] = {}


def _names(cls: type[Record]) -> tuple[str, ...]:
    """A record class's field names, in order (read once per class)."""
    _NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return _NAMES[cls]


def _record(node: tuple[Any, ...]) -> Record:
    """A record with every field as stored. Its fields are set directly, as its `__init__` would set
    them (the model's records have no `__post_init__`, and every field is stored), without a call
    through `object.__setattr__` per field."""
    if not _CLASSES:
        _CLASSES.update(_record_classes())
    cls, names = _CLASSES[node[1]]
    record = object.__new__(cls)
    record.__dict__.update(zip(names, map(decode, node[2]), strict=True))
    return record


def _list(node: tuple[Any, ...]) -> YList:
    items = YList(map(decode, node[2]))
    items.loc = decode(node[1])
    return items


def _map(node: tuple[Any, ...]) -> YMap:
    mapping = YMap()
    mapping.loc = decode(node[1])
    mapping.key_locs = {}
    parts = node[2]
    for at in range(0, len(parts), 3):
        name = parts[at]
        mapping.key_locs[name] = decode(parts[at + 1])
        mapping[name] = decode(parts[at + 2])
    return mapping


def _dict(node: tuple[Any, ...]) -> dict[Any, Any]:
    parts = node[1]
    return {decode(parts[at]): decode(parts[at + 1]) for at in range(0, len(parts), 2)}


def _loc_str(node: tuple[Any, ...]) -> LocStr:
    return located_str(node[4], located(node[1], node[2], node[3]))


def _loc_int(node: tuple[Any, ...]) -> LocInt:
    return located_int(node[4], located(node[1], node[2], node[3]), node[5])


def _loc_float(node: tuple[Any, ...]) -> LocFloat:
    return located_float(node[4], located(node[1], node[2], node[3]), node[5])


#: How each kind of stored tuple is read back, by its first item.
_DECODERS: tuple[Any, ...] = (
    _loc_str,
    _loc_int,
    _loc_float,
    _map,
    _list,
    lambda node: tuple(map(decode, node[1])),
    _dict,
    _record,
    lambda node: located(node[1], node[2], node[3]),
)
_PLAIN = frozenset({type(None), bool, str, int, float})


def decode(node: Any) -> Any:
    """The value `encode` wrote; a shape it never writes raises TypeError, ValueError, IndexError or KeyError."""
    if type(node) is tuple and node[0] >= 0:
        return _DECODERS[node[0]](node)
    if type(node) in _PLAIN:
        return node
    raise TypeError("not a stored value")


def _problems(problems: list[Problem]) -> tuple[Any, ...]:
    return tuple(
        (p.location.path, p.location.line, p.location.column, p.severity.value, p.code, p.message, p.hint, p.data_path) for p in problems
    )


def _read_problems(stored: Any) -> list[Problem]:
    return [
        Problem(
            location=Location(path, line, column), severity=Severity(severity), code=code, message=message, hint=hint, data_path=data_path
        )
        for path, line, column, severity, code, message, hint, data_path in stored
    ]


def encode_built(read: list[Problem], built: Built) -> tuple[Any, ...]:
    """A data file's reading problems and its built record, as plain values."""
    path, kind, record, found = built
    return (_problems(read), path, kind, encode(record), _problems(found))


def decode_built(stored: Any) -> tuple[list[Problem], Built]:
    """The reading problems and the built record `encode_built` stored."""
    read, path, kind, record, found = stored
    if not isinstance(path, str) or not (kind is None or isinstance(kind, str)):
        raise ValueError("not a stored data file")
    built = decode(record)
    if built is not None and not isinstance(built, Record):
        raise ValueError("not a stored record")
    return _read_problems(read), (path, kind, built, _read_problems(found))


def _read_back(stored: Any) -> tuple[list[Problem], Built] | None:
    """A cache entry decoded, or None when there is none or it is not one the encoder wrote."""
    if stored is None:
        return None
    try:
        return decode_built(stored)
    except (ValueError, TypeError, IndexError, KeyError):
        return None


#: The last load's records in this process, by cache entry. `cadence serve` and `mkdocs serve` load the
#: project again after every edit; an unchanged file's record (frozen, like everything in it) is taken
#: from here rather than decoded from the disk cache again, a third of a re-staging's work at 10x.
_last_load: dict[str, tuple[list[Problem], Built]] = {}


def built_documents(root: Path, data_dir: str, problems: list[Problem], *, allow_outside_links: bool = False) -> Iterator[Built]:
    """Each data file's record in file order, from the cache when its bytes were read before; reading
    problems (a file that cannot be read or parsed, YAML that reads otherwise) go to `problems`."""
    this_load: dict[str, tuple[list[Problem], Built]] = {}
    for path, rel in data_files(root, data_dir, problems, allow_outside_links=allow_outside_links):
        text, found = read_text(path, rel)
        problems.extend(found)
        if text is None:
            continue
        entry = cache.key("built", rel, text) if cache.enabled() else ""
        stored = (_last_load.get(entry) or _read_back(cache.read("built", entry))) if entry else None
        if stored is not None:
            this_load[entry] = stored
            problems.extend(stored[0])
            yield stored[1]
            continue
        body, found = parse_yaml(text, rel)
        problems.extend(found)
        if body is None:
            continue
        built = (rel, *build_document(body, rel))
        if entry:
            this_load[entry] = (found, built)
            with contextlib.suppress(TypeError, ValueError):
                cache.write("built", entry, encode_built(found, built))
        yield built
    _last_load.clear()
    _last_load.update(this_load)
