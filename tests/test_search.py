"""Search quality, offline with lunr: everything a player looks up is the first result for its name.

Queries run through the built site's own search index with the Python port of lunr, ranked as the
site's search ranks them (`generator/search.py`: Material's prefix queries and boosts, then exact
names first and the reader's game first). A name several scopes define (Leader in two games, say)
counts as right when the first result is one of its definitions; all its definitions must then fill
the first places, and from one of those games its own definition must come first.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from generator.pages import generate, load_project
from generator.search import load_index, name_key, search
from generator.search_entries import SEPARATOR, Entry, search_entries

from .conftest import REPO, mkdocs_build

WASTELAND = REPO / "examples" / "wasteland-tactics"
KINDS = ("rule", "unit", "weapon", "weapon list", "upgrade", "upgrade list", "table")


def entries_of(project_dir: Path) -> list[Entry]:
    loaded = load_project(project_dir)
    assert loaded.project is not None
    generated = generate(loaded.project, loaded.content)
    return search_entries(loaded.project, generated.site_map, loaded.content)


@pytest.fixture(scope="module")
def wasteland_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("wasteland-site")
    result = mkdocs_build(WASTELAND, site)
    assert result.returncode == 0, result.stderr
    return site


@pytest.mark.parametrize("project", ["cadence", "wasteland"])
def test_every_name_a_player_looks_up_ranks_first(project: str, built_site: Path, wasteland_site: Path) -> None:
    project_dir, site = (REPO, built_site) if project == "cadence" else (WASTELAND, wasteland_site)
    index = load_index(site / "search" / "search_index.json")
    entries = entries_of(project_dir)
    places: dict[str, set[str]] = defaultdict(set)
    for entry in entries:
        places[name_key(entry.name, {})].add(entry.location)
    misses = []
    for kind in KINDS:
        names = sorted({e.name for e in entries if e.kind == kind})
        missed = [n for n in names if (r := search(index, n, limit=1)) == [] or r[0].location not in places[name_key(n, {})]]
        misses += [f"{kind} {n!r}: {search(index, n, limit=1)}" for n in missed]
        print(f"\n{project} {kind}: precision at 1 {1 - len(missed) / len(names) if names else 1:.3f} over {len(names)} names")
    assert misses == []


def test_a_shared_name_fills_the_first_places_and_its_game_ranks_it_first(built_site: Path) -> None:
    index = load_index(built_site / "search" / "search_index.json")
    places: dict[str, set[str]] = defaultdict(set)
    for entry in entries_of(REPO):
        places[entry.name].add(entry.location)
    shared = {name: where for name, where in places.items() if len({w.split("/")[0] for w in where}) > 1}
    assert {"devils-bluff/module-rules.html#leader", "survivors/module-rules.html#leader"} <= shared["Leader"]
    misses = []
    for name, where in sorted(shared.items()):
        top = {r.location for r in search(index, name, limit=len(where))}
        if top != where:
            misses.append(f"{name}: first {len(where)} results {sorted(top)}, defined at {sorted(where)}")
        for game in {w.split("/")[0] for w in where}:
            first = search(index, name, limit=1, game=game)[0].location
            if first.split("/")[0] != game:
                misses.append(f"{name} from {game}: first result {first}")
    assert misses == []


def test_entries_land_on_rows_and_headings_and_name_their_list_and_game(built_site: Path) -> None:
    docs = {d["location"]: d for d in json.loads((built_site / "search/search_index.json").read_text())["docs"]}
    entries = entries_of(REPO)
    counts = {kind: sum(e.kind == kind for e in entries) for kind in KINDS}
    print(f"\nsearch entries by kind: {counts}")
    assert all(counts.values()), counts
    for entry in entries:
        page, anchor = entry.location.split("#")
        html = (built_site / page).read_text(encoding="utf-8")
        assert f'id="{anchor}"' in html, f"{entry.location}: no such anchor"
        assert docs[entry.location]["kind"] == entry.kind
    pistol = docs["fracture/army-lists/sentinels.html#specialist-sidearms--plasma-pistol"]
    assert pistol["title"] == f"Plasma Pistol{SEPARATOR}Sentinels (Fracture)"


def test_spelling_variants_and_stop_words(built_site: Path, wasteland_site: Path) -> None:
    cadence = load_index(built_site / "search" / "search_index.json")
    assert cadence.variants["armor"] == "armour"
    assert search(cadence, "heavy armor", 1)[0].location == "core-rules/special-rules-appendix.html#heavy-armour"
    assert search(cadence, "Heavy", 1)[0].location == "core-rules/special-rules-appendix.html#heavy"
    assert search(cadence, "One Use", 1)[0].location == "core-rules/special-rules-appendix.html#one-use"
    assert search(cadence, "Other Weapons", 1)[0].title.startswith("Other Weapons")
    # Nothing in Cadence pins a unit; in Wasteland Tactics a pinned unit is one with Suppression Markers.
    assert search(cadence, "Pinned") == []
    wasteland = load_index(wasteland_site / "search" / "search_index.json")
    assert any("Suppression" in r.snippet for r in search(wasteland, "Pinned"))


def test_cadence_search_answers_from_a_terminal(built_site: Path) -> None:
    def run(*args: str) -> str:
        result = subprocess.run(
            [sys.executable, "-m", "generator.cli", "search", "--site-dir", str(built_site), *args], capture_output=True, text=True
        )
        assert result.returncode == 0, result.stderr
        return result.stdout.splitlines()[0]

    assert run("Rapid", "Fire") == f"1. Rapid Fire (X){SEPARATOR}Core Rules  (core-rules/special-rules-appendix.html#rapid-fire)"
    assert run("--game", "devils-bluff", "Leader").endswith("(devils-bluff/module-rules.html#leader)")
    assert run("--game", "survivors", "Leader").endswith("(survivors/module-rules.html#leader)")


def _small_site(tmp_path: Path) -> Path:
    """A site folder with a search index in Material's format: three entries, enough for `cadence search`."""
    index = {
        "config": {
            "lang": ["en"],
            "separator": "[\\s\\-]+",
            "pipeline": ["stopWordFilter"],
            "fields": {"title": {"boost": 1000}, "text": {"boost": 1}},
        },
        "docs": [{"location": f"rules.html#rule-{n}", "title": f"Rule {n}", "text": f"Fire and move, rule {n}."} for n in range(3)],
    }
    (tmp_path / "site" / "search").mkdir(parents=True)
    (tmp_path / "site" / "search" / "search_index.json").write_text(json.dumps(index), encoding="utf-8")
    return tmp_path / "site"


