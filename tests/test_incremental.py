"""`cadence serve` re-stages with the pages of the last staging kept: the result is a clean staging's, byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.cache import read_digests
from generator.incremental import PageCache
from generator.staging import stage

from .conftest import REPO, copy_project

#: (file, text, replacement): a rule's text in one game, a core rule's text (every game's pages read
#: it), a game's title (the navigation changes), and a hand-written page's title (no data file changes:
#: only the pages that show that title, its game's index, must be rendered again).
EDITS = (
    ("data/fracture/module.yaml", "subtracts 1 from every Morale test it takes.", "subtracts 1 from every Morale test it takes (rev1)."),
    ("data/core-rules/module.yaml", "may make one extra pivot of 45 degrees", "may make one extra pivot of 90 degrees"),
    ("data/fracture/module.yaml", "  title: Fracture\n", "  title: Fracture rev1\n"),
    ("content/fracture/missions.md", "# Missions\n", "# Missions and Scenarios\n"),
)


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(REPO, tmp_path_factory.mktemp("incremental") / "project")


def test_an_incremental_restage_equals_a_clean_staging(project: Path, tmp_path: Path) -> None:
    cache = PageCache()
    served = tmp_path / "served"
    stage(project, served, served / "site", cache)
    assert cache.reused == 0 and cache.rendered > 0
    reused = {}
    for number, (relative, find, replace) in enumerate(EDITS):
        path = project / relative
        text = path.read_text(encoding="utf-8")
        assert find in text, relative
        path.write_text(text.replace(find, replace, 1), encoding="utf-8")
        stage(project, served, served / "site", cache)
        reused[relative, find] = cache.reused
        clean = tmp_path / f"clean-{number}"
        stage(project, clean, clean / "site")
        assert _tree(served) == _tree(clean), (relative, find)
    fracture_rule, core_rule, title, page_title = (reused[r, f] for r, f, _ in EDITS)
    assert "it takes (rev1)" in (served / "docs/fracture/module-rules.md").read_text(encoding="utf-8")
    assert "pivot of 90 degrees" in (served / "docs/core-rules/special-rules-appendix.md").read_text(encoding="utf-8")
    assert "[Missions and Scenarios](missions.md)" in (served / "docs/fracture/index.md").read_text(encoding="utf-8")
    # one game's rule or its title: the other games' pages are reused; a core rule: nothing is; a page's
    # title: every page but those that show it
    assert fracture_rule > 0 and core_rule == 0 and title == fracture_rule and page_title > title


def test_pages_are_not_kept_when_the_files_changed_while_staging(tmp_path: Path) -> None:
    project = copy_project(REPO, tmp_path / "project")
    before = read_digests(project, "data", [])
    cache = PageCache()
    cache.begin(before, "data")
    assert cache.page("a", b"key", lambda: "old") == "old"
    rules = project / "data/fracture/module.yaml"
    rules.write_text(rules.read_text(encoding="utf-8") + "\n# saved meanwhile\n", encoding="utf-8")
    after = read_digests(project, "data", [])
    assert before is not None and after is not None and after != before and after.rest == before.rest
    assert cache.end(after) is False
    cache.begin(after, "data")
    assert cache.page("a", b"key", lambda: "new") == "new"
    assert cache.end(after) is True
    cache.begin(after, "data")
    assert cache.page("a", b"key", lambda: "never") == "new"


def test_a_build_takes_the_last_builds_pages_only_from_the_same_generator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cadence build` keeps its pages in the user's cache: the next build of an edited project renders
    only what the edit changes and still equals a clean staging; another generator takes nothing."""
    project = copy_project(REPO, tmp_path / "project")
    first = PageCache()
    first.restore(project)
    stage(project, tmp_path / "first", tmp_path / "first/site", first)
    first.save(project)
    relative, find, replace = EDITS[0]
    path = project / relative
    text = path.read_text(encoding="utf-8")
    assert find in text
    path.write_text(text.replace(find, replace, 1), encoding="utf-8")
    second = PageCache()
    second.restore(project)
    built = tmp_path / "second"
    stage(project, built, built / "site", second)
    clean = tmp_path / "clean"
    stage(project, clean, clean / "site")
    assert _tree(built) == _tree(clean)
    assert second.reused > 0 and 0 < second.rendered < first.rendered + first.reused
    second.save(project)
    monkeypatch.setattr("generator.cache.generator_hash", lambda: b"another generator")
    other = PageCache()
    other.restore(project)
    stage(project, tmp_path / "other", tmp_path / "other/site", other)
    assert other.reused == 0


def test_a_build_after_an_edit_works_out_search_entries_only_for_the_lists_it_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An army list's search entries are kept with its page (`PageCache.rows`): after a model's profile is edited
    in one game, only that game's lists have theirs worked out again, and the entries equal a build's without
    any cache, byte for byte."""
    from generator import cache, search_entries, staging

    project = copy_project(REPO, tmp_path / "project")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)
    worked: list[str] = []
    work = search_entries.list_entries
    monkeypatch.setattr(search_entries, "list_entries", lambda p, m, entry: worked.append(entry.module) or work(p, m, entry))

    def entries_of(name: str) -> bytes:
        assert staging.main([str(project), str(tmp_path / name), "--search-entries", str(tmp_path / f"{name}.json")]) == 0
        return (tmp_path / f"{name}.json").read_bytes()

    first = entries_of("first")
    lists = len(worked)
    path = project / "data/fracture/army-lists/marauders.yaml"  # a Brute's wounds: in his unit's entry
    find = 'profile: {cmd: 5, mov: 6", skl: 4+, def: 5+, tgh: 5, hp: 6}'
    text = path.read_text(encoding="utf-8")
    assert find in text
    path.write_text(text.replace(find, find.replace("hp: 6", "hp: 7")), encoding="utf-8")
    worked.clear()
    edited = entries_of("edited")
    assert worked and set(worked) == {"fracture"} and len(worked) < lists
    assert "Tgh 5 HP 7. Brute in Juggernaut Armour" in edited.decode() and edited != first
    monkeypatch.setenv(cache.NO_CACHE_ENV, "1")
    assert edited == entries_of("plain")
