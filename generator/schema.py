"""Build model records from raw located values, and derive the JSON Schema, both from `model.py`.

The record classes are the one description of the data: this module reads their type hints to
validate (required fields, types, unknown keys with a did-you-mean) and to write the schema that
editors use. Validation collects every problem; a field that fails takes its default so that the
rest of the file is still checked.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from typing import Any, Literal, Union, get_args, get_origin

from .loader import LocInt, LocStr, YList, YMap, loc_of
from .model import DOCUMENT_KINDS, Record
from .problems import Location, Problem, did_you_mean, error

SLUG = r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$"
_MISSING = object()


_HINTS: dict[type, dict[str, Any]] = {}
_FIELDS: dict[type, tuple[dataclasses.Field[Any], ...]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def yaml_key(f: dataclasses.Field[Any]) -> str:
    return str(f.metadata.get("key", f.name))


def data_fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    if cls not in _FIELDS:
        _FIELDS[cls] = tuple(f for f in dataclasses.fields(cls) if not f.metadata.get("internal"))
    return _FIELDS[cls]


def _describe(tp: Any) -> str:
    origin = get_origin(tp)
    if tp is str:
        return "text"
    if tp is int:
        return "a whole number"
    if tp is bool:
        return "true or false"
    if origin is tuple:
        return "a list"
    if origin is dict:
        return "a mapping"
    if origin is Literal:
        return " or ".join(repr(a) for a in get_args(tp))
    if isinstance(tp, type) and issubclass(tp, Record):
        return "a mapping"
    if origin in (Union, types.UnionType):
        return " or ".join(_describe(a) for a in get_args(tp) if a is not type(None))
    return str(tp)


class Builder:
    """Builds one document's records, collecting problems."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def fail(self, loc: Location, code: str, message: str, path: str, hint: str = "") -> object:
        self.problems.append(error(loc, code, message, hint=hint, data_path=path))
        return _MISSING

    def value(self, tp: Any, raw: Any, loc: Location, path: str) -> Any:
        origin = get_origin(tp)
        here = loc_of(raw, loc)
        if origin in (Union, types.UnionType):
            options = get_args(tp)
            if raw is None and type(None) in options:
                return None
            if str in options and int in options and isinstance(raw, (str, int)) and not isinstance(raw, bool):
                return raw
            for option in options:
                if option is type(None):
                    continue
                probe = Builder()
                result = probe.value(option, raw, loc, path)
                if result is not _MISSING and not probe.problems:
                    return result
            non_null = [o for o in options if o is not type(None)]
            if len(non_null) == 1:
                return self.value(non_null[0], raw, loc, path)
            return self.fail(here, "type", f"{path or 'value'} must be {_describe(tp)}", path)
        if tp is Any:
            return raw
        if tp is str:
            if isinstance(raw, str):
                return raw
            if isinstance(raw, (int, float)) and not isinstance(raw, bool):
                return LocStr(str(raw), here)
            return self.fail(here, "type", f"{path or 'value'} must be {_describe(tp)}, not {_kind(raw)}", path)
        if tp is int:
            if isinstance(raw, int) and not isinstance(raw, bool):
                return raw
            return self.fail(here, "type", f"{path or 'value'} must be {_describe(tp)}, not {_kind(raw)}", path)
        if tp is bool:
            if isinstance(raw, bool):
                return raw
            return self.fail(here, "type", f"{path or 'value'} must be true or false, not {_kind(raw)}", path)
        if origin is Literal:
            allowed = get_args(tp)
            if raw in allowed:
                return raw
            hint = did_you_mean(str(raw), [str(a) for a in allowed])
            return self.fail(here, "value", f"{path} must be one of {', '.join(map(str, allowed))}, not {raw!r}", path, hint)
        if origin is tuple:
            if raw is None:
                return ()
            if not isinstance(raw, list):
                return self.fail(here, "type", f"{path} must be a list, not {_kind(raw)}", path)
            item_tp = get_args(tp)[0]
            items = []
            for index, item in enumerate(raw):
                built = self.value(item_tp, item, here, f"{path}[{index}]")
                if built is not _MISSING:
                    items.append(built)
            return tuple(items)
        if origin is dict:
            if raw is None:
                return {}
            if not isinstance(raw, YMap):
                return self.fail(here, "type", f"{path} must be a mapping, not {_kind(raw)}", path)
            value_tp = get_args(tp)[1]
            result = {}
            for key, item in raw.items():
                built = self.value(value_tp, item, raw.key_locs.get(key, here), f"{path}.{key}")
                if built is not _MISSING:
                    result[LocStr(key, raw.key_locs.get(key, here))] = built
            return result
        if isinstance(tp, type) and issubclass(tp, Record):
            return self.record(tp, raw, here, path)
        raise TypeError(f"unsupported field type {tp!r}")  # a bug in model.py, not in user data

    def record(self, cls: type[Record], raw: Any, loc: Location, path: str) -> Any:
        if not isinstance(raw, YMap):
            return self.fail(loc_of(raw, loc), "type", f"{path or cls.__name__} must be a mapping, not {_kind(raw)}", path)
        hints = _hints(cls)
        fields = data_fields(cls)
        keys = {yaml_key(f): f for f in fields}
        for key in raw:
            if key not in keys:
                hint = did_you_mean(key, list(keys))
                self.fail(
                    raw.key_locs[key],
                    "unknown-key",
                    f"unknown key '{key}' in {_label(cls, path)}",
                    f"{path}.{key}" if path else key,
                    hint or f"expected one of: {', '.join(sorted(keys))}",
                )
        values: dict[str, Any] = {"loc": raw.loc}
        for f in fields:
            key = yaml_key(f)
            sub = f"{path}.{key}" if path else key
            if key not in raw:
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                    self.fail(raw.loc, "missing-key", f"{_label(cls, path)} needs '{key}'", sub)
                    return _MISSING
                continue
            built = self.value(hints[f.name], raw[key], raw.key_locs[key], sub)
            if built is _MISSING:
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                    return _MISSING
                continue
            if f.metadata.get("slug") and isinstance(built, str) and built and not re.match(SLUG, built):
                self.fail(
                    loc_of(built, raw.key_locs[key]), "slug", f"{sub} must be a lowercase slug like 'heavy-armour', not {built!r}", sub
                )
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                    return _MISSING
                continue
            values[f.name] = built
        return cls(**values)


