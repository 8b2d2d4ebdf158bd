"""Links written in data Markdown: bound and checked in every Markdown field the model has, and pointed at
their page from every page that shows the text (real builds).

A data text is shown on several pages, so a link in it is read from the content folder
(`core/rules.md#scatter`), whichever page it lands on; `[[Rule]]` links are read in the scope of the
module or army list the text belongs to.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from pathlib import Path

import pytest

from generator import model
from generator.pages import load_project
from generator.schema import is_markdown

from .conftest import MINI, cadence_build, copy_project
from .payloads import EVERY_FIELD, RawProject, accepting_fields, check_errors, fields_at, string_fields, with_payload


def markdown_fields() -> list[str]:
    """`Record.field` for every string field the model declares Markdown."""
    found = []
    for name in sorted(string_fields()):
        cls_name, field_name = name.split(".")
        field = next(f for f in dataclasses.fields(getattr(model, cls_name)) if f.name == field_name)
        if is_markdown(field):
            found.append(name)
    return found


MARKDOWN_FIELDS = markdown_fields()


def test_the_fixture_holds_a_text_in_every_markdown_field() -> None:
    held = {leaf.field for leaf in RawProject.read(EVERY_FIELD).leaves()}
    assert len(MARKDOWN_FIELDS) >= 20
    assert set(MARKDOWN_FIELDS) <= held, sorted(set(MARKDOWN_FIELDS) - held)


@pytest.mark.parametrize("field", MARKDOWN_FIELDS)
def test_a_broken_link_and_an_unknown_rule_are_reported_in_every_markdown_field(field: str, tmp_path: Path) -> None:
    project = with_payload(RawProject.read(EVERY_FIELD), {field}, "[[No Such Rule]] and [a page](nowhere/page.md).")
    errors = check_errors(project, tmp_path / "project")
    codes = {p.code for p in errors}
    assert {"unknown-rule", "broken-link"} <= codes, [str(p) for p in errors]
    assert fields_at(tmp_path / "project", errors) >= {field}, [str(p) for p in errors]
    messages = [str(p) for p in errors if p.code == "broken-link"]
    assert all("link to 'nowhere/page.md', which is no page of this site" in m for m in messages), messages


_ANCHOR = re.compile(r'<a href="([^"]*)"[^>]*>Scatter table</a>')
_IMAGE = re.compile(r'<img alt="A diagram" src="([^"]*)"')


def test_a_link_in_every_markdown_field_leads_to_its_page_from_every_page(tmp_path: Path) -> None:
    """Every Markdown field links `core/rules.md#scatter` and shows `core/diagram.png`; on every built page that
    shows one, the link leads to core/rules.html#scatter and the image is that file, from the root and from
    pages two folders down alike."""
    payload = "See the [Scatter table](core/rules.md#scatter)."
    accepted, refused = accepting_fields(payload, tmp_path / "scratch")
    assert refused & set(MARKDOWN_FIELDS) == {"Table.rows"}  # the fixture's table rolls dice: its first column is a roll
    payload += " ![A diagram](core/diagram.png)"  # a file of the content folder, written below
    project = with_payload(RawProject.read(EVERY_FIELD), accepted & set(MARKDOWN_FIELDS), payload)
    root = project.write(tmp_path / "project")
    (root / "content/core/diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    site = tmp_path / "site"
    result = cadence_build(root, site, "mkdocs")
    assert result.returncode == 0, result.stdout + result.stderr
    pages: dict[str, list[str]] = {}
    for html in sorted(site.rglob("*.html")):
        page = html.relative_to(site).as_posix()
        hrefs = _ANCHOR.findall(html.read_text(encoding="utf-8"))
        if hrefs:
            pages[page] = hrefs
    for page, hrefs in pages.items():
        for href in hrefs:
            path, _, anchor = href.partition("#")
            target = posixpath.normpath(posixpath.join(posixpath.dirname(page), path)) if path else page
            assert (target, anchor) == ("core/rules.html", "scatter"), (page, href)
        sources = _IMAGE.findall((site / page).read_text(encoding="utf-8"))
        assert sources, page
        assert {posixpath.normpath(posixpath.join(posixpath.dirname(page), src)) for src in sources} == {"core/diagram.png"}, page
    depths = {page.count("/") for page in pages}
    assert {0, 1, 2} <= depths, sorted(pages)
    assert len(pages) >= 6, sorted(pages)


def test_a_page_linked_only_from_data_is_not_unlisted(tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    (project / "content/core/extra.md").write_text("# Extra\n\nSome notes.\n", encoding="utf-8")
    unlisted = [str(p) for p in load_project(project).problems if p.code == "unlisted-page"]
    assert unlisted and unlisted[0].startswith("content/core/extra.md:1:1: warning[unlisted-page]")
    module = project / "data/skirmish/module.yaml"
    text = module.read_text(encoding="utf-8").replace("summary: A small test game.", "summary: 'A small test game; [more](core/extra.md).'")
    module.write_text(text, encoding="utf-8")
    assert [str(p) for p in load_project(project).problems] == []


def test_every_markdown_field_is_shown_on_a_page(tmp_path: Path) -> None:
    """A designer's text in any Markdown field reaches a built page: a field the model reads but no page shows
    loses it silently (the system's summary and a module's reinforcements text did)."""
    project = RawProject.read(EVERY_FIELD)
    marks: dict[str, str] = {}
    for leaf in project.leaves():
        if leaf.field in MARKDOWN_FIELDS and leaf.field != "Table.rows":  # a row's first cell is a roll
            mark = marks.setdefault(leaf.field, f"Shownmark{len(marks)}")
            leaf.container[leaf.key] = f"{leaf.value} {mark}"
    root = project.write(tmp_path / "project")
    with (root / "data/words.txt").open("a", encoding="utf-8") as words:
        words.write("\nShownmark\n")
    site = tmp_path / "site"
    result = cadence_build(root, site, "mkdocs")
    assert result.returncode == 0, result.stdout + result.stderr
    shown = " ".join(html.read_text(encoding="utf-8") for html in site.rglob("*.html"))
    assert len(marks) == len(MARKDOWN_FIELDS) - 1
    assert [field for field, mark in marks.items() if mark not in shown] == []


def test_every_field_a_designer_writes_words_in_is_published(tmp_path: Path) -> None:
    """Each string field that takes a plain word reaches a built page or the published JSON (the army builder's),
    unless the model says it is for the tools alone (`unpublished=`): a typical army size, a licence link, the
    revisions a release compares were all read and published nowhere."""
    accepted, _ = accepting_fields("Zqmark", tmp_path / "scratch")
    project = RawProject.read(EVERY_FIELD)
    marks: dict[str, str] = {}
    for index, name in enumerate(sorted(accepted)):
        marks[name] = f"Zqmark{chr(97 + index // 26)}{chr(97 + index % 26)}"
        project = with_payload(project, {name}, marks[name])
    root = project.write(tmp_path / "project")
    with (root / "data/words.txt").open("a", encoding="utf-8") as words:
        words.write("\nZqmark\n" + "\n".join(marks.values()) + "\n")
    site = tmp_path / "site"
    result = cadence_build(root, site, "mkdocs")
    assert result.returncode == 0, result.stdout + result.stderr
    published = " ".join(p.read_text(encoding="utf-8") for pattern in ("*.html", "*.json") for p in site.rglob(pattern)).lower()
    unpublished = {name for name in marks if _declared_unpublished(name)}
    assert unpublished == {"Erratum.caught_by"}
    assert len(marks) > 200
    assert sorted(name for name, mark in marks.items() if mark.lower() not in published and name not in unpublished) == []


def _declared_unpublished(name: str) -> bool:
    cls_name, field_name = name.split(".")
    field = next(f for f in dataclasses.fields(getattr(model, cls_name)) if f.name == field_name)
    return bool(field.metadata.get("unpublished"))
