"""`cadence roster`: one located line per broken army-building rule, exit codes as `cadence check`.

Each case is a small roster and the exact line it must produce; the expected totals are added up by
hand from the printed army lists, never by calling the cost functions.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from generator.cli import main
from generator.export import ROSTER_CODES, ModuleExport, export_project
from generator.pages import load_project
from generator.report import format_problems
from generator.roster import check_roster_file

from .conftest import MINI, REPO, copy_project

WASTELAND = REPO / "examples" / "wasteland-tactics"


def roster(tmp_path: Path, text: str, name: str = "roster.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], path: Path, *extra: str, project: Path = REPO) -> tuple[int, list[str]]:
    code = main(["-C", str(project), "roster", str(path), *extra])
    return code, capsys.readouterr().out.splitlines()


LEGAL = """\
format_version: 1
module: fracture
list: Marauders
points: 1000
units:
  - unit: Warlord
    models:
      - {model: Warlord in Juggernaut Armour, weapons: [Slammer, Cleaver], upgrades: [Big Boss]}
  - unit: Grunts
    models:
      - {model: Grunt, count: 10, weapons: [Scattergun, Frag Grenade]}
  - unit: Grunts
    models: [{model: Grunt, count: 10, weapons: [Scattergun, Frag Grenade]}]
  - unit: Grunts
    models: [{model: Grunt, count: 10, weapons: [Scattergun, Frag Grenade]}]
  - unit: Hauler
    models:
      - {model: Hauler, weapons: [Havoc Rockets]}
"""


def test_legal_roster_is_clean_with_its_total(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, roster(tmp_path, LEGAL))
    # 110 + 15 + 5 + 2 (Warlord) + 3 × 10 × (8 + 2 + 2) (Grunts) + 90 + 10 (Hauler)
    assert out[0].endswith("total 592 points")
    assert out[-1] == "no problems found"
    assert code == 0


def test_json_output_has_total_unit_costs_and_problems(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, roster(tmp_path, LEGAL.replace("points: 1000", "points: 300")), "--format", "json")
    result = json.loads(out[0])
    assert result["total"] == 592 and result["unit_costs"] == [132, 120, 120, 120, 100]
    assert result["problems"] == [
        {
            "severity": "error",
            "code": "roster-total",
            "message": "the army costs 592 points, more than the 300 points it may spend",
            "path": "points",
        }
    ]
    assert code == 1


HALO = """\
module: halo-breakpoint
list: unsc-army-list
points: 49
units:
  - unit: UNSC Marines
    models:
      - {model: Marine Sergeant, count: 1}
      - {model: Marine, count: 4, weapons: [M90 Shotgun]}
  - unit: UNSC Marines
    reinforcements: true
    models:
      - {model: Marine Sergeant, count: 1}
      - {model: Marine, count: 4, weapons: [M90 Shotgun]}
"""


#: The Endless with a Unique Weapon on its Lord Ascendant: each weapon of that list may appear once in the army.
ENDLESS = """\
format_version: 1
module: fracture
list: The Endless
points: 1000
units:
  - unit: Lord Ascendant
    models:
      - {model: Lord Ascendant, weapons: [Particle Caster, Necroflux Gauntlet], upgrades: [Cloak of Ancients]}
  - unit: Warrior Host
    models: [{model: Warrior, count: 10, weapons: [Particle Rifle]}]
  - unit: Warrior Host
    models: [{model: Warrior, count: 10, weapons: [Particle Rifle]}]
  - unit: Warrior Host
    models: [{model: Warrior, count: 10, weapons: [Particle Rifle]}]
