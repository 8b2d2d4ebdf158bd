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

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from .export import MESSAGES, ModuleExport
from .loader import parse_yaml, read_text
from .points import build_model
from .problems import Location, Problem, Severity, error, warning

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


@dataclass
class Verdict:
    """What a roster costs and everything wrong with it."""

    total: int = 0
    unit_costs: list[int] = field(default_factory=list)
    problems: list[RosterProblem] = field(default_factory=list)

    def add(self, severity: str, code: str, path: str, **values: object) -> None:
        message = re.sub(r"\{(\w+)\}", lambda m: str(values[m[1]]), MESSAGES[code])
        self.problems.append(RosterProblem(severity, code, message, path))

    def as_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "unit_costs": self.unit_costs,
            "problems": [{"severity": p.severity, "code": p.code, "message": p.message, "path": p.path} for p in self.problems],
        }


# --- reading -----------------------------------------------------------------------------------


def normalise(raw: Any, verdict: Verdict) -> dict[str, Any]:
    """A raw roster as plain values of the right types; wrong types are reported and left out."""

    def text(value: Any, path: str, what: str) -> str | None:
        if isinstance(value, str) and value.strip():
            return str(value)
        verdict.add("error", "roster-format", path, what=what, expected="a name")
        return None

    def names(value: Any, path: str) -> list[str]:
        if value is None:
            return []
        if not isinstance(value, list):
            verdict.add("error", "roster-format", path, what=path, expected="a list of names")
            return []
        return [str(v) for k, v in enumerate(value) if text(v, f"{path}[{k}]", f"{path}[{k}]") is not None]

    out: dict[str, Any] = {"module": None, "list": None, "points": None, "units": []}
    if not isinstance(raw, dict):
        verdict.add("error", "roster-format", "", what="a roster", expected="a mapping")
        return out
    version = raw.get("format_version", ROSTER_VERSION)
    if version != ROSTER_VERSION or isinstance(version, bool):
        verdict.add("error", "roster-format", "format_version", what="format_version", expected=str(ROSTER_VERSION))
    out["module"] = text(raw.get("module"), "module", "module")
    out["list"] = text(raw.get("list"), "list", "list")
    points = raw.get("points")
    if points is not None:
        if isinstance(points, int) and not isinstance(points, bool) and points >= 0:
            out["points"] = int(points)
        else:
            verdict.add("error", "roster-format", "points", what="points", expected="a whole number")
    units = raw.get("units") or []
    if not isinstance(units, list):
        verdict.add("error", "roster-format", "units", what="units", expected="a list")
        units = []
    for i, unit in enumerate(units):
        path = f"units[{i}]"
        if not isinstance(unit, dict):
            verdict.add("error", "roster-format", path, what=path, expected="a mapping")
            continue
        name = text(unit.get("unit"), f"{path}.unit", f"{path}.unit")
        groups = unit.get("models") or []
        if not isinstance(groups, list):
            verdict.add("error", "roster-format", f"{path}.models", what=f"{path}.models", expected="a list")
            groups = []
        models = []
        for j, group in enumerate(groups):
            gpath = f"{path}.models[{j}]"
            if not isinstance(group, dict):
                verdict.add("error", "roster-format", gpath, what=gpath, expected="a mapping")
                continue
            model = text(group.get("model"), f"{gpath}.model", f"{gpath}.model")
            count = group.get("count", 1)
            if not isinstance(count, int) or isinstance(count, bool) or count < 1:
                verdict.add("error", "roster-format", f"{gpath}.count", what=f"{gpath}.count", expected="a whole number of at least 1")
                count = 1
            weapons = names(group.get("weapons"), f"{gpath}.weapons")
            upgrades = names(group.get("upgrades"), f"{gpath}.upgrades")
            models.append({"model": model, "count": int(count), "weapons": weapons, "upgrades": upgrades})
        out["units"].append({"unit": name, "models": models})
    return out


# --- checking ----------------------------------------------------------------------------------


