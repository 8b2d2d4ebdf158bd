"""Every figure we publish matches the public Cadence site, or the module's errata says why not.

The sources (``shared/sources/cadence-site``, next to the repository) hold one file per page of the
public site with its tables flattened to text. ``tests/tools/extract_source_rows.py`` reads the
cells back (names, profile values, rule lists, points, roll values; never the free text, which we
word anew); its output is checked in as ``tests/fixtures/source_rows.json`` for review, and the first
test keeps that file in step with the sources. Here we build the site once, read the rows afresh from
the sources, and look for every one of them in the built page at the same path:

* a row is found by its name (or roll value) among the tables of the page that have every column the
  source fills; rows under the source's anchor take precedence, other sections count only when the
  anchor holds no such row; the counter tables, whose rows have no name, are compared in order;
* every stored cell must then be equal, after normalising whitespace, unescaping HTML and dropping
  link markup, with rule lists compared item by item and in order ("" and "-" are different);
* a cell may differ only where ``data/<module>/module.yaml`` records an erratum for that page whose
  ``published`` / ``corrected`` text accounts for the difference;
* rule definition tables must have a heading per rule on the page;
* every page and anchor of the source site's search index must exist in the built site.
"""

from __future__ import annotations

import difflib
import html
import importlib.util
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
#: The public site's pages, shipped with the tests so they run from any checkout.
SITE_SOURCES = Path(__file__).resolve().parent / "fixtures" / "sources" / "cadence-site"
#: The read-only original beside a clone (the developers' and CI's machines), which the shipped copy must equal.
SHARED_SOURCES = Path(__file__).resolve().parents[2] / "shared" / "sources" / "cadence-site"
SEARCH_INDEX = SITE_SOURCES / "search_index.json"
EXTRACTOR = REPO / "tests" / "tools" / "extract_source_rows.py"
FIXTURE = REPO / "tests" / "fixtures" / "source_rows.json"
DATA = REPO / "data"


# --------------------------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------------------------


def _load_extractor() -> ModuleType:
    spec = importlib.util.spec_from_file_location("extract_source_rows", EXTRACTOR)
    assert spec is not None and spec.loader is not None, f"cannot load {EXTRACTOR}"
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def extractor() -> ModuleType:
    return _load_extractor()


@pytest.fixture(scope="session")
def sources() -> Path:
    """The public site's pages; their absence is a failure, not a reason to skip."""
    if not SITE_SOURCES.is_dir() or not SEARCH_INDEX.is_file():
        pytest.fail(
            f"The Cadence site sources are missing: expected {SITE_SOURCES} (with search_index.json). "
            "They ship with the tests (tests/fixtures/sources/cadence-site); the fidelity of every "
            "published figure cannot be checked without them."
        )
    return SITE_SOURCES


@pytest.fixture(scope="session")
def source_rows(extractor: ModuleType, sources: Path) -> dict[str, Any]:
    """Every table row of the sources, read afresh from them."""
    data: dict[str, Any] = extractor.extract(sources)
    return data


