"""Every word the generator puts on a site comes from the system's labels.

Real builds of copies of the every-field fixture and the Wasteland example with every label of the
`Labels` record set to a marked value: each marked label reaches a built page (the navigation, the
headings, the builder's controls included) and no English default of a label is left in any page.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest
import yaml

from generator.model import DEFAULT_LABELS, PLACEHOLDER, Labels, slugify

from .conftest import REPO, copy_project
from .payloads import EVERY_FIELD

#: Every label the record declares: the list under test is the model's, never one written here.
LABEL_KEYS = tuple(f.name for f in dataclasses.fields(Labels) if f.name != "loc")


def marked(key: str) -> str:
    """A label's marked value: its key between markers, then the placeholders its default takes."""
    return f"⟦{key}⟧" + "".join(f" {{{name}}}" for name in PLACEHOLDER.findall(DEFAULT_LABELS[key]))


def mark_every_label(project: Path) -> None:
    """Set every label of the project's system to its marked value, and drop the modules' own terms
    (a module's words replace the labels on its pages, and are the module's data, not labels)."""
    system = project / "data" / "system.yaml"
    document = yaml.safe_load(system.read_text(encoding="utf-8"))
    document["system"]["labels"] = {key: marked(key) for key in LABEL_KEYS}
    system.write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False), encoding="utf-8")
    # an erratum's anchor at a heading a label names follows the label, as a translated game's would
    anchors = {slugify(DEFAULT_LABELS[key]): slugify(marked(key)) for key in LABEL_KEYS if not PLACEHOLDER.search(DEFAULT_LABELS[key])}
    for path in sorted((project / "data").glob("*/module.yaml")):
        text = re.sub(r"(?m)^  terms: \{.*\}\n", "", path.read_text(encoding="utf-8"))
        text = re.sub(r"(?m)(^ +anchor: )([\w-]+?)(_\d+)?(?=\s|$)", lambda m: m[1] + anchors.get(m[2], m[2]) + (m[3] or ""), text)
        path.write_text(text, encoding="utf-8")
    assert not any("terms:" in p.read_text(encoding="utf-8") for p in (project / "data").glob("*/module.yaml"))


class Words(HTMLParser):
    """What a page shows or says to a reader: its text and its spoken attributes, one string each."""

    SPOKEN = ("aria-label", "title", "placeholder", "alt")
    #: Attributes the build percent-encodes for the page's script (render.Renderer.attr).
    ENCODED = ("data-rules-definition", "data-rules-close")

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.strings: list[str] = []
        self.menu: list[str] = []
        self.headings: list[str] = []
        self.title = ""
        self._skip = 0
        self._menu = 0
        self._heading = ""
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = {k: v or "" for k, v in attrs}
        if tag in ("script", "style"):
            self._skip += 1
        self.strings += [" ".join(attr[name].split()) for name in self.SPOKEN if attr.get(name)]
        self.strings += [unquote(attr[name]) for name in self.ENCODED if attr.get(name)]
        if tag in ("h1", "title"):
            self._heading = tag
            self.headings.append("")
        if attr.get("data-ui"):
            self.strings += [str(v) for v in json.loads(attr["data-ui"]).values()]
        if self._menu:
            self._menu += 1
        elif "md-nav__link" in attr.get("class", "").split():
            self._menu = 1
            self.menu.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip -= 1
        if tag == self._heading:
            self._heading = ""
            if tag == "title":
                self.title = self.headings.pop().strip()
            else:
                self.headings[-1] = " ".join(self.headings[-1].replace("¶", "").split())  # no permalink sign
        if self._menu:
            self._menu -= 1

    def handle_data(self, data: str) -> None:
        if self._skip or not data.strip():
            return
        self.strings.append(" ".join(data.split()))
        if self._heading:
            self.headings[-1] += data
        if self._menu:
            self.menu[-1] += data


def build(project: Path) -> dict[str, Words]:
    """`cadence build` of the project; the words of every built page by its path."""
    site = project / "site"
    command = [sys.executable, "-m", "generator.cli", "-C", str(project), "build", "--quiet", "--site-dir", str(site)]
    result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, timeout=600)
    assert result.returncode == 0, result.stderr
    pages = {p.relative_to(site).as_posix(): Words(p.read_text(encoding="utf-8")) for p in sorted(site.rglob("*.html"))}
    for path in sorted(site.glob("*/data.json")):  # the builder shows a module's words, roster messages and their words from here
        document = json.loads(path.read_text(encoding="utf-8"))
        words = Words("")
        words.strings = [*document["module"]["terms"].values(), *document["messages"].values(), *document["roster_words"].values()]
        pages[path.relative_to(site).as_posix()] = words
    return pages


def runs_of(text: str) -> list[str]:
    """A label's own words: what is left between its placeholders, each run trimmed of punctuation."""
    return [run.strip(" .,:;") for run in PLACEHOLDER.sub("\n", text).split("\n") if re.search(r"[A-Za-z]{2}", run)]


def written(value: str, sources: str) -> bool:
    """Whether the project writes `value` whole: a YAML value, a list item or a heading of its own."""
    return re.search(rf"(?m)(?:^|[:\[{{,]|- |#)[ \t]*[\"']?{re.escape(value)}[\"']?[ \t]*(?:$|[\]}},#])", sources) is not None


