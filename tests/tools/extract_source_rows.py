#!/usr/bin/env python3
"""Extract every table row of the public Cadence site sources into tests/fixtures/source_rows.json.

The sources (``shared/sources/cadence-site/<page>.md``, next to the repository) flatten every table
to one line of text: the header labels, then every cell of every row, separated by single spaces.
This script recovers the cells:

* Tables are found on lines that begin with a known header (``Model Cmd Mov Skl Def Tgh HP ...``,
  ``Weapon Rng Att Dmg Prc ...``, ``Upgrade Effect Points`` ...). A line may hold several tables
  (``... Harbinger Clade 4 4" 3+ 4+ 5 4 Weapon Rng Att Dmg Prc ...``): it is cut at every header.
* The header gives the columns, and every column has a value shape: ``6"`` (inches), ``3+``
  (target), ``4`` / ``x`` / ``*`` / ``d6`` (number), a comma-separated rule list, ``12`` / ``2*`` /
  ``-`` (points). Profile and weapon rows are read with one regular expression built from those
  shapes, row after row: the name is the shortest text that lets the rest of the row match.
* Where a column has no shape (a rule list that ends the row, a name followed by free text), the
  row names are given below in HINTS, written exactly as the source prints them; the script checks
  that every hinted name occurs, in order, at a row boundary, and fails loudly otherwise.
* Roll tables are cut at roll values that continue the sequence (``1-3``, then ``4-5``, then ``6``).

Free text (effects, descriptions, rule definitions) is never stored: the site words it anew. What is
stored is what must carry over exactly: names, profile values, rule lists, points, roll values.

Run it after the sources change:  python tests/tools/extract_source_rows.py
The fidelity test re-runs the extraction and fails if the checked-in JSON is out of date.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parents[1]
DEFAULT_SOURCES = Path(__file__).resolve().parents[1] / "fixtures" / "sources" / "cadence-site"
DEFAULT_OUTPUT = TESTS / "fixtures" / "source_rows.json"


class ExtractionError(Exception):
    """The source text does not read as the table its header announces."""


# --------------------------------------------------------------------------------------------
# Value shapes
# --------------------------------------------------------------------------------------------

SHAPES: dict[str, str] = {
    "number": r"(?:-?\d+|\d*d6(?:[+-]\d+)?|[xX*]|-)",
    "inches": r"(?:\d+(?:-\d+)?[\"”]|-|\*)",
    "target": r"(?:\d+\+|-|\*)",
    "count": r"(?:\d+ Only|\d+-\d+|\d+\+|\d+)",
    "points": r"(?:\d+\*?|-)",
    "cp": r"(?:\d+CP)",
    "counter": r"(?:\d+\+?)",
}
# a rule list: tokens that do not begin with a digit, or parenthesised parameters
RULES = r"(?:(?:[^\d\s(]\S*|\([^()]*\)\S*)(?: (?:[^\d\s(]\S*|\([^()]*\)\S*))*)"
ROLL = r"(?P<lo>\d+)(?:-(?P<hi>\d+))?"

# column label -> (key, shape); shape None = free text, not stored
LABELS: dict[str, tuple[str, str | None]] = {
    "Cmd": ("cmd", "number"),
    "Mov": ("mov", "inches"),
    "Skl": ("skl", "target"),
    "Def": ("def", "target"),
    "Tgh": ("tgh", "number"),
    "HP": ("hp", "number"),
    "Rng": ("rng", "inches"),
    "Att": ("att", "number"),
    "Dmg": ("dmg", "number"),
    "Prc": ("prc", "number"),
    "Special Rules": ("rules", "rules"),
    "Special": ("rules", "rules"),
    "Count": ("count", "count"),
    "Points": ("points", "points"),
    "Cost": ("points", "points"),
}


# --------------------------------------------------------------------------------------------
# Headers
# --------------------------------------------------------------------------------------------


@dataclass
class Column:
    label: str
    key: str
    shape: str | None  # None: free text (not stored)


@dataclass
class Header:
    kind: str  # profile | weapon | named | rules | roll | counter | loadout
    text: str
    columns: list[Column]


def _cols(*spec: tuple[str, str, str | None]) -> list[Column]:
    return [Column(label, key, shape) for label, key, shape in spec]


FIXED_HEADERS: list[Header] = [
    Header(
        "named",
        "Upgrade Type Effect Cost",
        _cols(("Upgrade", "name", "name"), ("Type", "type", "word"), ("Effect", "effect", None), ("Cost", "points", "points")),
    ),
    Header(
        "named", "Upgrade Effect Points", _cols(("Upgrade", "name", "name"), ("Effect", "effect", None), ("Points", "points", "points"))
    ),
    Header("named", "Upgrade Effect Cost", _cols(("Upgrade", "name", "name"), ("Effect", "effect", None), ("Cost", "points", "points"))),
    Header(
        "named",
        "Upgrade Description Cost",
        _cols(("Upgrade", "name", "name"), ("Description", "effect", None), ("Cost", "points", "points")),
    ),
    Header(
        "named", "Upgrades Benefit Cost", _cols(("Upgrades", "name", "name"), ("Benefit", "effect", None), ("Cost", "points", "points"))
    ),
    Header("named", "Name Cost Effect", _cols(("Name", "name", "name"), ("Cost", "points", "cp"), ("Effect", "effect", None))),
    Header("named", "Perk Effect", _cols(("Perk", "name", "name"), ("Effect", "effect", None))),
    Header("named", "Equipment Effect", _cols(("Equipment", "name", "name"), ("Effect", "effect", None))),
    Header("rules", "Model Special Rules Effect", _cols(("Model Special Rules", "name", "name"), ("Effect", "effect", None))),
    Header("rules", "Weapon Special Rules Effect", _cols(("Weapon Special Rules", "name", "name"), ("Effect", "effect", None))),
    Header("rules", "Special Rules Effect", _cols(("Special Rules", "name", "name"), ("Effect", "effect", None))),
    Header("rules", "Special Rule Effect", _cols(("Special Rule", "name", "name"), ("Effect", "effect", None))),
    Header("rules", "Rules Details", _cols(("Rules", "name", "name"), ("Details", "effect", None))),
    Header("rules", "Rule Details", _cols(("Rule", "name", "name"), ("Details", "effect", None))),
    Header("rules", "Rule Effect", _cols(("Rule", "name", "name"), ("Effect", "effect", None))),
    Header("roll", "D6 Roll Pick-up Effect", _cols(("D6 Roll", "roll", "roll"), ("Pick-up", "name", "name"), ("Effect", "effect", None))),
    Header("roll", "Draw Injury Outcome", _cols(("Draw", "roll", "roll"), ("Injury", "name", "name"), ("Outcome", "effect", None))),
    Header("roll", "Dice Roll Result", _cols(("Dice Roll", "roll", "roll"), ("Result", "effect", None))),
    Header("roll", "Roll Result", _cols(("Roll", "roll", "roll"), ("Result", "label", "label"))),
    Header(
        "counter",
        "Weapon Damage vs target unit's lowest Toughness Counter Roll",
        _cols(("Weapon Damage vs target unit's lowest Toughness", "effect", None), ("Counter Roll", "counter", "counter")),
    ),
    Header(
        "counter",
        "Weapon Damage vs target Toughness Counter Draw",
        _cols(("Weapon Damage vs target Toughness", "effect", None), ("Counter Draw", "counter", "counter")),
    ),
    Header(
        "loadout",
        "Loadout Primary Weapon Secondary Weapon",
        _cols(("Loadout", "name", "name"), ("Primary Weapon", "primary", "name"), ("Secondary Weapon", "secondary", "name")),
    ),
]

PROFILE_HEADER = re.compile(
    r"(?P<first>Model|Ship|Car|Profile) (?P<rest>Cmd Mov Skl Def Tgh HP(?: Special Rules)?(?: Count)?(?: Points| Cost)?)(?= |$)"
)
WEAPON_HEADER = re.compile(
    r"(?P<roll>Roll )?(?P<first>Weapon|[A-Z][a-z]+ Weapons?) (?P<rest>Rng Att Dmg Prc(?: Special Rules| Special)?(?: Points| Cost)?)(?= |$)"
)


def header_at(text: str, pos: int) -> Header | None:
    """The table header that begins exactly at `pos`, if any (the longest one)."""
    for regex, kind in ((PROFILE_HEADER, "profile"), (WEAPON_HEADER, "weapon")):
        m = regex.match(text, pos)
        if m:
            columns: list[Column] = []
            if kind == "weapon" and m.group("roll"):
                columns.append(Column("Roll", "roll", "roll"))
            columns.append(Column(m.group("first"), "name", "name"))
            rest = m.group("rest")
            labels = re.findall(r"Special Rules|Special|Cmd|Mov|Skl|Def|Tgh|HP|Rng|Att|Dmg|Prc|Count|Points|Cost", rest)
            for label in labels:
                key, shape = LABELS[label]
                columns.append(Column(label, key, shape))
            return Header(kind, m.group(0), columns)
    for header in FIXED_HEADERS:
        if text.startswith(header.text, pos) and (pos + len(header.text) == len(text) or text[pos + len(header.text)] == " "):
            return header
    return None


def split_tables(line: str) -> list[tuple[Header, str]]:
    """A line that begins with a header, cut into (header, body) at every header it contains."""
    starts: list[tuple[int, Header]] = []
    pos = 0
    while pos < len(line):
        if pos == 0 or line[pos - 1] == " ":
            header = header_at(line, pos)
            if header is not None:
                starts.append((pos, header))
                pos += len(header.text)
                continue
        pos += 1
    tables = []
    for i, (start, header) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(line)
        body = line[start + len(header.text) : end].strip()
        tables.append((header, body))
    return tables


# --------------------------------------------------------------------------------------------
# Hints: row names where the shapes cannot tell where a row begins (exactly as printed)
# --------------------------------------------------------------------------------------------

# (page, anchor, first header label) -> row names in order
HINTS: dict[tuple[str, str, str], list[str]] = {
    # weapon tables whose last column is the rule list: nothing marks the end of a row
    ("respawn/creating-your-team", "weapon-summary", "Ranged Weapon"): [
        "Assault Rifle",
        "Barrage Launcher",
        "Eliminator Shotgun",
        "Executioner Pistol",
        "Frag Grenade",
        "Fusion Grenade",
        "Heavy Incinerator",
        "Hellfire Rifle",
        "Nemesis Sniper Rifle",
        "Stasis Grenade",
        "Rampage Minigun",
        "Sentinel Pistol",
        "SMG",
        "Tactical Shotgun",
        "Peacekeeper Shotgun",
        "Whisperbolt Sniper Rifle",
        "Quantum Rifle",
        "Stun Pistol",
        "Stasis Rifle",
    ],
    ("respawn/creating-your-team", "weapon-summary", "Assault Weapon"): [
        "Combat Knife",
        "Crusher",
        "Energy Blade",
        "Electro Maul",
        "Leech Knife",
        "Poisoned Blade",
        "Ripper Claws",
        "Shadowstrike Blade",
        "Stun Hammer",
        "Smash",
    ],
    ("squadrons/fleets/battlestar-galactica-fleets", "summary", "Ship"): [
        "Mk II Viper",
        "Raptor",
        "Cylon Raider",
        "Cylon Heavy Raider",
    ],
    ("squadrons/fleets/fractured-skies", "harbinger-clade", "Weapon"): [
        "Heavy Machine Gun",
        "Heavy Machine Gun Turret",
        "Heavy Cannon",
        "Fusion Beam",
        "Rocket Pods",
        "Eradicator Lance",
        "Fusion Bombs",
        "Concussion Missiles",
        "Plasma Cannons",
    ],
    # loadouts: the loadout names (the two weapons are told apart with the page's weapon names)
    ("respawn/creating-your-team", "weapon-loadouts", "Loadout"): ["Frontline", "Vanguard", "Commando", "Striker"],
    ("respawn/creating-your-team", "weapon-loadouts_1", "Loadout"): ["Assassin", "Ghost", "Hunter", "Stalker"],
    ("respawn/creating-your-team", "weapon-loadouts_2", "Loadout"): ["Suppressor", "Breacher", "Defender", "Support"],
    ("respawn/creating-your-team", "weapon-loadouts_3", "Loadout"): ["Barrage", "Rampage", "Pyro", "Gladiator", "Ripper"],
    # name + free text (+ points)
    ("respawn/creating-your-team", "perks", "Perk"): [
        "Onslaught",
        "Covering Fire",
        "Heavy Hitter",
        "Tactical Awareness",
        "Resilient",
        "Suppression Specialist",
        "Improved Armour",
        "Skirmisher",
    ],
    ("respawn/creating-your-team", "equipment", "Equipment"): ["Frag Grenade", "Med Pack", "Grapnel", "Shield"],
    ("respawn/creating-your-team", "perks_1", "Perk"): [
        "Camouflage",
        "Scout",
        "Sniper",
        "Weak Spot",
        "Marksman",
        "Mark Target",
        "Ghost Walk",
    ],
    ("respawn/creating-your-team", "equipment_1", "Equipment"): ["Explosive Charge", "Grapnel", "Smoke Grenade", "Targetting Drone"],
    ("respawn/creating-your-team", "perks_2", "Perk"): [
        "Grenadier",
        "Heavy Armour",
        "Medic",
        "Motivator",
        "Munitions Expert",
        "Tactical Expert",
        "Unbreakable",
    ],
    ("respawn/creating-your-team", "equipment_2", "Equipment"): ["Deployable Barricade", "Med Kit", "Smoke Grenade", "Phase Inducer"],
    ("respawn/creating-your-team", "perks_3", "Perk"): [
        "Last Stand",
        "Intimidation",
        "Bulwark",
        "Distraction",
        "Finisher",
        "Brute",
        "Smash",
    ],
    ("respawn/creating-your-team", "equipment_3", "Equipment"): [
        "Explosive Charge",
        "Stasis Grenade",
        "Shield",
        "Deployable Barricade",
        "Improved Armour",
    ],
    ("respawn/season-2-run-and-gun", "rocket-packs", "Name"): ["Rocket Jump"],
    ("respawn/module-rules", "pick-ups", "D6 Roll"): ["Health", "Adrenaline", "Grenade", "Shield", "Speed", "Damage"],
    ("devils-bluff/campaigns", "injuries", "Draw"): ["Leg Wound", "Arm Wound", "Impaired Vision", "Hardened", "Lucky", "True Grit"],
    ("devils-bluff/making-your-gang", "upgrades", "Upgrade"): [
        "Armoured Plates",
        "Aces Wild",
        "Climber",
        "Dodge Roll",
        "Gunfighter",
        "Horse",
        "Intuition",
        "Mounted Combat",
        "Move It!",
        "Quick Draw",
        "Runner",
        "Steady Hands",
    ],
    ("scraplands/building-a-team", "upgrades", "Upgrades"): [
        "Built to last",
        "Armour Plates",
        "Elite Driver",
        "Ram",
        "Spikes",
        "Turret",
        "Boost",
        "Drift",
        "J-Turn",
    ],
    ("survivors/gather-your-survivors", "upgrades", "Upgrade"): [
        "Bag of Bombs",
        "Leather Wraps",
        "Bullet Proof Vest",
        "Zombie Camouflage",
        "Med Pack",
        "Draw Attention",
        "Runner",
        "Sneak",
        "Inspiration",
        "Take down",
    ],
    ("squadrons/building-a-squadron", "ship-upgrades", "Upgrade"): [
        "Command 1",
        "Command 2",
        "Speed 1",
        "Speed 2",
        "Skilled 1",
        "Skilled 2",
        "Skilled 3",
        "Armour 1",
        "Armour 2",
        "Tough 1",
        "Tough 2",
        "Tough 3",
        "Hit Points 1",
        "Hit Points 2",
        "Agility",
        "Boost",
        "Shield",
        "Stealth 1",
        "Stealth 2",
        "Jamming",
        "Countermeasures",
        "Weapon Platform",
    ],
    ("halo-breakpoint/army-lists/covenant-army-list", "upgrades", "Upgrade"): ["Point Defence Gauntlet"],
    ("fracture/army-lists/sentinels", "upgrades_7", "Upgrade"): [
        "Advanced Scouts",
        "Adaptive Camo",
        "Combat Shield",
        "Energy Shields",
        "Smoke Launchers",
    ],
    ("fracture/army-lists/marauders", "upgrades_5", "Upgrade"): [
        "Commandos",
        "Rocket Pack",
        "Fuel Injection",
        "Big Boss",
        "Hulking Form",
    ],
    ("fracture/army-lists/the-endless", "upgrades_4", "Upgrade"): [
        "Protean Hover Frame",
        "Protean Stalker Frame",
        "Cloak of Ancients",
        "Resurrection Shard",
        "Endless Horde",
    ],
    ("fracture/army-lists/the-swarm", "upgrades_6", "Upgrade"): [
        "Armour Adaptation",
        "Ferocity Adaptation",
        "Large Wings Adaptation",
        "Regeneration Adaptation",
        "Stealth Adaptation",
        "Swift Adaptation",
        "Thick Carapace Adaptation",
        "Psionic Urging",
        "Psionic Fury",
        "Psionic Regeneration",
    ],
    ("fracture/army-lists/voidborn-corsairs", "upgrades_10", "Upgrade"): [
        "Mirage Cloak",
        "Mirage Emitters",
        "Nova Boost",
        "Organic Circuitry",
        "Soulforge",
        "Ghostwalk Augment",
        "Windwalk Augment",
        "Path of the Warrior",
        "Path of the Hunter",
    ],
    # special rule definitions: the rule names
    ("core-rules/special-rules-appendix", "unit-special-rules", "Rule"): [
        "Agile",
        "Flying",
        "Heavy Armour (X)",
        "Large",
        "Non-Scoring",
        "Platform (X)",
        "Resilient",
        "Rugged",
        "Shields",
        "Skilled",
        "Steady",
        "Stealth (X)",
        "Support",
        "Transport (X)",
        "Weak Spot (X)",
        "Vehicle",
    ],
    ("core-rules/special-rules-appendix", "weapon-special-rules", "Rules"): [
        "Accurate",
        "Arc (X)",
        "Assault",
        "Blast (X)",
        "Destructive (X)",
        "Fixed",
        "Grenade",
        "Heavy",
        "Inaccurate",
        "Indirect",
        "One Use",
        "Rapid Fire (X)",
        "Rending (X)",
        "Shred",
        "Torrent",
        "Volatile",
        "Volley",
    ],
    ("squadrons/module-rules", "unit-special-rules", "Rule"): ["Boost", "Countermeasures", "Squadron Leader", "Signal Jam"],
    ("squadrons/module-rules", "weapon-special-rules", "Rule"): ["Disruptor", "Target Lock", "Kinetic"],
    ("respawn/module-rules", "special-rules", "Special Rule"): ["Quantum Tunneling", "Stun", "Impact (X)", "Leech", "Stasis"],
    ("devils-bluff/module-rules", "special-rules", "Special Rule"): ["Longshot", "Leader"],
    ("halo-breakpoint/module-rules", "special-rules", "Model Special Rules"): [
        "Active Camo",
        "Officer",
        "Jetpack",
        "Panic",
        "Valuable Asset (X)",
    ],
    ("halo-breakpoint/module-rules", "special-rules", "Weapon Special Rules"): ["Deployable", "Plasma"],
    ("scraplands/module-rules", "special-rules", "Special Rules"): ["Fast", "Off-road", "Sturdy"],
    ("survivors/module-rules", "special-rules", "Rule"): [
        "Bad Idea",
        "Fire",
        "Loud",
        "Rare",
        "Reliable",
        "Reload",
        "Risky",
        "Silent",
    ],
    ("fracture/army-lists/the-swarm", "special-rules", "Special Rule"): ["Swarm Leader", "Psionic Field"],
    ("fracture/army-lists/the-endless", "special-rules", "Special Rule"): ["Entropy", "Reanimation (1 Cmd)", "Regeneration"],
    ("fracture/module-rules", "special-rules", "Special Rule"): ["Cowardly", "Heroic", "Long Shot", "Overcharge", "Unbreakable"],
}


# --------------------------------------------------------------------------------------------
# Row readers
# --------------------------------------------------------------------------------------------


@dataclass
class Table:
    page: str
    anchor: str
    line: int
    header: Header
    body: str
    rows: list[dict[str, Any]] = field(default_factory=list)


def _value_pattern(columns: list[Column]) -> str:
    """The regex for the cells after the name: shaped columns, optional rule list."""
    parts = []
    for col in columns:
        if col.shape == "rules":
            parts.append(rf"(?: (?P<{col.key}>{RULES}))?")
        elif col.shape == "count":
            parts.append(rf" (?P<{col.key}>{SHAPES['count']})")
        else:
            assert col.shape is not None and col.shape in SHAPES, col
            parts.append(rf" (?P<{col.key}>{SHAPES[col.shape]})")
    return "".join(parts)


def read_shaped(table: Table, names: list[str] | None) -> list[dict[str, Any]]:
    """Profile and weapon tables: a name, then cells of known shapes."""
    cols = table.header.columns
    lead = [c for c in cols if c.key == "roll"]
    name_index = next(i for i, c in enumerate(cols) if c.key == "name")
    after = cols[name_index + 1 :]
    values = _value_pattern(after)
    body = table.body
    rows: list[dict[str, Any]] = []
    if lead:
        return read_rolled_weapons(table, after)
    if names:
        for name, segment in segment_by_names(table, names, require_before=None):
            rest = segment[len(name) :]
            if rest.strip() == "":
                rows.append({"name": name, **{c.key: "" for c in after}})
                continue
            m = re.fullmatch(values, rest)
            if not m:
                raise ExtractionError(f"{table.page}#{table.anchor}: row {name!r} does not read as {[c.label for c in after]}: {rest!r}")
            rows.append({"name": name, **{c.key: (m.group(c.key) or "") for c in after}})
        return rows
    # no hints: every way to read the whole table as rows; it must be exactly one
    readings = read_tokens(body.split(" "), after, limit=2)
    if len(readings) != 1:
        what = "cannot read the rows" if not readings else "the rows read in more than one way (add HINTS)"
        raise ExtractionError(f"{table.page}#{table.anchor}: {what}: {body[:100]!r}")
    return readings[0]


RULE_TOKEN = re.compile(r"(?!-$)[^\d\s(]\S*|\(.*")
NOT_IN_NAME = re.compile(rf"-|-?\d+|\d+\+|{SHAPES['inches']}")


def read_tokens(tokens: list[str], cols: list[Column], limit: int) -> list[list[dict[str, Any]]]:
    """All readings (up to `limit`) of `tokens` as rows of: a name, then `cols`.

    A name is one or more tokens; after its first token it holds no bare number, target, inches or
    dash (those are cells). A rule list is zero or more tokens that do not begin with a digit. A weapon
    with several modes prints its name with only the points ("Plasma Pistol 0"), then rows whose
    names begin with "- ".
    """
    n = len(tokens)

    def cells(i: int, k: int, row: dict[str, Any]) -> Iterator[tuple[int, dict[str, Any]]]:
        """Every way to read cols[k:] from tokens[i:], as (next token, row so far)."""
        if k == len(cols):
            yield i, row
            return
        col = cols[k]
        if col.shape == "rules":
            j = i
            while j < n and RULE_TOKEN.fullmatch(tokens[j]):
                j += 1
            for end in range(j, i - 1, -1):
                yield from cells(end, k + 1, {**row, col.key: " ".join(tokens[i:end])})
            return
        shape = SHAPES[col.shape or ""]
        for span in (1, 2):
            if i + span <= n and re.fullmatch(shape, " ".join(tokens[i : i + span])):
                yield from cells(i + span, k + 1, {**row, col.key: " ".join(tokens[i : i + span])})

    memo: dict[int, list[list[dict[str, Any]]]] = {}

    def rows_from(i: int) -> list[list[dict[str, Any]]]:
        """Up to `limit` readings of tokens[i:]."""
        if i == n:
            return [[]]
        if i in memo:
            return memo[i]
        found: list[list[dict[str, Any]]] = []
        for j in range(i + 1, n):
            if j > i + 1 and NOT_IN_NAME.fullmatch(tokens[j - 1]):
                break
            name = " ".join(tokens[i:j])
            candidates: list[tuple[int, dict[str, Any]]] = []
            # a weapon with several modes: its name and points, then "- Mode" rows
            if any(c.key == "points" for c in cols) and j + 1 < n and tokens[j + 1] == "-" and re.fullmatch(SHAPES["points"], tokens[j]):
                candidates.append((j + 1, {"name": name, **{c.key: "" for c in cols}, "points": tokens[j]}))
            candidates.extend(cells(j, 0, {"name": name}))
            for end, row in candidates:
                for rest in rows_from(end):
                    found.append([row, *rest])
                    if len(found) >= limit:
                        memo[i] = found
                        return found
        memo[i] = found
        return found

    return rows_from(0)


def read_rolled_weapons(table: Table, after: list[Column]) -> list[dict[str, Any]]:
    """Big Guns: roll, weapon, profile, then rules that end with free text; cut at the next roll."""
    body = table.body
    starts = roll_starts(body, name_then=rf"[A-Z][\w'-]*(?: [A-Z][\w'-]*)* {SHAPES['inches']} ")
    rows = []
    profile = [c for c in after if c.key != "rules"]
    values = "".join(rf" (?P<{c.key}>{SHAPES[c.shape or '']})" for c in profile)
    for (roll, _start, text_start), nxt in zip(starts, [*starts[1:], None], strict=True):
        end = nxt[1] - 1 if nxt else len(body)
        segment = body[text_start:end]
        m = re.match(rf"(?P<name>[A-Z].*?){values}(?: (?P<rules>.*))?$", segment)
        if not m:
            raise ExtractionError(f"{table.page}#{table.anchor}: roll {roll} does not read: {segment[:80]!r}")
        rows.append(
            {
                "roll": roll,
                "name": m.group("name"),
                **{c.key: m.group(c.key) for c in profile},
                "rules": rule_labels(m.group("rules") or ""),
            }
        )
    return rows


RULE_LABEL = re.compile(r"[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)*(?: \([^()]*\))?")


def rule_labels(cell: str) -> str:
    """A rule list that may end in rule text ("Rapid Fire (1), Displace: Instead of ..."): the rule names.

    Items are read up to the first one that carries a definition ("Name: text"), whose name is kept;
    an item that is a sentence rather than a rule name ends the list without being kept.
    """
    labels = []
    rest = cell.strip()
    while rest:
        m = re.match(r"([^,:]*)(,|:|$) ?", rest)
        assert m
        item, sep = m.group(1).strip(), m.group(2)
        if not RULE_LABEL.fullmatch(item):
            break
        labels.append(item)
        if sep != ",":
            break
        rest = rest[m.end() :]
    return ", ".join(labels)


def roll_starts(body: str, name_then: str = r"[A-Z]", names: list[str] | None = None) -> list[tuple[str, int, int]]:
    """Where the rows of a roll table begin: roll values that continue the sequence (1-3, 4-5, 6),
    followed by a capitalised word (or by the hinted row name)."""
    found: list[tuple[str, int, int]] = []
    expected: int | None = None
    pos = 0
    while True:
        after = name_then
        if names is not None:
            if len(found) == len(names):
                break
            after = re.escape(names[len(found)]) + r"(?: |$)"
        m = re.compile(rf"(?:^| )(?P<roll>{ROLL}) (?={after})").search(body, pos)
        if not m:
            break
        lo = int(m.group("lo"))
        hi = int(m.group("hi")) if m.group("hi") else lo
        if (expected is None and m.start() == 0) or lo == expected:
            found.append((m.group("roll"), m.start("roll"), m.end()))
            expected = hi + 1
        pos = m.end("roll")
    if not found:
        raise ExtractionError(f"no roll values in {body[:60]!r}")
    return found


def segment_by_names(table: Table, names: list[str], require_before: str | None) -> list[tuple[str, str]]:
    """Cut a table body at the hinted row names (each must occur, in order, at a row boundary).

    `require_before` is a regex the text just before a name (after the first) must end with, e.g. a
    points value; it keeps a name that also occurs inside the previous row's text from cutting there.
    """
    body = table.body
    positions = []
    pos = 0
    for i, name in enumerate(names):
        regex = re.compile(rf"(?:^| ){re.escape(name)}(?= |$)")
        occurrences = [m.start() + (1 if body[m.start()] == " " else 0) for m in regex.finditer(body, pos)]
        if not occurrences:
            raise ExtractionError(f"{table.page}#{table.anchor}: hinted row name {name!r} not found (in order) in {body[pos : pos + 80]!r}")
        if i == 0 and occurrences[0] != 0:
            raise ExtractionError(f"{table.page}#{table.anchor}: the table does not begin with {name!r}: {body[:60]!r}")
        preferred = [o for o in occurrences if require_before and re.search(rf"(?:^| ){require_before}$", body[:o].rstrip())]
        start = (preferred or occurrences)[0]
        positions.append(start)
        pos = start + len(name)
    segments = []
    for i, (name, start) in enumerate(zip(names, positions, strict=True)):
        end = positions[i + 1] if i + 1 < len(positions) else len(body)
        segments.append((name, body[start:end].strip()))
    return segments


def read_named(table: Table, names: list[str]) -> list[dict[str, Any]]:
    """Name, then free text, with a points or type cell at a fixed place."""
    cols = table.header.columns
    keys = [c.key for c in cols]
    trailing_points = keys[-1] == "points"
    rows = []
    for name, segment in segment_by_names(table, names, require_before=SHAPES["points"] if trailing_points else None):
        rest = segment[len(name) :].strip()
        row: dict[str, Any] = {"name": name}
        if "type" in keys:
            word, _, rest = rest.partition(" ")
            row["type"] = word
        if keys[1:2] == ["points"]:  # Name Cost Effect
            m = re.match(rf"({SHAPES['cp']}|{SHAPES['points']})(?: |$)", rest)
            if not m:
                raise ExtractionError(f"{table.page}#{table.anchor}: {name!r} has no cost: {rest[:40]!r}")
            row["points"] = m.group(1)
        elif trailing_points:
            m = re.search(rf"(?:^| )({SHAPES['points']})$", rest)
            row["points"] = m.group(1) if m else ""
            text = rest[: m.start()] if m else rest
            if re.search(r"\.\s+\d+\*?\s+[A-Z]", text):
                raise ExtractionError(f"{table.page}#{table.anchor}: {name!r} looks like it swallowed another row: {text!r}")
        rows.append(row)
    return rows


def read_rules(table: Table, names: list[str]) -> list[dict[str, Any]]:
    return [{"name": name} for name, _ in segment_by_names(table, names, require_before=None)]


def read_roll(table: Table, names: list[str] | None) -> list[dict[str, Any]]:
    keys = [c.key for c in table.header.columns]
    body = table.body
    starts = roll_starts(body, names=names if "name" in keys else None)
    rows = []
    for (roll, _start, text_start), nxt in zip(starts, [*starts[1:], None], strict=True):
        end = nxt[1] - 1 if nxt else len(body)
        text = body[text_start:end].strip()
        row: dict[str, Any] = {"roll": roll}
        if "name" in keys:
            if not names:
                raise ExtractionError(f"{table.page}#{table.anchor}: a roll table with names needs HINTS")
            name = names[len(rows)]
            if not text.startswith(name + " "):
                raise ExtractionError(f"{table.page}#{table.anchor}: roll {roll} does not begin with {name!r}: {text[:40]!r}")
            row["name"] = name
        if "label" in keys:
            label, sep, _ = text.partition(" - ")
            if not sep:
                raise ExtractionError(f"{table.page}#{table.anchor}: roll {roll} has no 'Label - text' result")
            row["label"] = label
        rows.append(row)
    if names and len(names) != len(rows):
        raise ExtractionError(f"{table.page}#{table.anchor}: {len(rows)} rolls but {len(names)} hinted names")
    return rows


def read_counter(table: Table) -> list[dict[str, Any]]:
    rows = []
    for m in re.finditer(rf"(?:^| )(?P<text>Damage is .+?) (?P<counter>{SHAPES['counter']})(?= |$)", table.body):
        rows.append({"counter": m.group("counter")})
    if not rows:
        raise ExtractionError(f"{table.page}#{table.anchor}: no rows")
    return rows


def read_loadouts(table: Table, names: list[str], weapons: set[str]) -> list[dict[str, Any]]:
    """Loadout, primary weapon, secondary weapon: the weapons are split with the page's weapon names."""
    rows = []
    for name, segment in segment_by_names(table, names, require_before=None):
        rest = segment[len(name) :].strip().split(" ")
        splits = []
        for i in range(1, len(rest)):
            primary, secondary = " ".join(rest[:i]), " ".join(rest[i:])
            score = (primary in weapons) + (secondary in weapons)
            splits.append((score, primary, secondary))
        best = max(s[0] for s in splits)
        chosen = [s for s in splits if s[0] == best]
        if best == 0 or len(chosen) != 1:
            raise ExtractionError(f"{table.page}#{table.anchor}: cannot split the weapons of {name!r}: {' '.join(rest)!r}")
        rows.append({"name": name, "primary": chosen[0][1], "secondary": chosen[0][2]})
    return rows


