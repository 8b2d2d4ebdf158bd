"""Build model records from raw located values, and derive the JSON Schema, both from `model.py`.

The record classes are the one description of the data: this module reads their type hints to
validate (required fields, types, unknown keys with a did-you-mean) and to write the schema that
editors use. Validation collects every problem; a field that fails takes its default so that the
rest of the file is still checked.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import sys
import types
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Any, Literal, Union, get_args, get_origin

from .loader import LocInt, LocStr, YList, YMap, loc_of
from .model import DOCUMENT_KINDS, Record
from .problems import Location, Problem, did_you_mean, error
from .untrusted import WEB_ADDRESS

SLUG = r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$"
_MISSING = object()
_ABSENT = object()


_HINTS: dict[type, dict[str, Any]] = {}
_FIELDS: dict[type, tuple[dataclasses.Field[Any], ...]] = {}


def type_hints(cls: type) -> dict[str, Any]:
    """`typing.get_type_hints(cls)` for a model class, each distinct annotation evaluated once.

    The model's annotations are strings (`from __future__ import annotations`); `get_type_hints`
    compiles each one anew, for every class and every base, which at every start of `cadence check`
    cost more than the rest of reading them. tests/test_records.py holds the two equal.
    """
    if cls not in _HINTS:
        hints: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            for name, value in inspect.get_annotations(klass).items():
                hints[name] = _annotation(value, klass.__module__) if isinstance(value, str) else value
        _HINTS[cls] = hints
    return _HINTS[cls]


@cache
def _annotation(text: str, module: str) -> Any:
    """A string annotation evaluated in the namespace of the module that wrote it."""
    value = eval(text, vars(sys.modules[module]))
    return type(None) if value is None else value


def yaml_key(f: dataclasses.Field[Any]) -> str:
    return str(f.metadata.get("key", f.name))


def data_fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    if cls not in _FIELDS:
        _FIELDS[cls] = tuple(f for f in dataclasses.fields(cls) if not f.metadata.get("internal"))
    return _FIELDS[cls]


_NESTING: dict[type, frozenset[str]] = {}


def nesting_fields(cls: type) -> frozenset[str]:
    """The fields of a record class whose values can hold records: a record, or a list, mapping or
    choice of them (or anything, for `Any`). A walk over records need look nowhere else."""
    if cls not in _NESTING:
        hints = type_hints(cls)
        _NESTING[cls] = frozenset(f.name for f in dataclasses.fields(cls) if _holds_records(hints[f.name]))
    return _NESTING[cls]


#: Which fields of a record class a walk takes (name, whether taken); it walks into the others.
FieldPlan = Callable[[type], tuple[tuple[str, bool], ...]]


def field_values(
    roots: Iterable[Any], plan: FieldPlan, taken: Callable[[str, Any], bool], *, mappings: bool = True
) -> list[tuple[Any, Record, str]]:
    """(value, record, field name) of every field the plan takes, in the records under `roots`.

    A taken field whose value `taken(name, value)` refuses is walked into like the others; `mappings`: into
    the values of dicts too. A stack, not recursive generators: at 10x the shipped data, the three checks
    that walk every record took twice as long that way. The order is fixed but not the records' own:
    problems are sorted by place before anyone sees them.
    """
    found: list[tuple[Any, Record, str]] = []
    stack = list(roots)
    while stack:
        item = stack.pop()
        if isinstance(item, Record):
            for name, takes in plan(type(item)):
                value = getattr(item, name)
                if takes and taken(name, value):
                    found.append((value, item, name))
                elif value is not None:
                    stack.append(value)
        elif isinstance(item, (tuple, list)):
            stack.extend(item)
        elif mappings and isinstance(item, dict):
            stack.extend(item.values())
    return found


def is_markdown(f: dataclasses.Field[Any]) -> bool:
    """Whether the model declares a field Markdown (`doc(..., markdown=True)`)."""
    return bool(f.metadata.get("markdown"))


_MARKDOWN_PLAN: dict[type, tuple[tuple[str, bool], ...]] = {}


def _markdown_plan(cls: type) -> tuple[tuple[str, bool], ...]:
    """A record class's fields that may hold Markdown, as (name, whether Markdown itself); read once per class."""
    if cls not in _MARKDOWN_PLAN:
        nesting = nesting_fields(cls)  # the other fields hold neither Markdown nor records: not walked
        _MARKDOWN_PLAN[cls] = tuple((f.name, is_markdown(f)) for f in data_fields(cls) if is_markdown(f) or f.name in nesting)
    return _MARKDOWN_PLAN[cls]


def markdown_strings(record: Record) -> list[tuple[Record, str, str]]:
    """(record, field name, text) for every Markdown string in a record and the records inside it: every
    field the model declares Markdown, so what reads them (rule links, page links, unsafe markup) misses none."""
    return [(owner, name, text) for value, owner, name in field_values([record], _markdown_plan, _always) for text in _strings(value)]


