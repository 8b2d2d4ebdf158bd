"""The inventory of army-building sentences (tests/fixtures/army-building/): each one quoted from its source, and
each claim about what checks it true of the data and the checker today.

Every sentence of the published rules that limits what a player may put in an army is listed with the data that
checks it (`checked_by`: a key path in a data file and the roster problem code) or why nothing does
(`not_checked`). These tests keep that honest: the words must be in the named section of the source page (copied
into sources/, so any checkout runs them), every data path must resolve in the loaded project and hold the value
the sentence says, every code must be one the checker has, and a roster written to break a sentence must get the
codes named, or, for a known gap, pass as the checker stands (so a gap mended shows up here, to be moved over).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.catalogue import Project
from generator.export import ROSTER_CODES, ModuleExport, export_project
from generator.model import ArmyList, Module, Record, Section, slugify
from generator.pages import load_project
from generator.roster import Verdict, evaluate, normalise

from .conftest import REPO

INVENTORY = Path(__file__).resolve().parent / "fixtures" / "army-building"
#: The published site's pages, shipped as a fixture (tests/test_source_fidelity.py holds it equal to the original).
SOURCES = Path(__file__).resolve().parent / "fixtures" / "sources" / "cadence-site"
WASTELAND = "examples/wasteland-tactics/"

KINDS = {
    "points-limit",
    "game-size",
    "item-budget",
    "unit-count",
    "relative-count",
    "entry-count",
    "category-share",
    "category-count",
    "model-count",
    "model-mix",
    "compulsory",
    "one-of-each",
    "uniform-choice",
    "choice-count",
    "option-offer",
    "swap",
    "composition",
    "cost-rule",
    "reinforcement",
    "list-default",
    "game-size-rule",
    "other",
}
SCOPES = {"army", "list", "unit", "model"}


def _files() -> list[Path]:
    return sorted(INVENTORY.glob("*.yaml"))


def _entries() -> Iterator[tuple[str, dict[str, Any]]]:
    for path in _files():
        for entry in yaml.safe_load(path.read_text(encoding="utf-8"))["entries"]:
            yield f"{path.stem}:{entry['id']}", entry


ENTRIES = dict(_entries())


def _claims(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The data an entry points at: what checks it and what only states it."""
    return [*(entry.get("checked_by") or []), *(entry.get("encoded_by") or [])]


def test_the_inventory_covers_every_game() -> None:
    games = {p.stem for p in _files()}
    assert games == {
        "fracture",
        "halo-breakpoint",
        "devils-bluff",
        "respawn",
        "scraplands",
        "squadrons",
        "survivors",
        "wasteland-tactics",
    }
    assert len(ENTRIES) > 200


@pytest.mark.parametrize("key", ENTRIES)
def test_each_entry_says_what_checks_it_or_why_nothing_does(key: str) -> None:
    entry = ENTRIES[key]
    assert set(entry) >= {"id", "source", "words", "kind", "scope"}, key
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", entry["id"])
    assert entry["kind"] in KINDS and entry["scope"] in SCOPES
    assert entry.get("checked_by") or entry.get("not_checked"), "neither checked_by nor not_checked"
    for claim in entry.get("checked_by") or []:
        assert claim.get("code") or claim.get("inherent"), f"{claim}: name the problem code, or say why none is needed"
        assert claim.get("path") or claim.get("roster"), f"{claim}: a data path, or the roster field it reads"


def test_ids_are_unique_within_a_game() -> None:
    for path in _files():
        ids = [e["id"] for e in yaml.safe_load(path.read_text(encoding="utf-8"))["entries"]]
        assert len(ids) == len(set(ids)), path.name


# --- the words, in their source --------------------------------------------------------------------------


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@cache
def _sections(page: str) -> dict[str, str]:
    """A copied site page's text by anchor ('top' before the first one): each `<!-- anchor: #x -->` opens one."""
    text = (SOURCES / page).read_text(encoding="utf-8")
    out: dict[str, str] = {"top": ""}
    current = "top"
    for line in text.splitlines():
        found = re.fullmatch(r"<!-- anchor: #(.+) -->", line.strip())
        if found:
            current = found.group(1)
            out[current] = ""
        else:
            out[current] += line + "\n"
    return out


def _repo_section(file: str, anchor: str) -> str:
    """A repository file's text under an anchor: a Markdown heading's slug, or a YAML table's id."""
    text = (REPO / file).read_text(encoding="utf-8")
    if file.endswith(".md"):
        parts = re.split(r"^(#{1,6} .*)$", text, flags=re.M)
        for heading, body in zip(parts[1::2], parts[2::2], strict=True):
            if slugify(heading.lstrip("#").strip()) == anchor:
                return body
        raise AssertionError(f"{file} has no heading #{anchor}")
    found = re.search(rf"^\s*- id: {re.escape(anchor)}\n(.*?)(?=^\s*- id: |\Z)", text, flags=re.M | re.S)
    assert found, f"{file} has no table id {anchor}"
    # a folded YAML string and a flow list read as one line of words
    return re.sub(r"[\"']|^\s*-\s*|\n\s*-?\s*", " ", found.group(1), flags=re.M)


@pytest.mark.parametrize("key", ENTRIES)
def test_the_words_are_quoted_from_the_named_section(key: str) -> None:
    source = ENTRIES[key]["source"]
    words = _squash(ENTRIES[key]["words"])
    if "page" in source:
        sections = _sections(source["page"])
        assert source["anchor"] in sections, f"{source['page']} has no anchor #{source['anchor']}"
        section = _squash(sections[source["anchor"]])
    else:
        assert source["file"].startswith(WASTELAND), "a repository source is one of the example game's own files"
        section = _squash(_repo_section(source["file"], source["anchor"]))
    assert words in section, f"not in {source}: {words!r}"