def _find(items: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    key = norm(name)
    return next((item for item in items if norm(item["name"]) == key or item.get("id") == name), None)


def _find_id(ids: list[str], table: dict[str, Any], name: str) -> str | None:
    key = norm(name)
    return next((k for k in ids if norm(table[k]["name"]) == key), None)


def evaluate(export: ModuleExport, roster: dict[str, Any], verdict: Verdict | None = None) -> Verdict:
    """Cost a normalised roster and check it against every army-building rule the data states."""
    verdict = verdict or Verdict()
    data = export.data
    module = data["module"]
    building = module["army_building"] or {}
    currency = module["currency"]["name"] if module["currency"] else "points"
    if roster["list"] is None:
        return verdict
    army = _find(data["lists"], roster["list"])
    if army is None:
        verdict.add("error", "roster-unknown-list", "list", name=roster["list"], module=module["title"])
        return verdict
    kept: list[tuple[int, dict[str, Any], int]] = []
    for i, entry in enumerate(roster["units"]):
        if entry["unit"] is None:
            continue
        unit = _find(army["units"], entry["unit"])
        if unit is None:
            verdict.add("warning", "roster-dropped", f"units[{i}].unit", what="unit", name=entry["unit"], owner=army["name"])
            continue
        unit_cost = _check_unit(export, army, unit, entry["models"], f"units[{i}]", currency, verdict)
        kept.append((i, unit, unit_cost))
        verdict.unit_costs.append(unit_cost)
    verdict.total = sum(c for _, _, c in kept)
    _check_army(army, building, roster, kept, currency, verdict)
    return verdict


def _check_unit(
    export: ModuleExport,
    army: dict[str, Any],
    unit: dict[str, Any],
    groups: list[dict[str, Any]],
    path: str,
    currency: str,
    verdict: Verdict,
) -> int:
    weapons, upgrades = unit["weapons"], unit["upgrades"]
    allowed_weapons = [k for o in weapons["options"] for k in o["weapons"]] + [k for s in weapons["swaps"] for k in s["with"]]
    composition = unit["composition"]
    total_cost = 0
    model_count = 0
    by_model: dict[str, int] = {}
    loadouts: list[list[str]] = []
    for j, group in enumerate(groups):
        gpath = f"{path}.models[{j}]"
        if group["model"] is None:
            continue
        index = next((n for n, m in enumerate(unit["models"]) if norm(m["name"]) == norm(group["model"])), None)
        if index is None:
            verdict.add("warning", "roster-dropped", f"{gpath}.model", what="model", name=group["model"], owner=unit["name"])
            continue
        model = unit["models"][index]
        chosen_weapons: list[str] = []
        for k, name in enumerate(group["weapons"]):
            wid = _find_id(allowed_weapons, army["weapons"], name)
            if wid is None:
                wid = _find_id(list(army["weapons"]), army["weapons"], name)
                if wid is None:
                    verdict.add("warning", "roster-dropped", f"{gpath}.weapons[{k}]", what="weapon", name=name, owner=army["name"])
                    continue
                verdict.add(
                    "error",
                    "roster-weapon",
                    f"{gpath}.weapons[{k}]",
                    model=model["name"],
                    unit=unit["name"],
                    weapon=army["weapons"][wid]["name"],
                )
            chosen_weapons.append(wid)
        offered = [o["upgrade"] for o in upgrades["options"] if not o["models"] or any(norm(m) == norm(model["name"]) for m in o["models"])]
        chosen_upgrades: list[str] = []
        for k, name in enumerate(group["upgrades"]):
            uid = _find_id(offered, army["upgrades"], name)
            if uid is None:
                uid = _find_id(list(army["upgrades"]), army["upgrades"], name)
                if uid is None:
                    verdict.add("warning", "roster-dropped", f"{gpath}.upgrades[{k}]", what="upgrade", name=name, owner=army["name"])
                    continue
                verdict.add(
                    "error",
                    "roster-upgrade",
                    f"{gpath}.upgrades[{k}]",
                    model=model["name"],
                    unit=unit["name"],
                    upgrade=army["upgrades"][uid]["name"],
                )
            chosen_upgrades.append(uid)
        fixed = weapons["by_model"].get(model["name"], weapons["fixed"])
        built = build_model(
            export.models[f"{unit['id']}#{index}"],
            [export.upgrades[u] for u in [*upgrades["fixed"], *chosen_upgrades]],
            [export.weapons[w] for w in [*fixed, *chosen_weapons]],
            export.cost_rules,
        )
        count = group["count"]
        total_cost += built.points * count
        model_count += count
        by_model[model["name"]] = by_model.get(model["name"], 0) + count
        loadouts.append(sorted(chosen_weapons))
        spent = built.points - (model["points"] or 0)
        if unit["spending_cap"] is not None and spent > unit["spending_cap"]:
            verdict.add(
                "error",
                "roster-spending-cap",
                gpath,
                model=model["name"],
                unit=unit["name"],
                spent=spent,
                currency=currency,
                cap=unit["spending_cap"],
            )
        if weapons["options"]:
            total = weapons["total"]
            low = total["min"] if total and total["min"] is not None else sum(o["min"] for o in weapons["options"])
            high = total["max"] if total and total["max"] is not None else sum(o["max"] for o in weapons["options"])
            n = len(chosen_weapons)
            if n < low:
                verdict.add("error", "roster-weapon-count-min", gpath, model=model["name"], unit=unit["name"], count=n, min=low)
            if n > high:
                verdict.add("error", "roster-weapon-count-max", gpath, model=model["name"], unit=unit["name"], count=n, max=high)
        n = len(chosen_upgrades)
        if upgrades["min"] is not None and n < upgrades["min"]:
            verdict.add("error", "roster-upgrade-count-min", gpath, model=model["name"], unit=unit["name"], count=n, min=upgrades["min"])
        if upgrades["max"] is not None and n > upgrades["max"]:
            verdict.add("error", "roster-upgrade-count-max", gpath, model=model["name"], unit=unit["name"], count=n, max=upgrades["max"])
    size = composition["models"] or {"min": None, "max": None}
    low = size["min"] if size["min"] is not None else 1
    if model_count < low:
        verdict.add("error", "roster-models-min", path, unit=unit["name"], count=model_count, min=low)
    if size["max"] is not None and model_count > size["max"]:
        verdict.add("error", "roster-models-max", path, unit=unit["name"], count=model_count, max=size["max"])
    for limit in composition["limits"]:
        have = sum(c for name, c in by_model.items() if norm(name) == norm(limit["model"]))
        if have > limit["max"]:
            verdict.add("error", "roster-model-limit", path, unit=unit["name"], count=have, model=limit["model"], max=limit["max"])
    if weapons["same"] and not weapons["swaps"] and any(lo != loadouts[0] for lo in loadouts):
        verdict.add("error", "roster-same-weapons", path, unit=unit["name"])
    return total_cost


def _check_army(
    army: dict[str, Any],
    building: dict[str, Any],
    roster: dict[str, Any],
    kept: list[tuple[int, dict[str, Any], int]],
    currency: str,
    verdict: Verdict,
) -> None:
    total = verdict.total
    counts: dict[str, int] = {}
    for _, unit, _cost in kept:
        counts[unit["id"]] = counts.get(unit["id"], 0) + 1
    for unit in army["units"]:
        composition = unit["composition"]
        count = counts.get(unit["id"], 0) + sum(counts.get(other, 0) for other in composition["shared_with"])
        per_army = composition["per_army"]
        if per_army and per_army["min"] is not None and count < per_army["min"]:
            verdict.add("error", "roster-per-army-min", "units", unit=unit["name"], min=per_army["min"], count=count)
        if per_army and per_army["max"] is not None and count > per_army["max"]:
            verdict.add("error", "roster-per-army-max", "units", unit=unit["name"], max=per_army["max"], count=count)
        per_unit = composition["per_unit"]
        if per_unit and count:
            other = next((u for u in army["units"] if u["id"] == per_unit["unit"]), None)
            allowed = per_unit["max"] * counts.get(per_unit["unit"], 0)
            if count > allowed:
                other_name = other["name"] if other else per_unit["unit"]
                verdict.add("error", "roster-per-unit", "units", unit=unit["name"], count=count, other=other_name, allowed=allowed)
        if composition["taken_in"] and counts.get(unit["id"], 0) % composition["taken_in"]:
            verdict.add("error", "roster-taken-in", "units", unit=unit["name"], count=counts[unit["id"]], size=composition["taken_in"])
    if building.get("max_units") is not None and len(kept) > building["max_units"]:
        verdict.add("error", "roster-max-units", "units", count=len(kept), max=building["max_units"])
    if roster["points"] is not None and total > roster["points"]:
        verdict.add("error", "roster-total", "points", total=total, currency=currency, limit=roster["points"])
    if building.get("budget") is not None and total > building["budget"]:
        verdict.add("error", "roster-budget", "units", total=total, currency=currency, limit=building["budget"])
    each = building.get("per_item_budget")
    if each is not None:
        over = sum(max(0, c - each) for _, _, c in kept)
        pool = (building.get("pooled_budget_per_item") or 0) * len(kept)
        if over > pool:
            verdict.add("error", "roster-item-budget", "units", over=over, currency=currency, each=each, pool=pool)
    game = roster["points"] if roster["points"] is not None else building.get("budget")
    for category in building.get("categories", []):
        members = [(u, c) for _, u, c in kept if u["category"] == category["id"] or _counts_as(building, u["category"]) == category["id"]]
        points = sum(c for _, c in members)
        name = category["name"]
        if category["units"]:
            low, high = category["units"]["min"], category["units"]["max"]
            if low is not None and len(members) < low:
                verdict.add("error", "roster-category-min", "units", count=len(members), category=name, min=low)
            if high is not None and len(members) > high:
                verdict.add("error", "roster-category-max", "units", count=len(members), category=name, max=high)
        if total > 0:
            percent = points * 100 // total
            if category["min_share"] is not None and points * 100 < category["min_share"] * total:
                verdict.add(
                    "error",
                    "roster-share-min",
                    "units",
                    category=name,
                    points=points,
                    currency=currency,
                    percent=percent,
                    share=category["min_share"],
                )
            if category["max_share"] is not None and points * 100 > category["max_share"] * total:
                verdict.add(
                    "error",
                    "roster-share-max",
                    "units",
                    category=name,
                    points=points,
                    currency=currency,
                    percent=percent,
                    share=category["max_share"],
                )
        least = category["min_game_points"]
        if least is not None and members and game is not None and game < least:
            verdict.add("error", "roster-category-size", "units", category=name, min=least, currency=currency)


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
    while path:
        if path in locations:
            return locations[path]
        path = re.sub(r"(\.[^.\[\]]*|\[\d+\])$", "", path)
    return locations.get("", Location(rel, 1, 1))


def check_roster_file(path: Path, rel: str, exports: dict[str, ModuleExport]) -> tuple[Verdict, list[Problem], ModuleExport | None]:
    """Read and check a roster file; problems are located in the file, never raised."""
    text, problems = read_text(path, rel)
    if text is None:
        return Verdict(), problems, None
    raw, problems = parse_yaml(text, rel)
    if raw is None:
        return Verdict(), problems, None
    locations: dict[str, Location] = {"": Location(rel, 1, 1)}
    _locations(raw, "", rel, locations)
    verdict = Verdict()
    roster = normalise(raw, verdict)
    export = exports.get(str(roster["module"])) if roster["module"] else None
    if export is None and roster["module"] is not None:
        modules = ", ".join(exports)
        verdict.add("error", "roster-unknown-module", "module", name=roster["module"], module=modules)
    if export is not None:
        evaluate(export, roster, verdict)
    located = [
        (error if p.severity == "error" else warning)(_place(p.path, locations, rel), p.code, p.message, data_path=p.path)
        for p in verdict.problems
    ]
    return verdict, located, export


def worst(problems: list[Problem]) -> Severity | None:
    if any(p.severity is Severity.ERROR for p in problems):
        return Severity.ERROR
    return Severity.WARNING if problems else None