def _always(_name: str, _value: Any) -> bool:
    return True


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _strings(item)


def _holds_records(tp: Any) -> bool:
    if tp is Any:
        return True
    if get_origin(tp) is None and isinstance(tp, type):
        return issubclass(tp, Record)
    return any(_holds_records(arg) for arg in get_args(tp))


@dataclasses.dataclass(frozen=True)
class _Field:
    """What building one field needs, worked out once per record class."""

    name: str
    key: str
    tp: Any
    required: bool
    slug: bool
    web_address: bool  # a link out of the site (`doc(..., web_address=True)`): http or https, one URL
    least: int | None  # the least whole number the field takes, or the fewest items of a list, where it names one (`doc(..., least=1)`)
    most: int | None  # the greatest, where it names one (`doc(..., most=100)`)


_PLANS: dict[type, tuple[tuple[_Field, ...], frozenset[str]]] = {}


def _plan(cls: type[Record]) -> tuple[tuple[_Field, ...], frozenset[str]]:
    """A record class's fields in order, and the keys a mapping of it may have."""
    if cls not in _PLANS:
        hints = type_hints(cls)
        fields = tuple(
            _Field(
                f.name,
                yaml_key(f),
                hints[f.name],
                _required(f),
                bool(f.metadata.get("slug")),
                bool(f.metadata.get("web_address")),
                f.metadata.get("least"),
                f.metadata.get("most"),
            )
            for f in data_fields(cls)
        )
        _PLANS[cls] = (fields, frozenset(f.key for f in fields))
    return _PLANS[cls]


_SHAPES: dict[Any, tuple[str, Any]] = {}


def _shape(tp: Any) -> tuple[str, Any]:
    """What kind of value a type hint asks for, and what `Builder.value` needs of it; worked out once per hint."""
    if tp not in _SHAPES:
        origin = get_origin(tp)
        if origin in (Union, types.UnionType):
            options = get_args(tp)
            _SHAPES[tp] = ("union", (options, tuple(o for o in options if o is not type(None))))
        elif tp is Any:
            _SHAPES[tp] = ("any", None)
        elif tp in (str, int, bool):
            _SHAPES[tp] = ("scalar", None)
        elif origin is Literal:
            _SHAPES[tp] = ("literal", None)
        elif origin is tuple:
            _SHAPES[tp] = ("sequence", get_args(tp)[0])
        elif origin is dict:
            _SHAPES[tp] = ("mapping", get_args(tp)[1])
        elif isinstance(tp, type) and issubclass(tp, Record):
            _SHAPES[tp] = ("record", None)
        else:
            raise TypeError(f"unsupported field type {tp!r}")  # a bug in model.py, not in user data
    return _SHAPES[tp]


@dataclasses.dataclass(frozen=True)
class TypeWords:
    """How one kind of reader is told a field's type: a problem says 'must be a whole number', the
    data reference lists 'whole number' and links record types to their own section."""

    text: str
    whole_number: str
    flag: str
    anything: str
    literal: Callable[[object], str]
    sequence: Callable[[str], str]
    mapping: Callable[[str, str], str]
    record: Callable[[type], str]


PROBLEM_WORDS = TypeWords(
    text="text",
    whole_number="a whole number",
    flag="true or false",
    anything="any value",
    literal=repr,
    sequence=lambda _item: "a list",
    mapping=lambda _key, _value: "a mapping",
    record=lambda _cls: "a mapping",
)


def describe_type(tp: Any, words: TypeWords = PROBLEM_WORDS) -> str:
    """A field's type in the reader's words, from its type hint."""
    origin = get_origin(tp)
    for plain, said in ((str, words.text), (int, words.whole_number), (bool, words.flag), (Any, words.anything)):
        if tp is plain:
            return said
    if origin is Literal:
        return " or ".join(words.literal(a) for a in get_args(tp))
    if origin is tuple:
        return words.sequence(describe_type(get_args(tp)[0], words))
    if origin is dict:
        key, value = get_args(tp)
        return words.mapping(describe_type(key, words), describe_type(value, words))
    if origin in (Union, types.UnionType):
        return " or ".join(describe_type(a, words) for a in get_args(tp) if a is not type(None))
    if isinstance(tp, type) and issubclass(tp, Record):
        return words.record(tp)
    return str(tp)


