"""The army builder in a real Chromium: the page's evaluator against `cadence roster`, and a player's session.

One set of rules, two runtimes: for every module with a builder, 1,000 distinct rosters drawn by hypothesis
strategies from the module's published JSON (legal and illegal, at least a tenth each; some naming things
that do not exist) go through the page's own code in one `page.evaluate` and through `generator/roster.py`;
totals, unit costs and every problem must be equal. The drawing is deterministic (fixed seeds, no example
database) and never shrinks: a disagreement is reported with the roster it was found on.
"""

from __future__ import annotations

import base64
import functools
import json
import math
import multiprocessing
import os
import re
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from playwright.sync_api import Browser, Page, expect

from generator.export import ModuleExport, export_project, to_json
from generator.pages import load_project
from generator.roster import Verdict, evaluate, normalise

from .conftest import REPO, Browsing

pytestmark = pytest.mark.browser

WASTELAND = REPO / "examples" / "wasteland-tactics"
ROSTERS_PER_MODULE = 1000
PHONE_390 = {"width": 390, "height": 844}


# --- random rosters, drawn by hypothesis -----------------------------------------------------------


@functools.cache
def _range(low: int, high: int) -> st.SearchStrategy[int]:
    """`st.integers(low, high)`, made once: a roster takes some sixty draws, and hypothesis' own lookup of its
    strategy cache was a third of the cost of each."""
    return st.integers(low, high)


def _int(draw: st.DrawFn, low: int, high: int) -> int:
    """A whole number from `low` to `high`; no draw when there is no choice."""
    return low if low >= high else draw(_range(low, high))


def _chance(draw: st.DrawFn, percent: int) -> bool:
    """True for about `percent` draws in 100 (hypothesis leans towards the ends of a range, which is welcome here)."""
    return _int(draw, 0, 99) < percent


def _pick(draw: st.DrawFn, pool: list[Any]) -> Any:
    """One item of `pool`, shrinking towards the first: an index, rather than a new `st.sampled_from` for each
    pool (building and validating one per draw took most of the time of a roster)."""
    return pool[_int(draw, 0, len(pool) - 1)]


def _some(draw: st.DrawFn, pool: list[Any], n: int) -> list[Any]:
    """Exactly `n` draws from `pool` (none from an empty one)."""
    return [_pick(draw, pool) for _ in range(n)] if pool else []


def _names(draw: st.DrawFn, pool: list[str], most: int) -> list[str]:
    """Up to `most` names from `pool`."""
    return _some(draw, pool, _int(draw, 0, most)) if pool else []


def _by_the_book(draw: st.DrawFn, unit: dict[str, Any], army: dict[str, Any], spare: int = 2) -> list[str]:
    """Weapons as the options offer them: a count within each option's range (at most `spare` above its
    least; an option with no most, `max: null`, is bounded by that alone), drawn from it."""
    names = []
    for option in unit["weapons"]["options"]:
        if option["models"] == "one" and _chance(draw, 50):
            continue
        most = option["min"] + spare if option["max"] is None else min(option["max"], option["min"] + spare)
        n = _int(draw, option["min"], most)
        names += [army["weapons"][k]["name"] for k in _some(draw, option["weapons"], n)]
    return names


def _swapped(draw: st.DrawFn, unit: dict[str, Any], army: dict[str, Any], names: list[str]) -> list[str]:
    """The same weapons with one swap made: a choice of the list it replaces dropped (or none), a weapon it takes added."""
    swap = _pick(draw, unit["weapons"]["swaps"])
    replaced = {army["weapons"][k]["name"] for k in swap["in_place_of"]}
    dropped = next((n for n in names if n in replaced), None) if _chance(draw, 90) else None
    kept = [n for n in names if n != dropped] if dropped else list(names)
    return [*kept, army["weapons"][_pick(draw, swap["with"])]["name"]]


