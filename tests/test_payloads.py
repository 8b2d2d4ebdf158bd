"""Hostile payloads in every string field of the model, through a real `mkdocs build` and a real
`cadence build --engine zensical`: nothing runs.

The fields come from the model (tests/payloads.py); the payloads are script tags, event handlers,
attribute lists, `javascript:` in each link form, raw HTML blocks, Jinja and our directive syntax.
Every page of each built site, its search index and its sitemap are read as a browser would
read them and compared with a clean build of the same fixture (the theme's own scripts and forms).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.checks.markup import may_carry_markup
from generator.markup import embed_block, embed_inline, render
from generator.pages import load_project

from .payloads import (
    BATCHES,
    CONTENT_LINKS,
    EVERY_FIELD,
    FOREIGN,
    PAYLOADS,
    URL_ATTRIBUTES,
    ContentSites,
    Hostile,
    RawProject,
    built_sites,
    content_sites,
    elements,
    executable,
    script_url,
    search_documents,
    string_fields,
    zensical_sites,
)


@pytest.fixture(scope="session")
def sites(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[Hostile, Path]]]:
    return built_sites(tmp_path_factory.mktemp("payloads"))


def test_the_fixture_has_a_value_for_every_string_field_of_the_model() -> None:
    present = {leaf.field for leaf in RawProject.read(EVERY_FIELD).leaves()}
    assert string_fields() - present == set(), "add a value for these fields to tests/fixtures/every-field"
    assert not load_project(EVERY_FIELD).problems


def test_every_batch_of_payloads_is_tried_in_every_field_that_accepts_it(sites: tuple[Path, list[tuple[Hostile, Path]]]) -> None:
    _, built = sites
    assert {name for hostile, _ in built for name in hostile.payloads} == set(PAYLOADS)
    fields = built[0][0].fields
    tried = sum(hostile.tried for hostile, _ in built)
    print(f"\npayloads tried: {len(fields)} fields x {len(PAYLOADS)} payloads = {tried}, in {len(BATCHES)} builds")
    print(f"fields the checker refuses the payloads in: {len(string_fields() - fields)} (ids, references, profile values)")
    # names and titles, the Markdown fields and the system file are all among them
    assert {"Module.title", "ArmyList.title", "Unit.name", "Weapon.name", "SpecialRule.text", "Table.text", "System.name"} <= fields
    assert tried >= 1500


def test_nothing_executable_reaches_a_page_the_search_index_or_the_sitemap(sites: tuple[Path, list[tuple[Hostile, Path]]]) -> None:
    _nothing_executable(*sites)


def test_nothing_executable_reaches_a_page_built_by_zensical(
    sites: tuple[Path, list[tuple[Hostile, Path]]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The same payloads staged for Zensical (its navigation in docs/.nav.yml, its own search index)."""
    clean, built = zensical_sites(sites, tmp_path_factory.mktemp("payloads-zensical"))
    assert (clean / "search.json").is_file() and not (clean / "search").exists()
    _nothing_executable(clean, built)


def _nothing_executable(clean: Path, built: list[tuple[Hostile, Path]]) -> None:
    """Every page of each hostile site has nothing that could run but what the clean build's page has; nor have
    the search index or the sitemap."""
    for hostile, site in built:
        _site_runs_nothing(clean, site, str(hostile.payloads))


def _site_runs_nothing(clean: Path, site: Path, what: str) -> int:
    """`_nothing_executable` for one site; how many pages were read."""
    pages = sorted(site.rglob("*.html"))
    assert len(pages) == len(list(clean.rglob("*.html")))
    shown = 0
    for page in pages:
        markup = page.read_text(encoding="utf-8")
        allowed = elements((clean / page.relative_to(site)).read_text(encoding="utf-8"))
        problems = executable(elements(markup), allowed)
        assert not problems, f"{what}: {page.relative_to(site)}: {problems}"
        shown += markup.count("__pwned")
    assert shown > 0, "the payloads never reached a page: the test would prove nothing"
    documents = search_documents(site)
    assert any("__pwned" in part for doc in documents for part in (doc["title"], doc["text"], *doc.get("path", [])))
    for doc in documents:
        for part in (doc["title"], doc["text"], *doc.get("path", [])):  # Zensical shows each as HTML, its path too
            found = elements(part)
            assert not [e for e in found if e.tag in ("script", *FOREIGN)], (doc["location"], part[:200])
            assert not [e for e in found if any(a.startswith("on") or a == "autofocus" for a in e.attrs)], doc["location"]
            assert not [e for e in found for a in URL_ATTRIBUTES if script_url(e.attrs.get(a, ""))], doc["location"]
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert not re.search(r"(?i)(javascript|vbscript|data):", sitemap)
    return len(pages)