class Builder:
    """Builds one document's records, collecting problems."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def fail(self, loc: Location, code: str, message: str, path: str, hint: str = "") -> object:
        self.problems.append(error(loc, code, message, hint=hint, data_path=path))
        return _MISSING

    def value(self, tp: Any, raw: Any, loc: Location, path: str) -> Any:
        """A raw value checked against a field's type hint and built; `_MISSING` where it fails."""
        kind, arg = _shape(tp)
        if kind == "union":
            return self.union(tp, arg, raw, loc, path)
        if kind == "any":
            return raw
        here = loc_of(raw, loc)
        if kind == "scalar":
            return self.scalar(tp, raw, here, path)
        if kind == "literal":
            return self.literal(tp, raw, here, path)
        if kind == "sequence":
            return self.sequence(arg, raw, here, path)
        if kind == "mapping":
            return self.mapping(arg, raw, here, path)
        return self.record(tp, raw, here, path)

    def union(self, tp: Any, shape: tuple[tuple[Any, ...], tuple[Any, ...]], raw: Any, loc: Location, path: str) -> Any:
        """The first option the value builds as without a problem; with one option, its problems."""
        options, non_null = shape
        if raw is None and type(None) in options:
            return None
        if str in options and int in options and isinstance(raw, (str, int)) and not isinstance(raw, bool):
            return raw
        if len(non_null) == 1:  # what a probe would find, found once
            return self.value(non_null[0], raw, loc, path)
        for option in non_null:
            probe = Builder()
            result = probe.value(option, raw, loc, path)
            if result is not _MISSING and not probe.problems:
                return result
        return self.fail(loc_of(raw, loc), "type", f"{path or 'value'} must be {describe_type(tp)}", path)

    def scalar(self, tp: type, raw: Any, here: Location, path: str) -> Any:
        """Text (numbers are read as text where text is asked for), a whole number, or true/false."""
        is_number = isinstance(raw, (int, float)) and not isinstance(raw, bool)
        if tp is str and isinstance(raw, str):
            return raw
        if tp is str and is_number:
            return LocStr(str(raw), here)
        if tp is int and isinstance(raw, int) and not isinstance(raw, bool):
            return raw
        if tp is bool and isinstance(raw, bool):
            return raw
        expected = "true or false" if tp is bool else describe_type(tp)
        return self.fail(here, "type", f"{path or 'value'} must be {expected}, not {_kind(raw)}", path)

    def literal(self, tp: Any, raw: Any, here: Location, path: str) -> Any:
        allowed = get_args(tp)
        if raw in allowed:
            return raw
        hint = did_you_mean(str(raw), [str(a) for a in allowed])
        return self.fail(here, "value", f"{path} must be one of {', '.join(map(str, allowed))}, not {raw!r}", path, hint)

    def sequence(self, item_tp: Any, raw: Any, here: Location, path: str) -> Any:
        """A list, item by item; items that fail are left out (their problems are kept)."""
        if raw is None:
            return ()
        if not isinstance(raw, list):
            return self.fail(here, "type", f"{path} must be a list, not {_kind(raw)}", path)
        built = (self.value(item_tp, item, here, f"{path}[{index}]") for index, item in enumerate(raw))
        return tuple(item for item in built if item is not _MISSING)

    def mapping(self, value_tp: Any, raw: Any, here: Location, path: str) -> Any:
        """A mapping of names to values; keys keep where they were written."""
        if raw is None:
            return {}
        if not isinstance(raw, YMap):
            return self.fail(here, "type", f"{path} must be a mapping, not {_kind(raw)}", path)
        result = {}
        for key, item in raw.items():
            built = self.value(value_tp, item, raw.key_locs.get(key, here), f"{path}.{key}")
            if built is not _MISSING:
                result[LocStr(key, raw.key_locs.get(key, here))] = built
        return result

    def record(self, cls: type[Record], raw: Any, loc: Location, path: str) -> Any:
        """A record from a mapping: unknown keys reported, each field built, a required one failing it."""
        fields, keys = _plan(cls)
        if not isinstance(raw, YMap):
            hint = f"its keys ({cls.__name__} in the data reference): {', '.join(f.key for f in fields)}"
            return self.fail(loc_of(raw, loc), "type", f"{path or cls.__name__} must be a mapping, not {_kind(raw)}", path, hint)
        if not keys.issuperset(raw):
            self.unknown_keys(cls, raw, keys, path)
        values: dict[str, Any] = {"loc": raw.loc}
        for f in fields:
            built = self.field(cls, f, raw, path)
            if built is _MISSING and f.required:
                return _MISSING
            if built is not _MISSING and built is not _ABSENT:
                values[f.name] = built
        return cls(**values)

    def unknown_keys(self, cls: type[Record], raw: YMap, keys: frozenset[str], path: str) -> None:
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

    def field(self, cls: type[Record], f: _Field, raw: YMap, path: str) -> Any:
        """One field's value; `_ABSENT` when it is left out and may be, `_MISSING` when it fails."""
        key = f.key
        if key not in raw:
            if f.required:
                return self.fail(raw.loc, "missing-key", f"{_label(cls, path)} needs '{key}'", f"{path}.{key}" if path else key)
            return _ABSENT
        sub = f"{path}.{key}" if path else key
        built = self.value(f.tp, raw[key], raw.key_locs[key], sub)
        if isinstance(built, str) and built and (f.slug or f.web_address):
            wrong = _misspelt_form(f, built, sub)
            if wrong:
                return self.fail(loc_of(built, raw.key_locs[key]), *wrong, sub)
        wrong_size = _wrong_size(f, built, raw[key])
        if wrong_size:
            hint = "leave it out to have its default" if isinstance(built, tuple) and not f.required else ""
            return self.fail(loc_of(built, loc_of(raw[key], raw.key_locs[key])), "value", f"{sub} {wrong_size}", sub, hint)
        return built