"""


def test_a_unique_weapon_taken_once_is_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, roster(tmp_path, ENDLESS))
    # 65 + 1 + 18 + 4 (Lord Ascendant with Particle Caster, Necroflux Gauntlet, Cloak of Ancients) + 3 × 10 × (7 + 3)
    assert out[0].endswith("total 388 points")
    assert out[-1] == "no problems found"
    assert code == 0


#: Two weapon rules no shipped unit has, written into a copy of the fixture project (tests/fixtures/mini): a
#: Ranger takes at least one weapon over all its options, which alone allow none, and the Sky Riders, now up to
#: three, trade their Lances for Carbines all together or not at all.
RANGER_RULES = [
    (
        "                - {lists: [Sidearms], min: 1, max: 1}\n",
        "                - {lists: [Sidearms], min: 0, max: 1}\n              total: {min: 1}\n",
    ),
    ("              models: {min: 1, max: 1}\n", "              models: {min: 1, max: 3}\n"),
    (
        "              fixed: [Lance]\n",
        "              fixed: [Lance]\n              swaps:\n                - {replace: Lance, with: [Carbine], models: all}\n",
    ),
]


def case(text: str, line: str, id: str, project: str = "shipped") -> pytest.ParameterSet:
    """A roster, the located line it must produce, and the project it is checked against: the shipped data, or
    "rangers", the fixture project with `RANGER_RULES`."""
    return pytest.param(text, line, project, id=id)


CASES = [
    case(
        LEGAL + "  - unit: Warlord\n    models:\n      - {model: Warlord}\n",
        "roster.yaml:5:1: error[roster-per-army-max]: the army may include at most 1 'Warlord' (it has 2)",
        id="per-army",
    ),
    case(
        LEGAL + "  - unit: Hauler\n    models:\n      - {model: Hauler, weapons: [Havoc Rockets]}\n" * 3,
        "roster.yaml:5:1: error[roster-per-unit]: 'Hauler' is taken 4 times; one for every 'Grunts' allows 3",
        id="one-for-every",
    ),
    case(
        LEGAL.replace("count: 10,", "count: 3,", 1),
        "roster.yaml:9:5: error[roster-models-min]: 'Grunts' has 3 models; it needs at least 5",
        id="models-in-composition",
    ),
    case(
        LEGAL.replace("[Scattergun, Frag Grenade]", "[Scattergun, Earthshaker]", 1),
        "roster.yaml:11:57: error[roster-weapon]: 'Grunt' in 'Grunts' may not take 'Earthshaker'",
        id="weapon-not-offered",
    ),
    case(
        LEGAL.replace("weapons: [Havoc Rockets]", "weapons: []"),
        "roster.yaml:18:9: error[roster-option-min]: 'Hauler' in 'Hauler' takes 0 weapons from 'Mounted Secondary Weapons'; it needs at least 1",
        id="option-min",
    ),
    case(
        LEGAL.replace("weapons: [Havoc Rockets]", "weapons: [Havoc Rockets, Heavy Scorcher, Havoc Rockets]"),
        "roster.yaml:18:9: error[roster-option-max]: 'Hauler' in 'Hauler' takes 3 weapons from 'Mounted Secondary Weapons'; it may take at most 2",
        id="option-max",
    ),
    case(
        LEGAL.replace(
            "      - {model: Grunt, count: 10, weapons: [Scattergun, Frag Grenade]}\n",
            "      - {model: Grunt, count: 7, weapons: [Scattergun, Frag Grenade]}\n"
            "      - {model: Grunt, count: 3, weapons: [Spitfire, Frag Grenade]}\n",
        ),
        "roster.yaml:9:5: error[roster-swap-models]: 'Grunts' has 3 models trading 'Standard Sidearms / Standard Weapons'; at most 2 may",
        id="swap-models",
    ),
    case(
        LEGAL.replace("[Scattergun, Frag Grenade]}", "[Slugger Pistol, Scattergun, Spitfire]}", 1),
        "roster.yaml:11:9: error[roster-option-max]: 'Grunt' in 'Grunts' takes 2 weapons from 'Standard Sidearms'; it may take at most 1",
        id="swap-fills-the-place-it-takes",
    ),
    case(
        HALO.replace("{model: Marine Sergeant, count: 1}", "{model: Marine Sergeant, count: 1, weapons: [M90 Shotgun]}", 1),
        "roster.yaml:7:9: error[roster-swap-gives-up]: 'Marine Sergeant' in 'UNSC Marines' may take 'M90 Shotgun' only in place of "
        "'MA5 Assault Rifle', which it does not carry",
        id="swap-gives-up",
    ),
    case(
        HALO.replace("weapons: [M90 Shotgun]}", "weapons: [M90 Shotgun, BR55 Service Rifle]}", 1),
        "roster.yaml:8:9: error[roster-swap-once]: 'Marine' in 'UNSC Marines' takes 'BR55 Service Rifle' in place of "
        "'MA5 Assault Rifle' a second time; a model trades it once",
        id="swap-once",
    ),
    case(
        HALO + ("  - unit: UNSC Marines\n    reinforcements: true\n    models: [{model: Marine, count: 5}]\n" * 2),
        "roster.yaml:4:1: error[roster-reinforcements]: the Reinforcements cost 129 points, more than the 100 points allowed",
        id="reinforcements",
    ),
    case(
        HALO.replace("points: 49", "points: 40"),
        "roster.yaml:3:9: error[roster-total-without-reinforcements]: the army without its Reinforcements costs 49 points, "
        "more than the 40 points it may spend",
        id="game-size-without-reinforcements",
    ),
    case(
        LEGAL.replace("  - unit: Hauler\n", "  - unit: Hauler\n    reinforcements: true\n"),
        "roster.yaml:17:5: error[roster-no-reinforcements]: 'Hauler' is held back as reinforcements, but Fracture has none",
        id="no-reinforcements",
    ),
    case(
        "module: devils-bluff\nlist: making-your-gang\nunits:\n  - unit: Gang Leader\n    models: [{model: Leader, upgrades: [Horse]}]\n"
        "  - unit: Hired Guns\n    models: [{model: Hired Gun, count: 2, upgrades: [Horse]}]\n",
        "roster.yaml:3:1: error[roster-upgrade-per-army]: the gang takes 'Horse' 3 times, more than its limit: max 2 per gang",
        id="upgrade-limit-per-army",
    ),
    case(
        ENDLESS.replace(
            "  - unit: Warrior Host\n",
            "  - unit: Lord Ascendant on Command Ark\n    models:\n"
            "      - {model: Lord Ascendant on Command Ark, weapons: [Necroflux Gauntlet]}\n"
            "  - unit: Warrior Host\n",
            1,
        ),
        "roster.yaml:5:1: error[roster-weapon-per-army]: the army may include at most 1 'Necroflux Gauntlet' from 'Unique Weapons' (it has 2)",
        id="weapon-limit-per-army",
    ),
    case(
        ENDLESS.replace("[Particle Caster, Necroflux Gauntlet]", "[Particle Caster, Necroflux Gauntlet, Rending Claws]"),
        "roster.yaml:8:9: error[roster-weapon-count-max]: 'Lord Ascendant' in 'Lord Ascendant' takes too many weapons: 3, at most 2",
        id="weapon-count-max",
    ),
    case(
        ENDLESS.replace("count: 10,", "count: 11,", 1),
        "roster.yaml:9:5: error[roster-models-max]: 'Warrior Host' has 11 models; it may have at most 10",
        id="models-max",
    ),
    case(
        ENDLESS.replace("list: The Endless", "list: The Endles"),
        "roster.yaml:3:7: error[roster-unknown-list]: 'The Endles' is not one of the lists of Fracture",
        id="unknown-list",
    ),
    case(
        "module: scraplands\nlist: Building a Team\nunits:\n  - unit: Cars\n    models: [{model: Wreck, upgrades: [Turret, Turret]}]\n",
        "roster.yaml:5:14: error[roster-upgrade-per-model]: 'Wreck' in 'Cars' takes 'Turret' 2 times, more than its limit: one per car",
        id="upgrade-limit-per-model",
    ),
    case(
        "module: survivors\nlist: Gather your Survivors\nunits:\n  - unit: Survivor Groups\n    models:\n"
        "      - {model: Hunter, count: 2, weapons: [Shotgun, Knife], upgrades: [Sneak]}\n",
        "roster.yaml:4:5: error[roster-model-limit-min]: 'Survivor Groups' has 0 'Leader'; it needs at least 1",
        id="model-limit-min",
    ),
    case(
        "module: survivors\nlist: Gather your Survivors\nunits:\n  - unit: Survivor Groups\n    models:\n"
        "      - {model: Leader, count: 1, weapons: [Assault Rifle, Shotgun, Heavy Club], upgrades: [Runner]}\n",
        # 8 + 6 + 2 + 3 on a Leader who costs 16
        "roster.yaml:6:9: error[roster-spending-cap]: 'Leader' in 'Survivor Groups' spends 19 points on weapons and upgrades, "
        "more than its cap of 16",
        id="spending-cap-own-cost",
    ),
    case(
        LEGAL.replace("upgrades: [Big Boss]", "upgrades: [Rocket Pack]"),
        "roster.yaml:8:87: error[roster-upgrade]: 'Warlord in Juggernaut Armour' in 'Warlord' may not take 'Rocket Pack'",
        id="upgrade-not-offered",
    ),
    case(
        LEGAL.split("  - unit: Grunts")[0],
        "roster.yaml:5:1: error[roster-share-max]: Command costs 132 points, 100% of the army; it may be at most 25%",
        id="category-share",
    ),
    case(
        "module: fracture\nlist: Marauders\nunits:\n  - unit: Wreckers\n    models:\n"
        "      - {model: Wrecker, count: 2, weapons: [Spitfire]}\n      - {model: Wrecker, count: 1, weapons: [Scorcher]}\n",
        "roster.yaml:4:5: error[roster-same-weapons]: every model in 'Wreckers' must carry the same weapons",
        id="same-weapons",
    ),
    case(
        "module: devils-bluff\nlist: making-your-gang\nunits:\n  - unit: Gang Leader\n    models:\n"
        "      - {model: Leader, weapons: [Shotgun, Rifle], upgrades: [Aces Wild, Horse]}\n"
        "  - unit: Hired Guns\n    models: [{model: Hired Gun}]\n  - unit: Hired Guns\n    models: [{model: Hired Gun}]\n",
        # 18 + 12 + 20 + 16 dollars of gear on a Leader whose cap is 60
        "roster.yaml:6:9: error[roster-spending-cap]: 'Leader' in 'Gang Leader' spends 66 dollars on weapons and upgrades, more than its cap of 60",
        id="spending-cap",
    ),
    case(
        "module: devils-bluff\nlist: making-your-gang\nunits:\n  - unit: Gang Leader\n    models: [{model: Leader}]\n",
        "roster.yaml:3:1: error[roster-per-army-min]: the gang must include at least 2 'Hired Guns' (it has 0)",
        id="required-units",
    ),
    case(
        "module: survivors\nlist: Gather your Survivors\nunits:\n  - unit: Survivor Groups\n    models:\n"
        "      - {model: Leader, count: 2}\n      - {model: Hunter, count: 3}\n      - {model: Civilian, count: 5}\n",
        "roster.yaml:4:5: error[roster-model-limit]: 'Survivor Groups' has 2 'Leader'; it may have at most 1",
        id="model-limit",
    ),
    case(
        "module: survivors\nlist: Gather your Survivors\nunits:\n  - unit: Survivor Groups\n    models:\n"
        "      - {model: Leader, count: 1}\n      - {model: Civilian, count: 10}\n",
        # 16 + 10 × 9
        "roster.yaml:3:1: error[roster-budget]: the group costs 106 points, more than the budget of 100 points",
        id="budget",
    ),
    case(
        "module: scraplands\nlist: Building a Team\nunits:\n"
        "  - unit: Cars\n    models: [{model: Truck, weapons: [Rocket Launcher], upgrades: [Turret, Built to Last, Armour Plates]}]\n"
        "  - unit: Cars\n    models: [{model: Wreck}]\n",
        # the Truck costs 250 + 115 + 55 + 50 + 50 = 520: 270 beyond 250, and the two cars share 2 × 100
        "roster.yaml:3:1: error[roster-item-budget]: the team spends 270 credits beyond 250 credits per unit, more than the shared 200",
        id="item-budget-and-pool",
    ),
    case(
        "module: halo-breakpoint\nlist: unsc-army-list\npoints: 300\nunits:\n"
        "  - unit: UNSC Marines\n    models: [{model: Marine Sergeant}, {model: Marine, count: 4}]\n"
        "  - unit: Warthog\n    models: [{model: Warthog, weapons: [M79 MLRS]}]\n",
        "roster.yaml:4:1: error[roster-category-size]: Vehicles units are used only in games of at least 400 points",
        id="category-game-size",
    ),
    case(
        "module: survivors\nlist: Gather your Survivors\nunits:\n" + "  - unit: Survivor Groups\n    models: [{model: Leader}]\n" * 11,
        "roster.yaml:3:1: error[roster-max-units]: the group has 11 units; at most 10 are allowed",
        id="max-units",
    ),
    case(
        "module: halo-breakpoint\nlist: unsc-army-list\nunits:\n"
        "  - unit: UNSC Marine Weapons Team\n    models: [{model: Marine, count: 2, weapons: [M6 Pistol, M9 Grenade]}]\n",
        "roster.yaml:4:5: error[roster-option-models]: 'UNSC Marine Weapons Team' has 2 models taking weapons from "
        "'M6 Pistol / M9 Grenade'; at most 1 may",
        id="option-for-one-model",
    ),
    case(
        "module: fracture\nlist: Marauders\nunits:\n"
        "  - unit: Grunts\n    models: [{model: Grunt, count: 5, weapons: [Scattergun, Frag Grenade]}]\n"
        "  - unit: Scrapper Tank\n    models: [{model: Scrapper Tank}]\n"
        "  - unit: Wreckers\n    models: [{model: Wrecker, count: 3}]\n",
        # Grunts 5 × (8 + 2 + 2) = 60 of 60 + 170 (Scrapper Tank) + 3 × 12 (Wreckers) = 266
        "roster.yaml:3:1: error[roster-share-min]: Standard costs 60 points, 22% of the army; it must be at least 25%",
        id="category-share-min",
    ),
    case(
        "module: halo-breakpoint\nlist: Covenant\nunits:\n  - unit: Hunter\n    models: [{model: Hunter}]\n",
        "roster.yaml:3:1: error[roster-taken-in]: 'Hunter' comes in groups of 2; the army has 1",
        id="taken-in-pairs",
    ),
    case(
        "module: fracture\nlist: The Swarm\nunits:\n  - unit: Psionic Queen\n    models:\n"
        "      - {model: Psionic Queen, weapons: [Neural Blast], upgrades: [Psionic Fury, Psionic Urging, Thick Carapace Adaptation, "
        "Regeneration Adaptation]}\n",
        "roster.yaml:6:9: error[roster-upgrade-count-max]: 'Psionic Queen' in 'Psionic Queen' takes too many upgrades: 4, at most 3",
        id="upgrade-count-max",
    ),
    case(
        "module: fracture\nlist: The Swarm\nunits:\n  - unit: Psionic Queen\n    models: [{model: Psionic Queen, weapons: [Neural Blast]}]\n",
        "roster.yaml:5:14: error[roster-upgrade-count-min]: 'Psionic Queen' in 'Psionic Queen' takes too few upgrades: 0, at least 2",
        id="upgrade-count-min",
    ),
    case(
        "module: skirmish\nlist: Rangers\nunits:\n  - unit: Ranger Squad\n    models:\n"
        "      - {model: Ranger, count: 2, weapons: [Pistol]}\n      - {model: Ranger}\n",
        "roster.yaml:7:9: error[roster-weapon-count-min]: 'Ranger' in 'Ranger Squad' takes too few weapons: 0, at least 1",
        id="weapon-count-min",
        project="rangers",
    ),
    case(
        "module: skirmish\nlist: Rangers\nunits:\n  - unit: Ranger Squad\n    models: [{model: Ranger, count: 3, weapons: [Pistol]}]\n"
        "  - unit: Sky Rider\n    models:\n      - {model: Sky Rider, weapons: [Carbine]}\n      - {model: Sky Rider}\n",
        "roster.yaml:6:5: error[roster-swap-all]: 'Sky Rider' has 1 of 2 models trading 'Lance'; all of them or none must",
        id="swap-all",
        project="rangers",
    ),
]


#: Roster codes no test of this file plants.
NOT_PLANTED = {
    "roster-link",  # the builder's own: a link it cannot read (tests/browser/test_builder.py)
}


def test_every_roster_code_has_a_case() -> None:
    """Each code of the roster registry (the `Labels` fields that word them) is asserted by a test of this file,
    apart from those excused above: a new code needs its case."""
    source = Path(__file__).read_text(encoding="utf-8")
    asserted = set(re.findall(r"(?:error|warning)\[(roster-[\w-]+)\]|\"code\": \"(roster-[\w-]+)\"", source))
    covered = {code for pair in asserted for code in pair if code}
    assert set(ROSTER_CODES) - covered - NOT_PLANTED == set()
    assert set(ROSTER_CODES) - covered >= NOT_PLANTED, "a code excused from planting is planted or no longer registered"


@pytest.fixture(scope="module")
def exports() -> dict[str, ModuleExport]:
    loaded = load_project(REPO)
    assert loaded.project is not None
    return export_project(loaded.project)


@pytest.fixture(scope="module")
def rangers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ModuleExport]:
    """The exports of a copy of the fixture project with `RANGER_RULES` written in."""
    project = copy_project(MINI, tmp_path_factory.mktemp("rangers"))
    army = project / "data" / "skirmish" / "army-lists" / "rangers.yaml"
    text = army.read_text(encoding="utf-8")
    for old, new in RANGER_RULES:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    army.write_text(text, encoding="utf-8")
    loaded = load_project(project)
    assert loaded.project is not None and loaded.problems == []
    return export_project(loaded.project)


@pytest.mark.parametrize(("text", "line", "project"), CASES)
def test_each_broken_rule_is_one_located_line(tmp_path: Path, request: pytest.FixtureRequest, text: str, line: str, project: str) -> None:
    """The function `cadence roster` calls, on the data loaded once (the command itself is run above and below)."""
    path = roster(tmp_path, text)
    exports = request.getfixturevalue({"shipped": "exports", "rangers": "rangers"}[project])
    _verdict, problems, _export = check_roster_file(path, "roster.yaml", exports)
    lines = format_problems(problems).splitlines()
    assert line in lines, "\n".join(lines)


def test_names_the_data_lacks_are_errors_with_the_nearest_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A misspelt unit, model, weapon or upgrade is an error (exit 1, without --strict): an illegal army with a typo
    never passes. The hint names the nearest name the data has; a name near none has no hint."""
    text = (
        LEGAL.replace("[Slammer, Cleaver]", "[Slammer, Retired Blaster]")
        .replace("upgrades: [Big Boss]", "upgrades: [Big Bos]")
        .replace("{model: Grunt, count: 10, weapons: [Scattergun, Frag Grenade]}", "{model: Grnt, count: 10, weapons: [Scatergun]}", 1)
        + "  - unit: Disbanded Gunners\n    models: [{model: Gunner}]\n  - unit: Haular\n    models: [{model: Hauler}]\n"
    )
    path = roster(tmp_path, text)
    code, out = run(capsys, path)
    assert f"{path}:8:66: error[roster-dropped]: dropped weapon 'Retired Blaster': Marauders has no such weapon" in out
    assert (
        f"{path}:8:95: error[roster-dropped]: dropped upgrade 'Big Bos': Marauders has no such upgrade (hint: did you mean 'Big Boss'?)"
        in out
    )
    hint = "(hint: did you mean 'Grunt'?)"
    assert f"{path}:11:17: error[roster-dropped]: dropped model 'Grnt': Grunts has no such model {hint}" in out
    assert f"{path}:19:11: error[roster-dropped]: dropped unit 'Disbanded Gunners': Marauders has no such unit" in out
    assert f"{path}:21:11: error[roster-dropped]: dropped unit 'Haular': Marauders has no such unit (hint: did you mean 'Hauler'?)" in out
    assert code == 1
    weapon = LEGAL.replace("[Scattergun, Frag Grenade]", "[Scatergun, Frag Grenade]", 1)
    code, out = run(capsys, roster(tmp_path, weapon))
    assert any(
        line.endswith("error[roster-dropped]: dropped weapon 'Scatergun': Marauders has no such weapon (hint: did you mean 'Scattergun'?)")
        for line in out
    )
    assert code == 1


