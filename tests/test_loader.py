"""Loading YAML with positions, and refusing what rules data never needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.loader import LocInt, LocStr, YMap, load_file, parse_yaml, source_text


def test_values_remember_where_they_were_written() -> None:
    body, problems = parse_yaml("module:\n  id: fracture\n  rounds: 4\n", "data/x.yaml")
    assert problems == []
    assert isinstance(body, YMap)
    module = body["module"]
    assert isinstance(module["id"], LocStr)
    assert str(module["id"].loc) == "data/x.yaml:2:7"
    assert isinstance(module["rounds"], LocInt)
    assert str(module["rounds"].loc) == "data/x.yaml:3:11"
    assert str(module.key_locs["rounds"]) == "data/x.yaml:3:3"


def test_duplicate_keys_are_reported_at_the_second_key() -> None:
    _, problems = parse_yaml("a: 1\nb: 2\na: 3\n", "f.yaml")
    assert [str(p) for p in problems] == ["f.yaml:3:1: error[duplicate-key]: key 'a' appears twice in this mapping (first at line 1)"]


def test_aliases_and_anchors_are_refused() -> None:
    body, problems = parse_yaml("a: &x [1, 2]\nb: *x\n", "f.yaml")
    assert body is None
    assert (
        str(problems[0])
        == "f.yaml:1:4: error[yaml]: YAML anchors ('&name') are not allowed in rules data (hint: write the value out in full)"
    )


def test_tags_are_refused() -> None:
    body, problems = parse_yaml("a: !!python/object:os.system {}\n", "f.yaml")
    assert body is None
    assert problems[0].code == "yaml"
    assert "tag:yaml.org,2002:python/object:os.system" in problems[0].message


@pytest.mark.parametrize("value", ["!!int abc", "!!float abc", "!!bool maybe"])
def test_an_explicit_tag_that_does_not_fit_its_value_is_located(value: str) -> None:
    body, problems = parse_yaml(f"a: 1\nb: {value}\n", "f.yaml")
    assert body is None
    tag = value.split()[0].replace("!!", "tag:yaml.org,2002:")
    assert [str(p) for p in problems] == [f"f.yaml:2:4: error[yaml]: YAML tag '{tag}' does not fit the value '{value.split()[1]}'"]


def test_a_number_of_more_digits_than_python_reads_is_a_located_error() -> None:
    body, problems = parse_yaml(f"a: 1\nb: {'9' * 5000}\nc: !!float {'1' * 5000}x\n", "f.yaml")
    assert body is None
    assert [str(p) for p in problems] == ["f.yaml:2:4: error[yaml]: a number of 5000 digits is more than can be read (at most 4300)"]
    _, problems = parse_yaml(f"c: !!float {'1' * 5000}x\n", "f.yaml")
    assert [str(p) for p in problems] == [
        f"f.yaml:1:4: error[yaml]: YAML tag 'tag:yaml.org,2002:float' does not fit the value '{'1' * 40}… (5001 characters)'"
    ]


def test_invalid_yaml_is_located() -> None:
    _, problems = parse_yaml("a: [1, 2\nb: 3\n", "f.yaml")
    assert problems[0].code == "yaml"
    assert problems[0].location.line == 2


def test_deep_nesting_is_refused() -> None:
    _, problems = parse_yaml("a: " + "[" * 60 + "]" * 60 + "\n", "f.yaml")
    assert problems[0].message == "data nests deeper than 40 levels"


def test_non_utf8_bytes_are_located(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_bytes(b"a: 1\nb: caf\xe9\n")
    _, problems = load_file(path, "data/bad.yaml")
    assert str(problems[0]) == "data/bad.yaml:2:7: error[encoding]: byte 0xe9 is not valid UTF-8 (hint: save the file as UTF-8)"


def test_empty_file_and_directory(tmp_path: Path) -> None:
    (tmp_path / "empty.yaml").write_text("# nothing\n")
    _, problems = load_file(tmp_path / "empty.yaml", "data/empty.yaml")
    assert str(problems[0]) == "data/empty.yaml:1:1: error[empty]: the file is empty (hint: remove it or give it a top-level key)"
    (tmp_path / "dir.yaml").mkdir()
    _, problems = load_file(tmp_path / "dir.yaml", "data/dir.yaml")
    assert str(problems[0]) == "data/dir.yaml:1:1: error[io]: expected a file but found a directory"


def test_huge_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    path.write_text("a: " + "x" * (3 * 1024 * 1024) + "\n")
    _, problems = load_file(path, "data/huge.yaml")
    assert problems[0].code == "too-large"


# --- YAML that changes meaning -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "reads_as"),
    [
        ("+2", "the number 2"),
        ("010", "the number 8"),
        ("1:30", "the number 90"),
        ("1_000", "the number 1000"),
        ("0x1f", "the number 31"),
        ("1.50", "the number 1.5"),
        ("yes", "true"),
        ("no", "false"),
        ("on", "true"),
        ("Off", "false"),
    ],
)
def test_values_yaml_would_change_are_located_errors(written: str, reads_as: str) -> None:
    body, problems = parse_yaml(f"unit:\n  profile: {{mov: 6, hp: {written}}}\n", "f.yaml")
    assert [str(p) for p in problems] == [
        f"f.yaml:2:25: error[yaml-value]: YAML reads {written} as {reads_as}, not as written "
        f"(hint: write '{written}' in quotes to keep it as written, or write {reads_as.removeprefix('the number ')})"
    ]
    assert body is not None
    assert source_text(body["unit"]["profile"]["hp"]) in (written, "True", "False")


@pytest.mark.parametrize("written", ["2", "-3", "0", "1.5", "true", "false", "'+2'", '"1:30"', "'yes'", "08", "1e3"])
def test_values_read_as_written_are_accepted(written: str) -> None:
    body, problems = parse_yaml(f"unit:\n  hp: {written}\n", "f.yaml")
    assert problems == []
    assert body is not None
    value = body["unit"]["hp"]
    assert source_text(value).lower() == written.strip("'\"").lower()
    if written == "'+2'":
        assert isinstance(value, LocStr) and value == "+2"


# --- characters no rules text needs ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "where", "char"),
    [
        ("module:\n  id: ab\x00cd\n", "2:9", "U+0000"),
        ("module:\n  title: é\x1b[31mred\n", "2:11", "U+001B"),
        ("module:\n  title: éé\n  summary: a\u2028b\n", "3:13", "U+2028"),
        ("module:\n  title: éé x\ufffe\n", "2:14", "U+FFFE"),
        ("module:\n  title: a\x85b\n", "2:11", "U+0085"),
    ],
)
def test_control_characters_are_located_where_an_editor_shows_them(tmp_path: Path, text: str, where: str, char: str) -> None:
    path = tmp_path / "x.yaml"
    path.write_bytes(text.encode("utf-8"))
    document, problems = load_file(path, "data/x.yaml")
    assert document is None
    assert len(problems) == 1
    assert str(problems[0]).startswith(f"data/x.yaml:{where}: error[encoding]: ")
    assert char in problems[0].message