def _search(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "generator.cli", "search", "--site-dir", str(site), *args], capture_output=True, text=True, timeout=60
    )


def test_limit_is_a_whole_number_from_one(tmp_path: Path) -> None:
    """`--limit -5` printed every result but the last five (a slice); 0 and words are usage errors too."""
    site = _small_site(tmp_path)
    shown = _search(site, "--limit", "2", "rule")
    assert shown.returncode == 0 and [line[:3] for line in shown.stdout.splitlines() if line[:1].isdigit()] == ["1. ", "2. "]
    for bad in ("-5", "0", "many", "1.5"):
        refused = _search(site, "--limit", bad, "rule")
        assert refused.returncode == 2 and refused.stdout == "", bad
        assert refused.stderr.strip().splitlines()[-1].startswith("cadence search: error: argument --limit:"), refused.stderr


def test_a_query_longer_than_the_stated_bound_is_refused_at_once(tmp_path: Path) -> None:
    """A 50,000-word query was still searching after two minutes; the bound is README's "Supported sizes"."""
    from generator.search import MOST_QUERY_CHARS, MOST_QUERY_WORDS

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"| a `cadence search` query | {MOST_QUERY_CHARS} characters and {MOST_QUERY_WORDS} words;" in readme
    site = _small_site(tmp_path)
    assert _search(site, *["fire"] * MOST_QUERY_WORDS).returncode == 0
    words = _search(site, *["fire"] * (MOST_QUERY_WORDS + 1))
    assert words.returncode == 2 and words.stdout == ""
    assert words.stderr == f"cadence: the query has {MOST_QUERY_WORDS + 1} words; at most {MOST_QUERY_WORDS} are searched\n"
    huge = _search(site, *["fire"] * 50_000)
    assert (
        huge.returncode == 2
        and huge.stderr == f"cadence: the query is {5 * 50_000 - 1} characters long; at most {MOST_QUERY_CHARS} are searched\n"
    )
