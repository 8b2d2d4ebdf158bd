"""The staging build on both engines: `cadence build --engine mkdocs|zensical` give the same site.

Real builds of the shipped Cadence site and the Wasteland example with MkDocs and with Zensical,
compared on what matters to a reader (page paths, heading ids, rule links that resolve, tooltips);
the one asset mechanism; post-build steps; `cadence serve` with both engines picking up a data edit.
(Labels from data in a real build: tests/test_labels.py.)
"""

from __future__ import annotations

import html
import os
import posixpath
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator import cache, cli, postbuild
from generator.postbuild import BuildContext
from generator.staging import ASSETS_PREFIX, NAV_FILE, asset_files, asset_links, nav_in_docs, stage

from .conftest import MINI, REPO, cadence_build, copy_project

WASTELAND = REPO / "examples" / "wasteland-tactics"
ENGINES = ("mkdocs", "zensical")
PROJECTS = {"cadence": REPO, "wasteland": WASTELAND}


@pytest.fixture(scope="session")
def engine_sites(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    """Each shipped project built by each engine through `cadence build`."""
    sites: dict[tuple[str, str], Path] = {}
    for name, project in PROJECTS.items():
        for engine in ENGINES:
            site = tmp_path_factory.mktemp(f"{name}-{engine}") / "site"
            result = cadence_build(project, site, engine)
            assert result.returncode == 0, result.stderr
            sites[name, engine] = site
    return sites


class Page(HTMLParser):
    """What a reader relies on in one built page: ids, heading ids and links (with tooltips) of the article."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.headings: list[str] = []
        self.links: list[tuple[str, str]] = []
        self.title = ""
        self._article = 0
        self._in_title = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = {k: v or "" for k, v in attrs}
        if "id" in attr:
            self.ids.add(attr["id"])
        if tag == "title":
            self._in_title = True
        if tag == "article":
            self._article += 1
        if not self._article:
            return
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6") and attr.get("id"):
            self.headings.append(attr["id"])
        if tag == "a" and "href" in attr and "headerlink" not in attr.get("class", ""):
            self.links.append((attr["href"], html.unescape(attr.get("title", ""))))

    def handle_endtag(self, tag: str) -> None:
        if tag == "article":
            self._article -= 1
        if tag == "title":
            self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data


class NavLinks(HTMLParser):
    """A page's menu in order: each entry of Material's navigation (`md-nav__link`) as its target and title.
    MkDocs writes `introduction.html` and `a%2A.html` where Zensical writes `./introduction.html` and `a*.html`:
    targets are compared unquoted and normalised."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.entries: list[tuple[str, str]] = []
        self._depth = 0
        self._href = ""
        self._text = ""
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._depth:
            self._depth += 1
        elif "md-nav__link" in (dict(attrs).get("class") or "").split():
            self._depth, self._text, self._href = 1, "", _target(dict(attrs).get("href"))

    def handle_endtag(self, tag: str) -> None:
        if self._depth:
            self._depth -= 1
            if not self._depth:
                self.entries.append((self._href, " ".join(self._text.split())))

    def handle_data(self, data: str) -> None:
        if self._depth:
            self._text += data


def _target(href: str | None) -> str:
    """A link's target as both engines' can be compared: unquoted and normalised ("" for none)."""
    return posixpath.normpath(urllib.parse.unquote(href)) if href else ""


class GameLinks(NavLinks):
    """The game switcher under the header (`generator/theme/main.html`): each game's target and title, the current
    game's title starred."""

    def __init__(self, text: str) -> None:
        self._switcher = False
        super().__init__(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        if tag == "nav":
            self._switcher = "rules-games" in (attr.get("class") or "").split()
        elif self._switcher and tag == "a" and not self._depth:
            self._depth, self._href = 1, _target(attr.get("href"))
            self._text = "*" if attr.get("aria-current") == "true" else ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "nav":
            self._switcher = False
        super().handle_endtag(tag)


def pages_of(site: Path) -> dict[str, Page]:
    """Every content page of a built site (the engines' own 404 pages left out)."""
    return {
        p.relative_to(site).as_posix(): Page(p.read_text(encoding="utf-8")) for p in sorted(site.rglob("*.html")) if p.name != "404.html"
    }


def broken_links(site: Path, pages: dict[str, Page]) -> list[str]:
    """Relative links in articles whose page or anchor does not exist in the built site."""
    broken = []
    for path, page in pages.items():
        for href, _ in page.links:
            if href.startswith(("http://", "https://", "mailto:")) or not href:
                continue
            target, _, anchor = href.partition("#")
            resolved = (site / path).parent / target if target else site / path
            key = resolved.resolve().relative_to(site.resolve()).as_posix() if resolved.resolve().is_relative_to(site.resolve()) else ""
            if not resolved.is_file():
                broken.append(f"{path}: {href} (no page)")
            elif anchor and key.endswith(".html") and anchor not in pages[key].ids:
                broken.append(f"{path}: {href} (no anchor)")
    return broken


@pytest.mark.parametrize("name", list(PROJECTS))
def test_both_engines_build_the_same_site(name: str, engine_sites: dict[tuple[str, str], Path]) -> None:
    mkdocs_site, zensical_site = engine_sites[name, "mkdocs"], engine_sites[name, "zensical"]
    mkdocs_pages, zensical_pages = pages_of(mkdocs_site), pages_of(zensical_site)
    assert len(mkdocs_pages) > 10
    assert sorted(mkdocs_pages) == sorted(zensical_pages)
    rule_links = 0
    for path, page in mkdocs_pages.items():
        other = zensical_pages[path]
        assert page.headings == other.headings, path
        tooltips = sorted((href, title) for href, title in page.links if title)
        assert tooltips == sorted((href, title) for href, title in other.links if title), path
        rule_links += sum(1 for href, title in page.links if title and "#" in href)
    assert rule_links > 50  # rule links with their tooltips are on the pages, in both engines
    for path in mkdocs_pages:  # the same menu, entry for entry, and the same game switcher, on every page
        mkdocs_page, zensical_page = (mkdocs_site / path).read_text(encoding="utf-8"), (zensical_site / path).read_text(encoding="utf-8")
        menu = NavLinks(mkdocs_page).entries
        assert len(menu) > 10 and menu == NavLinks(zensical_page).entries, path
        games = GameLinks(mkdocs_page).entries
        assert len(games) >= (8 if name == "cadence" else 1) and games == GameLinks(zensical_page).entries, path
    if name == "cadence":  # the current game marked
        fracture = GameLinks((zensical_site / "fracture/builder.html").read_text(encoding="utf-8")).entries
        assert ("index.html", "*Fracture") in fracture, fracture
    assert broken_links(mkdocs_site, mkdocs_pages) == []
    assert broken_links(zensical_site, zensical_pages) == []


def test_the_page_for_a_missing_address_speaks_the_game_s_words(engine_sites: dict[tuple[str, str], Path], built_site: Path) -> None:
    """At an address where no page is, each engine (and a plain `mkdocs build` through the plugin) shows the
    system's labels, not the theme's English "404 - Not found"; Wasteland's labels are its own."""
    from generator.pages import load_project

    for name, project in PROJECTS.items():
        loaded = load_project(project)
        assert loaded.project is not None
        labels = loaded.project.system.labels
        sites = [engine_sites[name, engine] for engine in ENGINES] + ([built_site] if name == "cadence" else [])
        for site in sites:
            page = (site / "404.html").read_text(encoding="utf-8")
            assert f"<h1>{html.escape(labels.not_found)}</h1>" in page, site
            assert f"<p>{html.escape(labels.not_found_text)}</p>" in page, site
            assert "404 - Not found" not in page, site


def test_a_page_named_with_glob_characters_is_in_both_engines_menus(tmp_path: Path) -> None:
    """Zensical reads the staged navigation from the docs folder, where a bare entry could be a glob: a page's
    path must name that page only. A content folder's own nav file there gives way to the staged one."""
    project = copy_project(MINI, tmp_path / "mini")
    (project / "content/about").mkdir()
    (project / "content/about/notes[1]*{x}.md").write_text("# Odd Notes\n\nNotes on a page with an odd name.\n", encoding="utf-8")
    (project / "content/about/notes1-x.md").write_text("# Even Notes\n\nNotes the odd name would match as a glob.\n", encoding="utf-8")
    (project / "content/.nav.yml").write_text("nav:\n- index.md\n", encoding="utf-8")
    menus = []
    for engine in ENGINES:
        result = cadence_build(project, tmp_path / engine, engine)
        assert result.returncode == 0, result.stderr
        menus.append(NavLinks((tmp_path / engine / "index.html").read_text(encoding="utf-8")).entries)
    assert ("about/notes[1]*{x}.html", "Odd Notes") in menus[0] and ("about/notes1-x.html", "Even Notes") in menus[0]
    assert menus[0] == menus[1]


def test_the_navigation_is_staged_in_the_docs_folder_only_for_an_engine_that_reads_it_there(tmp_path: Path) -> None:
    """For Zensical (`nav_file`) our navigation goes to docs/.nav.yml with the plugin that reads it, the same
    entries as the config's `nav` for MkDocs; a project's own `nav` stays in the config for every engine."""
    project = copy_project(MINI, tmp_path / "mini")
    staged = {
        nav_file: stage(project, tmp_path / str(nav_file), tmp_path / f"{nav_file}/site", nav_file=nav_file) for nav_file in (False, True)
    }
    in_config, in_docs = (yaml.safe_load(staged[n].config_file.read_text(encoding="utf-8")) for n in (False, True))
    assert "awesome-nav" not in in_config["plugins"] and not (staged[False].docs_dir / NAV_FILE).exists()
    assert "nav" not in in_docs and "awesome-nav" in in_docs["plugins"]
    assert yaml.safe_load((staged[True].docs_dir / NAV_FILE).read_text(encoding="utf-8")) == {"nav": in_config["nav"]}
    assert len(in_config["nav"]) > 3

    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8") + "nav:\n- Home: index.md\n- core/rules.md\n", encoding="utf-8")
    own = stage(project, tmp_path / "own", tmp_path / "own/site", nav_file=True)
    written = yaml.safe_load(own.config_file.read_text(encoding="utf-8"))
    assert written["nav"] == [{"Home": "index.md"}, "core/rules.md"] and "awesome-nav" not in written["plugins"]
    assert not (own.docs_dir / NAV_FILE).exists()
    # a project that runs awesome-nav itself keeps its own nav files: ours stays in the config
    assert nav_in_docs({"plugins": ["search", {"awesome-nav": {}}]}, in_config["nav"], True) is False
    assert nav_in_docs({"plugins": ["search"]}, in_config["nav"], True) is True


def test_every_generator_asset_reaches_both_sites(engine_sites: dict[tuple[str, str], Path]) -> None:
    assets = asset_files()
    assert any(path.endswith(".css") for path in assets)
    css, scripts = asset_links(sorted(assets))
    assert any(path.endswith("/search.js") for path in scripts)  # page scripts; a worker's script is not linked
    for engine in ENGINES:
        site = engine_sites["cadence", engine]
        index = (site / "index.html").read_text(encoding="utf-8")
        builder = (site / "fracture" / "builder.html").read_text(encoding="utf-8")
        for path, data in assets.items():
            assert path.startswith(f"{ASSETS_PREFIX}/")
            if path not in css and path not in scripts and not path.endswith("search_rank.js"):  # linked by the builder page only
                assert f"../{path}" in builder, (engine, path)
            assert (site / path).read_bytes() == data, (engine, path)
            if path in css:  # MkDocs links `assets/…`, Zensical `./assets/…`; the builder's own page links its own
                assert re.search(rf'<link[^>]+href="(\./)?{re.escape(path)}"', index), (engine, path)
            if path in scripts:
                assert re.search(rf'<script[^>]+src="(\./)?{re.escape(path)}"', index), (engine, path)


def test_definitions_search_boost_is_in_the_mkdocs_index(engine_sites: dict[tuple[str, str], Path]) -> None:
    """Material's search reads the boost from page meta; Zensical 0.0.x has no boost (its equivalent: the next test)."""
    import json

    index = json.loads((engine_sites["cadence", "mkdocs"] / "search" / "search_index.json").read_text(encoding="utf-8"))
    boosted = {doc["location"].split("#")[0] for doc in index["docs"] if doc.get("boost")}
    assert "core-rules/special-rules-appendix.html" in boosted
    zensical = json.loads((engine_sites["cadence", "zensical"] / "search.json").read_text(encoding="utf-8"))
    located = {item["location"].split("#")[0] for item in zensical["items"]}
    assert "core-rules/special-rules-appendix.html" in located
    assert not any(loc.endswith("/errata.html") for loc in located)  # `search: exclude` is honoured by both


def test_zensical_index_holds_every_generator_entry_and_marks_each_rule_definition(engine_sites: dict[tuple[str, str], Path]) -> None:
    """Zensical indexes headings only: the post-build step adds the units, weapons and upgrades of tables as items of
    their page, with its breadcrumb path, and ends the path of each rule's definition with the rule's name."""
    import json

    material = json.loads((engine_sites["cadence", "mkdocs"] / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    items = json.loads((engine_sites["cadence", "zensical"] / "search.json").read_text(encoding="utf-8"))["items"]
    by_location = {item["location"]: item for item in items}
    assert len(by_location) == len(items)  # one item a place: an entry at a heading is that heading's item
    ours = [doc for doc in material if "kind" in doc]
    assert [doc["location"] for doc in ours if doc["location"] not in by_location] == []
    take_down = by_location["survivors/gather-your-survivors.html#upgrades--take-down"]
    assert take_down["title"] == "Take Down" and take_down["path"] == ["Games in Development", "Survivors", "Gather your Survivors"]
    assert take_down["text"].startswith("The model may make a second attack action")
    rules = [doc for doc in ours if doc["kind"] == "rule"]
    assert len(rules) > 70
    assert by_location["core-rules/special-rules-appendix.html#heavy"]["path"] == ["Core Rules", "Special Rules Appendix", "Heavy"]
    # every section keeps its page's path; a rule's definition adds the rule's name, and nothing else changes
    names = {doc["location"]: doc["name"] for doc in rules}
    sections = [item for item in items if "#" in item["location"]]
    changed = [
        item["location"]
        for item in sections
        if item["path"]
        != by_location[item["location"].split("#")[0]]["path"] + ([names[item["location"]]] if item["location"] in names else [])
    ]
    assert changed == []
    # Zensical's results show "&#x27;" as written: every path uses named references only
    assert [item["location"] for item in items if any(re.search(r"&#\w+;", part) for part in item["path"])] == []
    assert by_location["devils-bluff/missions.html"]["path"] == ["Released Games", "Devil's Bluff", "Missions"]
    # shortest title first, so that of a name and a longer one it begins, the name comes first
    lengths = [len(html.unescape(re.sub(r"<[^>]+>", "", item["title"]))) for item in items]
    assert lengths == sorted(lengths)
    assert list(by_location).index("survivors/gather-your-survivors.html#ranged-weapons--bow") < list(by_location).index(
        "devils-bluff/making-your-gang.html#special-weapons--bowie-knife"
    )


def test_cadence_build_merges_the_same_search_entries_as_the_plugin(engine_sites: dict[tuple[str, str], Path], built_site: Path) -> None:
    """`cadence build` merges the entries its staging process wrote out; `mkdocs build` the ones its plugin computed."""
    import json

    def ours(site: Path) -> set[tuple[str, str, str, str]]:
        docs = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
        return {(d["location"], d["title"], d["name"], d["kind"]) for d in docs if "kind" in d}

    staged, plugin = ours(engine_sites["cadence", "mkdocs"]), ours(built_site)
    assert {kind for *_, kind in staged} >= {"unit", "weapon", "weapon list", "upgrade", "rule", "table"}
    assert staged == plugin


def test_post_build_steps_run_after_either_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, bool]] = []

    def step(site_dir: Path, context: BuildContext) -> None:
        seen.append((context.engine, (site_dir / "index.html").is_file()))
        (site_dir / "stamp.txt").write_text(context.engine, encoding="utf-8")

    monkeypatch.setattr(postbuild, "STEPS", [step])
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    for engine in ENGINES:
        site = tmp_path / engine / "site"
        assert cli.main(["-C", str(MINI), "build", "--quiet", "--site-dir", str(site), "--engine", engine]) == 0
        assert (site / "stamp.txt").read_text(encoding="utf-8") == engine
    # the plugin runs the same steps at the end of a plain `mkdocs build`
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    config = load_config(str(MINI / "mkdocs.yml"), site_dir=str(tmp_path / "plain"))
    build(config)
    assert seen == [("mkdocs", True), ("zensical", True), ("mkdocs", True)]
    assert (tmp_path / "plain" / "stamp.txt").is_file()


def _files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file() and p.name != "sitemap.xml.gz"}


def test_forked_and_new_interpreter_steps_build_the_same_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On Linux staging and the engine are forks of the command (`cli.Forked`); elsewhere each is a new
    interpreter. Both ways build the same files, and both report a failed step the same way."""
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    started: list[str] = []
    run_apart = cli.run_apart

    def recorded(command: str, argv: list[str], env: dict[str, str], cwd: Path | None = None, output: Any = None) -> cli.Child:
        child = run_apart(command, argv, env, cwd, output)
        started.append(type(child).__name__)
        return child

    monkeypatch.setattr(cli, "run_apart", recorded)
    forked, spawned = tmp_path / "forked", tmp_path / "spawned"
    assert cli.main(["-C", str(MINI), "build", "--quiet", "--site-dir", str(forked)]) == 0
    monkeypatch.setattr(sys, "platform", "darwin")
    assert cli.main(["-C", str(MINI), "build", "--quiet", "--site-dir", str(spawned)]) == 0
    assert started == ["Forked", "Forked", "Popen", "Popen"]
    assert _files(forked) == _files(spawned) and (forked / "index.html").is_file()

    broken = copy_project(MINI, tmp_path / "broken")
    rules = broken / "data" / "system.yaml"
    rules.write_text(rules.read_text(encoding="utf-8") + "\nno_such_field: 1\n", encoding="utf-8")
    for platform in ("linux", "darwin"):
        monkeypatch.setattr(sys, "platform", platform)
        assert cli.main(["-C", str(broken), "build", "--quiet", "--site-dir", str(tmp_path / f"broken-{platform}")]) == 1
        assert not (tmp_path / f"broken-{platform}").exists()


def engine_that_fails(argv: list[str]) -> int:
    """An engine whose build fails, saying why on both outputs (run by `cadence build` as Zensical's command)."""
    print("engine: building")
    print("engine: the theme is missing", file=sys.stderr)
    return 1


@pytest.mark.parametrize("platform", ["linux", "darwin"])
def test_quiet_holds_back_what_zensical_prints_unless_its_build_fails(
    platform: str, tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Zensical has no `--quiet`: `cadence build --quiet` keeps what it prints and shows it only when its build
    fails, forked (Linux) or in a new interpreter (elsewhere)."""
    monkeypatch.setattr(sys, "platform", platform)

    def build(*extra: str) -> tuple[int, str, str]:
        code = cli.main(["-C", str(MINI), "build", "--engine", "zensical", "--site-dir", str(tmp_path / "site"), *extra])
        out, err = capfd.readouterr()
        return code, out, err

    assert build("--quiet") == (0, "", "")
    code, out, err = build()
    assert code == 0 and "Build finished" in out
    # the engine names the staging folder it built in; the last line says where the site is
    assert err.splitlines()[-1] == f"cadence: the site is in {tmp_path / 'site'}{os.sep}", err
    monkeypatch.setitem(cli.ENGINE_COMMANDS, "zensical", f"{__name__}:engine_that_fails")
    monkeypatch.setenv("PYTHONPATH", str(REPO))  # a new interpreter, in the staging folder, finds it too
    code, out, err = build("--quiet")
    assert code == 1 and out == ""
    assert err.splitlines() == [
        "engine: building",
        "engine: the theme is missing",
        "cadence: build failed; the previous site was left as it was",
    ]


def test_builds_of_a_project_stage_in_one_kept_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cadence build` stages in a folder kept in the user's cache (`cache.staging_dir`): the next build rewrites
    only the staged files that changed and builds the site a build without any cache builds; Zensical keeps its
    own cache there. A build while another holds the folder, or with the cache off, stages in a folder of its
    own beside the output and removes it. A kept folder no build used for a month is pruned."""
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    project, site = copy_project(MINI, tmp_path / "mini"), tmp_path / "site"

    def build(out: Path = site, *extra: str) -> int:
        return cli.main(["-C", str(project), "build", "--quiet", "--site-dir", str(out), *extra])

    assert build() == 0
    kept = cache.staging_dir(project, site)
    staged = {p: p.stat().st_mtime_ns for p in (kept / "docs").rglob("*") if p.is_file()}
    assert kept / "docs" / "index.md" in staged and not (kept / cli.UNFINISHED).exists()
    page = project / "content" / "index.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nAn edit.\n", encoding="utf-8")
    assert build() == 0
    assert [p.name for p, before in staged.items() if p.stat().st_mtime_ns != before] == ["index.md"]
    assert "An edit." in (site / "index.html").read_text(encoding="utf-8")
    monkeypatch.setenv(cache.NO_CACHE_ENV, "1")
    assert build(tmp_path / "fresh") == 0
    assert _files(site) == _files(tmp_path / "fresh")
    monkeypatch.delenv(cache.NO_CACHE_ENV)
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]  # nothing left beside the outputs

    used: list[Path] = []
    build_in = cli._build_in
    monkeypatch.setattr(cli, "_build_in", lambda args, root, out, work: used.append(work) or build_in(args, root, out, work))
    held = cli._kept_staging(project, site)  # another build's
    assert held is not None
    with held:
        assert build() == 0
    assert used[0].parent == tmp_path and used[0].name.startswith(".site-building-") and not used[0].exists()
    assert build(site, "--engine", "zensical") == 0 and used[1] == kept and (kept / ".cache").is_dir()

    month_ago = time.time() - (cache.KEEP_DAYS + 1) * 24 * 3600
    os.utime(kept / ".lock", (month_ago, month_ago))
    (cache.cache_dir() / cache._PRUNED).unlink(missing_ok=True)
    assert kept in cache.prune() and not kept.exists()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: Seconds a served page may take to show what a test waits for: only a stuck server takes this long, a server on a
#: busy machine (other tests' builds and browsers beside it) can take a minute or more to start or to rebuild.
PATIENCE = 300
#: The `cadence serve` process answering at each base URL, so that a wait ends as soon as its server has died.
_SERVERS: dict[str, subprocess.Popen[bytes]] = {}


def _get(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return str(response.read().decode("utf-8"))
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return ""


@pytest.fixture()
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, str]]:
    project = copy_project(MINI, tmp_path / "mini")
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "generator.cli", "-C", str(project), "serve", "--engine", request.param, "--dev-addr", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    _SERVERS[base] = process
    try:
        yield project, base
    finally:
        del _SERVERS[base]
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _wait_for(url: str, needle: str, timeout: float = PATIENCE) -> bool:
    """Whether `url` comes to show `needle`: looked at until it does, its server dies, or `timeout` passes."""
    server = next((process for base, process in _SERVERS.items() if url.startswith(f"{base}/")), None)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if needle in _get(url):
            return True
        if server is not None and server.poll() is not None:
            return False
        time.sleep(0.3)
    return False