def _kind(raw: Any) -> str:
    if raw is None:
        return "nothing"
    if isinstance(raw, bool):
        return "true/false"
    if isinstance(raw, (int, LocInt)):
        return f"the number {raw}"
    if isinstance(raw, str):
        return f"the text {str(raw)!r}"[:80]
    if isinstance(raw, YList):
        return "a list"
    if isinstance(raw, YMap):
        return "a mapping"
    return type(raw).__name__


def _label(cls: type, path: str) -> str:
    return f"'{path}'" if path else cls.__name__


def build_document(body: YMap, rel: str) -> tuple[str | None, Record | None, list[Problem]]:
    """Build the one record a data file holds, named by its single top-level key."""
    builder = Builder()
    kinds = list(DOCUMENT_KINDS)
    present = [k for k in body if k in DOCUMENT_KINDS]
    for key in body:
        if key not in DOCUMENT_KINDS:
            hint = did_you_mean(key, kinds) or f"expected one of: {', '.join(kinds)}"
            builder.fail(body.key_locs[key], "unknown-key", f"unknown top-level key '{key}'", key, hint)
    if len(present) != 1:
        if not present:
            builder.fail(body.loc, "missing-key", f"a data file needs one top-level key: {', '.join(kinds)}", "")
        else:
            builder.fail(body.key_locs[present[1]], "unknown-key", "a data file holds exactly one of: " + ", ".join(kinds), present[1])
        return None, None, builder.problems
    kind = present[0]
    built = builder.record(DOCUMENT_KINDS[kind], body[kind], body.key_locs[kind], kind)
    return kind, (None if built is _MISSING else built), builder.problems


# --- JSON Schema ---------------------------------------------------------------------------


def _json_type(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    origin = get_origin(tp)
    if tp is str:
        return {"type": "string"}
    if tp is int:
        return {"type": "integer"}
    if tp is bool:
        return {"type": "boolean"}
    if tp is Any:
        return {}
    if origin is Literal:
        return {"enum": list(get_args(tp))}
    if origin is tuple:
        return {"type": "array", "items": _json_type(get_args(tp)[0], defs)}
    if origin is dict:
        return {"type": "object", "additionalProperties": _json_type(get_args(tp)[1], defs)}
    if origin in (Union, types.UnionType):
        options = [_json_type(a, defs) for a in get_args(tp) if a is not type(None)]
        if type(None) in get_args(tp):
            options.append({"type": "null"})
        return options[0] if len(options) == 1 else {"anyOf": options}
    if isinstance(tp, type) and issubclass(tp, Record):
        name = tp.__name__
        if name not in defs:
            defs[name] = {}
            hints = _hints(tp)
            props: dict[str, Any] = {}
            required = []
            for f in data_fields(tp):
                prop = _json_type(hints[f.name], defs)
                if f.metadata.get("doc"):
                    prop = {**prop, "description": f.metadata["doc"]}
                prop = {**prop, **_default_and_example(f)}
                if f.metadata.get("slug"):
                    prop = {**prop, "pattern": SLUG}
                props[yaml_key(f)] = prop
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                    required.append(yaml_key(f))
            defs[name] = {
                "type": "object",
                "description": _description(tp),
                "properties": props,
                "additionalProperties": False,
                **({"required": required} if required else {}),
            }
        return {"$ref": f"#/$defs/{name}"}
    raise TypeError(f"unsupported field type {tp!r}")


def _description(cls: type) -> str:
    """A record type's docstring: the words a designer reads when hovering its key in an editor."""
    text = (cls.__doc__ or "").strip()
    if not text or text.startswith(f"{cls.__name__}("):  # dataclasses make one up from the signature
        raise TypeError(f"{cls.__name__} in model.py needs a docstring")  # a bug in model.py, not in user data
    return " ".join(text.split())


def _default_and_example(f: dataclasses.Field[Any]) -> dict[str, Any]:
    """JSON Schema's `default` and `examples` for a field, where they are plain values."""
    out: dict[str, Any] = {}
    if f.default is not dataclasses.MISSING and isinstance(f.default, (str, int, bool, tuple)) and f.default != ():
        out["default"] = list(f.default) if isinstance(f.default, tuple) else f.default
    if "example" in f.metadata:
        out["examples"] = [f.metadata["example"]]
    return out


def json_schema() -> dict[str, Any]:
    """The JSON Schema of every data file, for yaml-language-server and other editors."""
    defs: dict[str, Any] = {}
    options = []
    for key, cls in DOCUMENT_KINDS.items():
        options.append({"type": "object", "properties": {key: _json_type(cls, defs)}, "required": [key], "additionalProperties": False})
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "data.schema.json",
        "title": "Rules data file",
        "description": "A system, module or army list of a rules reference site. Generated from generator/model.py: do not edit.",
        "oneOf": options,
        "$defs": dict(sorted(defs.items())),
    }


def json_schema_text() -> str:
    import json

    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"
