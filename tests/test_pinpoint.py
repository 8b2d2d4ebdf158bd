"""A problem in a data text is reported at the word or link it is about, in every way YAML writes a text."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from generator.pinpoint import pinpoint, position_in_scalar
from generator.problems import Location, warning

from .conftest import MINI, copy_project

#: Texts written every way YAML allows, each with a word further in; the word's place in the file is the truth.
WRITTEN = {
    "plain": "text: Three to five Rangers, led by a Captian.\n",
    "plain over lines": "text: Three to five Rangers,\n  led by a\n  Captian.\n",
    "single quotes": "text: 'The Ranger''s own   Captian.'\n",
    "double quotes": 'text: "Three to five Rangers,\n  led by a Captian."\n',
    "folded": "text: >-\n  Three to five Rangers,\n  led by a\n\n  Captian.\n",
    "literal": "text: |\n  Three to five Rangers,\n    led by a\n  Captian.\n",
    "folded, indented": "unit:\n  text: >\n      Three to five Rangers,\n      led by a Captian.\n",
}


def _scalar_start(source: str) -> tuple[int, int]:
    event = next(e for e in yaml.parse(source) if isinstance(e, yaml.ScalarEvent) and e.value.startswith(("Three", "The")))
    return event.start_mark.line + 1, event.start_mark.column + 1


@pytest.mark.parametrize("style", sorted(WRITTEN))
def test_a_word_is_found_where_it_is_written(style: str) -> None:
    source = WRITTEN[style]
    value = yaml.safe_load(source)
    value = value["unit"]["text"] if "unit" in value else value["text"]
    line, column = _scalar_start(source)
    at = source.index("Captian")
    expected = (source.count("\n", 0, at) + 1, at - source.rfind("\n", 0, at))
    assert position_in_scalar(source, line, column, value, value.index("Captian")) == expected


def test_an_escape_before_the_word_leaves_the_text_start() -> None:
    source = 'text: "Three\\tto five, a Captian."\n'
    value = yaml.safe_load(source)["text"]
    assert position_in_scalar(source, 1, 7, value, value.index("Captian")) is None


def test_a_problem_is_moved_to_its_word_unless_the_text_or_file_is_not_there(tmp_path: Path) -> None:
    """The value is read again from the file and walked: an offset past the text's end, or a file that is gone,
    leaves the problem at the place the check gave."""
    project = copy_project(MINI, tmp_path / "mini")
    path = "data/skirmish/army-lists/rangers.yaml"
    source = (project / path).read_text(encoding="utf-8")
    row = next(i for i, text in enumerate(source.split("\n"), 1) if "text: Three to five Rangers" in text)
    start = Location(path, row, source.split("\n")[row - 1].index("Three") + 1)
    found = warning(start, "spelling", "'Captain' is not a known word", offset=len("Three to five Rangers; one may be a Ranger "))
    (moved,) = pinpoint(project, [found])
    assert (moved.location.line, moved.location.column) == (row, start.column + found.offset) and moved.offset == -1
    beyond = warning(start, "spelling", "'Rangers' is not a known word", offset=500)  # past the end of the text
    gone = warning(Location("data/nowhere.yaml", 3, 4), "spelling", "'Captain' is not a known word", offset=2)
    assert [p.location for p in pinpoint(project, [beyond, gone])] == [beyond.location, gone.location]