def _edit_while_served(served: tuple[Path, str], page: str, file: str, edit: tuple[str, str], shown: tuple[str, str]) -> str:
    """Wait for `page` to be served showing `shown[0]`, make the `edit` (text, replacement) once in the data
    `file`, and wait for the page to show `shown[1]`; the page's URL."""
    project, base = served
    url = f"{base}/{page}"
    assert _wait_for(url, shown[0])
    data = project / file
    data.write_text(data.read_text(encoding="utf-8").replace(*edit, 1), encoding="utf-8")
    assert _wait_for(url, shown[1])
    return url


@pytest.mark.parametrize("served", ENGINES, indirect=True)
def test_serve_shows_a_data_edit(served: tuple[Path, str]) -> None:
    edit = ("intro: Scouts of the", "intro: Wardens of the")
    _edit_while_served(
        served, "skirmish/army-lists/rangers.html", "data/skirmish/army-lists/rangers.yaml", edit, ("Scouts of the", "Wardens of the")
    )


#: Where each engine's server publishes its search index.
SERVED_INDEX = {"mkdocs": "search/search_index.json", "zensical": "search.json"}


@pytest.mark.parametrize("served", ENGINES, indirect=True)
def test_serve_search_finds_table_rows_and_a_renamed_weapon(served: tuple[Path, str], request: pytest.FixtureRequest) -> None:
    """While serving, the generator's search entries are merged into whatever index the engine builds (MkDocs
    through `serve_hook.py`, Zensical by the serve loop), and again after an edit; the site's ranking is in
    the engine's search worker. A weapon is a row of a table: no engine indexes it by itself."""
    engine = request.node.callspec.params["served"]
    project, base = served
    index_url = f"{base}/{SERVED_INDEX[engine]}"
    assert _wait_for(index_url, '"Carbine"'), f"the served index never had the weapon Carbine ({engine})"
    page = _get(f"{base}/index.html")
    worker = re.search(r'"search":\s*"([^"]+)"', page) or re.search(r'src="([^"]*workers/search[^"]*\.js)"', page)
    assert worker is not None, "no search worker named on the home page"
    assert _get(f"{base}/{worker.group(1).lstrip('./')}").startswith("/* Cadence search ranking"), "the ranking is not in the served worker"
    data = project / "data/skirmish/army-lists/rangers.yaml"
    data.write_text(data.read_text(encoding="utf-8").replace("name: Carbine,", "name: Longrifle,", 1), encoding="utf-8")
    assert _wait_for(index_url, '"Longrifle"'), f"the served index never had the renamed weapon ({engine})"