# --------------------------------------------------------------------------------------------
# Pages
# --------------------------------------------------------------------------------------------

ANCHOR = re.compile(r"<!-- anchor: #(?P<anchor>[^ ]+) -->")


def find_tables(sources: Path) -> list[Table]:
    tables: list[Table] = []
    for path in sorted(sources.rglob("*.md")):
        page = path.relative_to(sources).with_suffix("").as_posix()
        anchor = ""
        for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            m = ANCHOR.search(raw)
            if m:
                anchor = m.group("anchor")
                continue
            line = " ".join(raw.split())
            if not line or line.startswith(("#", "<!--", "- ", "* ")):
                continue
            if header_at(line, 0) is None:
                continue
            for header, body in split_tables(line):
                tables.append(Table(page, anchor, number, header, body))
    return tables


def extract(sources: Path) -> dict[str, Any]:
    """Every table of every source page, its columns and its rows (cells that must carry over)."""
    if not sources.is_dir():
        raise ExtractionError(f"source folder not found: {sources}")
    tables = find_tables(sources)
    used_hints: set[tuple[str, str, str]] = set()
    weapons_by_page: dict[str, set[str]] = {}

    def hints(table: Table) -> list[str] | None:
        key = (table.page, table.anchor, table.header.columns[0].label)
        if key in HINTS:
            used_hints.add(key)
            return HINTS[key]
        return None

    # weapons first: loadouts are split with the page's weapon names
    for table in tables:
        kind = table.header.kind
        if kind in ("profile", "weapon"):
            table.rows = read_shaped(table, hints(table))
            if kind == "weapon":
                weapons_by_page.setdefault(table.page, set()).update(r["name"] for r in table.rows)
    for table in tables:
        kind = table.header.kind
        names = hints(table)
        if kind == "named":
            if not names:
                raise ExtractionError(f"{table.page}#{table.anchor}: {table.header.text!r} needs HINTS (row names)")
            table.rows = read_named(table, names)
        elif kind == "rules":
            if not names:
                raise ExtractionError(f"{table.page}#{table.anchor}: {table.header.text!r} needs HINTS (rule names)")
            table.rows = read_rules(table, names)
        elif kind == "roll":
            table.rows = read_roll(table, names)
        elif kind == "counter":
            table.rows = read_counter(table)
        elif kind == "loadout":
            if not names:
                raise ExtractionError(f"{table.page}#{table.anchor}: loadouts need HINTS")
            table.rows = read_loadouts(table, names, weapons_by_page.get(table.page, set()))
    unused = set(HINTS) - used_hints
    if unused:
        raise ExtractionError(f"HINTS for tables that were not found: {sorted(unused)}")

    pages: dict[str, list[dict[str, Any]]] = {}
    for table in tables:
        pages.setdefault(table.page, []).append(
            {
                "anchor": table.anchor,
                "source_line": table.line,
                "kind": table.header.kind,
                "header": [c.label for c in table.header.columns],
                "keys": [c.key for c in table.header.columns if c.shape is not None],
                # Big Guns: the rule cells end in rule text; only the rule names were kept
                "labels_only": ["rules"] if table.header.kind == "weapon" and table.header.columns[0].key == "roll" else [],
                "rows": table.rows,
            }
        )
    return {
        "about": "Generated by tests/tools/extract_source_rows.py from shared/sources/cadence-site; do not edit by hand.",
        "pages": pages,
    }


