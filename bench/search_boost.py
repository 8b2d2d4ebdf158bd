"""What the definitions search boost is worth: each special rule's name searched, with and without it.

    python bench/search_boost.py [PROJECT] [--out bench/results/search-boost.md]

Builds the project with `cadence build` (MkDocs, whose Material search reads the `search.boost` page
meta), then searches every special rule's name in its search index twice with lunr, as Material does
(`generator/search.py`): as built, and with every boost removed, which is what an engine without
per-page weights (Zensical 0.0.x) gives up. Reports how often the rule's own definition comes first.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from generator.search import load_index, search  # noqa: E402
from generator.staging import StagingError, load_and_generate, read_config, read_options  # noqa: E402


def definitions(project: Path) -> list[tuple[str, str]]:
    """(rule name, search location of its definition) for every special rule the site defines."""
    config = read_config(project)
    try:
        loaded, generated = load_and_generate(project, read_options(config), str(config.get("docs_dir", "docs")))
    except StagingError as exc:
        raise SystemExit(str(exc)) from None
    assert loaded.project is not None
    found: dict[str, str] = {}
    for key, scope in loaded.project.scopes.items():
        for rule in scope.unique_rules():
            place = generated.site_map.rule_place(key, rule)
            if place and rule.name not in found:
                found[rule.name] = f"{place[0]}.html#{place[1]}"
    return sorted(found.items())


def ranks(index_file: Path, wanted: list[tuple[str, str]], limit: int = 10) -> list[int | None]:
    index, docs = load_index(index_file)
    out: list[int | None] = []
    for name, location in wanted:
        hits = [r.location for r in search(index, docs, name, limit)]
        out.append(hits.index(location) + 1 if location in hits else None)
    return out


def summary(found: list[int | None]) -> str:
    first = sum(1 for r in found if r == 1)
    top3 = sum(1 for r in found if r is not None and r <= 3)
    known = [r for r in found if r is not None]
    mean = f"{statistics.mean(known):.2f}" if known else "–"
    return f"{first} ({first / len(found) * 100:.0f}%) | {top3} ({top3 / len(found) * 100:.0f}%) | {len(found) - len(known)} | {mean}"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("project", nargs="?", type=Path, default=REPO)
    p.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "search-boost.md")
    args = p.parse_args()
    project = args.project.resolve()
    wanted = definitions(project)
    with tempfile.TemporaryDirectory() as scratch:
        site = Path(scratch) / "site"
        command = [sys.executable, "-m", "generator.cli", "-C", str(project), "build", "--quiet", "--site-dir", str(site)]
        subprocess.run(command, check=True)
        index_file = site / "search" / "search_index.json"
        boosted = ranks(index_file, wanted)
        data = json.loads(index_file.read_text(encoding="utf-8"))
        weighted = sum(1 for d in data["docs"] if "boost" in d)
        for doc in data["docs"]:
            doc.pop("boost", None)
        flat = Path(scratch) / "flat.json"
        flat.write_text(json.dumps(data), encoding="utf-8")
        unboosted = ranks(flat, wanted)
    lines = [
        "# The definitions search boost, measured",
        "",
        f"`python bench/search_boost.py` on {'the shipped project' if project == REPO else f'`{project}`'}: {len(wanted)} distinct special-rule names"
        " (the first definition of each),",
        "each searched with lunr as",
        f"Material's search does (`generator/search.py`, top 10). {weighted} index entries carry a boost (`definitions_boost`).",
        "",
        "| index | definition first | definition in top 3 | not in top 10 | mean rank when found |",
        "| --- | --- | --- | --- | --- |",
        f"| as built for MkDocs + Material (boost on rule pages) | {summary(boosted)} |",
        f"| the same entries without boost (what an engine without page weights gives up, e.g. Zensical 0.0.x) | {summary(unboosted)} |",
        "",
        "Rules whose rank changes: "
        + (
            ", ".join(f"{name} {a or '>10'}→{b or '>10'}" for (name, _), a, b in zip(wanted, boosted, unboosted, strict=True) if a != b)
            or "none"
        )
        + " (with → without).",
        "",
    ]
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