def _unit_lines(draw: st.DrawFn, unit: dict[str, Any], army: dict[str, Any], low: int, high: int, careful: bool) -> list[dict[str, Any]]:
    """Model lines made by the book: the least of each model the unit must have (a leader), then one model
    for the rest, some with a swap; a careful player takes no upgrades, few spare weapons and smaller units."""
    needed = [limit for limit in unit["composition"]["limits"] if limit["min"] > 0]
    lines = [
        {"model": limit["model"], "count": limit["min"], "weapons": _by_the_book(draw, unit, army), "upgrades": []} for limit in needed
    ]
    rest = sum(limit["min"] for limit in needed)
    model = _pick(draw, unit["models"])["name"]
    names = _by_the_book(draw, unit, army, 1 if careful else 2)
    offered = [army["upgrades"][o["upgrade"]]["name"] for o in unit["upgrades"]["options"] if not o["models"]]
    upgrades = [] if careful else sorted(set(_names(draw, offered, 2)), key=offered.index)
    least = max(low - rest, 1)
    count = _int(draw, least, max((least + high - rest) // 2 if careful else high - rest, least))
    if not unit["weapons"]["swaps"] or _chance(draw, 40):
        return [*lines, {"model": model, "count": count, "weapons": names, "upgrades": upgrades}]
    swappers = _pick(draw, [1, 1, 2, 3])
    if count > swappers:
        lines.append({"model": model, "count": count - swappers, "weapons": names, "upgrades": upgrades})
    return [*lines, {"model": model, "count": swappers, "weapons": _swapped(draw, unit, army, names), "upgrades": upgrades}]


def _free_lines(draw: st.DrawFn, unit: dict[str, Any], army: dict[str, Any], low: int, high: int) -> list[dict[str, Any]]:
    """Model lines drawn freely: any weapons and upgrades the unit names, now and then one it does not or that is gone.

    One draw says which mishap, if any, a line has (a model or a weapon or an upgrade that is gone, a weapon of
    another unit) and whether its count stays within the unit's size.
    """
    weapon_names = [army["weapons"][w]["name"] for w in _offered(unit)]
    upgrade_names = [army["upgrades"][o["upgrade"]]["name"] for o in unit["upgrades"]["options"]]
    every_weapon = [w["name"] for w in army["weapons"].values()]
    n_groups = _pick(draw, [1, 1, 1, 2, 3])
    groups = []
    for _ in range(n_groups):
        mishap = _int(draw, 0, 99)
        model = _pick(draw, unit["models"])["name"]
        weapons = _names(draw, weapon_names, 2) + (_names(draw, every_weapon, 1) if 9 <= mishap < 19 else [])
        within = n_groups == 1 and mishap >= 25
        groups.append(
            {
                "model": "Long Gone " + model if mishap < 3 else model,
                "count": _int(draw, low, high) if within else _int(draw, max(low - 1, 1), high + 1),
                "weapons": weapons + (["Retired Blaster"] if 3 <= mishap < 6 else []),
                "upgrades": _names(draw, upgrade_names, 2) + (["Old Upgrade"] if 6 <= mishap < 9 else []),
            }
        )
    return groups


def _offered(unit: dict[str, Any]) -> list[str]:
    """The ids of the weapons a unit's options and swaps offer."""
    return [w for o in unit["weapons"]["options"] for w in o["weapons"]] + [w for s in unit["weapons"]["swaps"] for w in s["with"]]


def _limited(draw: st.DrawFn, army: dict[str, Any], careful: bool) -> list[dict[str, Any]]:
    """Now and then a weapon whose list limits it per army (The Endless' Unique Weapons), on units of one that offers
    it, one model each made by the book: as often as the limit allows (a careful player), or once more. No draw where
    no list has a limit."""
    offered = [(u, k) for u in army["units"] for k in dict.fromkeys(_offered(u)) if army["weapons"][k].get("max_per_army")]
    if not offered or not _chance(draw, 25):
        return []
    unit, key = _pick(draw, offered)
    weapon, model = army["weapons"][key], unit["models"][0]["name"]
    times = weapon["max_per_army"] + (0 if careful else 1)
    return [
        {
            "unit": unit["name"],
            "models": [{"model": model, "count": 1, "weapons": [*_by_the_book(draw, unit, army, 0), weapon["name"]], "upgrades": []}],
        }
        for _ in range(times)
    ]


def _sized(building: dict[str, Any], points: object) -> dict[str, Any] | None:
    """The unit counts by category a game size of exactly these points sets, if one does."""
    return next((g["category_units"] for g in building.get("game_sizes", []) if g["limit"] == points and g["category_units"]), None)


def _required(draw: st.DrawFn, army: dict[str, Any], building: dict[str, Any], points: object) -> list[dict[str, Any]]:
    """The units every army must include, and the least of each category in this game size, so that legal rosters come up too."""
    picks = [u for u in army["units"] for _ in range((u["composition"]["per_army"] or {}).get("min") or 0)]
    sized = _sized(building, points)
    for category in building.get("categories", []):
        counts = sized.get(category["id"]) if sized is not None else category["units"]
        members = [u for u in army["units"] if u["category"] == category["id"]]
        picks += _some(draw, members, (counts or {}).get("min") or 0)
    return picks


def _filling(army: dict[str, Any], building: dict[str, Any]) -> list[dict[str, Any]]:
    """The units a careful player adds: those of categories that must have a share of the points, if any."""
    shares = {c["id"] for c in building.get("categories", []) if c["min_share"]}
    return [u for u in army["units"] if u["category"] in shares] or army["units"]


def _rules_of(unit: dict[str, Any]) -> set[str]:
    return {use["rule"] for model in unit["models"] for use in model["rules"] if use["rule"]}


def _by_the_ratio(draw: st.DrawFn, army: dict[str, Any], building: dict[str, Any], points: object, picks: list[Any]) -> list[Any]:
    """Units a game size's rule ratio limits, about as many as the units picked allow: below, at and above it."""
    more = []
    for size in (g for g in building.get("game_sizes", []) if g["limit"] == points):
        for ratio in size["rule_ratios"]:
            limited = [u for u in army["units"] if ratio["rule"]["rule"] in _rules_of(u)]
            without = {w["rule"] for w in ratio["without"]} | {ratio["rule"]["rule"]}
            counted = sum(1 for u in picks if not _rules_of(u) & without)
            more += _some(draw, limited, _int(draw, 0, ratio["max"] * counted + 1))
    return more


@st.composite
def rosters(draw: st.DrawFn, data: dict[str, Any]) -> dict[str, Any]:
    """A roster drawn from a module's document: mostly real names, sometimes wrong ones and bad types.

    A careful player (about a third of the rosters) plays a game size the module names, takes the units it
    requires and makes every unit by the book, without mishaps, so that legal rosters come up as well.
    """
    army = _pick(draw, data["lists"])
    building = data["module"]["army_building"] or {}
    limits = [g["limit"] for g in building.get("game_sizes", []) if g["limit"] is not None]
    careful = _chance(draw, 35)
    if careful or _chance(draw, 50):
        points: Any = _pick(draw, [*limits, None])
    else:
        points = _int(draw, 0, 2500 if limits else 600)
    picks = _required(draw, army, building, points) if careful or _chance(draw, 50) else []
    # Fewer units on most rosters, so that legal ones come up as well as crowded ones.
    extra = _int(draw, 0, 2) if picks else _int(draw, 1, 2 if careful else _pick(draw, [4, 10]))
    picks += _some(draw, _filling(army, building) if careful else army["units"], extra)
    picks += _by_the_ratio(draw, army, building, points, picks) if _chance(draw, 60) else []
    reinforcements = bool(building.get("reinforcements"))
    units = []
    for unit in picks:
        size = unit["composition"]["models"] or {"min": 1, "max": 4}
        low, high = size["min"] or 1, size["max"] or (size["min"] or 1) + 4
        # One draw for the unit: by the book or drawn freely, now and then gone, or held back where the module has no reinforcements.
        fate = 99 if careful else _int(draw, 0, 99)
        lines = _unit_lines(draw, unit, army, low, high, careful) if fate >= 55 else _free_lines(draw, unit, army, low, high)
        entry = {"unit": "Disbanded " + unit["name"] if fate < 3 else unit["name"], "models": lines}
        if (reinforcements and _chance(draw, 25)) or fate == 54:
            entry["reinforcements"] = True if fate != 53 else "yes"
        units.append(entry)
    units += _limited(draw, army, careful)
    roster: dict[str, Any] = {"format_version": 1, "module": data["module"]["id"], "list": army["name"], "points": points, "units": units}
    mishap = 50 if careful else _int(draw, 0, 99)
    if mishap < 2:
        roster["points"] = "lots"
    if units and mishap >= 98:
        units[0]["models"] = "five"
    return roster


#: Rosters drawn in one hypothesis example: each example costs hypothesis some bookkeeping of its own, and
#: twenty to an example (unique within it: hypothesis likes to copy one part of an example over another)
#: halve the time of drawing a thousand.
ROSTERS_PER_EXAMPLE = 20
#: Examples drawn for every roster still needed: some rosters come up more than once (most often a careful
#: player's small army), and only distinct ones are kept.
HEADROOM = 1.15


def draw_rosters(data: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """The first `n` distinct rosters hypothesis draws, the same on every run (fixed seeds, no example
    database), never shrunk: they are only collected here; the two runtimes judge them all at once below.
    Where too many come up twice (a module of few choices), hypothesis draws the rest from the next seed."""
    drawn: dict[str, dict[str, Any]] = {}
    for run in range(1, 9):
        missing = n - len(drawn)
        if missing <= 0:
            break
        examples = max(5, math.ceil(missing * HEADROOM / ROSTERS_PER_EXAMPLE))
        for key, roster in _draw_distinct(data, examples, run).items():
            drawn.setdefault(key, roster)
    return list(drawn.values())[:n]


def _draw_distinct(data: dict[str, Any], examples: int, run: int) -> dict[str, dict[str, Any]]:
    drawn: dict[str, dict[str, Any]] = {}

    @seed(run)
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )
    @given(st.lists(rosters(data), min_size=ROSTERS_PER_EXAMPLE, max_size=ROSTERS_PER_EXAMPLE, unique_by=_key))
    def collect(batch: list[dict[str, Any]]) -> None:
        drawn.update((_key(r), r) for r in batch)

    collect()
    return drawn


def _key(roster: dict[str, Any]) -> str:
    return json.dumps(roster, sort_keys=True)


def verdict_of(export: ModuleExport, raw: dict[str, Any]) -> dict[str, Any]:
    """What `cadence roster` decides about a roster (the same functions the command calls)."""
    verdict = Verdict.of(export.data)
    evaluate(export, normalise(raw, verdict), verdict)
    return _canonical(verdict.as_json())


def _canonical(result: dict[str, Any]) -> dict[str, Any]:
    problems = sorted((p["path"], p["code"], p["severity"], p["message"], p.get("hint", "")) for p in result["problems"])
    return {"total": result["total"], "unit_costs": list(result["unit_costs"]), "problems": problems}


def _legal(verdict: dict[str, Any]) -> bool:
    return not any(p[2] == "error" for p in verdict["problems"])


# --- fixtures ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def exports() -> dict[str, ModuleExport]:
    loaded = load_project(REPO)
    assert loaded.project is not None and not loaded.errors
    return export_project(loaded.project)


def open_builder(page: Page, url: str) -> None:
    page.goto(url, wait_until="load")
    page.wait_for_selector("[data-rules-builder][data-ready=true]")


def add_units(page: Page, army_list: str, units: tuple[str, ...]) -> None:
    """Choose `army_list`, then add each unit named, as a player does with the list and unit choosers."""
    page.select_option("#rb-list", label=army_list)
    for unit in units:
        page.select_option("#rb-unit", label=unit)
        page.click("#rb-add")


def compare_module(
    browser: Browser, base_url: str, module_id: str, export: ModuleExport, judged: tuple[list[dict[str, Any]], list[dict[str, Any]]]
) -> Counter[str]:
    """Judge the rosters in the page; its verdicts must equal `cadence roster`'s on each. Returns how many were
    legal and illegal, and how many rosters ran into each problem code."""
    rosters, expected_verdicts = judged
    assert len(rosters) >= ROSTERS_PER_MODULE, f"{module_id}: hypothesis drew only {len(rosters)} rosters"
    context = browser.new_context()
    try:
        page = context.new_page()
        open_builder(page, f"{base_url}{module_id}/builder.html")
        published = json.loads(page.evaluate("() => JSON.stringify(window.cadenceBuilder.data)"))
        assert published == json.loads(to_json(export.data)), "the published JSON is not the export"
        # Strings both ways: Playwright's structured copy of thousands of nested objects is far slower.
        browser_results = json.loads(
            page.evaluate(
                """text => JSON.stringify(JSON.parse(text).map(r => {
                    const v = CadenceRoster.check(window.cadenceBuilder.data, r);
                    return {total: v.total, unit_costs: v.unit_costs, problems: v.problems};
                }))""",
                json.dumps(rosters),
            )
        )
    finally:
        context.close()
    tally: Counter[str] = Counter()
    for roster, got, expected in zip(rosters, browser_results, expected_verdicts, strict=True):
        assert _canonical(got) == expected, f"{module_id}: the page and cadence roster disagree on\n{json.dumps(roster)}"
        tally["legal" if _legal(expected) else "illegal"] += 1
        tally.update({p[1] for p in expected["problems"]})
        tally["legal, with units a rule ratio limits"] += _legal(expected) and _takes_ratio_units(export, roster)
    return tally


@functools.cache
def _exports(root: Path) -> dict[str, ModuleExport]:
    loaded = load_project(root)
    assert loaded.project is not None and not loaded.errors
    return export_project(loaded.project)


def draw_and_judge(root: Path, module_id: str, n: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """`n` rosters drawn from the module's published JSON, and what `cadence roster` decides about each."""
    export = _exports(root)[module_id]
    rosters = draw_rosters(json.loads(to_json(export.data)), n)
    return rosters, [verdict_of(export, roster) for roster in rosters]


def compare_modules(browser: Browser, base_url: str, root: Path, exports: dict[str, ModuleExport]) -> dict[str, Counter[str]]:
    """Every module's rosters, compared. Another process draws them and has `cadence roster`'s functions judge
    them, module after module, while this one has the page judge the module before ("spawn": forking a
    process that drives a browser is unsafe; a thread would fight this one for the interpreter's lock)."""
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as python:
        judged = {module_id: python.submit(draw_and_judge, root, str(module_id), ROSTERS_PER_MODULE) for module_id in exports}
        return {
            module_id: compare_module(browser, base_url, module_id, exports[module_id], judged[module_id].result()) for module_id in exports
        }


def _mix(tallies: dict[str, Counter[str]]) -> dict[str, tuple[int, int]]:
    """Legal and illegal rosters per module, each at least a tenth of them."""
    mix = {module_id: (tally["legal"], tally["illegal"]) for module_id, tally in tallies.items()}
    print("rosters compared (legal, illegal):", mix)
    for module_id, (legal, illegal) in mix.items():
        assert legal + illegal >= ROSTERS_PER_MODULE
        assert min(legal, illegal) >= (legal + illegal) // 10, f"{module_id}: too few legal or illegal rosters drawn"
    return mix


# --- one set of rules, two runtimes --------------------------------------------------------------


def test_page_and_cadence_roster_agree_on_random_rosters(browser: Browser, site_url: str, exports: dict[str, ModuleExport]) -> None:
    assert set(exports) == {"devils-bluff", "fracture", "halo-breakpoint", "respawn", "scraplands", "squadrons", "survivors"}
    tallies = compare_modules(browser, site_url, REPO, dict(sorted(exports.items())))
    _mix(tallies)
    print("rosters with a weapon over its limit per army:", {m: t["roster-weapon-per-army"] for m, t in tallies.items()})
    # The rules of swaps, options, upgrade limits and reinforcements were each broken somewhere, and judged alike.
    codes = set().union(*tallies.values())
    assert codes >= DRAWN_CODES, f"never drawn: {sorted(DRAWN_CODES - codes)}"


#: Problems the random rosters must run into (the data has no swap that all models make, so not roster-swap-all).
DRAWN_CODES = {
    "roster-option-min",
    "roster-option-max",
    "roster-option-models",
    "roster-swap-gives-up",
    "roster-swap-once",
    "roster-swap-models",
    "roster-upgrade-per-model",
    "roster-upgrade-per-army",
    "roster-reinforcements",
    "roster-total-without-reinforcements",
    "roster-no-reinforcements",
    "roster-model-limit-min",
    "roster-weapon-per-army",
}


def test_page_and_cadence_roster_agree_on_wasteland(browser: Browser, wasteland_url: str) -> None:
    """Wasteland's game sizes keep out units with Vehicle (small) and allow one Transport for every other unit
    (medium, large): rosters break both and keep both, and the two runtimes judge them alike."""
    loaded = load_project(WASTELAND)
    assert loaded.project is not None
    exports = export_project(loaded.project)
    assert list(exports) == ["core-rules"]
    tally = compare_modules(browser, wasteland_url, WASTELAND, exports)["core-rules"]
    _mix({"core-rules": tally})
    print("wasteland problems drawn:", dict(tally))
    assert tally["roster-excluded-rule"] >= 20 and tally["roster-rule-ratio"] >= 20
    assert tally["legal, with units a rule ratio limits"] >= 20, "too few legal rosters took Transport units within the ratio"


def _takes_ratio_units(export: ModuleExport, roster: dict[str, Any]) -> bool:
    """The roster plays a game size with a rule ratio and takes at least one unit that ratio limits."""
    building = export.data["module"]["army_building"] or {}
    sizes = [g for g in building.get("game_sizes", []) if g["limit"] == roster["points"] and g["rule_ratios"]]
    army = next((a for a in export.data["lists"] if a["name"] == roster["list"]), None)
    if not sizes or army is None or not isinstance(roster["units"], list):
        return False
    limited = {ratio["rule"]["rule"] for size in sizes for ratio in size["rule_ratios"]}
    units = {u["name"]: u for u in army["units"]}
    return any(entry["unit"] in units and _rules_of(units[entry["unit"]]) & limited for entry in roster["units"])


# --- a player's session on a phone ---------------------------------------------------------------

#: A 1,000-point Marauders army as a player would click it together: (unit, model, count, weapons, upgrades).
LEGAL_ARMY = [
    ("Warlord", "Warlord in Juggernaut Armour", 1, ["Slammer", "Cleaver"], ["Big Boss"]),
    ("Grunts", "Grunt", 10, ["Scattergun", "Frag Grenade"], []),
    ("Grunts", "Grunt", 10, ["Scattergun", "Frag Grenade"], []),
    ("Grunts", "Grunt", 10, ["Scattergun", "Frag Grenade"], []),
    ("Hauler", "Hauler", 1, ["Havoc Rockets", "Heavy Scorcher"], []),
    ("Scrapper Tank", "Scrapper Tank", 1, ["Earthshaker", "Havoc Rockets"], []),
    ("Bikers", "Biker", 4, ["Heavy Scatterguns"], []),
]


def add_unit(page: Page, index: int, unit: str, model: str, count: int, weapons: list[str], upgrades: list[str]) -> None:
    page.select_option("#rb-unit", label=unit)
    page.click("#rb-add")
    prefix = f"#rb-{index}-0"
    page.select_option(f"{prefix}-model", value=model)
    page.fill(f"{prefix}-count", str(count))
    page.press(f"{prefix}-count", "Tab")
    for names, kind in ((weapons, "w"), (upgrades, "u")):
        for name in names:
            box = page.locator(f"details:has({prefix}-{kind}-0)")
            if not box.evaluate("d => d.open"):
                box.locator("summary").click()
            box.get_by_label(re.compile(f"^{re.escape(name)}( \\(|$)")).check()


def total_in_view(page: Page) -> bool:
    """Whether the army's total, stuck under the header and game switcher once the page scrolls, is on top
    there: the element at the middle of its text is the total itself, not the switcher above it."""
    return bool(
        page.evaluate(
            """() => { const total = document.querySelector('#rb-total'), box = total.getBoundingClientRect();
            const at = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
            return window.scrollY > 0 && box.top >= 0 && total.contains(at); }"""
        )
    )


def status_gaps(page: Page) -> dict[str, float]:
    """The army's status box, which stays on screen over the roster: the blank band under its last line, and
    the space between the total and the first problem, against the box's padding and the list's margin."""
    gaps: dict[str, float] = page.evaluate(
        """() => { const box = document.querySelector('.rb-status'), total = document.querySelector('#rb-total');
        const shown = [...box.children].filter(c => c.getBoundingClientRect().height > 0);
        const last = shown[shown.length - 1], first = document.querySelector('#rb-problems li');
        const style = getComputedStyle(box), rem = parseFloat(getComputedStyle(document.documentElement).fontSize);
        return {
            below: box.getBoundingClientRect().bottom - parseFloat(style.paddingBottom) - last.getBoundingClientRect().bottom,
            between: first ? first.getBoundingClientRect().top - total.getBoundingClientRect().bottom : 0,
            rem: rem,
        }; }"""
    )
    return gaps


def cadence_roster(path: Path) -> tuple[int, dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-m", "generator.cli", "-C", str(REPO), "roster", str(path), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    return proc.returncode, json.loads(proc.stdout)


def page_verdict(page: Page) -> dict[str, Any]:
    return page.evaluate(
        "() => { const b = window.cadenceBuilder; const r = CadenceRoster.check(b.data, b.roster); return {total: r.total, unit_costs: r.unit_costs, problems: r.problems}; }"
    )


def click_legal_army(page: Page, url: str) -> None:
    """Open the builder at `url` and click `LEGAL_ARMY` together on a phone: legal, its total in view."""
    open_builder(page, url)
    page.select_option("#rb-list", label="Marauders")
    page.select_option("#rb-size", value="1000")
    for index, (unit, model, count, weapons, upgrades) in enumerate(LEGAL_ARMY):
        add_unit(page, index, unit, model, count, weapons, upgrades)
    expect(page.locator(".rb-status")).to_have_attribute("data-verdict", "legal")
    expect(page.locator("#rb-total")).to_contain_text("978 / 1000")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, "the builder is wider than the phone"
    assert total_in_view(page), "the total is hidden behind the header or the game switcher"


def test_player_builds_shares_and_prints_a_fracture_army_on_a_phone(site: Browsing, artifacts: Path, tmp_path: Path) -> None:
    page, problems = site.new_page(PHONE_390, phone=True)  # type: ignore[arg-type]
    click_legal_army(page, site.url("fracture/builder.html"))
    page.screenshot(path=str(artifacts / "builder-legal-phone.png"), full_page=False)
    gaps = status_gaps(page)
    assert gaps["below"] <= 1, f"a blank band under the total in its box, which stays on screen: {gaps}"

    # The roster file the page saves gets the same verdict from `cadence roster`.
    legal_file = tmp_path / "legal.json"
    legal_file.write_text(json.dumps(page.evaluate("() => window.cadenceBuilder.roster")), encoding="utf-8")
    code, cli = cadence_roster(legal_file)
    assert code == 0 and _canonical(cli) == _canonical(page_verdict(page))

    # Shared by link: a fresh phone opens the same army.
    link = page.url
    assert "#r=" in link
    other, other_problems = site.new_page(PHONE_390, phone=True)  # type: ignore[arg-type]
    open_builder(other, link)
    expect(other.locator("#rb-total")).to_contain_text("978 / 1000")
    assert other.locator(".rb-unit").count() == len(LEGAL_ARMY)

    # Printed: unit cards and the rules they use, on at most 4 A4 pages.
    page.emulate_media(media="print")
    cards = page.locator(".rb-card")
    assert cards.count() == len(LEGAL_ARMY)
    appendix = page.locator(".rb-appendix").inner_text()
    for rule in ("Large", "Platform", "Steady", "Vehicle", "Transport", "Heavy Armour"):
        assert rule in appendix
    assert "Flying" not in appendix, "a rule the army does not use is in the appendix"
    page.screenshot(path=str(artifacts / "builder-print.png"), full_page=True)
    pdf = page.pdf(format="A4", print_background=False)
    (artifacts / "builder-print.pdf").write_bytes(pdf)
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert 1 <= pages <= 4, f"the printed roster takes {pages} pages"
    page.emulate_media(media="screen")

    # Made illegal: a second Warlord and too many points; the page and the command agree again.
    add_unit(page, len(LEGAL_ARMY), "Warlord", "Warlord", 1, ["Buzzsaw"], [])
    expect(page.locator(".rb-status")).to_have_attribute("data-verdict", "illegal")
    messages = page.locator("#rb-problems li").all_inner_texts()
    assert "the army may include at most 1 'Warlord' (it has 2)" in messages
    assert any(m.startswith("the army costs 1046 points, more than the 1000 points") for m in messages)
    page.screenshot(path=str(artifacts / "builder-illegal-phone.png"), full_page=False)
    gaps = status_gaps(page)
    assert gaps["below"] <= 1 and 0 < gaps["between"] <= 0.2 * gaps["rem"] + 1, f"the problems stand apart from the total: {gaps}"
    illegal_file = tmp_path / "illegal.json"
    illegal_file.write_text(json.dumps(page.evaluate("() => window.cadenceBuilder.roster")), encoding="utf-8")
    code, cli = cadence_roster(illegal_file)
    assert code == 1 and _canonical(cli) == _canonical(page_verdict(page))
    assert not problems.all() and not other_problems.all()


def test_player_builds_a_fracture_army_on_a_phone_on_the_zensical_site(zensical: Browsing, artifacts: Path) -> None:
    """The builder is the generator's own page script: on the site Zensical builds it works the same."""
    page, problems = zensical.new_page(PHONE_390, phone=True)  # type: ignore[arg-type]
    click_legal_army(page, zensical.url("fracture/builder.html"))
    page.screenshot(path=str(artifacts / "builder-legal-phone-zensical.png"), full_page=False)
    add_unit(page, len(LEGAL_ARMY), "Warlord", "Warlord", 1, ["Buzzsaw"], [])
    expect(page.locator(".rb-status")).to_have_attribute("data-verdict", "illegal")
    assert "the army may include at most 1 'Warlord' (it has 2)" in page.locator("#rb-problems li").all_inner_texts()
    assert not problems.all(), problems.all()


def weapon_groups(page: Page, index: int) -> list[tuple[str, list[str]]]:
    """The weapon choices of a unit's first models as the card shows them: each group's heading and the names
    of its checkboxes (costs left off)."""
    groups: list[tuple[str, list[str]]] = page.evaluate(
        """(i) => [...document.querySelectorAll(`details:has(#rb-${i}-0-w-0) fieldset`)].map(f => [
            f.querySelector('legend').textContent,
            [...f.querySelectorAll('.rb-choice label')].map(l => l.textContent.replace(/ \\(\\d+\\)$/, '')),
        ])""",
        index,
    )
    return groups


def test_weapon_choices_are_grouped_as_the_army_list_offers_them(site: Browsing, exports: dict[str, ModuleExport], artifacts: Path) -> None:
    """A player sees which weapons come from which choice and how many each takes, as the army list says:
    Marauder Grunts take one of each of three lists, and two of them may trade for specialist weapons."""
    page, problems = site.new_page(PHONE_390, phone=True)  # type: ignore[arg-type]
    open_builder(page, site.url("fracture/builder.html"))
    page.select_option("#rb-list", label="Marauders")
    page.select_option("#rb-unit", label="Grunts")
    page.click("#rb-add")
    page.locator("details:has(#rb-0-0-w-0) summary").click()
    page.screenshot(path=str(artifacts / "builder-weapon-groups.png"), full_page=True)
    groups = weapon_groups(page, 0)
    assert [legend for legend, _ in groups] == [
        "Standard Sidearms: 0\u20131",
        "Standard Weapons: 0\u20131",
        "Grenades: 0\u20131",
        "In place of Standard Sidearms / Standard Weapons",
    ]
    assert groups[2][1] == ["HE Grenade", "Frag Grenade"]
    # Every unit of every Fracture list: each weapon its first model may choose is offered once, under the
    # first choice that has it, and nothing else is offered; a weapon two lists print (Arc Sword) is one name, once.
    data = exports["fracture"].data
    checked = 0
    for army in data["lists"]:
        page.select_option("#rb-list", label=army["name"])
        page.evaluate("() => { window.cadenceBuilder.roster.units = []; window.cadenceBuilder.change(); }")
        for unit in army["units"]:
            page.select_option("#rb-unit", label=unit["name"])
            page.click("#rb-add")
            index = page.locator(".rb-unit").count() - 1
            weapons = unit["weapons"]
            offered = [w for o in weapons["options"] for w in o["weapons"]] + [w for s in weapons["swaps"] for w in s["with"]]
            expected = list(dict.fromkeys(army["weapons"][key]["name"] for key in offered))
            shown = [name for _, names in weapon_groups(page, index) for name in names]
            assert shown == expected, (army["name"], unit["name"])
            checked += 1
    assert checked == sum(len(army["units"]) for army in data["lists"]) > 30
    assert not problems.all()


def labels_apart(page: Page, beside: bool = False) -> list[str]:
    """The builder's field labels (list, game size, points; a unit's model and count) that a phone's row break
    has left apart from their control (neither just before it on its line nor just above it), or broken over
    two lines. `beside`: a label above its control counts as apart too (where the page is wide enough)."""
    apart: list[str] = page.evaluate(
        """(beside) => [...document.querySelectorAll('.rb-head label, .rb-fields label')].filter(label => {
            const a = label.getBoundingClientRect(), b = document.getElementById(label.htmlFor).getBoundingClientRect();
            const middle = a.top + a.height / 2;
            const before = middle > b.top && middle < b.bottom && a.right <= b.left && b.left - a.right < 24;
            const above = !beside && a.bottom <= b.top && b.top - a.bottom < 12 && Math.abs(a.left - b.left) < 2;
            const words = document.createRange();
            words.selectNodeContents(label);
            return !(before || above) || words.getClientRects().length > 1;  // or its words broken over lines
        }).map(label => label.textContent)""",
        beside,
    )
    return apart


def test_the_points_field_is_named_for_what_it_limits(site: Browsing) -> None:
    """A game size's points where the game has sizes, the game's budget where it has one, else a limit: Devil's
    Bluff's field read 'Cost' (its column header for prices) beside a gang's 500 dollars. On a phone each field's
    label stays beside its field (Devil's Bluff's ended the list's row, its field alone on the next)."""
    page, problems = site.new_page(PHONE_390, phone=True)  # type: ignore[arg-type]
    named = {}
    for module in ("fracture", "halo-breakpoint", "devils-bluff", "survivors", "squadrons", "scraplands"):
        open_builder(page, site.url(f"{module}/builder.html"))
        named[module] = page.locator("label[for=rb-points]").inner_text()
        page.click("#rb-add")
        assert labels_apart(page) == [], module
    desktop, desktop_problems = site.new_page({"width": 1280, "height": 800})  # type: ignore[arg-type]
    open_builder(desktop, site.url("fracture/builder.html"))
    desktop.click("#rb-add")
    assert labels_apart(desktop, beside=True) == [], "on a desktop"
    assert not desktop_problems.all()
    assert named == {
        "fracture": "Points",
        "halo-breakpoint": "Points",
        "devils-bluff": "Budget",
        "survivors": "Budget",
        "squadrons": "Budget",
        "scraplands": "Limit",
    }
    assert not problems.all()


def test_the_builder_puts_words_from_data_in_as_written(site: Browsing) -> None:
    """As `cadence roster` does: the module's word for its rosters is a value, its '{unit}' never filled; a
    '{name}' of a message that no problem fills is shown as written, not as 'undefined'."""
    page, problems = site.new_page(PHONE_390)  # type: ignore[arg-type]
    open_builder(page, site.url("devils-bluff/builder.html"))
    page.evaluate(
        """() => { const b = window.cadenceBuilder; b.data.roster_words.army = 'gang {unit} {foo}';
        b.data.messages['roster-per-army-min'] = "the {army} lacks {min} '{unit}' ({count}); {foo}"; b.change(); }"""
    )
    shown = page.locator("#rb-problems li").all_inner_texts()
    assert "the gang {unit} {foo} lacks 1 'Gang Leader' (0); {foo}" in shown, shown
    assert not problems.all()


def test_open_file_is_a_button_that_opens_a_roster(site: Browsing, tmp_path: Path) -> None:
    """The roster file chooser is worded and shaped as the buttons beside it, and reached by the keyboard."""
    page, problems = site.new_page(PHONE_390, phone=True)  # type: ignore[arg-type]
    open_builder(page, site.url("fracture/builder.html"))
    opener = page.locator("label[for=rb-import]")
    copy = page.locator("#rb-copy")
    assert opener.inner_text() == "Open file"
    looks = "(e) => { const s = getComputedStyle(e); const r = document.createRange(); r.selectNodeContents(e);"
    looks += " return [s.borderTopWidth, s.borderTopStyle, e.getBoundingClientRect().height, r.getBoundingClientRect().top - e.getBoundingClientRect().top]; }"
    border, style, height, text_top = opener.evaluate(looks)
    assert [border, style] == copy.evaluate(looks)[:2] and abs(height - copy.evaluate(looks)[2]) < 1
    assert abs(text_top - copy.evaluate(looks)[3]) < 1, "the label's words sit higher or lower than the buttons'"
    roster = {
        "format_version": 1,
        "module": "fracture",
        "list": "marauders",
        "points": 1000,
        "units": [{"unit": "Warlord", "models": [{"model": "Warlord", "count": 1}]}],
    }
    file = tmp_path / "roster.json"
    file.write_text(json.dumps(roster), encoding="utf-8")
    with page.expect_file_chooser() as chooser:
        opener.click()
    chooser.value.set_files(str(file))
    expect(page.locator("#rb-total")).to_contain_text("50 / 1000")
    page.focus("#rb-export")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "rb-import"
    assert opener.evaluate("e => getComputedStyle(e).outlineStyle") == "solid", "the focused chooser does not show"
    assert not problems.all()


def test_keyboard_alone_adds_a_unit(site: Browsing) -> None:
    page, problems = site.new_page(PHONE_390)  # type: ignore[arg-type]
    open_builder(page, site.url("fracture/builder.html"))
    page.focus("#rb-unit")
    page.keyboard.press("End")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "rb-add"
    page.keyboard.press("Enter")
    assert page.locator(".rb-unit").count() == 1
    assert not problems.all()


def test_a_ship_with_no_printed_cost_is_never_shown_as_free(site: Browsing, artifacts: Path) -> None:
    """Fractured Skies prints a cost for its Strike Fighter only: a Heavy Gunship's card says its total lacks a
    printed cost, on screen and on the printout, and the problems list names it; the Strike Fighter's does not."""
    page, problems = site.new_page(PHONE_390)  # type: ignore[arg-type]
    open_builder(page, site.url("squadrons/builder.html"))
    add_units(page, "Fractured Skies", ("Strike Fighter", "Heavy Gunship"))
    titles = page.locator(".rb-unit h3").all_inner_texts()
    assert titles == ["Strike Fighter — 35 points", "Heavy Gunship — 0 points + a model without a printed cost"]
    assert page.locator(".rb-card h3").all_inner_texts() == titles
    expect(page.locator("#rb-total")).to_contain_text("35 / 300")
    assert page.locator("#rb-problems li").all_inner_texts() == [
        "'Heavy Gunship' in 'Heavy Gunship' has no printed cost: the total counts only its weapons and upgrades"
    ]
    page.locator(".rb-unit").nth(1).scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "builder-unpriced-ship.png"))
    assert not problems.all()


def test_stale_or_broken_links_load_what_they_can(site: Browsing, exports: dict[str, ModuleExport]) -> None:
    stale = {
        "format_version": 1,
        "module": "fracture",
        "list": "Marauders",
        "points": 1000,
        "units": [
            {"unit": "Warlord", "models": [{"model": "Warlord", "count": 1, "weapons": ["Slammer", "Retired Blaster"], "upgrades": []}]},
            {"unit": "Disbanded Gunners", "models": [{"model": "Gunner", "count": 3, "weapons": [], "upgrades": []}]},
        ],
    }
    first, _ = site.new_page(PHONE_390)  # type: ignore[arg-type]
    open_builder(first, site.url("fracture/builder.html"))
    code = first.evaluate("r => CadenceRoster.encode(CadenceRoster.normalise(r, {add() {}}))", stale)
    page, problems = site.new_page(PHONE_390)  # type: ignore[arg-type]
    open_builder(page, site.url(f"fracture/builder.html#r={code}"))
    notices = page.locator("#rb-notices li").all_inner_texts()
    expected = [
        p[3] + (f" ({p[4]})" if p[4] else "") for p in verdict_of(exports["fracture"], stale)["problems"] if p[1] == "roster-dropped"
    ]
    assert sorted(notices) == sorted(expected) and len(expected) == 2
    assert page.locator(".rb-unit").count() == 1
    page, broken_problems = site.new_page(PHONE_390)  # type: ignore[arg-type]
    open_builder(page, site.url("fracture/builder.html#r=%%%not-a-roster"))
    expect(page.locator("#rb-notices")).to_contain_text(exports["fracture"].data["messages"]["roster-link"])
    assert page.locator("#rb-add").is_visible()
    assert not problems.all() and not broken_problems.all()


def test_the_builder_works_offline_after_one_visit(site: Browsing, exports: dict[str, ModuleExport], artifacts: Path) -> None:
    """With the site's service worker: open the builder once, lose the network, reload, build and check a roster."""
    page, problems = site.new_page(PHONE_390, phone=True)  # type: ignore[arg-type]
    open_builder(page, site.url("halo-breakpoint/builder.html"))
    assert page.evaluate("navigator.serviceWorker.ready.then(r => Boolean(r.active))") is True
    page.context.set_offline(True)
    response = page.reload(wait_until="load")
    assert response is not None and response.from_service_worker
    page.wait_for_selector("[data-rules-builder][data-ready=true]")
    page.select_option("#rb-list", label="UNSC")
    page.select_option("#rb-size", index=0)
    for n in range(2):
        page.select_option("#rb-unit", label="UNSC Marines")
        page.click("#rb-add")
        page.select_option(f"#rb-{n}-0-model", value="Marine")
    page.check("#rb-1-reinforcements")
    expect(page.locator(".rb-status")).to_have_attribute("data-verdict", "legal")
    roster = page.evaluate("() => window.cadenceBuilder.roster")
    assert roster["units"][1]["reinforcements"] is True
    assert _canonical(page_verdict(page)) == verdict_of(exports["halo-breakpoint"], roster)
    # Three units of Marines held back cost more than the reinforcements' 100 points: said offline too.
    for n in range(2, 5):
        page.select_option("#rb-unit", label="UNSC Marines")
        page.click("#rb-add")
        page.select_option(f"#rb-{n}-0-model", value="Marine")
        page.fill(f"#rb-{n}-0-count", "5")
        page.press(f"#rb-{n}-0-count", "Tab")
        page.check(f"#rb-{n}-reinforcements")
    expect(page.locator("#rb-problems li[data-code=roster-reinforcements]")).to_have_count(1)
    assert _canonical(page_verdict(page)) == verdict_of(exports["halo-breakpoint"], page.evaluate("() => window.cadenceBuilder.roster"))
    page.screenshot(path=str(artifacts / "builder-offline-reinforcements-phone.png"), full_page=False)
    page.context.set_offline(False)
    assert not problems.all()


def test_wasteland_builder_keeps_vehicles_out_of_a_small_game_and_transports_within_the_ratio(wasteland: Browsing, artifacts: Path) -> None:
    """A player's clicks: a Troop Carrier (a Vehicle) in the small game, then two carriers beside one Commander
    in the medium game; the page says what `cadence roster` says, in the same words, and nothing else."""
    loaded = load_project(WASTELAND)
    assert loaded.project is not None
    export = export_project(loaded.project)["core-rules"]
    page, problems = wasteland.new_page(PHONE_390, phone=True)  # type: ignore[arg-type]
    open_builder(page, wasteland.url("core-rules/builder.html"))
    page.select_option("#rb-list", label="Example Battle Group")
    page.select_option("#rb-size", value="100")
    for unit in ("Commander", "Troop Carrier"):
        page.select_option("#rb-unit", label=unit)
        page.click("#rb-add")
    excluded = page.locator("#rb-problems li[data-code=roster-excluded-rule]")
    expect(excluded).to_have_text("'Troop Carrier' has Vehicle, which no unit may have in the game size 'Small patrol-sized game'")
    page.screenshot(path=str(artifacts / "builder-wasteland-small-vehicle-phone.png"), full_page=False)
    roster = page.evaluate("() => window.cadenceBuilder.roster")
    assert _canonical(page_verdict(page)) == verdict_of(export, roster)

    page.select_option("#rb-size", value="1000")
    page.select_option("#rb-unit", label="Troop Carrier")
    page.click("#rb-add")
    expect(excluded).to_have_count(0)
    ratio = page.locator("#rb-problems li[data-code=roster-rule-ratio]")
    expect(ratio).to_have_text("the Battle Group has 2 units with Transport; 1 for every unit without Vehicle allows 1")
    page.screenshot(path=str(artifacts / "builder-wasteland-transport-ratio-phone.png"), full_page=False)
    assert _canonical(page_verdict(page)) == verdict_of(export, page.evaluate("() => window.cadenceBuilder.roster"))
    assert not problems.all()


# --- issues #40 and #41: the page never hangs, never breaks, and says what it does ----------------------


def test_halo_weapons_team_is_added_without_breaking_the_page(site: Browsing) -> None:
    """UNSC Marine Weapons Team's weapon options are each for one model ('models: one', a count, not names): adding
    it threw `models.some is not a function`, and every card and the Copy link / Save / Open / Print buttons went."""
    page, problems = site.new_page(PHONE_390)  # type: ignore[arg-type]
    open_builder(page, site.url("halo-breakpoint/builder.html"))
    add_units(page, "UNSC", ("UNSC Marines", "UNSC Marine Weapons Team"))
    assert page.locator(".rb-unit").count() == 2
    for button in ("#rb-copy", "#rb-export", "label[for=rb-import]", "button#rb-print"):
        expect(page.locator(button)).to_be_visible()
    groups = weapon_groups(page, 1)
    assert [names for _, names in groups] == [
        ["M6 Pistol", "M9 Grenade"],
        ["M41 Rocket Launcher", "SRS99 Sniper Rifle", "M247 Machine Gun"],
    ]
    expect(page.locator("#rb-failed")).to_have_count(0)
    assert not problems.all(), problems.all()


def test_a_failure_on_the_page_keeps_the_last_good_roster_and_says_so(site: Browsing) -> None:
    """Whatever throws while the page draws a change: a message from the system's labels, the last roster that drew
    shown again, and nothing kept of the one that failed (it came back on every later visit)."""
    page, problems = site.new_page(PHONE_390)  # type: ignore[arg-type]
    open_builder(page, site.url("fracture/builder.html"))
    page.select_option("#rb-unit", label="Warlord")
    page.click("#rb-add")
    kept = page.evaluate("() => [localStorage.getItem('cadence-roster:fracture'), location.hash]")
    page.evaluate(
        """() => { const b = window.cadenceBuilder, card = b.unitCard;
        b.unitCard = function (army, unit) { if (unit.name === 'Grunts') throw new TypeError('a card that cannot be drawn');
        return card.apply(this, arguments); }; }"""
    )
    page.select_option("#rb-unit", label="Grunts")
    page.click("#rb-add")
    expect(page.locator("#rb-failed")).to_have_text("Something went wrong on this page; the last roster that worked is shown again")
    assert page.evaluate("() => window.cadenceBuilder.roster.units.map(u => u.unit)") == ["Warlord"]
    assert page.evaluate("() => [localStorage.getItem('cadence-roster:fracture'), location.hash]") == kept
    expect(page.locator("#rb-copy")).to_be_visible()
    later, later_problems = site.new_page(PHONE_390)  # type: ignore[arg-type]
    open_builder(later, site.url("fracture/builder.html") + kept[1])
    assert later.locator(".rb-unit").count() == 1
    assert not later_problems.all() and not problems.all()


def test_an_empty_roster_is_not_shown_as_legal(site: Browsing) -> None:
    page, problems = site.new_page(PHONE_390)  # type: ignore[arg-type]
    open_builder(page, site.url("fracture/builder.html"))
    expect(page.locator(".rb-status")).to_have_attribute("data-verdict", "illegal")
    expect(page.locator("#rb-problems li[data-code=roster-empty]")).to_have_text("the army has no units")
    assert not problems.all()


def test_a_weapon_two_lists_print_is_offered_once(site: Browsing) -> None:
    """Sentinels print Arc Sword in Specialist Sidearms and in Specialist Weapons: the Commander saw it twice, and one
    tap ticked both."""
    page, problems = site.new_page(PHONE_390)  # type: ignore[arg-type]
    open_builder(page, site.url("fracture/builder.html"))
    page.select_option("#rb-list", label="Sentinels")
    page.select_option("#rb-unit", label="Commander")
    page.click("#rb-add")
    names = [name for _, group in weapon_groups(page, 0) for name in group]
    assert names.count("Arc Sword") == 1 and len(names) == len(set(names))
    page.locator("#rb-0-0 details, .rb-unit details").first.evaluate("d => d.open = true")
    page.locator(".rb-unit label", has_text="Arc Sword").first.click()
    assert page.evaluate("() => window.cadenceBuilder.roster.units[0].models[0].weapons") == ["Arc Sword"]
    assert page.locator(".rb-unit input[type=checkbox]:checked").count() == 1
    assert not problems.all()


def test_copy_link_says_it_is_copied(site: Browsing) -> None:
    page, problems = site.new_page(PHONE_390)  # type: ignore[arg-type]
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site.url().rstrip("/"))
    open_builder(page, site.url("fracture/builder.html"))
    page.select_option("#rb-unit", label="Warlord")
    page.click("#rb-add")
    expect(page.locator("#rb-copied")).to_have_text("")
    page.click("#rb-copy")
    expect(page.locator("#rb-copied")).to_have_text("Link copied")
    assert page.evaluate("() => navigator.clipboard.readText()") == page.url
    assert not problems.all()


def _link_of(page: Page, units: int) -> str:
    """A link to a Marauders roster of so many Warlords, encoded by the page's own script."""
    code: str = page.evaluate(
        """n => CadenceRoster.encode({format_version: 1, module: 'fracture', list: 'marauders', points: 1000,
            units: Array.from({length: n}, () => ({unit: 'Warlord', models: [{model: 'Warlord', count: 1, weapons: ['Slammer'], upgrades: []}]}))})""",
        units,
    )
    return code


def test_a_link_or_a_kept_roster_over_the_limits_is_refused_at_once(
    site: Browsing, exports: dict[str, ModuleExport], tmp_path: Path
) -> None:
    """A link of 20,000 units hung the page (5,000 took 26 s), and once kept every later visit took 56 s: over the
    limits of the module's document a link, a file or what the page kept is refused with a notice, and not kept."""
    limits = exports["fracture"].data["limits"]
    first, _ = site.new_page(PHONE_390)  # type: ignore[arg-type]
    open_builder(first, site.url("fracture/builder.html"))
    at_limit, over = _link_of(first, limits["units"]), _link_of(first, limits["units"] + 1)
    huge = _link_of(first, 20_000)
    empty = first.evaluate("() => performance.getEntriesByName('cadence-builder-ready')[0].startTime")
    page, problems = site.new_page(PHONE_390)  # type: ignore[arg-type]
    open_builder(page, site.url(f"fracture/builder.html#r={at_limit}"))
    assert page.locator(".rb-unit").count() == limits["units"]
    ready = page.evaluate("() => performance.getEntriesByName('cadence-builder-ready')[0].startTime")
    print(f"builder ready {ready:.0f} ms after the page began to load with {limits['units']} units, {empty:.0f} ms with none")
    for code, notice in (
        (over, f"the roster has {limits['units'] + 1} units, more than the {limits['units']} a roster may have; nothing was read from it"),
        (huge, "more than the 262144 bytes a roster may be; nothing was read from it"),
    ):
        # The link is followed on the open page (a hash change): Chromium itself takes long to open a 1 MB address.
        page.goto("about:blank")
        open_builder(page, site.url("fracture/builder.html"))
        took = page.evaluate(
            "code => { const t = performance.now(); location.hash = '#r=' + code; return new Promise(r => "
            "addEventListener('hashchange', () => r(performance.now() - t), {once: true})); }",
            code,
        )
        expect(page.locator("#rb-notices")).to_contain_text(notice)
        print(f"a link of {len(code)} characters refused in {took:.0f} ms")
        assert page.locator(".rb-unit").count() == 0
        assert len(page.evaluate("() => localStorage.getItem('cadence-roster:fracture')")) < 200, "a refused roster was kept"
    # What the page keeps is read back within the same bounds: a kept roster over them is refused and forgotten.
    page.goto("about:blank")
    open_builder(page, site.url("fracture/builder.html"))
    page.evaluate("code => localStorage.setItem('cadence-roster:fracture', code)", huge)
    page.goto("about:blank")
    open_builder(page, site.url("fracture/builder.html"))
    expect(page.locator("#rb-notices")).to_contain_text("nothing was read from it")
    assert len(page.evaluate("() => localStorage.getItem('cadence-roster:fracture')")) < 200
    # A file over the limit is refused unread, and the roster on the page stays as it was.
    page.select_option("#rb-unit", label="Warlord")
    page.click("#rb-add")
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"module": "fracture", "list": "Marauders", "notes": "x" * limits["bytes"]}), encoding="utf-8")
    page.set_input_files("#rb-import", str(big))
    expect(page.locator("#rb-notices")).to_contain_text(f"the roster is {big.stat().st_size} bytes")
    assert page.locator(".rb-unit").count() == 1
    twice = tmp_path / "twice.json"
    twice.write_text('{"module": "fracture", "list": "Marauders", "list": "Sentinels", "units": []}', encoding="utf-8")
    page.set_input_files("#rb-import", str(twice))
    expect(page.locator("#rb-notices")).to_have_text("list is given twice: which value is meant cannot be told")
    assert page.locator(".rb-unit").count() == 1
    assert not problems.all(), problems.all()


