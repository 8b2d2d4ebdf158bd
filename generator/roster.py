"""Rosters: a player's chosen army, read from YAML or JSON and checked against a module's export.

A roster names things (units, models, weapons, upgrades) as the rules print them. It is checked
against the exported document (`export.py`), so that this checker and the builder page in the site
(`assets/builder.js`) read the same resolved data and print the same message templates; every cost
comes from `points.build_model`, the function that verifies the printed figures.

The roster format (format_version 1)::

    format_version: 1
    module: my-game           # a module id
    list: raiders             # an army list id or name
    points: 1000              # the game size's points; the module's budget applies as well
    units:
      - unit: Scouts
        models:
          - {model: Scout, count: 5, weapons: [Carbine], upgrades: [Camouflage]}

Weapons and upgrades every model has (`fixed`) are never listed: they come with the model.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from .export import ROSTER_LIMITS, ModuleExport, roster_messages, roster_words
from .loader import parse_yaml, read_text
from .model import Labels, fill
from .points import build_model
from .problems import Location, Problem, Severity, error, warning
from .untrusted import SAFE_LOADER

ROSTER_VERSION = 1


@lru_cache(maxsize=65536)
def _norm(name: str) -> str:
    return re.sub(r"\s+", " ", name.strip()).lower()


def norm(name: object) -> str:
    """How roster names are matched: case and runs of spaces do not matter (the builder does the same)."""
    return _norm(str(name))


@dataclass(frozen=True)
class RosterProblem:
    """A problem with a roster, placed by its path in the roster (`units[2].models[0].weapons[1]`)."""

    severity: str
    code: str
    message: str
    path: str
    hint: str = ""


@dataclass
class Verdict:
    """What a roster costs and everything wrong with it."""

    messages: Mapping[str, str]  # the game's message template of each problem code
    #: the game's words the messages put in: for what a value must be (roster-format), and what the module's
    #: rosters build ('army': 'gang')
    words: Mapping[str, str] = field(default_factory=dict)
    total: int = 0
    unit_costs: list[int] = field(default_factory=list)
    problems: list[RosterProblem] = field(default_factory=list)
    #: the most a roster may be (`bytes`, `units`), as the module's document states it for the builder too
    limits: Mapping[str, int] = field(default_factory=lambda: dict(ROSTER_LIMITS))

    @classmethod
    def of(cls, document: Mapping[str, Any]) -> Verdict:
        """A verdict worded by a module's document: its messages and words (the builder reads the same), and its limits."""
        return cls(document["messages"], document["roster_words"], limits=document.get("limits", ROSTER_LIMITS))

    def add(self, severity: str, code: str, path: str, **values: object) -> None:
        """A problem, its message filled in; an `expected` value is a key of the words (`names`), else said as it is.

        '{army}' is the module's word for what its rosters build. A `{name}` given no value is shown as written, as
        the label-placeholder warning says; a value is put in as it is, never read for placeholders of its own.
        """
        if "expected" in values:
            values["expected"] = self.words.get(str(values["expected"]), values["expected"])
        given = {"army": self.words["army"]} if "army" in self.words else {}
        message = fill(self.messages[code], {**given, **{name: str(value) for name, value in values.items()}})
        self.problems.append(RosterProblem(severity, code, message, path))

    def unknown(self, path: str, what: str, name: str, owner: str, known: Iterable[str]) -> None:
        """A name the data does not have: an error, with the nearest name it does have as the hint."""
        near = nearest(name, known)
        hint = fill(self.words.get("did_you_mean", "did you mean '{name}'?"), {"name": near}) if near is not None else ""
        self.add("error", "roster-dropped", path, what=what, name=name, owner=owner)
        self.problems[-1] = dataclasses.replace(self.problems[-1], hint=hint)

    def as_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "unit_costs": self.unit_costs,
            # a hint only where there is one (the nearest name a misspelt one may mean)
            "problems": [
                {"severity": p.severity, "code": p.code, "message": p.message, "path": p.path} | ({"hint": p.hint} if p.hint else {})
                for p in self.problems
            ],
        }


# --- names the data does not have -----------------------------------------------------------------