@pytest.fixture(scope="session")
def fidelity_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped project, built once with a real `mkdocs build` (not --strict: this test is about content)."""
    site = tmp_path_factory.mktemp("fidelity-site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--site-dir", str(site)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, f"mkdocs build failed:\n{result.stdout}\n{result.stderr}"
    return site


# --------------------------------------------------------------------------------------------
# The built pages
# --------------------------------------------------------------------------------------------


def norm(text: str) -> str:
    """Whitespace collapsed, entities unescaped, the heading permalink sign dropped."""
    return " ".join(html.unescape(text).replace("¶", " ").split())


@dataclass
class BuiltTable:
    section: str  # id of the nearest heading above the table
    header: list[str]
    rows: list[list[str]]
    keys: list[str] = field(default_factory=list)


@dataclass
class BuiltPage:
    ids: set[str] = field(default_factory=set)
    headings: list[tuple[str, str]] = field(default_factory=list)  # (id, text)
    tables: list[BuiltTable] = field(default_factory=list)


class _PageParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = BuiltPage()
        self.section = ""
        self.heading: tuple[str, list[str]] | None = None
        self.table: BuiltTable | None = None
        self.row: list[str] | None = None
        self.cell: list[str] | None = None
        self.in_head = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if attributes.get("id"):
            self.page.ids.add(str(attributes["id"]))
        if re.fullmatch(r"h[1-6]", tag):
            self.heading = (str(attributes.get("id") or ""), [])
            if attributes.get("id"):
                self.section = str(attributes["id"])
        elif tag == "table":
            self.table = BuiltTable(self.section, [], [])
        elif tag == "thead":
            self.in_head = True
        elif tag == "tr" and self.table is not None:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if re.fullmatch(r"h[1-6]", tag) and self.heading is not None:
            self.page.headings.append((self.heading[0], norm("".join(self.heading[1]))))
            self.heading = None
        elif tag in ("td", "th") and self.cell is not None and self.row is not None:
            self.row.append(norm("".join(self.cell)))
            self.cell = None
        elif tag == "tr" and self.row is not None and self.table is not None:
            if self.in_head:
                self.table.header = self.row
            else:
                self.table.rows.append(self.row)
            self.row = None
        elif tag == "thead":
            self.in_head = False
        elif tag == "table" and self.table is not None:
            self.table.keys = built_keys(self.table.header)
            self.page.tables.append(self.table)
            self.table = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)
        if self.heading is not None:
            self.heading[1].append(data)


FIRST_COLUMN_ROLL = {"Roll", "D6 Roll", "Dice Roll", "Draw"}
LABEL_KEYS = {
    "Cmd": "cmd", "Mov": "mov", "Skl": "skl", "Def": "def", "Tgh": "tgh", "HP": "hp",
    "Rng": "rng", "Att": "att", "Dmg": "dmg", "Prc": "prc",
    "Special Rules": "rules", "Special": "rules", "Count": "count", "Points": "points", "Cost": "points",
    "Type": "type", "Primary Weapon": "primary", "Secondary Weapon": "secondary", "Result": "result",
    "Effect": "effect", "Description": "effect", "Benefit": "effect", "Outcome": "effect", "Details": "effect",
}  # fmt: skip


def built_keys(header: list[str]) -> list[str]:
    """Our table's columns as the extractor's keys (name, cmd, ..., rules, points, roll, counter)."""
    keys: list[str] = []
    for i, label in enumerate(header):
        if i == 0 and label in FIRST_COLUMN_ROLL:
            keys.append("roll")
        elif label.startswith("Counter"):
            keys.append("counter")
        elif label.startswith("Weapon Damage"):
            keys.append("effect")
        elif label in LABEL_KEYS and not (i == 0 and LABEL_KEYS[label] == "effect"):
            keys.append(LABEL_KEYS[label])
        elif "name" not in keys:
            keys.append("name")
        else:
            keys.append("other:" + label)
    return keys


def parse_page(path: Path) -> BuiltPage:
    parser = _PageParser()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return parser.page


# --------------------------------------------------------------------------------------------
# Comparing cells
# --------------------------------------------------------------------------------------------


def rule_items(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def cell_equal(key: str, source: str, ours: str) -> bool:
    if key == "rules":
        return rule_items(source) == rule_items(ours)
    return norm(source) == norm(ours)


def our_value(extractor: ModuleType, table: dict[str, Any], built: BuiltTable, row: list[str], key: str) -> str:
    """Our cell for a source key: absent columns are empty; derived keys are derived as the source's were."""
    if key == "label" and "result" in built.keys:
        result = row[built.keys.index("result")]
        return re.split(r": | - ", result, maxsplit=1)[0].strip()
    if key not in built.keys:
        return ""
    value = row[built.keys.index(key)]
    if key in table.get("labels_only", []):
        return str(extractor.rule_labels(value))
    return value


# --------------------------------------------------------------------------------------------
# Errata
# --------------------------------------------------------------------------------------------


@dataclass
class Erratum:
    module: str
    page: str
    anchor: str
    published: str
    corrected: str


def load_errata() -> dict[str, list[Erratum]]:
    errata: dict[str, list[Erratum]] = {}
    for path in sorted(DATA.glob("*/module.yaml")):
        module = yaml.safe_load(path.read_text(encoding="utf-8"))["module"]
        for entry in module.get("errata") or []:
            page = str(entry["page"]).removesuffix(".html")
            errata.setdefault(page, []).append(
                Erratum(
                    module["id"], page, str(entry.get("anchor") or ""), str(entry.get("published", "")), str(entry.get("corrected", ""))
                )
            )
    return errata


def _difference(source: str, ours: str) -> tuple[str, str]:
    """The differing words of two cells: (source part, our part)."""
    a, b = source.split(), ours.split()
    removed, added = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op != "equal":
            removed.extend(a[i1:i2])
            added.extend(b[j1:j2])
    return " ".join(removed), " ".join(added)


def _has_words(text: str, words: str) -> bool:
    """`words` occurs in `text`, not as part of a longer word ("5" is not in "59")."""
    return re.search(rf"(?<!\w){re.escape(words)}(?!\w)", text) is not None