@pytest.fixture(scope="session")
def content(tmp_path_factory: pytest.TempPathFactory) -> ContentSites:
    return content_sites(tmp_path_factory.mktemp("content-payloads"))


def test_the_check_reports_every_hostile_link_of_every_content_page_where_it_is(content: ContentSites) -> None:
    """Each link of `CONTENT_LINKS`, in each content page, is an `unsafe-content` error at its address."""
    from generator.problems import position

    from .test_hostile import run_check

    code, output = run_check(content.project)
    assert code == 1
    reported = set(re.findall(r"^(content/\S+):(\d+):(\d+): error\[unsafe-content\]", output, re.MULTILINE))
    missed, tried = [], 0
    for path in sorted((content.project / "content").rglob("*.md")):
        text = path.read_bytes().decode("utf-8")
        for name, link in CONTENT_LINKS.items():
            address = 0 if link.startswith("<") else link.index("](") + 2
            line, column = position(text, text.index(link) + address)
            tried += 1
            if (path.relative_to(content.project).as_posix(), str(line), str(column)) not in reported:
                missed.append(f"{name}: {path.name}:{line}:{column}")
    print(f"\ncontent pages: {tried} hostile links tried, {tried - len(missed)} reported where they are")
    assert missed == [], output


@pytest.mark.parametrize("engine", ["mkdocs", "zensical"])
def test_nothing_executable_reaches_a_content_page_past_the_check(content: ContentSites, engine: str) -> None:
    """With the check of content pages off, the sanitiser over the final HTML is all that stands between each
    hostile link and payload in every content page and a reader: nothing that runs gets through it."""
    clean, site = content.sites[engine]
    pages = _site_runs_nothing(clean, site, engine)
    links = sum(1 for page in site.rglob("*.html") for e in elements(page.read_text(encoding="utf-8")) if e.tag == "a")
    print(f"\n{engine}: {pages} pages read, {links} links, 0 script-capable")


def test_rule_links_and_their_tooltips_survive_the_sanitiser(sites: tuple[Path, list[tuple[Hostile, Path]]]) -> None:
    _, built = sites
    for _, site in built:
        markup = (site / "skirmish/army-lists/rangers.html").read_text(encoding="utf-8")
        links = [e for e in elements(markup) if e.tag == "a" and e.attrs.get("href", "").startswith("../rules.html#stubborn")]
        assert links and links[0].attrs["title"].startswith("This unit never flees.")


@pytest.mark.parametrize(
    "text",
    [
        "[a](javascript:alert(1))",
        "[a][r]\n\n[r]: javascript:alert(1)",
        "[a]\n\n[a]: javascript:alert(1)",
        "<javascript:alert(1)>",
        "[a](java\nscript:alert(1))",
        "[a](java\tscript:alert(1))",
        "[a]( javascript:alert(1))",
        "[a](jav&#x61;script:alert(1))",
        "[a](&#106;avascript:alert(1))",
        "[a](JAVASCRIPT:alert(1))",
        "[a](data:text/html,x)",
        "[a](vbscript:x)",
        "![a](javascript:alert(1))",
        "[a](<javascript:alert(1)>)",
    ],
)
def test_script_links_are_removed_whatever_their_form(text: str) -> None:
    fragment = render(text)
    assert fragment.removed, text
    assert "href" not in fragment.html and "src" not in fragment.html, fragment.html


def test_allowed_links_stay_links() -> None:
    fragment = render("[a](https://example.org/x) [b](../rules.md#stubborn) [c](mailto:a@example.org) <https://example.org>")
    assert fragment.removed == ()
    assert embed_block(fragment.html) == (
        "[a](https://example.org/x) [b](../rules.md#stubborn) [c](mailto:a@example.org) [https://example.org](https://example.org)"
    )


def test_embedded_fragments_give_the_page_nothing_to_interpret() -> None:
    fragment = render("1. {{ x }} {% y %} [% table a/b %] a | b *c* `{: .d }` &amp; <3")
    assert fragment.removed == ()
    inline = embed_inline(fragment.html)
    assert not re.search(r"[{}\[\]|`*]", re.sub(r"&#\d+;", "", re.sub(r"</?(ol|li|em|code)>", "", inline))), inline


def test_a_removal_is_reported_where_it_was_written(tmp_path: Path) -> None:
    """At the removed tag itself, not at the start of its text."""
    from .test_hostile import run_check

    project = RawProject.read(EVERY_FIELD).write(tmp_path / "p")
    path = project / "data/skirmish/module.yaml"
    path.write_text(path.read_text().replace("text: The unit may rally.", "text: 'The unit may <img src=x onerror=alert(1)> rally.'"))
    code, output = run_check(project)
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if "onerror" in text)
    column = path.read_text().splitlines()[line - 1].index("<img") + 1
    assert code == 0
    assert (
        f"data/skirmish/module.yaml:{line}:{column}: warning[unsafe-markup]: special rule 'Rally' text: "
        "raw HTML '<img src=x onerror=alert(1)>' removed (hint: data Markdown allows no raw HTML, no attribute lists "
        "and only http, https, mailto or relative links)" in output
    ), output