def test_a_compulsory_weapon_listed_is_accepted_and_charged_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The Psionic Queen always carries Razor Claws: a roster may list them, and they cost nothing more; listed a
    second time, they are a choice the Queen may not make (and are charged)."""
    queen = """\
format_version: 1
module: fracture
list: The Swarm
points: 1000
units:
  - unit: Psionic Queen
    models: [{model: Psionic Queen, weapons: [WEAPONS], upgrades: [Psionic Urging, Psionic Fury]}]
"""
    code, out = run(capsys, roster(tmp_path, queen.replace("WEAPONS", "Neural Blast")), "--format", "json")
    unlisted = json.loads(out[0])
    code, out = run(capsys, roster(tmp_path, queen.replace("WEAPONS", "Razor Claws, Neural Blast")), "--format", "json")
    listed = json.loads(out[0])
    assert listed == unlisted and unlisted["total"] > 0
    assert not [p for p in listed["problems"] if p["code"] in ("roster-weapon", "roster-dropped")]
    code, out = run(capsys, roster(tmp_path, queen.replace("WEAPONS", "Razor Claws, Neural Blast, Razor Claws")))
    assert any(line.endswith("error[roster-weapon]: 'Psionic Queen' in 'Psionic Queen' may not take 'Razor Claws'") for line in out), out
    assert code == 1


def test_an_empty_roster_is_not_legal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, roster(tmp_path, "format_version: 1\nmodule: fracture\nlist: Marauders\npoints: 1000\nunits: []\n"))
    assert f"{tmp_path / 'roster.yaml'}:5:1: error[roster-empty]: the army has no units" in out and code == 1
    code, out = run(capsys, roster(tmp_path, "module: devils-bluff\nlist: Making Your Gang\n"))
    assert f"{tmp_path / 'roster.yaml'}:1:1: error[roster-empty]: the gang has no units" in out and code == 1


def test_a_key_given_twice_is_refused_where_it_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """JSON and YAML alike: readers disagree on which of two values counts (Python's kept the first, the builder's
    the last), so the roster is refused, each second key placed and named by its path."""
    text = '{"format_version": 1, "module": "fracture", "list": "Marauders", "points": 1000,\n'
    text += ' "units": [{"unit": "Warlord", "models": [{"model": "Warlord", "count": 1, "count": 9}]}], "points": 50}\n'
    path = roster(tmp_path, text, "roster.json")
    code, out = run(capsys, path)
    message = "is given twice: which value is meant cannot be told"
    assert out == [
        f"{path}:2:76: error[roster-duplicate-key]: units[0].models[0].count {message}",
        f"{path}:2:92: error[roster-duplicate-key]: points {message}",
        "2 errors, 0 warnings",
    ]
    assert code == 1
    path = roster(tmp_path, LEGAL.replace("  - unit: Hauler\n", "  - unit: Hauler\n    unit: Grunts\n"))
    code, out = run(capsys, path)
    assert out[0] == f"{path}:17:5: error[roster-duplicate-key]: units[4].unit {message}" and code == 1


def test_a_roster_over_the_limits_is_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], exports: dict[str, ModuleExport]
) -> None:
    """The limits are the module document's (the builder reads the same numbers); README states them."""
    limits = exports["fracture"].data["limits"]
    assert limits == {"bytes": 262144, "units": 200}
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "| one roster (a file, a link, or what the builder keeps) | 256 KiB and 200 units (" in readme
    unit = "  - {unit: Warlord, models: [{model: Warlord}]}\n"
    head = "format_version: 1\nmodule: fracture\nlist: Marauders\npoints: 1000\nunits:\n"
    code, out = run(capsys, roster(tmp_path, head + unit * limits["units"]))
    assert not any("roster-too-many-units" in line for line in out)
    path = roster(tmp_path, head + unit * (limits["units"] + 1))
    code, out = run(capsys, path)
    assert out == [
        f"{path}:5:1: error[roster-too-many-units]: the roster has 201 units, more than the 200 a roster may have; nothing was read from it",
        "1 error, 0 warnings",
    ]
    assert code == 1
    path = roster(tmp_path, head + "# " + "x" * limits["bytes"] + "\n")
    size = path.stat().st_size
    code, out = run(capsys, path)
    assert out == [
        f"{path}:1:1: error[roster-too-large]: the roster is {size} bytes, more than the 262144 bytes a roster may be; nothing was read from it",
        "1 error, 0 warnings",
    ]
    assert code == 1