def erratum_for(errata: list[Erratum], anchor: str, names: tuple[str, ...], source: str, ours: str) -> Erratum | None:
    """The erratum that accounts for publishing `ours` where the source printed `source`, if any.

    Either its published text, replaced by its corrected text inside the source cell, gives our cell;
    or the differing words are part of its published and corrected texts and the erratum is about
    this row (same anchor, or it names the row, or the differing words are a word of their own).
    """
    source_n, ours_n = norm(source), norm(ours)
    for erratum in errata:
        published, corrected = norm(erratum.published), norm(erratum.corrected)
        if published and published in source_n and source_n.replace(published, corrected) == ours_n:
            return erratum
    removed, added = _difference(source_n, ours_n)
    for erratum in errata:
        published, corrected = norm(erratum.published), norm(erratum.corrected)
        if removed and not _has_words(published, removed):
            continue
        if added and not _has_words(corrected, added):
            continue
        about_row = (
            (erratum.anchor and erratum.anchor == anchor)
            or any(name and (name in published or name in corrected) for name in names)
            or len(re.sub(r"\W", "", removed)) >= 4
        )
        if about_row:
            return erratum
    return None


# --------------------------------------------------------------------------------------------
# Where our value comes from (for the report)
# --------------------------------------------------------------------------------------------


def locate(page: str, *needles: str) -> str:
    """data/ file:line of the first line naming the row (to help whoever fixes it): the page's own file first."""
    folder = DATA / page.split("/")[0]
    if not folder.is_dir():
        return "?"
    files = sorted(folder.rglob("*.yaml"), key=lambda p: (p.stem != page.rsplit("/", 1)[-1], p.name != "module.yaml", str(p)))
    for needle in needles:
        needle = needle.removeprefix("- ")  # a firing mode's row
        if not needle:
            continue
        named = re.compile(rf"name: ['\"]?{re.escape(needle)}(?:['\",}}]|$)")
        mentioned = re.compile(rf"(?<![\w-]){re.escape(needle)}(?![\w-])")
        for pattern in (named, mentioned):
            for path in files:
                for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                    if pattern.search(line):
                        return f"data/{path.relative_to(DATA).as_posix()}:{number}"
    return "?"


# --------------------------------------------------------------------------------------------
# The comparison
# --------------------------------------------------------------------------------------------


@dataclass
class Report:
    tables: int = 0
    rows: int = 0
    cells: int = 0
    by_erratum: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    missing_pages: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return f"{self.tables} source tables, {self.rows} rows, {self.cells} cells compared; {len(self.by_erratum)} differences covered by errata"


def _key_of(table: dict[str, Any]) -> str | None:
    keys = table["keys"]
    if table["kind"] == "counter":
        return None
    return "roll" if "roll" in keys and "name" not in keys else "name"


def _compatible(table: dict[str, Any], built: BuiltTable, key: str | None) -> bool:
    """Our table can hold the source table's rows: the key column, and every column the source fills."""
    if key is not None and key not in built.keys:
        return False
    if key is None and "counter" not in built.keys:
        return False
    for k in table["keys"]:
        if k == "label":
            if "result" not in built.keys and "label" not in built.keys:
                return False
        elif k not in built.keys and any(row.get(k) for row in table["rows"]):
            return False
    return True


def _candidate_rows(tables: list[BuiltTable], anchor: str) -> Iterator[tuple[int, BuiltTable, list[str]]]:
    """Rows of the compatible tables, those under the same anchor first (rank 0)."""
    for built in sorted(tables, key=lambda t: t.section != anchor):
        for row in built.rows:
            if len(row) == len(built.keys):
                yield (0 if built.section == anchor else 1), built, row


