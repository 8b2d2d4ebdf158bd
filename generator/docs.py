"""The data format's reference, written from the model itself (`cadence reference`).

Every key of every record type in `model.py` is listed with its type, its default, the description
from its field metadata and an example. Examples come from the field's own metadata where it gives
one, otherwise from the first short value the shipped data uses, so the reference shows real usage;
a key that neither documents an example nor is used anywhere is reported by `missing_docs`.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, get_args

import yaml

from .model import DOCUMENT_KINDS, Record
from .schema import TypeWords, data_fields, describe_type, yaml_key

#: Longest example shown in full; longer ones are cut with an ellipsis.
EXAMPLE_WIDTH = 70


def record_types() -> list[type[Record]]:
    """Every record type a data file can hold, in the order a reader meets them from the top-level keys."""
    seen: list[type[Record]] = []

    def visit(tp: Any) -> None:
        if isinstance(tp, type) and issubclass(tp, Record):
            if tp in seen:
                return
            seen.append(tp)
            hints = typing.get_type_hints(tp)
            for f in data_fields(tp):
                visit(hints[f.name])
            return
        for arg in get_args(tp):
            visit(arg)

    for cls in DOCUMENT_KINDS.values():
        visit(cls)
    return seen


REFERENCE_WORDS = TypeWords(
    text="text",
    whole_number="whole number",
    flag="true/false",
    anything="any",
    literal=lambda value: f"`{value}`",
    sequence=lambda item: f"list of {item}",
    mapping=lambda key, value: f"mapping of {key} to {value}",
    record=lambda cls: f"[{cls.__name__}](#{cls.__name__.lower()})",
)


def type_text(tp: Any) -> str:
    """A field's type in words, naming record types by their heading in the reference."""
    return describe_type(tp, REFERENCE_WORDS)


def _plain(value: Any) -> Any:
    """A model value as plain YAML data: records as mappings without their defaults."""
    if isinstance(value, Record):
        out: dict[str, Any] = {}
        for f in data_fields(type(value)):
            item = getattr(value, f.name)
            if not _is_default(f, item):
                out[yaml_key(f)] = _plain(item)
        return out
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)
    return value


def _is_default(f: dataclasses.Field[Any], value: Any) -> bool:
    if f.default is not dataclasses.MISSING:
        return bool(value == f.default)
    if f.default_factory is not dataclasses.MISSING:
        return bool(value == f.default_factory())
    return False


def yaml_inline(value: Any) -> str:
    """One line of YAML, as a designer would write the value after its key."""
    text = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=10_000, sort_keys=False).strip()
    return text.removesuffix("...").strip()