def test_bad_values_and_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = roster(tmp_path, LEGAL.replace("points: 1000", "points: lots"))
    code, out = run(capsys, path)
    assert f"{path}:4:9: error[roster-format]: points must be a whole number" in out and code == 1
    path = roster(tmp_path, LEGAL.replace("module: fracture", "module: chess"))
    code, out = run(capsys, path)
    assert any("error[roster-unknown-module]: the roster is for 'chess'" in o for o in out) and code == 1
    path = roster(tmp_path, "units: [\n", "broken.yaml")
    code, out = run(capsys, path)
    assert out[0].startswith(f"{path}:") and "error[yaml]" in out[0] and code == 1
    assert run(capsys, tmp_path / "missing.yaml")[0] == 2


def test_json_roster_and_squadron_surcharge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A JSON roster reads like YAML; a ship with five upgrades pays the data's surcharge of 10."""
    upgrades = ["Speed 1", "Skilled 1", "Skilled 2", "Command 1", "Speed 2"]
    text = json.dumps(
        {
            "module": "squadrons",
            "list": "Building a Squadron",
            "units": [{"unit": "Basic Ship Profile", "models": [{"model": "Basic Ship", "upgrades": upgrades}]}],
        }
    )
    code, out = run(capsys, roster(tmp_path, text, "fleet.json"), "--format", "json")
    result = json.loads(out[0])
    # 15 + 3 + 5 + 4 + 2 × 4 (Command 1, times the other upgrades) + 5 + 10 surcharge; the Basic Ship
    # may take any Ship Upgrade.
    assert result["total"] == 50 and result["problems"] == []
    assert code == 0