def _misspelt_form(f: _Field, text: str, sub: str) -> tuple[str, str] | None:
    """(code, message) for a text not in the form its field names: a slug, or a web address."""
    if f.slug and not re.match(SLUG, text):
        return "slug", f"{sub} must be a lowercase slug like 'heavy-armour', not {text!r}"
    if f.web_address and not re.fullmatch(WEB_ADDRESS, text):
        return "value", f"{sub} must be a web address like 'https://example.org/page', not {text!r}"
    return None


#: The largest whole number data may hold: the army builder's script reads every number exactly up to here.
LARGEST = 2**53 - 1


def _wrong_size(f: _Field, built: Any, written: Any) -> str:
    """What is wrong with the size of a field's value (a number out of its range, a list of too few items), as a
    problem says it after the field's name; '' when nothing is."""
    if isinstance(built, tuple) and f.least is not None and len(written) < f.least:
        return "must not be empty" if f.least == 1 else f"must list at least {f.least} items, not {len(written)}"
    if isinstance(built, int) and not isinstance(built, bool):
        wrong = _out_of_bounds(built, f.least, f.most)
        return f"must be {wrong}, not {built}" if wrong else ""
    return ""


def _out_of_bounds(number: int, least: int | None, most: int | None) -> str:
    """What is wrong with a whole number outside a field's range, as a problem says it; '' when it is within."""
    top = LARGEST if most is None else most
    if least is not None and number < least:
        return f"a whole number from {least} to {most}" if most is not None else f"a whole number of at least {least}"
    if number > top:
        return f"a whole number from {least} to {most}" if least is not None and most is not None else f"a whole number of at most {top}"
    if number < -LARGEST:
        return f"a whole number of at least {-LARGEST}"
    return ""


def _required(f: dataclasses.Field[Any]) -> bool:
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


def _kind(raw: Any) -> str:
    if raw is None:
        return "nothing"
    if isinstance(raw, bool):
        return "true/false"
    if isinstance(raw, (int, LocInt, float)):  # a LocFloat is a float: 26.5 where a whole number is asked for
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


_SCALARS: dict[Any, dict[str, Any]] = {str: {"type": "string"}, int: {"type": "integer"}, bool: {"type": "boolean"}, Any: {}}


def _json_type(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """The schema of one field type; records go to `defs` once and are referred to."""
    origin = get_origin(tp)
    if tp in _SCALARS:
        return dict(_SCALARS[tp])
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
        if tp.__name__ not in defs:
            defs[tp.__name__] = {}
            defs[tp.__name__] = _record_schema(tp, defs)
        return {"$ref": f"#/$defs/{tp.__name__}"}
    raise TypeError(f"unsupported field type {tp!r}")


def _record_schema(tp: type[Record], defs: dict[str, Any]) -> dict[str, Any]:
    """A record's object schema: a property per field, with its description and slug pattern."""
    hints = type_hints(tp)
    props: dict[str, Any] = {}
    required = []
    for f in data_fields(tp):
        prop = _json_type(hints[f.name], defs)
        if f.metadata.get("doc"):
            prop = {**prop, "description": f.metadata["doc"]}
        prop = {**prop, **_default_and_example(f)}
        if f.metadata.get("slug"):
            prop = {**prop, "pattern": SLUG}
        if f.metadata.get("web_address"):
            prop = {**prop, "pattern": f"^{WEB_ADDRESS}$"}
        if "least" in f.metadata:
            prop = {**prop, "minItems" if prop.get("type") == "array" else "minimum": f.metadata["least"]}
        if "most" in f.metadata:
            prop = {**prop, "maximum": f.metadata["most"]}
        props[yaml_key(f)] = prop
        if _required(f):
            required.append(yaml_key(f))
    return {
        "type": "object",
        "description": _description(tp),
        "properties": props,
        "additionalProperties": False,
        **({"required": required} if required else {}),
    }


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