def _walk(value: Any) -> Iterator[tuple[type[Record], dataclasses.Field[Any], Any]]:
    if isinstance(value, Record):
        for f in data_fields(type(value)):
            item = getattr(value, f.name)
            if not _is_default(f, item):
                yield type(value), f, item
            yield from _walk(item)
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _walk(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _walk(item)


def collect_examples(records: Iterable[Record]) -> dict[tuple[str, str], str]:
    """(record type, key) → an example value: the first short one the records use."""
    short: dict[tuple[str, str], str] = {}
    long: dict[tuple[str, str], str] = {}
    for record in records:
        for cls, f, value in _walk(record):
            key = (cls.__name__, yaml_key(f))
            if key in short:
                continue
            text = yaml_inline(_plain(value))
            if len(text) <= EXAMPLE_WIDTH:
                short[key] = text
            else:
                long.setdefault(key, text[: EXAMPLE_WIDTH - 1] + "…")
    return {**long, **short}


def project_records(roots: Iterable[Path]) -> list[Record]:
    """The system, modules and lists of each project folder, in load order."""
    from .catalogue import assemble
    from .loader import load_directory
    from .project_config import read_folders

    records: list[Record] = []
    for root in roots:
        data_dir, _ = read_folders(root)
        documents, _ = load_directory(root, data_dir)
        project, _ = assemble(documents, data_dir)
        if project is None:
            continue
        records.append(project.system)
        records.extend(project.modules.values())
        records.extend(entry.army_list for entry in project.lists)
        records.extend(project.releases)
    return records


def example_of(cls: type[Record], f: dataclasses.Field[Any], examples: dict[tuple[str, str], str]) -> str | None:
    if "example" in f.metadata:
        return yaml_inline(f.metadata["example"])
    return examples.get((cls.__name__, yaml_key(f)))


def default_text(f: dataclasses.Field[Any]) -> str:
    if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
        return "**required**"
    factory: Any = f.default_factory
    value = f.default if f.default is not dataclasses.MISSING else factory()
    if value is None:
        return "none"
    if isinstance(value, Record):
        return "its defaults"
    return f"`{yaml_inline(_plain(value))}`"


def own_docstring(cls: type) -> str:
    """A class's own docstring; dataclasses make up one from the signature when there is none."""
    text = inspect.cleandoc(cls.__doc__ or "")  # later paragraphs lose their indent
    return "" if text.startswith(f"{cls.__name__}(") else text


def missing_docs(examples: dict[tuple[str, str], str]) -> list[str]:
    """Record types without a description, and keys without a description or an example."""
    missing: list[str] = []
    for cls in record_types():
        if not own_docstring(cls):
            missing.append(f"{cls.__name__}: no description (a docstring)")
        for f in data_fields(cls):
            if not str(f.metadata.get("doc", "")).strip():
                missing.append(f"{cls.__name__}.{yaml_key(f)}: no description (doc(...) in its field metadata)")
            if example_of(cls, f, examples) is None:
                missing.append(f"{cls.__name__}.{yaml_key(f)}: no example (doc(..., example=...) or a use in the shipped data)")
    return missing


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def reference_markdown(examples: dict[tuple[str, str], str]) -> str:
    """data/REFERENCE.md: one section per record type, one row per key."""
    used_in: dict[str, list[str]] = {}
    for cls in record_types():
        hints = typing.get_type_hints(cls)
        for f in data_fields(cls):
            for inner in _record_args(hints[f.name]):
                used_in.setdefault(inner.__name__, []).append(f"[{cls.__name__}](#{cls.__name__.lower()})`.{yaml_key(f)}`")
    lines = [
        "# Data reference",
        "",
        "<!-- Written by `cadence reference` from generator/model.py: do not edit by hand. -->",
        "",
        "Every key of every record in the data files, with its type, default, meaning and an example.",
        "The top-level key of a data file is `system`, `module` or `army_list`; [README.md](README.md)",
        "explains how the files fit together.",
        "",
    ]
    top = {cls.__name__: key for key, cls in DOCUMENT_KINDS.items()}
    for cls in record_types():
        hints = typing.get_type_hints(cls)
        lines += [f"## {cls.__name__}", "", own_docstring(cls), ""]
        if cls.__name__ in top:
            lines += [f"Top-level key: `{top[cls.__name__]}`.", ""]
        if cls.__name__ in used_in:
            lines += ["Written under: " + ", ".join(dict.fromkeys(used_in[cls.__name__])) + ".", ""]
        lines += ["| key | type | default | description | example |", "| --- | --- | --- | --- | --- |"]
        for f in data_fields(cls):
            example = example_of(cls, f, examples)
            lines.append(
                f"| `{yaml_key(f)}` | {_cell(type_text(hints[f.name]) + _least(f))} | {_cell(default_text(f))} | "
                f"{_cell(str(f.metadata.get('doc', '')))} | {'`' + _cell(example) + '`' if example else ''} |"
            )
        lines.append("")
    return "\n".join(lines)


def _least(f: dataclasses.Field[Any]) -> str:
    """The least and greatest whole numbers a field takes, where it names them (`doc(..., least=0, most=100)`), as
    the reference says them."""
    least = f", at least {f.metadata['least']}" if "least" in f.metadata else ""
    return least + (f", at most {f.metadata['most']}" if "most" in f.metadata else "")


def _record_args(tp: Any) -> Iterator[type[Record]]:
    if isinstance(tp, type) and issubclass(tp, Record):
        yield tp
        return
    for arg in get_args(tp):
        yield from _record_args(arg)


def example_roots(root: Path) -> list[Path]:
    """The project and the example projects shipped inside it (examples/*/mkdocs.yml)."""
    return [root, *sorted(p.parent for p in (root / "examples").glob("*/mkdocs.yml"))]


def reference_text(root: Path) -> str:
    return reference_markdown(collect_examples(project_records(example_roots(root))))