def render(data: dict[str, Any]) -> str:
    """The JSON text: one line per table field and per row, so that a diff shows the changed row."""

    def one(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    lines = ["{", f' "about": {one(data["about"])},', ' "pages": {']
    pages = list(data["pages"].items())
    for p, (page, tables) in enumerate(pages):
        lines.append(f"  {one(page)}: [")
        for t, table in enumerate(tables):
            lines.append("   {")
            for key, value in table.items():
                if key != "rows":
                    lines.append(f"    {one(key)}: {one(value)},")
            lines.append('    "rows": [')
            rows = table["rows"]
            lines.extend(f"     {one(row)}{',' if r + 1 < len(rows) else ''}" for r, row in enumerate(rows))
            lines.append("    ]")
            lines.append("   }" + ("," if t + 1 < len(tables) else ""))
        lines.append("  ]" + ("," if p + 1 < len(pages) else ""))
    lines.extend([" }", "}"])
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == data
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=Path, default=DEFAULT_SOURCES)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--check", action="store_true", help="only check that the output file is up to date")
    args = parser.parse_args(argv)
    try:
        text = render(extract(args.sources))
    except ExtractionError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is out of date; run {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    data = json.loads(text)
    n_tables = sum(len(t) for t in data["pages"].values())
    n_rows = sum(len(t["rows"]) for ts in data["pages"].values() for t in ts)
    print(f"wrote {args.output}: {len(data['pages'])} pages, {n_tables} tables, {n_rows} rows")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