@pytest.mark.parametrize("served", ENGINES, indirect=True)
def test_serve_shows_a_new_module_title_in_every_pages_menu(served: tuple[Path, str]) -> None:
    """A module's title is in every page's menu: the staged navigation changes (for Zensical in docs/.nav.yml,
    which its server must pick up as it does a page)."""
    edit = ("  title: Skirmish\n", "  title: Skirmish Revised\n")
    url = _edit_while_served(served, "core/rules.html", "data/skirmish/module.yaml", edit, ("Skirmish", "Skirmish Revised"))
    menu = [title for _, title in NavLinks(_get(url)).entries]
    assert "Skirmish Revised" in menu and "Skirmish" not in menu


@pytest.mark.parametrize("served", ENGINES, indirect=True)
def test_serve_shows_a_broken_save_on_every_page_until_it_is_fixed(served: tuple[Path, str]) -> None:
    """`cadence serve` with either engine: a save that breaks the data turns every staged page into the located
    problems; the fix brings the pages, and the same menu, back."""
    project, base = served
    url = f"{base}/skirmish/army-lists/rangers.html"
    assert _wait_for(url, "Ranger Captain")
    menu = NavLinks(_get(url)).entries
    data = project / "data/skirmish/army-lists/rangers.yaml"
    good = data.read_text(encoding="utf-8")
    data.write_text(good.replace("lists: [Sidearms]", "lists: [Sidearmz]"), encoding="utf-8")
    assert _wait_for(url, "error[unknown-weapon-list]")
    assert "<code>data/skirmish/army-lists/rangers.yaml:24:28</code>" in _get(url) and "Ranger Captain" not in _get(url)
    assert _wait_for(f"{base}/core/rules.html", "error[unknown-weapon-list]")
    data.write_text(good, encoding="utf-8")
    assert _wait_for(url, "Ranger Captain")
    fixed = _get(url)
    assert "rules-problems" not in fixed and NavLinks(fixed).entries == menu


