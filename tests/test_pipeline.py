"""The pipeline end to end: load → model → check → render → a real MkDocs build."""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

import pytest

from generator.catalogue import assemble
from generator.loader import load_directory
from generator.model import ArmyList, Module
from generator.pages import generate, load_project

from .conftest import MINI, REPO, copy_project, mkdocs_build

GOLDEN = MINI / "expected"


def cells(page: Path, first_cell: str) -> list[str]:
    """The text of each cell of the table row whose first cell is `first_cell`."""
    text = page.read_text(encoding="utf-8")
    for row in re.findall(r"<tr>(.*?)</tr>", text, re.S):
        values = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        if values and values[0] == first_cell:
            return values
    raise AssertionError(f"no row starting {first_cell!r} in {page}")


def test_fixture_project_loads_into_the_model() -> None:
    documents, problems = load_directory(MINI, "data")
    assert problems == []
    project, problems = assemble(documents, "data")
    assert problems == [] and project is not None
    assert set(project.modules) == {"core", "skirmish"}
    assert isinstance(project.modules["skirmish"], Module)
    entry = project.lists[0]
    assert isinstance(entry.army_list, ArmyList)
    assert entry.key == "skirmish/rangers"
    scope = project.list_scope(entry)
    assert project.rule("Heavy Armour (1)", scope).scope == "core"  # type: ignore[union-attr]
    assert project.rule("Pathfinder", scope).scope == "skirmish/rangers"  # type: ignore[union-attr]
    assert project.rule("Stubborn", scope).scope == "skirmish"  # type: ignore[union-attr]
    assert project.find("weapon_lists", "sidearms", scope) is not None


def test_fixture_army_list_renders_as_the_golden_file() -> None:
    loaded = load_project(MINI)
    assert loaded.problems == []
    assert loaded.project is not None
    pages = generate(loaded.project, loaded.content).pages
    for page in ("skirmish/army-lists/rangers", "skirmish/index", "rules-index"):
        golden = GOLDEN / f"{page.replace('/', '__')}.md"
        if os.environ.get("UPDATE_GOLDEN"):
            golden.parent.mkdir(exist_ok=True)
            golden.write_text(pages[page], encoding="utf-8")
        assert pages[page] == golden.read_text(encoding="utf-8"), (
            f"{page} differs from {golden}; rerun with UPDATE_GOLDEN=1 and review the diff"
        )


def test_fixture_site_has_linked_rules_with_tooltips(mini_site: Path) -> None:
    page = (mini_site / "skirmish/army-lists/rangers.html").read_text(encoding="utf-8")
    assert (
        '<a class="rule-link" data-rule-value="1" href="../../core/rules.html#heavy-armour"'
        ' title="Attacks against this model lose X Piercing.">Heavy Armour (1)</a>'
    ) in page
    assert (
        '<a class="rule-link" href="#pathfinder" title="The unit moves 2&amp;quot; further; it counts as Stubborn.">Pathfinder</a>' in page
    )
    assert 'id="sidearms--pistol"' in page
    assert cells(mini_site / "skirmish/army-lists/rangers.html", "Ranger Captain") == [
        "Ranger Captain",
        '6"',
        "3+",
        "2",
        "Pathfinder, Heavy Armour (1)",
        "20",
    ]
    rules = (mini_site / "core/rules.html").read_text(encoding="utf-8")
    assert re.search(r'<h3 id="rapid-fire">Rapid Fire \(X\)', rules)


def test_shipped_site_builds_with_exact_rows(built_site: Path) -> None:
    sentinels = built_site / "fracture/army-lists/sentinels.html"
    assert cells(sentinels, "Argo Transport") == [
        "Argo Transport",
        "4",
        '8"',
        "3+",
        "3+",
        "8",
        "5",
        "Transport (10), Heavy Armour (1)",
        "190",
    ]
    assert cells(sentinels, "Enforcer Carbine") == ["Enforcer Carbine", '20"', "3", "4", "0", "", "4"]
    text = sentinels.read_text(encoding="utf-8")
    for anchor in ("vanguard-squad", "standard-sidearms", "upgrades_7", "unit-composition_3", "argo-transport"):
        assert f'id="{anchor}"' in text, anchor
    appendix = (built_site / "core-rules/special-rules-appendix.html").read_text(encoding="utf-8")
    assert 'id="heavy-armour"' in appendix and 'id="rapid-fire"' in appendix