def checked_runs(sources: str) -> tuple[set[str], set[str]]:
    """The labels' runs of one word and of several that a page of this project can be checked for."""
    runs = {run for key in LABEL_KEYS for run in runs_of(DEFAULT_LABELS[key])}
    single = {run for run in runs if " " not in run and not written(run, sources)}
    several = {run for run in runs if " " in run and not re.search(rf"(?<!\w){re.escape(run)}(?!\w)", sources)}
    return single, several


def english_left(pages: dict[str, Words], sources: str) -> list[str]:
    """Each default label's words still on a page, as 'page: words in string'.

    A default is cut at its placeholders into runs of words. A run of one word counts only as a whole
    string of the page (a header cell, a button) that the project does not write whole itself; a run of
    several words counts inside any string, unless the project's own text has it too.
    """
    single, several = checked_runs(sources)
    found = []
    for path, words in pages.items():
        for string in words.strings:
            hits = [run for run in single if string.strip(" .,:;") == run] + [run for run in several if run in string]
            found += [f"{path}: {run!r} in {string!r}" for run in hits]
    return found


def project_sources(project: Path) -> str:
    return "\n".join(
        p.read_text(encoding="utf-8")
        for folder in ("data", "content")
        for p in sorted((project / folder).rglob("*.*"))
        if p.suffix in (".yaml", ".md")
    )


@pytest.fixture(scope="module")
def marked_sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict[str, Words], str]]:
    """The every-field fixture (every part of a page) and the Wasteland example, each built with every label marked."""
    sites = {}
    for name, source in (("every-field", EVERY_FIELD), ("wasteland", REPO / "examples" / "wasteland-tactics")):
        project = copy_project(source, tmp_path_factory.mktemp(name) / "project")
        mark_every_label(project)
        sources = project_sources(project)  # the game's own words, the labels marked
        sites[name] = (build(project), sources)
    return sites


def test_every_label_reaches_a_built_page(marked_sites: dict[str, tuple[dict[str, Words], str]]) -> None:
    shown = "\n".join(s for pages, _ in marked_sites.values() for words in pages.values() for s in words.strings)
    missing = [key for key in LABEL_KEYS if f"⟦{key}⟧" not in shown]
    assert missing == [], ", ".join(missing)


def test_no_english_label_is_left_on_any_page(marked_sites: dict[str, tuple[dict[str, Words], str]]) -> None:
    runs = {run for key in LABEL_KEYS for run in runs_of(DEFAULT_LABELS[key])}
    for pages, sources in marked_sites.values():
        single, several = checked_runs(sources)
        assert len(single | several) > 0.8 * len(runs)  # the game's own words hide few labels from the check
        assert english_left(pages, sources) == []


def test_labels_name_the_navigation_and_the_page_headings(marked_sites: dict[str, tuple[dict[str, Words], str]]) -> None:
    pages, _ = marked_sites["every-field"]
    menu = {" ".join(title.split()) for words in pages.values() for title in words.menu}
    # with `navigation.indexes` a module's overview is its own section, titled by the module
    assert {
        f"⟦{key}⟧" for key in ("home", "released", "in_development", "rules_index", "changes", "licences", "about", "errata", "roster")
    } <= menu
    headings = {
        "skirmish/errata.html": "⟦module_errata⟧ Skirmish",
        "skirmish/builder.html": "⟦module_roster⟧ Skirmish ⟦roster⟧",
        "rules-index.html": "⟦rules_index⟧",
        "licences.html": "⟦licences⟧",
        "recent-changes.html": "⟦changes⟧",
        "released-games.html": "⟦released⟧",
        "games-in-development.html": "⟦in_development⟧",
    }
    for path, heading in headings.items():
        assert heading in pages[path].headings, (path, pages[path].headings)
        assert pages[path].title.startswith("⟦"), (path, pages[path].title)  # the browser tab too
    assert "⟦not_found⟧" in pages["404.html"].headings, pages["404.html"].headings  # the theme's page for no page


def test_a_module_names_its_builder_page_in_its_own_terms(tmp_path: Path) -> None:
    """The builder page was "Roster" in the menu and nothing called it an army builder: the system's label names it
    ("Army builder" unless the system says otherwise, test_pipeline) and a module's `terms` may give it its own word,
    in the menu, the heading and the browser tab alike (the every-field skirmish calls its rosters warbands)."""
    project = copy_project(EVERY_FIELD, tmp_path / "project")
    assert "roster: Warband builder" in (project / "data" / "skirmish" / "module.yaml").read_text(encoding="utf-8")
    pages = build(project)
    page = pages["skirmish/builder.html"]
    assert "Warband builder" in {" ".join(title.split()) for title in page.menu}, page.menu
    assert "Skirmish: Warband builder" in page.headings, page.headings
    assert page.title.startswith("Skirmish: Warband builder"), page.title


def test_every_english_default_is_a_label() -> None:
    """labels.yaml holds a default for each field of `Labels` and nothing else (a stray key would be a word no page shows)."""
    assert sorted(DEFAULT_LABELS) == sorted(LABEL_KEYS)