def test_properdocs_builds_the_same_html_as_mkdocs(tmp_path: Path) -> None:
    """ProperDocs, the maintained MkDocs 1.x fork, on the same staged tree: only the generator meta tag differs."""
    sites = {}
    for engine in ("mkdocs", "properdocs"):
        sites[engine] = tmp_path / engine
        result = cadence_build(MINI, sites[engine], engine)
        assert result.returncode == 0, result.stderr
    generator_meta = re.compile(r'<meta name="generator" content="[^"]*">')
    files = {p.relative_to(sites["mkdocs"]).as_posix() for p in sites["mkdocs"].rglob("*.html")}
    assert files == {p.relative_to(sites["properdocs"]).as_posix() for p in sites["properdocs"].rglob("*.html")}
    assert "ProperDocs" in (sites["properdocs"] / "index.html").read_text(encoding="utf-8")
    for name in files:
        a, b = ((sites[e] / name).read_text(encoding="utf-8") for e in ("mkdocs", "properdocs"))
        assert generator_meta.sub("", a) == generator_meta.sub("", b), name


def test_restaging_rewrites_only_what_changed(tmp_path: Path) -> None:
    """`cadence serve` re-stages on every edit; an engine watching the tree then rebuilds only what changed."""
    from generator.staging import stage

    project = copy_project(MINI, tmp_path / "mini")
    target = tmp_path / "stage"
    first = stage(project, target, target / "site")
    assert "skirmish/army-lists/rangers.md" in first.written and "mkdocs.yml" not in first.written
    assert stage(project, target, target / "site").written == []
    data = project / "data/skirmish/army-lists/rangers.yaml"
    data.write_text(data.read_text(encoding="utf-8").replace("intro: Scouts of the", "intro: Wardens of the", 1), encoding="utf-8")
    again = stage(project, target, target / "site")
    assert again.written == ["skirmish/army-lists/rangers.md"]
    assert "Wardens of the" in (target / "docs/skirmish/army-lists/rangers.md").read_text(encoding="utf-8")
    picture = project / "content/skirmish/map.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n")
    assert stage(project, target, target / "site").written == ["skirmish/map.png"]
    picture.unlink()
    assert stage(project, target, target / "site").removed == ["skirmish/map.png"]


def test_no_markdown_source_is_published(engine_sites: dict[tuple[str, str], Path]) -> None:
    """Only built pages reach the site: notes such as overrides/README.md are not theme files."""
    for (project, engine), site in engine_sites.items():
        assert sorted(p.relative_to(site).as_posix() for p in site.rglob("*.md")) == [], (project, engine)