def as_read(markdown: str) -> str:
    """A notice's words as a reader sees them: its links' text, no emphasis marks, spaces as one."""
    return " ".join(re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", markdown).replace("*", "").split())


def test_licences_name_every_game_s_licence_and_every_list_notice(built_site: Path) -> None:
    """The Licences page credits each game: its licence on a line of its own, its notice beneath, and under it
    each of its army lists that keeps terms of its own (the fan-made fleets), linked to the list. Read from
    the data, so a licence or notice added there must show here."""
    loaded = load_project(REPO)
    assert loaded.project is not None
    page = (built_site / "licences.html").read_text(encoding="utf-8")
    plain = " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())
    for module in loaded.project.ordered_modules():
        licence = module.licence
        assert licence is not None, module.id
        name = f'<a href="{licence.url}">{html.escape(licence.name)}</a>' if licence.url else html.escape(licence.name)
        line = f"<p><strong>Licence:</strong> {name}.</p>"
        assert line in page, f"{module.id}: no licence line {line!r}"
        assert as_read(licence.notice) in plain, f"{module.id}: its notice is not on the page"
    notices = [entry for entry in loaded.project.lists if entry.army_list.notice]
    assert len(notices) >= 2, "the shipped data has fan-made fleets with notices; the test would prove nothing"
    for entry in notices:
        link = os.path.relpath(entry.page + ".html", ".")
        heading = re.search(rf'<h3 id="[^"]+"><a href="{re.escape(link)}">([^<]+)</a>', page)
        assert heading, f"{entry.key}: no heading linking to its list"
        assert as_read(entry.army_list.notice) in plain, f"{entry.key}: its notice is not on the page"


def test_a_call_out_in_data_is_a_call_out_on_the_page(built_site: Path) -> None:
    """Fractured Skies' introduction opens with a warning call-out (`!!! warning "Warning"`), as the source
    does: the page shows the theme's warning box with its title and text, not the Markdown."""
    page = (built_site / "squadrons/fleets/fractured-skies.html").read_text(encoding="utf-8")
    assert (
        '<div class="admonition warning">\n<p class="admonition-title">Warning</p>\n<p>This fleet list is still being developed.</p>\n</div>'
        in page
    )
    assert "!!!" not in page


def test_every_link_in_the_shipped_site_is_relative(built_site: Path) -> None:
    """The site works under any base path: no root-absolute links to our own pages.

    404.html is the exception MkDocs makes on purpose: a host serves it at any depth, so it links
    from the site root (set `site_url` to publish under a sub-path).
    """
    for page in built_site.rglob("*.html"):
        if page.name == "404.html":
            continue
        text = page.read_text(encoding="utf-8")
        assert not re.search(r'(?:href|src)="/(?!/)', text), page


def test_broken_reference_stops_the_build_with_one_located_line(mini_copy: Path) -> None:
    path = mini_copy / "data/skirmish/army-lists/rangers.yaml"
    path.write_text(path.read_text().replace("lists: [Sidearms]", "lists: [Sidearm]"))
    result = mkdocs_build(mini_copy, mini_copy / "site")
    assert result.returncode != 0
    assert (
        "data/skirmish/army-lists/rangers.yaml:24:28: error[unknown-weapon-list]: unit 'Ranger Squad' names weapon list 'Sidearm', "
        "which does not exist in Rangers, Skirmish, Core Rules (hint: did you mean 'Sidearms'?)"
    ) in result.stderr
    assert "Traceback" not in result.stderr


def test_missing_profile_column_stops_the_build(mini_copy: Path) -> None:
    path = mini_copy / "data/skirmish/army-lists/rangers.yaml"
    path.write_text(path.read_text().replace('{mov: 12", skl: 3+, hp: 3}', '{mov: 12", skl: 3+}'))
    result = mkdocs_build(mini_copy, mini_copy / "site")
    assert result.returncode != 0
    assert (
        "data/skirmish/army-lists/rangers.yaml:34:17: error[missing-column]: model 'Sky Rider' has no HP (Hit Points) value (hint: add 'hp:' to its profile)"
        in result.stderr
    )
    assert "Traceback" not in result.stderr


def test_generated_page_never_overwrites_a_hand_written_one(mini_copy: Path) -> None:
    (mini_copy / "content/skirmish/army-lists").mkdir(parents=True)
    (mini_copy / "content/skirmish/army-lists/rangers.md").write_text("# Mine\n")
    result = mkdocs_build(mini_copy, mini_copy / "site")
    assert result.returncode != 0
    assert (
        "content/skirmish/army-lists/rangers.md:1:1: error[page-collision]: hand-written page content/skirmish/army-lists/rangers.md "
        "has the same path as the page generated from data/skirmish/army-lists/rangers.yaml"
    ) in result.stderr
    assert (mini_copy / "content/skirmish/army-lists/rangers.md").read_text() == "# Mine\n"


@pytest.mark.parametrize("project", [REPO, MINI], ids=["cadence", "mini"])
def test_data_changes_are_watched_by_mkdocs_serve(project: Path) -> None:
    """`mkdocs serve` rebuilds on data changes: the plugin registers the data folder with the server."""
    from mkdocs.config import load_config

    config = load_config(str(project / "mkdocs.yml"))
    plugin = config.plugins["rules"]

    class Server:
        def __init__(self) -> None:
            self.watched: list[str] = []

        def watch(self, path: str) -> None:
            self.watched.append(path)

    server = Server()
    plugin.on_serve(server, config=config, builder=None)  # type: ignore[arg-type]
    assert str(project / "data") in server.watched


def test_copy_of_shipped_project_checks_clean(tmp_path: Path) -> None:
    copy = copy_project(REPO, tmp_path / "cadence")
    loaded = load_project(copy)
    assert [str(p) for p in loaded.problems] == []


def _title_and_heading(page: str) -> tuple[str, str] | None:
    title, heading = re.search(r"<title>([^<]*)</title>", page), re.search(r"<h1[^>]*>(.*?)</h1>", page, re.S)
    if title is None or heading is None:
        return None
    return html.unescape(title.group(1)).rsplit(" - ", 1)[0], html.unescape(re.sub(r"<[^>]+>", "", heading.group(1))).replace(
        "¶", ""
    ).strip()


def test_every_page_s_tab_title_is_its_heading(built_site: Path) -> None:
    """A browser tab (and a bookmark, and a shared link's preview) names the page as its heading does, even where
    the menu calls it something shorter: "Overview", "Army builder" and "Errata" would not say which game."""
    pages = [p for p in sorted(built_site.rglob("*.html")) if p.name != "404.html"]
    pairs = {p.relative_to(built_site).as_posix(): _title_and_heading(p.read_text(encoding="utf-8")) for p in pages}
    assert len([pair for pair in pairs.values() if pair]) >= 70, "too few pages with a title and a heading"
    differ = {path: pair for path, pair in pairs.items() if pair and pair[0] != pair[1]}
    assert not differ, f"tab titles that are not the page's heading: {differ}"
    assert pairs["fracture/builder.html"] == ("Fracture: Army builder", "Fracture: Army builder")


def test_a_menu_group_s_landing_page_is_its_overview(built_site: Path) -> None:
    """The released games and the games in development each open on a landing page: the menu lists it as the
    group's Overview, as a game's own index page is, not under the group's name a second time."""
    page = (built_site / "fracture/index.html").read_text(encoding="utf-8")
    menu = page[page.index("md-nav--primary") :]
    links = re.findall(r'<(a|label)[^>]*class="md-nav__link[^"]*"[^>]*>(.*?)</\1>', menu, re.S)
    labels = [" ".join(html.unescape(re.sub(r"<[^>]+>", "", inner)).split()) for _tag, inner in links]
    labels = [label for label in labels if label]
    for group in ("Released Games", "Games in Development"):
        at = labels.index(group)
        assert labels[at + 1] == "Overview", labels[at : at + 3]
    assert re.search(r'<a href="\.\./released-games\.html" class="md-nav__link">\s*<span class="md-ellipsis">\s*Overview', menu), (
        "the Overview entry does not lead to the landing page"
    )


def test_every_page_credits_the_rules_in_its_footer(built_site: Path) -> None:
    """A reader may land on any page from a search: each one names whose rules these are and on what terms (the
    project's `copyright` in mkdocs.yml, which the theme prints in every footer), beside the Licences page."""
    import yaml

    credit = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))["copyright"]
    assert "CC BY 4.0" in credit
    pages = sorted(built_site.rglob("*.html"))
    assert len(pages) >= 70
    uncredited = [
        p.relative_to(built_site).as_posix() for p in pages if html.escape(credit, quote=False) not in p.read_text(encoding="utf-8")
    ]
    assert not uncredited, f"pages without the credit in their footer: {uncredited[:5]}"