# --- issue #41 item 5: every unit can be added, and no sequence of clicks breaks the page or its verdict ----------

#: Adds every unit of the list the page shows, each alone on an empty roster, through the page's own controls;
#: returns, for each, the cards drawn, what the page failed with (if anything) and the roster it kept.
ADD_EACH_ALONE = """(list) => {
    const root = document.querySelector('[data-rules-builder]'), errors = [];
    const caught = e => errors.push(String(e.message || e.reason));
    addEventListener('error', caught);
    const pick = (sel, value) => { const s = root.querySelector(sel); s.value = value; s.dispatchEvent(new Event('change')); };
    pick('#rb-list', list);
    const ids = [...root.querySelectorAll('#rb-unit option')].map(o => o.value), out = [];
    for (const id of ids) {
        pick('#rb-list', list);  // an empty roster of the list
        pick('#rb-unit', id);
        root.querySelector('#rb-add').click();
        out.push({id: id, cards: root.querySelectorAll('.rb-unit').length, failed: !!root.querySelector('#rb-failed'),
                  errors: errors.splice(0), roster: JSON.parse(JSON.stringify(window.cadenceBuilder.roster))});
    }
    removeEventListener('error', caught);
    return JSON.stringify(out);
}"""


def _own_problems(verdict: dict[str, Any], index: int = 0) -> list[tuple[str, str, str]]:
    """The problems inside a unit of the roster (its models, weapons, upgrades, size), not the army's: path, code, message."""
    return [(p[0], p[1], p[3]) for p in verdict["problems"] if p[0] == f"units[{index}]" or p[0].startswith(f"units[{index}].")]