def test_the_markup_check_reads_the_texts_the_resolve_stage_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every Markdown text is walked once, by the resolve stage: the check finds a removal without walking again."""
    from generator.checks import markup

    def walked(root: object) -> list[object]:
        raise AssertionError(f"walked {type(root).__name__} again")

    project = RawProject.read(EVERY_FIELD).write(tmp_path / "p")
    path = project / "data/skirmish/army-lists/rangers.yaml"
    path.write_text(path.read_text().replace("intro: Scouts of the *outer* marches.", "intro: 'Scouts <b>of</b> the marches.'"))
    monkeypatch.setattr(markup, "markdown_strings", walked)
    found = [p for p in load_project(project).problems if p.code == "unsafe-markup"]
    assert [(p.location.path, p.location.line, p.location.column) for p in found] == [("data/skirmish/army-lists/rangers.yaml", 5, 18)]


@pytest.mark.parametrize(
    "text",
    [
        *(payload for name, payload in PAYLOADS.items() if name not in ("Jinja", "directive")),  # those two are shown as written
        "[[Stubborn]](javascript:alert(1))",
        "![[Stubborn]](javascript:alert(1))",
        "[[Stubborn]][evil]\n\n[evil]: javascript:alert(1)",
        "[[<img src=x onerror=alert(1)>]]",
        "[[Stubborn]]{: onclick=alert(1) }",
        "[[Stubborn]] and <!-- hidden -->",
    ],
)
def test_the_check_renders_every_field_it_could_find_markup_in(text: str) -> None:
    """`unsafe_markup` skips fields without a character markup starts with; each of these has one."""
    assert render(text).removed, text
    assert may_carry_markup(text), text


def test_plain_words_and_rule_links_are_not_rendered_by_the_check() -> None:
    assert not may_carry_markup("Roll a d6: on 4+ the unit gains [[Stubborn]] and [[Heavy Armour (2)]] until the end of the round.")
    assert not may_carry_markup("A module of the [Cadence Wargame System](https://cadence.games), see ![map](http://x.org/m.png).")
    assert not may_carry_markup("Write to [us](mailto:rules@example.org).")
    assert not may_carry_markup("Mission 1 is now [Gold Rush](devils-bluff/missions.md#gold-rush); see ![the map](maps/m_1.png).")


@pytest.mark.parametrize(
    "text",
    [
        '[x](https://a.org "title")',
        "[x](https://a.org)<b>",
        "[x](https://a.org){: .c }",
        "[x](https://a.org) [y](page.md:x)",
        "[y](page.md?x=1)",
        "[y](page.md#a b)",
        "[x](https:&#47;&#47;a.org)",
        "[[R]](https://a.org)",
        "[x](HTTPS://a.org)",
    ],
)
def test_links_the_check_cannot_vouch_for_are_rendered(text: str) -> None:
    assert may_carry_markup(text), text


#: Pieces of Markdown, hostile and harmless, from which the texts below are drawn: loose characters,
#: and links and images to addresses allowed, disallowed and disguised.
PIECES = ("[", "]", "(", ")", "!", " ", "\n", '"t"', "<", "{:", "}", "&#58;", "`", "[[R]]", "x", ":", "\\", "https://a.org")
ADDRESSES = (
    "https://a.org",
    "http://a.org/p.png",
    "mailto:a@b.org",
    "javascript:x",
    "java\nscript:x",
    "javascript&#58;x",
    "&#106;avascript:x",
    "HTTPS://a.org",
    "<javascript:x>",
    "page.md",
    "a/b_c.md#d-e",
    "//a.org/p",
    "../up.md",
    "page.md:x",
    'https://a.org "t"',
    "https://a.org(x)",
)
LINKS = st.builds(
    lambda bang, text, address: f"{bang}[{text}]({address})",
    st.sampled_from(("", "!")),
    st.lists(st.sampled_from(PIECES), max_size=3).map("".join),
    st.sampled_from(ADDRESSES),
)
TEXTS = st.lists(st.one_of(st.sampled_from(PIECES), LINKS), max_size=10).map("".join)


@settings(max_examples=1500, deadline=None)
@given(TEXTS)
def test_what_the_check_skips_the_dialect_leaves_alone(text: str) -> None:
    """A field the check does not render is one from which rendering would have removed nothing."""
    if not may_carry_markup(text):
        assert render(text).removed == (), text