# --- the data that checks them ----------------------------------------------------------------------------


@cache
def _project(root: str) -> Project:
    loaded = load_project(REPO / root)
    assert loaded.project is not None, [str(p) for p in loaded.problems]
    return loaded.project


@cache
def _exports(root: str) -> dict[str, ModuleExport]:
    return export_project(_project(root))


def _root_of(data: str) -> tuple[str, Record]:
    """The project a data file belongs to and the record it holds (a module, or an army list)."""
    root = WASTELAND if data.startswith(WASTELAND) else ""
    project = _project(root)
    rel = data.removeprefix(root)
    for module_id, file in project.module_files.items():
        if file == rel:
            return root, project.modules[module_id]
    entry = next((e for e in project.lists if e.file == rel), None)
    assert entry is not None, f"{data} is not a module or army list the project loads"
    return root, entry.army_list


def _blocks(sections: tuple[Section, ...], kind: str) -> Iterator[Any]:
    for section in sections:
        block = getattr(section, kind)
        if block is not None:
            yield block
        yield from _blocks(section.sections, kind)


def _names(item: Any) -> set[str]:
    if isinstance(item, str):
        return {slugify(item)}
    return {slugify(str(getattr(item, k))) for k in ("name", "id", "model", "rule", "unit") if getattr(item, k, None)}


def _pick(value: Any, key: str, where: str) -> Any:
    if isinstance(value, dict):
        assert key in value, f"{where}: no key {key}"
        return value[key]
    items = list(value)
    if key.isdigit():
        assert int(key) < len(items), f"{where}: no item {key}"
        return items[int(key)]
    found = [i for i in items if slugify(key) in _names(i)]
    assert len(found) == 1, f"{where}: {len(found)} items named {key}"
    return found[0]


def _step(value: Any, name: str, key: str | None, where: str) -> Any:
    if isinstance(value, ArmyList) and name in ("unit", "weapon_list", "upgrade_list"):
        assert key is not None
        return _pick(list(_blocks(value.sections, name)), key, where)
    if isinstance(value, ArmyList) and name == "upgrade":
        assert key is not None
        return _pick([u for ul in _blocks(value.sections, "upgrade_list") for u in ul.upgrades], key, where)
    field = "with_" if name == "with" else name
    assert isinstance(value, (Record, Module)) and hasattr(value, field), f"{where}: no field {name}"
    value = getattr(value, field)
    return value if key is None else _pick(value, key, where)


def resolve(root: Record, path: str) -> Any:
    """Follow a key path: fields by name; `[name]` picks an item by name (or a mapping's key, or an index);
    `unit[...]`, `weapon_list[...]`, `upgrade_list[...]` and `upgrade[...]` find a block anywhere in an army list."""
    value: Any = root
    for part in re.findall(r"[^.\[]+(?:\[[^\]]*\])?", path):
        found = re.fullmatch(r"(\w+)(?:\[(.+)\])?", part)
        assert found, f"{path}: cannot read {part!r}"
        value = _step(value, found.group(1), found.group(2), f"{path} at {part}")
        assert value is not None, f"{path}: {part} is not set"
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, Record) and hasattr(value, "name"):
        return str(value.name)  # a list of models or weapons reads as their names
    return value


CLAIMS = [(key, i, claim) for key, entry in ENTRIES.items() for i, claim in enumerate(_claims(entry)) if claim.get("path")]


@pytest.mark.parametrize(("key", "i", "claim"), CLAIMS, ids=[f"{k}#{i}" for k, i, _ in CLAIMS])
def test_each_data_path_resolves_to_what_the_sentence_says(key: str, i: int, claim: dict[str, Any]) -> None:
    _root, record = _root_of(claim["data"])
    value = resolve(record, claim["path"])
    if "value" in claim:
        assert _plain(value) == claim["value"], f"{claim['data']}: {claim['path']} is {_plain(value)!r}"


def test_each_code_named_is_one_the_checker_has() -> None:
    named = {c["code"] for e in ENTRIES.values() for c in _claims(e) if c.get("code")}
    assert named <= set(ROSTER_CODES), named - set(ROSTER_CODES)


def test_each_gap_found_with_a_roster_says_so() -> None:
    for key, entry in ENTRIES.items():
        if entry.get("roster") and entry["roster"].get("expect") == []:
            assert "gap" in str(entry.get("not_checked", "")), f"{key}: a roster the checker passes is a gap"


# --- rosters that break a sentence ---------------------------------------------------------------------------

ROSTERS = [key for key, entry in ENTRIES.items() if entry.get("roster")]


@pytest.mark.parametrize("key", ROSTERS)
def test_a_roster_that_breaks_the_sentence_gets_the_verdict_recorded(key: str) -> None:
    """A checked sentence's roster gets each code named; a gap's roster (`expect: []`) passes with no error today."""
    entry = ENTRIES[key]
    raw = dict(entry["roster"])
    expect = raw.pop("expect")
    data = next((c["data"] for c in _claims(entry) if c.get("data")), "")
    export = _exports(WASTELAND if data.startswith(WASTELAND) else "")[raw["module"]]
    verdict = Verdict.of(export.data)
    evaluate(export, normalise(raw, verdict), verdict)
    errors = {p.code for p in verdict.problems if p.severity == "error"}
    if expect:
        assert set(expect) <= errors, f"{key}: expected {expect}, the checker said {sorted(errors)}"
        named = {c["code"] for c in entry.get("checked_by") or [] if c.get("code")}
        assert set(expect) <= named, f"{key}: the roster's codes are not the ones checked_by names"
    else:
        assert not errors, (
            f"{key}: the checker now reports {sorted(errors)} for a roster recorded as a gap; "
            "if it is right, move the entry from not_checked to checked_by"
        )