def compare_page(
    extractor: ModuleType, page: str, tables: list[dict[str, Any]], built: BuiltPage, errata: list[Erratum], report: Report
) -> None:
    for table in tables:
        report.tables += 1
        anchor = table["anchor"]
        where = f"{page}#{anchor} (source line {table['source_line']})"
        if table["kind"] == "rules":
            headings = {text for _, text in built.headings}
            cells = {cell for t in built.tables for r in t.rows for cell in r[:1]}
            for row in table["rows"]:
                report.rows += 1
                report.cells += 1
                name = row["name"]
                if name in headings or name in cells:
                    continue
                fixed = erratum_for(errata, anchor, (name,), name, "")
                if fixed:
                    report.by_erratum.append(f"{where}: rule {name!r} (erratum: {fixed.published!r} -> {fixed.corrected!r})")
                    continue
                near = difflib.get_close_matches(name, sorted(headings), n=1, cutoff=0.6)
                report.mismatches.append(
                    f"{where}: special rule {name!r} has no heading on the page" + (f" (closest heading: {near[0]!r})" if near else "")
                )
            continue

        key = _key_of(table)
        compatible = [t for t in built.tables if _compatible(table, t, key)]
        compared = [k for k in table["keys"] if k != key]
        if key is None:
            # rows without a name of their own (the counter tables): compare in order
            same = [t for t in compatible if len(t.rows) == len(table["rows"])]
            same.sort(key=lambda t: t.section != anchor)
            if not same:
                report.mismatches.append(f"{where}: no table on the page with {len(table['rows'])} rows and a Counter column")
                report.rows += len(table["rows"])
                continue
            for index, (row, ours) in enumerate(zip(table["rows"], same[0].rows, strict=True)):
                report.rows += 1
                _compare_cells(extractor, where, f"row {index + 1}", table, same[0], ours, row, compared, errata, report, page)
            continue

        claimed = {
            id(r)
            for other in table["rows"]
            for _, t, r in _candidate_rows(compatible, anchor)
            if cell_equal(key, other[key], r[t.keys.index(key)])
        }
        for row in table["rows"]:
            report.rows += 1
            report.cells += 1  # the name (or roll value)
            wanted = row[key]
            candidates = [
                (rank, t, r) for rank, t, r in _candidate_rows(compatible, anchor) if cell_equal(key, wanted, r[t.keys.index(key)])
            ]
            if not candidates:
                for rank, t, r in _candidate_rows(compatible, anchor):
                    fixed = None if id(r) in claimed else erratum_for(errata, anchor, (wanted,), wanted, r[t.keys.index(key)])
                    if fixed:
                        candidates.append((rank, t, r))
                        report.by_erratum.append(
                            f"{where}: {key} {wanted!r} -> {r[t.keys.index(key)]!r} (erratum: {fixed.published!r} -> {fixed.corrected!r})"
                        )
                        break
            if not candidates:
                # the name itself may be what differs: the row of the same section that agrees most
                best: tuple[int, BuiltTable, list[str]] | None = None
                for rank, t, r in _candidate_rows(compatible, anchor):
                    agree = sum(cell_equal(k, row.get(k, ""), our_value(extractor, table, t, r, k)) for k in compared)
                    if rank == 0 and id(r) not in claimed and (best is None or agree > best[0]):
                        best = (agree, t, r)
                if best is not None and compared and best[0] * 2 >= len(compared):
                    ours_name = best[2][best[1].keys.index(key)]
                    report.mismatches.append(
                        f"{where}: row {wanted!r}: column {key}: source {wanted!r}, ours {ours_name!r} [ours at {locate(page, ours_name)}]"
                    )
                    _compare_cells(extractor, where, f"row {wanted!r}", table, best[1], best[2], row, compared, errata, report, page)
                else:
                    report.mismatches.append(
                        f"{where}: row {wanted!r} ({_describe(row)}) is not on the page{_why_not(table, built, key, wanted)}"
                    )
                continue
            # rows under the same anchor take precedence (a name may be in several lists: Missile Launcher)
            nearest = min(rank for rank, _, _ in candidates)
            scored = []
            for rank, t, r in candidates:
                if rank != nearest:
                    continue
                differing = sum(not cell_equal(k, row.get(k, ""), our_value(extractor, table, t, r, k)) for k in compared)
                scored.append((differing, t, r))
            scored.sort(key=lambda s: s[0])
            _, t, r = scored[0]
            _compare_cells(extractor, where, f"row {wanted!r}", table, t, r, row, compared, errata, report, page)


def _why_not(table: dict[str, Any], built: BuiltPage, key: str, wanted: str) -> str:
    """Why a row was not found: a table holds the name but lacks a column the source fills."""
    for t in built.tables:
        if key in t.keys and any(len(r) == len(t.keys) and cell_equal(key, wanted, r[t.keys.index(key)]) for r in t.rows):
            absent = [k for k in table["keys"] if k not in t.keys and k != "label" and any(row.get(k) for row in table["rows"])]
            if absent:
                values = ", ".join(f"{k}={row.get(k)!r}" for row in table["rows"] if row.get(key) == wanted for k in absent)
                return f": our table under #{t.section} has the row but no {'/'.join(absent)} column (source: {values})"
    return ""


def _describe(row: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in row.items() if v)