def _unexplained(unit: dict[str, Any], entry: dict[str, Any], own: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """The problems inside a unit added alone that its data does not explain. The data explains one thing: a model
    whose cost the source does not print (`points: null`, the Squadrons ships) is a warning wherever it is taken,
    alone or not; nothing else inside a unit can be wrong on its own (a unit taken only with another, `per_unit`, is
    judged by the army, at the path `units`, not inside the unit)."""
    unpriced = {m["name"] for m in unit["models"] if m["points"] is None}
    lines = {f"units[0].models[{j}].model": line["model"] for j, line in enumerate(entry["models"])}
    return [p for p in own if not (p[1] == "roster-unpriced" and lines.get(p[0]) in unpriced)]


def test_every_unit_of_every_list_is_added_legal_alone(site: Browsing, exports: dict[str, ModuleExport]) -> None:
    """Five Halo units (UNSC Marines, both ODST teams, Grunt Spec Ops, Jackal Infantry) came with their size's least
    of their first model, a sergeant or leader a unit may have one of: three, illegal as soon as added. Each unit of
    each list of each game is added alone to an empty roster: no page error, its card drawn, and nothing wrong inside
    it, as `cadence roster` judges the roster the page kept."""
    added, excused, wrong = 0, 0, []
    for module_id, export in sorted(exports.items()):
        page, problems = site.new_page()
        open_builder(page, site.url(f"{module_id}/builder.html"))
        for army in export.data["lists"]:
            units = {u["id"]: u for u in army["units"]}
            for got in json.loads(page.evaluate(ADD_EACH_ALONE, army["id"])):
                unit = units[got["id"]]
                assert got["cards"] == 1 and not got["failed"] and not got["errors"], (module_id, unit["name"], got)
                own = _own_problems(verdict_of(export, got["roster"]))
                excused += len(own) - len(_unexplained(unit, got["roster"]["units"][0], own))
                if _unexplained(unit, got["roster"]["units"][0], own):
                    wrong.append(f"{module_id} / {army['name']} / {unit['name']}: {own} ({json.dumps(got['roster']['units'])})")
                added += 1
        assert not problems.all(), (module_id, problems.all())
        page.context.close()
    print(f"{added} units added, each alone; {excused} warnings of a model with no printed cost")
    assert added == sum(len(army["units"]) for export in exports.values() for army in export.data["lists"]) > 80
    assert not wrong, "\n".join(wrong)


#: Runs seeded sequences of a player's actions through the page's controls (the seed of each sequence makes it
#: again): each starts from an empty roster of the first list, then clicks and picks at random among the controls
#: on the page at that moment. After each sequence, what the page shows and keeps.
PLAY = """([first, count, longest]) => {
    const root = document.querySelector('[data-rules-builder]'), key = window.cadenceBuilder.storageKey;
    if (!window.__played) {
        window.__played = [];
        addEventListener('error', e => window.__played.push('uncaught: ' + e.message));
        addEventListener('unhandledrejection', e => window.__played.push('unhandled: ' + e.reason));
        const said = console.error.bind(console);
        console.error = (...a) => { window.__played.push('console: ' + a.join(' ')); said(...a); };
    }
    let state = 0;
    const random = n => {  // mulberry32: small, seeded, the same in every browser
        state = (state + 0x6D2B79F5) | 0;
        let t = Math.imul(state ^ (state >>> 15), 1 | state);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
    };
    const all = sel => [...root.querySelectorAll(sel)];
    const text = sel => { const node = root.querySelector(sel); return node ? node.textContent : null; };
    const one = list => list.length ? list[random(list.length)] : null;
    const choose = (sel, log) => { const s = root.querySelector(sel); if (!s || !s.options.length) return null;
        s.selectedIndex = random(s.options.length); s.dispatchEvent(new Event('change')); return log + ' ' + s.value; };
    const click = (node, log) => { if (!node) return null; node.click(); return log + ' ' + node.id; };
    const reload = () => { const b = new window.cadenceBuilder.constructor(root, window.cadenceBuilder.data);
        window.cadenceBuilder = b; b.start(); return 'reload'; };
    const actions = [
        () => { const u = choose('#rb-unit', 'add'); root.querySelector('#rb-add').click(); return u; },
        () => { const u = choose('#rb-unit', 'add'); root.querySelector('#rb-add').click(); return u; },
        () => click(one(all('.rb-unit-head .rb-remove')), 'remove'),
        () => { const c = one(all('.rb-unit input[type=number]')); if (!c) return null;
            c.value = String(random(14)); c.dispatchEvent(new Event('change')); return 'count ' + c.id + '=' + c.value; },
        () => click(one(all('.rb-unit input[type=checkbox][id*="-w-"]')), 'weapon'),
        () => click(one(all('.rb-unit input[type=checkbox][id*="-w-"]')), 'weapon'),
        () => click(one(all('.rb-unit input[type=checkbox][id*="-u-"]')), 'upgrade'),
        () => click(one(all('.rb-unit input[type=checkbox][id$="-reinforcements"]')), 'reinforcements'),
        () => { const s = one(all('.rb-unit select')); return s ? choose('#' + s.id, 'model ' + s.id) : null; },
        () => click(one(all('.rb-unit .rb-more')), 'more'),
        () => choose('#rb-list', 'list'),
        () => choose('#rb-size', 'size'),
        reload,
    ];
    const out = [];
    for (let seed = first; seed < first + count; seed++) {
        state = seed;
        try { localStorage.removeItem(key); } catch (e) {}
        history.replaceState(null, '', location.pathname);
        reload();
        const log = [], steps = 1 + random(longest);
        for (let n = 0; n < steps; n++) { const did = actions[random(actions.length)](); if (did) log.push(did); }
        root.querySelector('#rb-copy').click();  // the link a player would share: the roster judged below
        const status = root.querySelector('.rb-status');
        out.push({
            seed: seed, log: log, errors: window.__played.splice(0),
            link: location.hash, kept: localStorage.getItem(key),
            verdict: status && status.getAttribute('data-verdict'),
            total: text('#rb-total'), reserve: text('#rb-reserve'),
            problems: [...root.querySelectorAll('#rb-problems li')].map(li => li.textContent).sort(),
            cards: root.querySelectorAll('.rb-units > .rb-unit').length, failed: !!root.querySelector('#rb-failed'),
            buttons: ['#rb-copy', '#rb-export', 'label[for=rb-import]', 'button#rb-print'].filter(s => !root.querySelector(s)),
        });
    }
    return JSON.stringify(out);
}"""

SEQUENCES_PER_GAME = int(os.environ.get("CADENCE_PLAY_SEQUENCES", "1000"))
LONGEST_SEQUENCE = 8


def _link_roster(link: str) -> dict[str, Any]:
    """The roster a share link holds, read here as the link format says (base64url JSON of
    [format_version, module, list, points, [[unit, [[model, count, weapons, upgrades]], held back?]]]), not by
    the page's own decoder."""
    code = link.removeprefix("#r=")
    version, module, army, points, units = json.loads(base64.urlsafe_b64decode(code + "=" * (-len(code) % 4)))
    return {
        "format_version": version,
        "module": module,
        "list": army,
        "points": points,
        "units": [
            {"unit": u[0], "models": [dict(zip(("model", "count", "weapons", "upgrades"), g, strict=True)) for g in u[1]]}
            | ({"reinforcements": True} if len(u) > 2 and u[2] == 1 else {})
            for u in units
        ],
    }


def _shown(export: ModuleExport, raw: dict[str, Any]) -> dict[str, Any]:
    """What the page must show for a roster, as `cadence roster` judges it: its verdict, the problems (message and
    hint) and its total, reinforcements apart, against the game's points."""
    verdict = Verdict.of(export.data)
    evaluate(export, normalise(raw, verdict), verdict)
    result = verdict.as_json()
    problems = [p for p in result["problems"] if p["code"] != "roster-dropped"]
    held = sum(cost for cost, u in zip(result["unit_costs"], raw["units"], strict=True) if u.get("reinforcements"))
    module = export.data["module"]
    currency = f" {module['currency']['name']}" if module["currency"] else ""
    extra = (module["army_building"] or {}).get("reinforcements")
    return {
        "verdict": "illegal" if any(p["severity"] == "error" for p in problems) else "legal",
        "problems": sorted(p["message"] + (f" ({p['hint']})" if p.get("hint") else "") for p in problems),
        "total": f"Total: {result['total'] - held}" + (f" / {raw['points']}" if raw["points"] is not None else "") + currency,
        "reserve": f"{extra['name']}: {held} / {extra['points']}{currency}" if extra else None,
        "cards": len(raw["units"]),
    }


def _check_played(export: ModuleExport, module_id: str, played: dict[str, Any]) -> None:
    """One sequence's end: nothing failed, every control there, and the page says what `cadence roster` says."""
    again = f"{module_id}: seed {played['seed']} (actions {played['log']})"
    assert not played["errors"] and not played["failed"], f"{again}: {played['errors']}"
    assert not played["buttons"], f"{again}: {played['buttons']} gone"
    assert played["link"].startswith("#r=") and played["kept"] == played["link"][3:], f"{again}: the link and what is kept differ"
    expected = _shown(export, _link_roster(played["link"]))
    shown = {k: played[k] for k in ("verdict", "problems", "total", "reserve", "cards")}
    assert shown == expected, f"{again}: the page shows\n{shown}\n`cadence roster` says\n{expected}"


def test_random_sequences_of_clicks_never_break_the_page_or_its_verdict(site: Browsing, exports: dict[str, ModuleExport]) -> None:
    """Seeded sequences of a player's actions (add, remove, count, weapon and upgrade ticks, reinforcements, model,
    list and size switches, a reload of the page's roster) for every game: no page error, the cards and the Copy
    link / Save / Open / Print buttons always there, and the verdict, problems and total the page shows equal to
    what `cadence roster` decides about the roster the page's link holds. A failure names its seed and actions."""
    started = time.monotonic()
    base = int(os.environ.get("CADENCE_PLAY_SEED", "41005"))
    batch, ran = 100, Counter[str]()
    for module_id, export in sorted(exports.items()):
        page, problems = site.new_page()
        open_builder(page, site.url(f"{module_id}/builder.html"))
        for first in range(base, base + SEQUENCES_PER_GAME, batch):
            for played in json.loads(page.evaluate(PLAY, [first, batch, LONGEST_SEQUENCE])):
                _check_played(export, module_id, played)
                ran[module_id] += 1
            link = page.evaluate("() => location.hash")
            page.reload()  # a real reload now and then: the page comes back with the roster it kept
            page.wait_for_selector("[data-rules-builder][data-ready=true]")
            assert page.evaluate("() => location.hash") == link, f"{module_id}: a reload lost the roster (seed {first + batch - 1})"
        assert not problems.all(), (module_id, problems.all())
        page.context.close()
        print(f"{module_id}: {ran[module_id]} sequences, {time.monotonic() - started:.0f} s so far", flush=True)
    print(f"sequences run per game: {dict(ran)}, seeds from {base}, in {time.monotonic() - started:.0f} s")
    assert all(n >= SEQUENCES_PER_GAME for n in ran.values()) and len(ran) == len(exports)


def test_halo_reinforcements_have_a_place_and_the_page_is_named_for_what_it_is(site: Browsing, exports: dict[str, ModuleExport]) -> None:
    """Halo may add up to 100 points of reinforcements, which `cadence roster` costs apart: a unit card holds it back
    (worded from the labels, the most they may cost in the module's currency), and the status sets the army's total
    against the game's points and the reinforcements' against their own, as the checker does; the army without them
    was shown 380 / 300 with a legal verdict. The menu names the page an army builder (the system's label)."""
    extra = exports["halo-breakpoint"].data["module"]["army_building"]["reinforcements"]
    page, problems = site.new_page()
    open_builder(page, site.url("halo-breakpoint/builder.html"))
    assert page.locator(".md-nav__link", has_text=re.compile("^\\s*Army builder\\s*$")).count() >= 1, "the menu does not say Army builder"
    assert page.title().startswith("Halo: Breakpoint: Army builder")
    page.select_option("#rb-list", label="UNSC")
    page.select_option("#rb-size", value="300")
    for unit in ("ODST Combat Team", "ODST Combat Team", "UNSC Marines", "UNSC Marines"):
        page.select_option("#rb-unit", label=unit)
        page.click("#rb-add")
    expect(page.locator("#rb-reserve")).to_have_text(f"{extra['name']}: 0 / {extra['points']} points")
    expect(page.locator("label[for=rb-0-reinforcements]")).to_have_text(f"{extra['name']} (up to {extra['points']} points)")
    page.check("#rb-0-reinforcements")
    page.check("#rb-2-reinforcements")
    played = {"link": page.evaluate("() => location.hash")}
    expected = _shown(exports["halo-breakpoint"], _link_roster(played["link"]))
    expect(page.locator("#rb-total")).to_have_text(expected["total"])
    expect(page.locator("#rb-reserve")).to_have_text(expected["reserve"])
    assert expected["reserve"] == f"{extra['name']}: 81 / 100 points" and expected["total"] == "Total: 81 / 300 points", expected
    expect(page.locator(".rb-status")).to_have_attribute("data-verdict", expected["verdict"])
    assert not problems.all(), problems.all()
