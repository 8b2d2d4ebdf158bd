"""Records compare, hash and print as the dataclasses they are declared as would with `eq=True` and
`repr=True`, though `Record` supplies those methods once for every class (generator/model.py).

Each record class is compared with a twin built by `dataclasses` itself from the same fields, on
every record of the shipped project; and `schema.type_hints`, which evaluates each annotation once,
with `typing.get_type_hints`.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterator
from functools import cache
from typing import Any

from generator.model import NOWHERE, Labels, Record, Unit
from generator.pages import load_project
from generator.problems import Location
from generator.schema import type_hints

from .conftest import REPO


@cache
def twin(cls: type[Record]) -> type:
    """`cls`'s fields in a plain dataclass with the generated `__eq__`, `__hash__` and `__repr__`."""
    specs = [(f.name, Any, dataclasses.field(default=None, compare=f.compare, hash=f.hash, repr=f.repr)) for f in dataclasses.fields(cls)]
    made = dataclasses.make_dataclass(cls.__name__, specs, frozen=True, kw_only=True)
    made.__qualname__ = cls.__qualname__
    return made


def as_twin(record: Record) -> Any:
    return twin(type(record))(**{f.name: getattr(record, f.name) for f in dataclasses.fields(record)})


def records(value: Any) -> Iterator[Record]:
    if isinstance(value, Record):
        yield value
        for f in dataclasses.fields(value):
            yield from records(getattr(value, f.name))
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from records(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from records(item)


def test_every_shipped_record_hashes_and_prints_as_its_dataclass_twin() -> None:
    loaded = load_project(REPO)
    assert loaded.project is not None
    found = [r for entry in loaded.project.lists for r in records(entry.army_list)]
    found += [r for module in loaded.project.modules.values() for r in records(module)] + list(records(loaded.project.system))
    assert len(found) > 1000 and len({type(r) for r in found}) > 20
    for record in found:
        assert hashed(record) == hashed(as_twin(record))  # the same fields, in the same order, in a tuple
        assert repr(record) == repr(as_twin(record))
        assert record == dataclasses.replace(record, loc=Location("elsewhere.yaml", 2, 2))


def hashed(value: Any) -> int | str:
    """The value's hash, or the name of the error hashing it raises (a record holding a dict has none)."""
    try:
        return hash(value)
    except TypeError as exc:
        return str(exc)


def test_equal_fields_are_equal_records_wherever_written() -> None:
    here, there = Location("a.yaml", 1, 1), Location("b.yaml", 9, 3)
    unit = Unit(name="Scouts", models=(), loc=here)
    assert unit == Unit(name="Scouts", models=(), loc=there) and hash(unit) == hash(Unit(name="Scouts", models=(), loc=there))
    assert unit != Unit(name="Rangers", models=(), loc=here)
    assert unit != as_twin(unit)  # another class, even with the same fields
    assert Labels() == Labels(loc=NOWHERE) and Labels(home="Start") != Labels()
    assert repr(Labels(home="Start")).startswith("Labels(home='Start', overview='Overview',")


def test_type_hints_are_typing_s_for_every_record_class() -> None:
    classes = [Record]
    for cls in classes:
        classes.extend(cls.__subclasses__())
    assert len(classes) > 40
    for cls in classes:
        assert type_hints(cls) == typing.get_type_hints(cls), cls


def test_no_record_class_needs_its_init_run() -> None:
    """The record cache (generator/stored.py) sets a stored record's fields directly, not through `__init__`."""
    classes = [Record]
    for cls in classes:
        classes.extend(cls.__subclasses__())
    assert not [cls for cls in classes if hasattr(cls, "__post_init__")]