def _compare_cells(
    extractor: ModuleType,
    where: str,
    what: str,
    table: dict[str, Any],
    built: BuiltTable,
    ours_row: list[str],
    row: dict[str, Any],
    compared: list[str],
    errata: list[Erratum],
    report: Report,
    page: str,
) -> None:
    name = str(row.get("name", ""))
    ours_name = ours_row[built.keys.index("name")] if "name" in built.keys else ""
    for k in compared:
        report.cells += 1
        source = str(row.get(k, ""))
        ours = our_value(extractor, table, built, ours_row, k)
        if cell_equal(k, source, ours):
            continue
        fixed = erratum_for(errata, table["anchor"], (name, ours_name), source, ours)
        if fixed:
            report.by_erratum.append(f"{where}: {what}: {k} {source!r} -> {ours!r} (erratum: {fixed.published!r} -> {fixed.corrected!r})")
            continue
        report.mismatches.append(
            f"{where}: {what}: column {k}: source {source!r}, ours {ours!r} [ours at {locate(page, ours_name or name)}]"
        )


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------


def test_the_shipped_sources_are_the_published_site(sources: Path) -> None:
    """The copy the tests read is the published site, file for file, wherever the original lies beside the clone
    (as on every developer's machine and in CI); a clone elsewhere reads the copy alone."""
    shipped = {str(p.relative_to(sources)): p.read_bytes() for p in sources.rglob("*") if p.is_file() and p.name != "README.md"}
    assert len(shipped) >= 60, "the copy holds every page of the site"
    if SHARED_SOURCES.is_dir():
        original = {str(p.relative_to(SHARED_SOURCES)): p.read_bytes() for p in SHARED_SOURCES.rglob("*") if p.is_file()}
        assert sorted(shipped) == sorted(original)
        assert [page for page in original if shipped[page] != original[page]] == []


def test_source_rows_fixture_is_current(extractor: ModuleType, source_rows: dict[str, Any]) -> None:
    """The checked-in extraction is what the extractor reads from the sources today."""
    assert FIXTURE.is_file(), f"{FIXTURE} is missing; run: python tests/tools/extract_source_rows.py"
    assert FIXTURE.read_text(encoding="utf-8") == extractor.render(source_rows), (
        f"{FIXTURE.relative_to(REPO)} is out of date with the sources; run: python tests/tools/extract_source_rows.py"
    )


def run_comparison(extractor: ModuleType, source_rows: dict[str, Any], site: Path) -> Report:
    errata = load_errata()
    report = Report()
    for page, tables in sorted(source_rows["pages"].items()):
        path = site / f"{page}.html"
        if not path.is_file():
            report.missing_pages.append(page)
            report.tables += len(tables)
            continue
        compare_page(extractor, page, tables, parse_page(path), errata.get(page, []), report)
    return report


def test_every_source_table_row_is_published(extractor: ModuleType, source_rows: dict[str, Any], fidelity_site: Path) -> None:
    report = run_comparison(extractor, source_rows, fidelity_site)
    assert report.tables > 100 and report.rows > 500, f"suspiciously little was compared: {report.summary()}"
    problems = [f"page missing from the built site: {page}.html" for page in report.missing_pages] + report.mismatches
    assert not problems, (
        f"{len(problems)} published figures differ from the source without an erratum ({report.summary()}):\n  " + "\n  ".join(problems)
    )


def test_every_source_page_and_anchor_exists(sources: Path, fidelity_site: Path) -> None:
    """Every location of the source site's search index: the page (before '#') and the id (after it)."""
    docs = json.loads(SEARCH_INDEX.read_text(encoding="utf-8"))["docs"]
    pages: dict[str, BuiltPage | None] = {}
    missing_pages: list[str] = []
    missing_anchors: list[str] = []
    for doc in docs:
        location = str(doc["location"])
        path, _, anchor = location.partition("#")
        path = path or "index.html"
        if path not in pages:
            file = fidelity_site / path
            pages[path] = parse_page(file) if file.is_file() else None
            if pages[path] is None:
                missing_pages.append(path)
        built = pages[path]
        if anchor and built is not None and anchor not in built.ids:
            missing_anchors.append(f"{path}#{anchor} ({doc.get('title', '')!r})")
    assert docs, "the source search index lists no pages"
    assert not missing_pages and not missing_anchors, (
        f"{len(missing_pages)} source pages and {len(missing_anchors)} source anchors are missing from the built site:\n  "
        + "\n  ".join([f"page {p}" for p in missing_pages] + [f"anchor {a}" for a in missing_anchors])
    )