def test_ready_made_ships_cost_their_printed_points(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A fleet's ships are units of one at the printed cost (the A-Wing at its corrected 55, see the errata)."""
    ships = [("battlestar-galactica-fleets", "Colonial Mk II Viper", 48), ("star-wars-fleets", "TIE Fighter", 23)]
    ships += [("star-wars-fleets", "A-Wing Interceptor", 55)]
    for fleet, ship, printed in ships:
        text = json.dumps({"module": "squadrons", "list": fleet, "units": [{"unit": ship, "models": [{"model": ship}]}]})
        code, out = run(capsys, roster(tmp_path, text, "fleet.json"), "--format", "json")
        assert json.loads(out[0]) == {"total": printed, "unit_costs": [printed], "problems": []} and code == 0
    # A ready-made ship takes nothing more.
    text = json.dumps(
        {
            "module": "squadrons",
            "list": "star-wars-fleets",
            "units": [{"unit": "TIE Fighter", "models": [{"model": "TIE Fighter", "upgrades": ["Shield"]}]}],
        }
    )
    code, out = run(capsys, roster(tmp_path, text, "fleet.json"))
    assert any(line.endswith("error[roster-upgrade]: 'TIE Fighter' in 'TIE Fighter' may not take 'Shield'") for line in out) and code == 1


def test_a_ship_without_a_printed_cost_is_named_not_counted_as_free(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fractured Skies prints points for the Strike Fighter (35) only: the total says what it leaves out."""
    text = """\
module: squadrons
list: Fractured Skies
units:
  - unit: Strike Fighter
    models: [{model: Strike Fighter}]
  - unit: Heavy Gunship
    models: [{model: Heavy Gunship, weapons: [Heavy Cannon]}]
"""
    code, out = run(capsys, roster(tmp_path, text))
    assert out[0].endswith("total 35 points") and code == 0
    assert out[1].endswith(
        "roster.yaml:7:22: warning[roster-unpriced]: 'Heavy Gunship' in 'Heavy Gunship' has no printed cost: "
        "the total counts only its weapons and upgrades"
    )


def test_reinforcements_are_held_back_within_their_own_points(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Halo: Breakpoint: 49 points of army and 49 of reinforcements in a 49-point game."""
    code, out = run(capsys, roster(tmp_path, HALO))
    # each unit: Sergeant 8 + M9 Grenade 1; 4 Marines × (7 + M9 Grenade 1 + M90 Shotgun 2), the MA5 given up
    assert out[0].endswith("total 98 points") and out[-1] == "no problems found" and code == 0


def test_a_survivor_group_buys_weapons_and_upgrades_within_each_model_s_cost(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        "module: survivors\nlist: Gather your Survivors\nunits:\n  - unit: Survivor Groups\n    models:\n"
        "      - {model: Leader, count: 1, weapons: [Rifle, Knife], upgrades: [Inspiration]}\n"
        "      - {model: Civilian, count: 3, weapons: [Pistol, Heavy Club, Knife]}\n"
    )
    code, out = run(capsys, roster(tmp_path, text))
    # 16 + 5 + 1 + 4; 3 × (9 + 3 + 2 + 1)
    assert out[0].endswith("total 71 points") and out[-1] == "no problems found" and code == 0


def test_wasteland_category_unit_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = "module: core-rules\nlist: profiles-in-the-rules\npoints: 1000\nunits: []\n"
    code, out = run(capsys, roster(tmp_path, text), project=WASTELAND)
    assert any(line.endswith("error[roster-category-min]: the Battle Group has 0 Command units; it needs at least 1") for line in out)
    assert any(line.endswith("error[roster-category-min]: the Battle Group has 0 Troops units; it needs at least 3") for line in out)
    assert code == 1


def test_a_problem_about_a_key_the_file_lacks_is_placed_at_the_file(tmp_path: Path, exports: dict[str, ModuleExport]) -> None:
    """A top-level key the roster does not have (here `list`, written as `army_list`) has no place of its own:
    the problem is put at the file's start instead of looking for one for ever."""
    path = roster(tmp_path, "module: fracture\narmy_list: marauders\ngame_size: 1000\nunits:\n  - unit: Grunts\n    models: 40\n")
    _, problems, _ = check_roster_file(path, "roster.yaml", exports)
    lines = [str(p) for p in problems]
    assert "roster.yaml:1:1: error[roster-format]: list must be a name" in lines
    assert "roster.yaml:6:13: error[roster-format]: units[0].models must be a list" in lines


def test_wasteland_small_game_takes_one_command_unit_and_any_others(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The small game sets its own unit counts (one Command unit); the medium game's counts apply at 1000 points."""
    text = (
        "module: core-rules\nlist: Example Battle Group\npoints: 100\nunits:\n"
        "  - unit: Commander\n    models: [{model: Commander}]\n"
        "  - unit: Rifle Squad\n    models: [{model: Rifleman, count: 5}]\n"
    )
    code, out = run(capsys, roster(tmp_path, text), project=WASTELAND)
    # 40 + 5 × 10
    assert out[0].endswith("total 90 points") and out[-1] == "no problems found" and code == 0
    code, out = run(capsys, roster(tmp_path, text.replace("points: 100", "points: 1000")), project=WASTELAND)
    assert (
        any(line.endswith("error[roster-category-min]: the Battle Group has 1 Troops units; it needs at least 3") for line in out)
        and code == 1
    )
    code, out = run(capsys, roster(tmp_path, text + "  - unit: Commander\n    models: [{model: Commander}]\n"), project=WASTELAND)
    assert any(line.endswith("error[roster-category-max]: the Battle Group has 2 Command units; it may have at most 1") for line in out)


CARRIER = "  - unit: Troop Carrier\n    models: [{model: Troop Carrier}]\n"


def test_wasteland_small_game_takes_no_unit_with_vehicle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The small game keeps out every unit with Vehicle (the carrier, whose model has it); the medium game does not."""
    text = (
        "module: core-rules\nlist: Example Battle Group\npoints: 100\nunits:\n"
        "  - unit: Commander\n    models: [{model: Commander}]\n" + CARRIER
    )
    path = roster(tmp_path, text)
    code, out = run(capsys, path, project=WASTELAND)
    rule = "'Troop Carrier' has Vehicle, which no unit may have in the game size 'Small patrol-sized game'"
    # 40 + 60
    assert out[0].endswith("total 100 points") and out[1:] == [f"{path}:7:11: error[roster-excluded-rule]: {rule}", "1 error, 0 warnings"]
    assert code == 1
    code, out = run(capsys, roster(tmp_path, text.replace("points: 100", "points: 1000")), project=WASTELAND)
    assert not any("roster-excluded-rule" in line for line in out)


def test_wasteland_takes_one_transport_for_every_unit_that_is_not_a_vehicle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Commander and three Rifle Squads allow four carriers in a medium (and a large) game; the tank and the
    carriers themselves, being Vehicles, allow none."""
    army = (
        "module: core-rules\nlist: Example Battle Group\npoints: 1000\nunits:\n"
        "  - unit: Commander\n    models: [{model: Commander}]\n"
        + "  - unit: Rifle Squad\n    models: [{model: Rifleman, count: 5}]\n" * 3
        + "  - unit: Battle Tank\n    models: [{model: Battle Tank}]\n"
        + CARRIER * 4
    )
    code, out = run(capsys, roster(tmp_path, army), project=WASTELAND)
    # 40 + 3 × 5 × 10 + 150 + 4 × 60
    assert out[0].endswith("total 580 points") and out[-1] == "no problems found" and code == 0
    for points in (1000, 2000):
        path = roster(tmp_path, army.replace("points: 1000", f"points: {points}") + CARRIER)
        code, out = run(capsys, path, project=WASTELAND)
        ratio = "the Battle Group has 5 units with Transport; 1 for every unit without Vehicle allows 4"
        assert out[1:] == [f"{path}:4:1: error[roster-rule-ratio]: {ratio}", "1 error, 0 warnings"] and code == 1


def test_a_format_problem_is_worded_by_the_game_s_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What a value must be ('a whole number', 'a list of names') is a label too: a game in German says it in German."""
    project = copy_project(WASTELAND, tmp_path / "wasteland")
    system = project / "data" / "system.yaml"
    labels = '  labels:\n    roster_format: "{what} muss {expected} sein"\n    roster_word_number: eine ganze Zahl\n'
    system.write_text(system.read_text(encoding="utf-8").replace("  labels:\n", labels, 1), encoding="utf-8")
    text = "module: core-rules\nlist: Example Battle Group\npoints: viele\nunits:\n  - unit: Commander\n    models: [{model: Commander, weapons: Pistol}]\n"
    code, out = run(capsys, roster(tmp_path, text), project=project)
    assert f"{tmp_path / 'roster.yaml'}:3:9: error[roster-format]: points muss eine ganze Zahl sein" in out
    # a word the game leaves alone keeps its English default
    assert any(line.endswith("error[roster-format]: units[0].models[0].weapons muss a list of names sein") for line in out)
    assert code == 1


def test_words_from_data_are_put_in_as_written_never_read_as_placeholders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A module's word for its rosters is a value: a '{unit}' or '{foo}' in it is shown as written, not filled (nor a
    traceback for a name the checker has no value for); so is a '{name}' a label has that no problem fills, which
    `cadence check` warns of (label-placeholder)."""
    project = copy_project(REPO, tmp_path / "project")
    module = project / "data" / "devils-bluff" / "module.yaml"
    module.write_text(module.read_text(encoding="utf-8").replace("army: gang}", "army: 'gang {unit} {foo}'}"), encoding="utf-8")
    system = project / "data" / "system.yaml"
    label = "    roster_per_army_min: \"the {army} lacks {min} '{unit}' ({count}); {foo}\"\n"
    system.write_text(system.read_text(encoding="utf-8").replace("  labels:\n", "  labels:\n" + label, 1), encoding="utf-8")
    path = roster(tmp_path, "module: devils-bluff\nlist: making-your-gang\nunits:\n  - unit: Gang Leader\n    models: [{model: Leader}]\n")
    code, out = run(capsys, path, project=project)
    assert f"{path}:3:1: error[roster-per-army-min]: the gang {{unit}} {{foo}} lacks 2 'Hired Guns' (0); {{foo}}" in out, out
    assert code == 1


SCRAPLANDS_TWO_WEAPONS = """\
format_version: 1
module: scraplands
list: Building a Team
units:
  - unit: Cars
    models:
      - {model: Wreck, weapons: [Light Machine Gun, Caltrops]}
"""


def test_a_choice_with_no_most_takes_any_number_of_weapons(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Scraplands sets no number of weapons per car (`max: null`): a front gun and Caltrops pass, within the credits;
    a Truck loaded past its 250 credits is still refused, by the budget and not by a count."""
    code, out = run(capsys, roster(tmp_path, SCRAPLANDS_TWO_WEAPONS))
    assert out[-1] == "no problems found", out
    assert code == 0
    heavy = SCRAPLANDS_TWO_WEAPONS.replace("Wreck, weapons: [Light Machine Gun, Caltrops]", "Truck, weapons: [Minigun, Caltrops, Caltrops]")
    code, out = run(capsys, roster(tmp_path, heavy, "heavy.yaml"))
    assert [line.split("error[")[1].split("]")[0] for line in out if "error[" in line] == ["roster-item-budget"], out
    assert code == 1