def _distance(a: str, b: str) -> int:
    """How many letters to add, remove or change to make `a` into `b` (Levenshtein)."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        last, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            last, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, last + (ca != cb))
    return row[-1]


def nearest(name: str, known: Iterable[str]) -> str | None:
    """The known name nearest to a misspelt one: fewest letters changed, at most a third of its letters (at least
    two); the first on a tie. The builder's `nearest` picks the same."""
    key = norm(name)
    best, most = None, max(2, len(key) // 3)
    for candidate in known:
        other = norm(candidate)
        if abs(len(other) - len(key)) > most:
            continue
        d = _distance(key, other)
        if d <= most:
            best, most = candidate, d - 1
    return best


# --- reading -----------------------------------------------------------------------------------


def _text(value: Any, path: str, verdict: Verdict) -> str | None:
    """A name, or None (reported) when the value is not a non-blank string."""
    if isinstance(value, str) and value.strip():
        return str(value)
    verdict.add("error", "roster-format", path, what=path, expected="name")
    return None


def _names(value: Any, path: str, verdict: Verdict) -> list[str]:
    """A list of names; items that are not names are reported and left out."""
    if value is None:
        return []
    if not isinstance(value, list):
        verdict.add("error", "roster-format", path, what=path, expected="names")
        return []
    return [str(v) for k, v in enumerate(value) if _text(v, f"{path}[{k}]", verdict) is not None]


def _whole(value: Any, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _list_at(value: Any, path: str, verdict: Verdict) -> list[Any]:
    """A list (a missing or empty one is fine); anything else is reported and read as empty."""
    value = value or []
    if isinstance(value, list):
        return value
    verdict.add("error", "roster-format", path, what=path, expected="list")
    return []


def normalise(raw: Any, verdict: Verdict) -> dict[str, Any]:
    """A raw roster as plain values of the right types; wrong types are reported and left out."""
    out: dict[str, Any] = {"module": None, "list": None, "points": None, "units": []}
    if not isinstance(raw, dict):
        verdict.add("error", "roster-format", "", what=verdict.words.get("roster", "roster"), expected="mapping")
        return out
    version = raw.get("format_version", ROSTER_VERSION)
    if version != ROSTER_VERSION or isinstance(version, bool):
        verdict.add("error", "roster-format", "format_version", what="format_version", expected=str(ROSTER_VERSION))
    out["module"] = _text(raw.get("module"), "module", verdict)
    out["list"] = _text(raw.get("list"), "list", verdict)
    out["points"] = _points(raw.get("points"), verdict)
    for i, unit in enumerate(_list_at(raw.get("units"), "units", verdict)):
        entry = _unit_entry(unit, f"units[{i}]", verdict)
        if entry is not None:
            out["units"].append(entry)
    return out


def _points(points: Any, verdict: Verdict) -> int | None:
    """The game size's points, if the roster names one."""
    if points is None:
        return None
    if _whole(points, 0):
        return int(points)
    verdict.add("error", "roster-format", "points", what="points", expected="number")
    return None


def _unit_entry(unit: Any, path: str, verdict: Verdict) -> dict[str, Any] | None:
    if not isinstance(unit, dict):
        verdict.add("error", "roster-format", path, what=path, expected="mapping")
        return None
    name = _text(unit.get("unit"), f"{path}.unit", verdict)
    groups = _list_at(unit.get("models"), f"{path}.models", verdict)
    models = [m for j, group in enumerate(groups) if (m := _model_group(group, f"{path}.models[{j}]", verdict)) is not None]
    held_back = unit.get("reinforcements", False)
    if not isinstance(held_back, bool):
        verdict.add("error", "roster-format", f"{path}.reinforcements", what=f"{path}.reinforcements", expected="flag")
        held_back = False
    return {"unit": name, "models": models, "reinforcements": held_back}


def _model_group(group: Any, path: str, verdict: Verdict) -> dict[str, Any] | None:
    """One line of a unit: a model, how many of it, and the weapons and upgrades each one takes."""
    if not isinstance(group, dict):
        verdict.add("error", "roster-format", path, what=path, expected="mapping")
        return None
    model = _text(group.get("model"), f"{path}.model", verdict)
    count = group.get("count", 1)
    if not _whole(count, 1):
        verdict.add("error", "roster-format", f"{path}.count", what=f"{path}.count", expected="count")
        count = 1
    weapons = _names(group.get("weapons"), f"{path}.weapons", verdict)
    upgrades = _names(group.get("upgrades"), f"{path}.upgrades", verdict)
    return {"model": model, "count": int(count), "weapons": weapons, "upgrades": upgrades}


# --- checking ----------------------------------------------------------------------------------


def _find(items: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    key = norm(name)
    return next((item for item in items if norm(item["name"]) == key or item.get("id") == name), None)


def _find_id(ids: list[str], table: dict[str, Any], name: str) -> str | None:
    key = norm(name)
    return next((k for k in ids if norm(table[k]["name"]) == key), None)


@dataclass(frozen=True)
class _Unit:
    """A unit of the roster being checked: what it is in the export, and where it is in the roster."""

    export: ModuleExport
    army: dict[str, Any]
    unit: dict[str, Any]
    path: str
    currency: str

    @property
    def name(self) -> str:
        return str(self.unit["name"])


@dataclass
class _Tally:
    """What a unit's model lines add up to."""

    cost: int = 0
    models: int = 0
    by_model: dict[str, int] = field(default_factory=dict)
    loadouts: list[list[str]] = field(default_factory=list)
    swapped: dict[int, int] = field(default_factory=dict)
    optioned: dict[int, int] = field(default_factory=dict)
    upgrades: dict[str, int] = field(default_factory=dict)
    weapons: dict[str, int] = field(default_factory=dict)  # every weapon the models carry, chosen or fixed, by id


def evaluate(export: ModuleExport, roster: dict[str, Any], verdict: Verdict | None = None) -> Verdict:
    """Cost a normalised roster and check it against every army-building rule the data states."""
    verdict = verdict or Verdict.of(export.data)
    data = export.data
    module = data["module"]
    building = module["army_building"] or {}
    currency = module["currency"]["name"] if module["currency"] else module["terms"]["points_unit"]
    if roster["list"] is None:
        return verdict
    army = _find(data["lists"], roster["list"])
    if army is None:
        verdict.add("error", "roster-unknown-list", "list", name=roster["list"], module=module["title"])
        return verdict
    kept: list[tuple[int, dict[str, Any], int]] = []
    taken: dict[str, int] = {}
    carried: dict[str, int] = {}
    reserve = 0
    for i, entry in enumerate(roster["units"]):
        if entry["unit"] is None:
            continue
        unit = _find(army["units"], entry["unit"])
        if unit is None:
            verdict.unknown(f"units[{i}].unit", "unit", entry["unit"], army["name"], (u["name"] for u in army["units"]))
            continue
        tally = _check_unit(_Unit(export, army, unit, f"units[{i}]", currency), entry["models"], verdict)
        kept.append((i, unit, tally.cost))
        verdict.unit_costs.append(tally.cost)
        for key, n in tally.upgrades.items():
            taken[key] = taken.get(key, 0) + n
        for key, n in tally.weapons.items():
            carried[key] = carried.get(key, 0) + n
        reserve += _held_back(building, entry, unit, module, i, verdict) * tally.cost
    verdict.total = sum(c for _, _, c in kept)
    if not kept:
        verdict.add("error", "roster-empty", "units")
    _check_upgrades_per_army(army, taken, verdict)
    _check_weapons_per_army(army, carried, verdict)
    _check_army(army, building, roster, kept, currency, verdict, reserve)
    return verdict


# --- reading a model's weapons ----------------------------------------------------------------------

#: Beyond this many ways of reading one model's weapons, only the first is tried (both runtimes alike).
MOST_READINGS = 512


@dataclass(frozen=True)
class Reading:
    """One way of reading a model's chosen weapons: the option or swap each comes through, and what breaks."""

    problems: tuple[tuple[str, dict[str, object]], ...] = ()
    swaps: tuple[int, ...] = ()
    given_up: tuple[str, ...] = ()
    options: tuple[int, ...] = ()
    slots: int = 0


def read_weapons(weapons: dict[str, Any], fixed: list[str], chosen: list[str]) -> Reading:
    """The reading of a model's weapons that breaks the fewest rules, then makes the fewest swaps.

    Each chosen weapon comes through an option that offers it or a swap that takes it; every way is
    tried in order (options before swaps, each in the unit's order) and the first best one is kept, so
    that the builder, which tries them in the same order, reads the same. Weapons neither offers are
    reported elsewhere and left out here.
    """
    picked = [(w, c) for w in chosen if (c := _sources(weapons, w))]
    best = _reading(weapons, fixed, [])
    first = True
    for way in _ways([c for _, c in picked]) if picked else ():
        reading = _reading(weapons, fixed, list(zip((w for w, _ in picked), way, strict=True)))
        if first or (len(reading.problems), len(reading.swaps)) < (len(best.problems), len(best.swaps)):
            best, first = reading, False
    return best


def _sources(weapons: dict[str, Any], weapon: str) -> list[tuple[str, int]]:
    """Where a chosen weapon may come from: each option offering it ("o"), then each swap taking it ("s")."""
    options = [("o", i) for i, o in enumerate(weapons["options"]) if weapon in o["weapons"]]
    return options + [("s", j) for j, s in enumerate(weapons["swaps"]) if weapon in s["with"]]


def _ways(sources: list[list[tuple[str, int]]]) -> Iterator[tuple[tuple[str, int], ...]]:
    """Every way of reading, the last weapon's source changing fastest; only the first when there are too many."""
    ways = 1
    for c in sources:
        ways *= len(c)
    if ways > MOST_READINGS:
        return iter([tuple(c[0] for c in sources)])
    return itertools.product(*sources)


def _reading(weapons: dict[str, Any], fixed: list[str], way: list[tuple[str, tuple[str, int]]]) -> Reading:
    """Check one way of reading: each option's count, and that each swap has what it gives up."""
    options, swaps = weapons["options"], weapons["swaps"]
    usage = [0] * len(options)
    for _, (kind, k) in way:
        if kind == "o":
            usage[k] += 1
    used = tuple(sorted({k for _, (kind, k) in way if kind == "o"}))
    carried = list(fixed)
    problems: list[tuple[str, dict[str, object]]] = []
    made: list[int] = []
    for weapon, (kind, j) in way:
        if kind == "s":
            swap = swaps[j]
            values: dict[str, object] = {"weapon": weapon, "replaced": swap["label"]}
            if j in made:
                problems.append(("roster-swap-once", values))
            elif not _give_up(swap, carried, options, usage):
                problems.append(("roster-swap-gives-up", values))
            made.append(j)
    for i, option in enumerate(options):
        if option["max"] is not None and usage[i] > option["max"]:
            problems.append(("roster-option-max", {"count": usage[i], "option": option["label"], "max": option["max"]}))
        if usage[i] < option["min"] and option["models"] != "one":
            problems.append(("roster-option-min", {"count": usage[i], "option": option["label"], "min": option["min"]}))
    given = list(fixed)
    for key in carried:
        given.remove(key)
    return Reading(tuple(problems), tuple(made), tuple(given), used, sum(usage))


def _give_up(swap: dict[str, Any], carried: list[str], options: list[dict[str, Any]], usage: list[int]) -> bool:
    """Give up what a swap replaces: each weapon it names that the model carries, and one choice of the lists it names.

    The choice given up is the first option offering those lists with room left (else the first
    offering them), which the new weapon then fills. False when the model lacks a weapon to give up.
    """
    found = [next((k for k in group if k in carried), None) for group in swap["gives_up"]]
    if any(k is None for k in found):
        return False
    for k in found:
        carried.remove(str(k))
    places = [i for i, o in enumerate(options) if set(o["weapons"]) & set(swap["in_place_of"])]
    if places:
        usage[next((i for i in places if options[i]["max"] is None or usage[i] < options[i]["max"]), places[0])] += 1
    return True


# --- one unit ------------------------------------------------------------------------------------


def _check_unit(unit: _Unit, groups: list[dict[str, Any]], verdict: Verdict) -> _Tally:
    """Cost a unit's model lines and check each, then the unit as a whole; returns what they add up to."""
    tally = _Tally()
    for j, group in enumerate(groups):
        if group["model"] is not None:
            _check_model_line(unit, group, f"{unit.path}.models[{j}]", tally, verdict)
    _check_unit_size(unit, tally, verdict)
    _check_model_limits(unit, tally, verdict)
    _check_same_weapons(unit, tally, verdict)
    _check_swappers(unit, tally, verdict)
    return tally


def _check_model_line(unit: _Unit, group: dict[str, Any], gpath: str, tally: _Tally, verdict: Verdict) -> None:
    """One line of models: its weapons and upgrades, its cost, and the limits on each model."""
    models = unit.unit["models"]
    index = next((n for n, m in enumerate(models) if norm(m["name"]) == norm(group["model"])), None)
    if index is None:
        verdict.unknown(f"{gpath}.model", "model", group["model"], unit.name, (m["name"] for m in models))
        return
    model = models[index]
    if model["points"] is None and unit.export.data["module"]["currency"] is not None:  # a cost the source does not print
        verdict.add("warning", "roster-unpriced", f"{gpath}.model", model=model["name"], unit=unit.name)
    fixed = _fixed_weapons(unit, model)
    chosen_weapons = _chosen(unit, model, "weapon", (_offered_weapons(unit), fixed), group["weapons"], gpath, verdict)
    offered_upgrades = (_offered_upgrades(unit, model), unit.unit["upgrades"]["fixed"])
    chosen_upgrades = _chosen(unit, model, "upgrade", offered_upgrades, group["upgrades"], gpath, verdict)
    reading = read_weapons(unit.unit["weapons"], fixed, chosen_weapons)
    for code, values in reading.problems:
        named = {k: unit.army["weapons"][str(v)]["name"] if k == "weapon" else v for k, v in values.items()}
        verdict.add("error", code, gpath, model=model["name"], unit=unit.name, **named)
    carried = list(fixed)
    for key in reading.given_up:
        carried.remove(key)
    points = _model_points(unit, index, carried + chosen_weapons, chosen_upgrades)
    _add_line(tally, model["name"], group["count"], points, reading, chosen_weapons, chosen_upgrades)
    for key in carried + chosen_weapons:
        tally.weapons[key] = tally.weapons.get(key, 0) + group["count"]
    _check_spending_cap(unit, model, points, gpath, verdict)
    _check_weapon_count(unit, model, reading.slots, gpath, verdict)
    _check_upgrade_count(unit, model, len(chosen_upgrades), gpath, verdict)
    _check_upgrades_per_model(unit, model, chosen_upgrades, gpath, verdict)


def _offered_weapons(unit: _Unit) -> list[str]:
    """The weapons a unit's models may choose: its options' and its swaps'."""
    weapons = unit.unit["weapons"]
    return [k for o in weapons["options"] for k in o["weapons"]] + [k for s in weapons["swaps"] for k in s["with"]]


def _offered_upgrades(unit: _Unit, model: dict[str, Any]) -> list[str]:
    """The upgrades a model of the unit may choose (some are offered to some models only)."""
    options = unit.unit["upgrades"]["options"]
    return [o["upgrade"] for o in options if not o["models"] or any(norm(m) == norm(model["name"]) for m in o["models"])]


def _add_line(tally: _Tally, model: str, count: int, points: int, reading: Reading, weapons: list[str], upgrades: list[str]) -> None:
    """Add a line of `count` models to the unit's tally: cost, models, loadout, swaps, options, upgrades."""
    tally.cost += points * count
    tally.models += count
    tally.by_model[model] = tally.by_model.get(model, 0) + count
    if not reading.swaps:
        tally.loadouts.append(sorted(weapons))
    for j in set(reading.swaps):
        tally.swapped[j] = tally.swapped.get(j, 0) + count
    for i in reading.options:
        tally.optioned[i] = tally.optioned.get(i, 0) + count
    for key in upgrades:
        tally.upgrades[key] = tally.upgrades.get(key, 0) + count


def _chosen(
    unit: _Unit, model: dict[str, Any], what: str, offer: tuple[list[str], list[str]], names: list[str], gpath: str, verdict: Verdict
) -> list[str]:
    """The ids of the weapons (or upgrades) a model line chooses, from what the unit offers and what the model has anyway.

    One the model has anyway (`fixed`, Razor Claws) may be listed, once for each time it has it: it is not chosen,
    so never charged twice. One the unit does not offer is an error but still costed; one the army list does not
    have at all is an error, with the nearest name it has as the hint, and is left out.
    """
    table = unit.army[f"{what}s"]
    offered, compulsory = offer[0], list(offer[1])
    chosen: list[str] = []
    for k, name in enumerate(names):
        path = f"{gpath}.{what}s[{k}]"
        key = _find_id(offered, table, name)
        if key is None and (listed := _find_id(compulsory, table, name)) is not None:
            compulsory.remove(listed)
            continue
        if key is None:
            key = _find_id(list(table), table, name)
            if key is None:
                verdict.unknown(path, what, name, unit.army["name"], (item["name"] for item in table.values()))
                continue
            verdict.add("error", f"roster-{what}", path, model=model["name"], unit=unit.name, **{what: table[key]["name"]})
        chosen.append(key)
    return chosen


def _fixed_weapons(unit: _Unit, model: dict[str, Any]) -> list[str]:
    """The weapons a model has without choosing them: its own (`by_model`) or the unit's."""
    weapons = unit.unit["weapons"]
    return list(weapons["by_model"].get(model["name"], weapons["fixed"]))


def _model_points(unit: _Unit, index: int, weapons: list[str], upgrades: list[str]) -> int:
    """What one model costs with every weapon it carries and its upgrades, including those it has anyway."""
    export, options = unit.export, unit.unit
    built = build_model(
        export.models[f"{options['id']}#{index}"],
        [export.upgrades[u] for u in [*options["upgrades"]["fixed"], *upgrades]],
        [export.weapons[w] for w in weapons],
        export.cost_rules,
    )
    return built.points


def _check_spending_cap(unit: _Unit, model: dict[str, Any], points: int, gpath: str, verdict: Verdict) -> None:
    cap = unit.unit["spending_cap"]
    if cap is None and unit.unit["spending_cap_own_cost"]:
        cap = model["points"] or 0
    spent = points - (model["points"] or 0)
    if cap is not None and spent > cap:
        verdict.add(
            "error", "roster-spending-cap", gpath, model=model["name"], unit=unit.name, spent=spent, currency=unit.currency, cap=cap
        )


def _check_weapon_count(unit: _Unit, model: dict[str, Any], n: int, gpath: str, verdict: Verdict) -> None:
    """How many weapon choices a model fills over all options, when the unit states a total (each option is checked on its own)."""
    total = unit.unit["weapons"]["total"]
    if total and total["min"] is not None and n < total["min"]:
        verdict.add("error", "roster-weapon-count-min", gpath, model=model["name"], unit=unit.name, count=n, min=total["min"])
    if total and total["max"] is not None and n > total["max"]:
        verdict.add("error", "roster-weapon-count-max", gpath, model=model["name"], unit=unit.name, count=n, max=total["max"])


def _check_upgrades_per_model(unit: _Unit, model: dict[str, Any], chosen: list[str], gpath: str, verdict: Verdict) -> None:
    """An upgrade one model may take only so many times ('one per car')."""
    for key in dict.fromkeys(chosen):
        upgrade, n = unit.army["upgrades"][key], chosen.count(key)
        most = upgrade["max_per_model"]
        if most is not None and n > most:
            limit = upgrade["limit"] or most
            verdict.add(
                "error",
                "roster-upgrade-per-model",
                gpath,
                model=model["name"],
                unit=unit.name,
                upgrade=upgrade["name"],
                count=n,
                limit=limit,
            )


def _check_upgrades_per_army(army: dict[str, Any], taken: dict[str, int], verdict: Verdict) -> None:
    """An upgrade only so many models of the army may take ('one per gang')."""
    for key, n in taken.items():
        upgrade = army["upgrades"][key]
        most = upgrade["max_per_army"]
        if most is not None and n > most:
            verdict.add("error", "roster-upgrade-per-army", "units", upgrade=upgrade["name"], count=n, limit=upgrade["limit"] or most)


def _check_weapons_per_army(army: dict[str, Any], carried: dict[str, int], verdict: Verdict) -> None:
    """A weapon of a list that limits how often each of its weapons appears in the whole army ('Unique Weapons')."""
    for key, n in carried.items():
        weapon = army["weapons"][key]
        most = weapon.get("max_per_army")
        if most is not None and n > most:
            verdict.add("error", "roster-weapon-per-army", "units", weapon=weapon["name"], list=weapon["list"], max=most, count=n)


def _check_upgrade_count(unit: _Unit, model: dict[str, Any], n: int, gpath: str, verdict: Verdict) -> None:
    low, high = unit.unit["upgrades"]["min"], unit.unit["upgrades"]["max"]
    if low is not None and n < low:
        verdict.add("error", "roster-upgrade-count-min", gpath, model=model["name"], unit=unit.name, count=n, min=low)
    if high is not None and n > high:
        verdict.add("error", "roster-upgrade-count-max", gpath, model=model["name"], unit=unit.name, count=n, max=high)


def _check_unit_size(unit: _Unit, tally: _Tally, verdict: Verdict) -> None:
    """The unit's model count; a unit without a stated size needs at least one model."""
    size = unit.unit["composition"]["models"] or {"min": None, "max": None}
    low = size["min"] if size["min"] is not None else 1
    if tally.models < low:
        verdict.add("error", "roster-models-min", unit.path, unit=unit.name, count=tally.models, min=low)
    if size["max"] is not None and tally.models > size["max"]:
        verdict.add("error", "roster-models-max", unit.path, unit=unit.name, count=tally.models, max=size["max"])


def _check_model_limits(unit: _Unit, tally: _Tally, verdict: Verdict) -> None:
    """So many of one model in the unit: at most one sergeant, exactly one leader."""
    for limit in unit.unit["composition"]["limits"]:
        have = sum(c for name, c in tally.by_model.items() if norm(name) == norm(limit["model"]))
        if have > limit["max"]:
            verdict.add("error", "roster-model-limit", unit.path, unit=unit.name, count=have, model=limit["model"], max=limit["max"])
        if have < limit["min"]:
            verdict.add("error", "roster-model-limit-min", unit.path, unit=unit.name, count=have, model=limit["model"], min=limit["min"])


def _check_same_weapons(unit: _Unit, tally: _Tally, verdict: Verdict) -> None:
    """Models that must carry the same weapons do, apart from those that made a swap."""
    if unit.unit["weapons"]["same"] and any(lo != tally.loadouts[0] for lo in tally.loadouts):
        verdict.add("error", "roster-same-weapons", unit.path, unit=unit.name)


def _most(models: object) -> int | None:
    """How many models of a unit a swap or an option is for: 'one', a number, or no limit."""
    if models == "one":
        return 1
    return models if isinstance(models, int) and not isinstance(models, bool) else None


def _check_swappers(unit: _Unit, tally: _Tally, verdict: Verdict) -> None:
    """How many models of the unit made each swap, and took from each option meant for one model."""
    weapons = unit.unit["weapons"]
    for j, swap in enumerate(weapons["swaps"]):
        n, most = tally.swapped.get(j, 0), _most(swap["models"])
        if most is not None and n > most:
            verdict.add("error", "roster-swap-models", unit.path, unit=unit.name, count=n, replaced=swap["label"], max=most)
        if swap["models"] == "all" and 0 < n < tally.models:
            verdict.add("error", "roster-swap-all", unit.path, unit=unit.name, count=n, models=tally.models, replaced=swap["label"])
    for i, option in enumerate(weapons["options"]):
        n, most = tally.optioned.get(i, 0), _most(option["models"])
        if most is not None and n > most:
            verdict.add("error", "roster-option-models", unit.path, unit=unit.name, count=n, option=option["label"], max=most)


# --- the whole army ------------------------------------------------------------------------------


def _held_back(
    building: dict[str, Any], entry: dict[str, Any], unit: dict[str, Any], module: dict[str, Any], i: int, verdict: Verdict
) -> int:
    """1 when the unit is held back as reinforcements the module allows, else 0."""
    if not entry["reinforcements"]:
        return 0
    if building.get("reinforcements") is None:
        verdict.add("error", "roster-no-reinforcements", f"units[{i}].reinforcements", unit=unit["name"], module=module["title"])
        return 0
    return 1


def _check_army(
    army: dict[str, Any],
    building: dict[str, Any],
    roster: dict[str, Any],
    kept: list[tuple[int, dict[str, Any], int]],
    currency: str,
    verdict: Verdict,
    reserve: int = 0,
) -> None:
    """The army-building rules over the units kept: how often each is taken, budgets, categories."""
    counts: dict[str, int] = {}
    for _, unit, _cost in kept:
        counts[unit["id"]] = counts.get(unit["id"], 0) + 1
    for unit in army["units"]:
        _check_times_taken(army, unit, counts, verdict)
    costs = [c for _, _, c in kept]
    _check_max_units(building, len(kept), verdict)
    _check_budgets(building, roster, costs, currency, verdict, reserve)
    game = roster["points"] if roster["points"] is not None else building.get("budget")
    sizes = _game_sizes(building, roster["points"])
    sized = next((g["category_units"] for g in sizes if g["category_units"] is not None), None)
    for category in building.get("categories", []):
        members = [(u, c) for _, u, c in kept if u["category"] == category["id"] or _counts_as(building, u["category"]) == category["id"]]
        units = sized.get(category["id"]) if sized is not None else category["units"]
        _check_category({**category, "units": units}, [c for _, c in members], verdict.total, game, currency, verdict)
    for size in sizes:
        _check_excluded_rules(size, kept, verdict)
        for ratio in size["rule_ratios"]:
            _check_rule_ratio(ratio, kept, verdict)


def _check_times_taken(army: dict[str, Any], unit: dict[str, Any], counts: dict[str, int], verdict: Verdict) -> None:
    """How often a unit is taken: per army (counting the units it shares the limit with), per other unit, in groups."""
    composition = unit["composition"]
    count = counts.get(unit["id"], 0) + sum(counts.get(other, 0) for other in composition["shared_with"])
    _check_per_army(unit, composition["per_army"], count, verdict)
    if composition["per_unit"] and count:
        _check_per_unit(army, unit, composition["per_unit"], count, counts, verdict)
    taken_in = composition["taken_in"]
    if taken_in and counts.get(unit["id"], 0) % taken_in:
        verdict.add("error", "roster-taken-in", "units", unit=unit["name"], count=counts[unit["id"]], size=taken_in)


def _check_per_army(unit: dict[str, Any], per_army: dict[str, Any] | None, count: int, verdict: Verdict) -> None:
    if per_army and per_army["min"] is not None and count < per_army["min"]:
        verdict.add("error", "roster-per-army-min", "units", unit=unit["name"], min=per_army["min"], count=count)
    if per_army and per_army["max"] is not None and count > per_army["max"]:
        verdict.add("error", "roster-per-army-max", "units", unit=unit["name"], max=per_army["max"], count=count)


def _check_per_unit(
    army: dict[str, Any], unit: dict[str, Any], per_unit: dict[str, Any], count: int, counts: dict[str, int], verdict: Verdict
) -> None:
    """So many of this unit for every one of another unit taken (one transport per squad)."""
    allowed = per_unit["max"] * counts.get(per_unit["unit"], 0)
    if count > allowed:
        other = next((u for u in army["units"] if u["id"] == per_unit["unit"]), None)
        other_name = other["name"] if other else per_unit["unit"]
        verdict.add("error", "roster-per-unit", "units", unit=unit["name"], count=count, other=other_name, allowed=allowed)


def _check_max_units(building: dict[str, Any], units: int, verdict: Verdict) -> None:
    if building.get("max_units") is not None and units > building["max_units"]:
        verdict.add("error", "roster-max-units", "units", count=units, max=building["max_units"])


def _check_budgets(
    building: dict[str, Any], roster: dict[str, Any], costs: list[int], currency: str, verdict: Verdict, reserve: int
) -> None:
    """The game size's points (reinforcements apart, within their own points), the module's budget, and the budget per unit with its shared pool."""
    total = verdict.total - reserve
    if reserve:
        extra = building["reinforcements"]
        if reserve > extra["points"]:
            verdict.add(
                "error", "roster-reinforcements", "units", name=extra["name"], total=reserve, currency=currency, limit=extra["points"]
            )
        if roster["points"] is not None and total > roster["points"]:
            verdict.add(
                "error",
                "roster-total-without-reinforcements",
                "points",
                name=extra["name"],
                total=total,
                currency=currency,
                limit=roster["points"],
            )
    elif roster["points"] is not None and total > roster["points"]:
        verdict.add("error", "roster-total", "points", total=total, currency=currency, limit=roster["points"])
    if building.get("budget") is not None and total > building["budget"]:
        verdict.add("error", "roster-budget", "units", total=total, currency=currency, limit=building["budget"])
    each = building.get("per_item_budget")
    if each is not None:
        over = sum(max(0, c - each) for c in costs)
        pool = (building.get("pooled_budget_per_item") or 0) * len(costs)
        if over > pool:
            verdict.add("error", "roster-item-budget", "units", over=over, currency=currency, each=each, pool=pool)


def _game_sizes(building: dict[str, Any], points: int | None) -> list[dict[str, Any]]:
    """The game sizes of exactly these points: their own unit counts (a small game with one command unit) and
    special rules hold."""
    return [g for g in building.get("game_sizes", []) if g["limit"] == points]


def _rules_of(unit: dict[str, Any]) -> set[str]:
    """The special rules (by id) a unit has: those of any of its models."""
    return {use["rule"] for model in unit["models"] for use in model["rules"] if use["rule"] is not None}


def _check_excluded_rules(size: dict[str, Any], kept: list[tuple[int, dict[str, Any], int]], verdict: Verdict) -> None:
    """No unit with a special rule the game size keeps out (no Vehicle in a small game); each unit is told once."""
    for i, unit, _cost in kept:
        rules = _rules_of(unit)
        named = next((n for n in size["excluded_rules"] if n["rule"] in rules), None)
        if named is not None:
            verdict.add("error", "roster-excluded-rule", f"units[{i}].unit", unit=unit["name"], rule=named["text"], size=size["name"])


def _check_rule_ratio(ratio: dict[str, Any], kept: list[tuple[int, dict[str, Any], int]], verdict: Verdict) -> None:
    """So many units with a rule for every unit with none of some others (0-1 Transport for every unit not a Vehicle).

    A unit limited by the ratio does not count towards it, whatever rules it lacks.
    """
    rule, without = ratio["rule"]["rule"], {w["rule"] for w in ratio["without"]}
    limited = sum(1 for _, unit, _ in kept if rule is not None and rule in _rules_of(unit))
    counted = sum(1 for _, unit, _ in kept if not _rules_of(unit) & (without | {rule}))
    allowed = ratio["max"] * counted
    if limited > allowed:
        words = " / ".join(w["text"] for w in ratio["without"])
        verdict.add(
            "error",
            "roster-rule-ratio",
            "units",
            count=limited,
            rule=ratio["rule"]["text"],
            max=ratio["max"],
            without=words,
            allowed=allowed,
        )


def _check_category(category: dict[str, Any], costs: list[int], total: int, game: int | None, currency: str, verdict: Verdict) -> None:
    """One category (by its own id or the one it counts as): how many units, its share of the army, the game size it needs."""
    name = category["name"]
    if category["units"]:
        low, high = category["units"]["min"], category["units"]["max"]
        if low is not None and len(costs) < low:
            verdict.add("error", "roster-category-min", "units", count=len(costs), category=name, min=low)
        if high is not None and len(costs) > high:
            verdict.add("error", "roster-category-max", "units", count=len(costs), category=name, max=high)
    if total > 0:
        _check_share(category, sum(costs), total, currency, verdict)
    least = category["min_game_points"]
    if least is not None and costs and game is not None and game < least:
        verdict.add("error", "roster-category-size", "units", category=name, min=least, currency=currency)


def _check_share(category: dict[str, Any], points: int, total: int, currency: str, verdict: Verdict) -> None:
    """A category's share of the army's cost, in whole percent, against its minimum and maximum."""
    shown = {"category": category["name"], "points": points, "currency": currency, "percent": points * 100 // total}
    if category["min_share"] is not None and points * 100 < category["min_share"] * total:
        verdict.add("error", "roster-share-min", "units", share=category["min_share"], **shown)
    if category["max_share"] is not None and points * 100 > category["max_share"] * total:
        verdict.add("error", "roster-share-max", "units", share=category["max_share"], **shown)


def _counts_as(building: dict[str, Any], category_id: str | None) -> str | None:
    category = next((c for c in building.get("categories", []) if c["id"] == category_id), None)
    return category["counts_as"] if category else None


# --- the command ---------------------------------------------------------------------------------


def _locations(raw: Any, path: str, rel: str, out: dict[str, Location]) -> None:
    """Where each path of a loaded roster was written."""
    loc = getattr(raw, "loc", None)
    if loc is not None:
        out[path] = loc
    if isinstance(raw, dict):
        for key, value in raw.items():
            child = f"{path}.{key}" if path else str(key)
            _locations(value, child, rel, out)
            # A problem with a whole list or mapping (`units`) points at its key, not its first item.
            key_loc = getattr(raw, "key_locs", {}).get(key)
            if key_loc is not None and (child not in out or isinstance(value, (dict, list))):
                out[child] = key_loc
    elif isinstance(raw, list):
        for k, value in enumerate(raw):
            _locations(value, f"{path}[{k}]", rel, out)


def _place(path: str, locations: dict[str, Location], rel: str) -> Location:
    """The place in the file of a problem's data path, or of the nearest enclosing value that has one."""
    key = path
    while key:
        if key in locations:
            return locations[key]
        shorter = re.sub(r"(\.[^.\[\]]*|\[\d+\])$", "", key)
        if shorter == key:  # a top-level key the file does not have: the whole file
            break
        key = shorter
    return locations.get("", Location(rel, 1, 1))


def _duplicate_keys(node: yaml.Node, path: str, rel: str, out: list[tuple[str, Location]]) -> None:
    """Each key given a second time in one mapping, with its roster path and place, in the file's order."""
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            name = str(key.value)
            child = f"{path}.{name}" if path else name
            if name in seen:
                out.append((child, Location(rel, key.start_mark.line + 1, key.start_mark.column + 1)))
            seen.add(name)
            _duplicate_keys(value, child, rel, out)
    elif isinstance(node, yaml.SequenceNode):
        for k, value in enumerate(node.value):
            _duplicate_keys(value, f"{path}[{k}]", rel, out)


def _refused(path: Path, rel: str, text: str | None, raw: Any, verdict: Verdict) -> list[Problem] | None:
    """The located problems of a roster refused unread: too large a file, a key given twice, too many units
    (the limits are the module document's, which the builder reads too); None when it may be read."""
    limits = verdict.limits
    if text is None:
        size = path.stat().st_size
        if size <= limits["bytes"]:
            return None
        verdict.add("error", "roster-too-large", "", size=size, max=limits["bytes"])
        return [error(Location(rel, 1, 1), "roster-too-large", verdict.problems[-1].message, data_path="")]
    if raw is not None:
        twice: list[tuple[str, Location]] = []
        node = yaml.compose(text, Loader=SAFE_LOADER)
        if node is not None:
            _duplicate_keys(node, "", rel, twice)
        for where, _ in twice:
            verdict.add("error", "roster-duplicate-key", where, what=where)
        if twice:
            return [error(loc, p.code, p.message, data_path=p.path) for (_, loc), p in zip(twice, verdict.problems, strict=True)]
    return None


def check_roster_file(path: Path, rel: str, exports: dict[str, ModuleExport]) -> tuple[Verdict, list[Problem], ModuleExport | None]:
    """Read and check a roster file; problems are located in the file, never raised.

    A roster larger than the limits, or with a key given twice (the two values would be read differently by
    different readers), is refused unread, as the builder refuses it.
    """
    # one system's labels word every module's messages; a project without modules speaks the defaults
    words = next((e.data for e in exports.values()), None) or {
        "messages": roster_messages(Labels()),
        "roster_words": roster_words(Labels()),
    }
    verdict = Verdict.of(words)
    with contextlib.suppress(OSError):  # read_text says what is wrong with a file it cannot read
        if (refused := _refused(path, rel, None, None, verdict)) is not None:
            return verdict, refused, None
    text, problems = read_text(path, rel)
    if text is None:
        return verdict, problems, None
    raw, problems = parse_yaml(text, rel)
    if raw is None:
        return verdict, problems, None
    if any(p.code == "duplicate-key" for p in problems) and (refused := _refused(path, rel, text, raw, verdict)):
        return verdict, refused, None
    locations: dict[str, Location] = {"": Location(rel, 1, 1)}
    _locations(raw, "", rel, locations)
    units = raw.get("units")
    many = isinstance(units, list) and len(units) > verdict.limits["units"]
    if isinstance(units, list) and many:
        verdict.add("error", "roster-too-many-units", "units", count=len(units), max=verdict.limits["units"])
    else:
        _check_read(normalise(raw, verdict), exports, verdict)
    located = [
        (error if p.severity == "error" else warning)(_place(p.path, locations, rel), p.code, p.message, hint=p.hint, data_path=p.path)
        for p in verdict.problems
    ]
    return verdict, [*problems, *located], None if many else exports.get(str(raw.get("module")))


def _check_read(roster: dict[str, Any], exports: dict[str, ModuleExport], verdict: Verdict) -> None:
    """Check a roster read from a file against its own module's document."""
    export = exports.get(str(roster["module"])) if roster["module"] else None
    if export is None and roster["module"] is not None:
        modules = ", ".join(exports)
        verdict.add("error", "roster-unknown-module", "module", name=roster["module"], module=modules)
    if export is not None:
        verdict.words = export.data["roster_words"]  # worded by the roster's own module from here on (its `army`)
        evaluate(export, roster, verdict)


def worst(problems: list[Problem]) -> Severity | None:
    if any(p.severity is Severity.ERROR for p in problems):
        return Severity.ERROR
    return Severity.WARNING if problems else None
