"""Loading YAML with positions, and refusing what rules data never needs."""

from __future__ import annotations

from pathlib import Path

from generator.loader import LocInt, LocStr, YMap, load_file, parse_yaml


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