def test_every_weapon_a_unit_carries_links_to_its_row(built_site: Path) -> None:
    """What a unit is equipped with links to each weapon's row, however the data names it: 'Melee Strike (6)' is
    the weapon 'Melee Strike' with its X, as the checker, the costs and the builder's data already read it."""
    loaded = load_project(REPO)
    assert loaded.project is not None
    before, _, after = loaded.project.system.labels.equipped_with.partition("{weapons}")
    carried = re.compile(re.escape(html.escape(before, quote=False)) + r"(.*?)" + re.escape(after) + r"</p>")
    unlinked: dict[str, list[str]] = {}
    count = 0
    for entry in loaded.project.lists:
        page = (built_site / f"{entry.page}.html").read_text(encoding="utf-8")
        for match in carried.finditer(page):
            items = [item.strip() for item in re.split(r",(?![^<]*</a>)", match.group(1))]
            count += len(items)
            unlinked.setdefault(entry.page, []).extend(item for item in items if not item.startswith("<a href="))
    assert count >= 30, f"only {count} carried weapons found: the test would prove nothing"
    assert not {page: items for page, items in unlinked.items() if items}, unlinked
    unsc = (built_site / "halo-breakpoint/army-lists/unsc-army-list.html").read_text(encoding="utf-8")
    assert '<a href="#weapons--melee-strike">Melee Strike (6)</a>' in unsc
