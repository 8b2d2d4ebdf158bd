"""`cadence export` and the JSON the site publishes: versioned, valid against its schema, resolved."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from generator.cli import main
from generator.export import FORMAT_VERSION, ROSTER_CODES
from generator.model import DEFAULT_LABELS

from .conftest import REPO


def module_terms(module_id: str) -> dict[str, object]:
    """The `terms` a shipped module's data sets, as written."""
    document = yaml.safe_load((REPO / "data" / module_id / "module.yaml").read_text(encoding="utf-8"))
    terms: dict[str, object] = document["module"].get("terms") or {}
    return terms


BUILDABLE = ["devils-bluff", "fracture", "halo-breakpoint", "respawn", "scraplands", "squadrons", "survivors"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export")
    assert main(["-C", str(REPO), "export", "--out", str(out)]) == 0
    return out


def test_one_versioned_file_per_module_valid_against_the_schema(exported: Path) -> None:
    schema = json.loads((exported / "rules-export.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    files = sorted(p.stem for p in exported.glob("*.json") if p.name != "rules-export.schema.json")
    assert files == BUILDABLE
    for name in files:
        document = json.loads((exported / f"{name}.json").read_text(encoding="utf-8"))
        jsonschema.validate(document, schema)
        assert document["format_version"] == FORMAT_VERSION
        # the shipped game keeps the English labels: every code's message is its label's default, and the words put
        # in are the labels', with what the module's rosters build ('gang' in Devil's Bluff, whose terms say so)
        assert document["messages"] == {code: DEFAULT_LABELS[code.replace("-", "_")] for code in ROSTER_CODES}
        words = {k[len("roster_word_") :]: v for k, v in DEFAULT_LABELS.items() if k.startswith("roster_word_")}
        army = str(module_terms(name).get("army", DEFAULT_LABELS["army"]))
        assert document["roster_words"] == {**words, "army": army, "did_you_mean": DEFAULT_LABELS["roster_did_you_mean"]}


def test_a_weapon_carries_the_limit_per_army_of_its_list(exported: Path) -> None:
    """The Endless' Unique Weapons may each appear once in an army; the list's other weapons are not limited."""
    fracture = json.loads((exported / "fracture.json").read_text(encoding="utf-8"))
    endless = next(army for army in fracture["lists"] if army["name"] == "The Endless")
    weapons = {w["name"]: (w["list"], w["max_per_army"]) for w in endless["weapons"].values()}
    assert weapons["Necroflux Gauntlet"] == ("Unique Weapons", 1)
    assert weapons["Particle Rifle"] == ("Standard Weapons", None)
    limited = sorted(name for name, (_, most) in weapons.items() if most is not None)
    assert limited == ["Entropic Resonator", "Necroflux Gauntlet", "Transdimensional Disruptor"]


def test_names_are_resolved_to_ids_with_profiles_costs_and_rule_texts(exported: Path) -> None:
    fracture = json.loads((exported / "fracture.json").read_text(encoding="utf-8"))
    assert fracture["module"]["army_building"]["game_sizes"][0] == {
        "name": "Small",
        "points": "500-1000",
        "limit": 1000,
        "category_units": None,
        "excluded_rules": [],
        "rule_ratios": [],
    }
    marauders = next(army for army in fracture["lists"] if army["id"] == "marauders")
    warlord = next(u for u in marauders["units"] if u["name"] == "Warlord")
    armoured = warlord["models"][1]
    assert armoured["name"] == "Warlord in Juggernaut Armour" and armoured["points"] == 110
    assert [u["text"] for u in armoured["rules"]] == ["Large", "Platform (1)", "Steady"]
    platform = fracture["rules"][armoured["rules"][1]["rule"]]
    assert platform["name"] == "Platform" and "X" in platform["title"] and platform["text"]
    # The Warlord's first option is four weapon lists, resolved to the weapons they hold.
    names = {marauders["weapons"][w]["name"] for w in warlord["weapons"]["options"][0]["weapons"]}
    assert {"Slugger Pistol", "Buzzsaw", "Plasma Destabiliser"} <= names
    assert [marauders["upgrades"][o["upgrade"]]["name"] for o in warlord["upgrades"]["options"]] == ["Big Boss"]
    hauler = next(u for u in marauders["units"] if u["name"] == "Hauler")
    assert hauler["composition"]["per_unit"] == {"unit": "marauders/grunts", "max": 1}


def test_squadron_fleets_offer_the_basic_ship_and_their_ready_made_ships(exported: Path) -> None:
    squadrons = json.loads((exported / "squadrons.json").read_text(encoding="utf-8"))
    star_wars = next(army for army in squadrons["lists"] if army["id"] == "star-wars-fleets")
    names = [u["name"] for u in star_wars["units"]]
    assert names[0] == "Basic Ship Profile" and len(names) == 12
    # A ready-made ship is its base with its printed setup fixed: nothing to choose.
    tie = next(u for u in star_wars["units"] if u["name"] == "TIE Fighter")
    assert [m["points"] for m in tie["models"]] == [15]
    assert [star_wars["upgrades"][k]["name"] for k in tie["upgrades"]["fixed"]] == ["Speed 1", "Agility"]
    assert [star_wars["weapons"][k]["name"] for k in tie["weapons"]["fixed"]] == ["Energy Cannons"]
    assert tie["weapons"]["options"] == [] and tie["upgrades"]["options"] == []
    # The Basic Ship offers the whole Ship Weapons list and every Ship Upgrade.
    basic = star_wars["units"][0]
    assert len(basic["weapons"]["options"][0]["weapons"]) == 12 and len(basic["upgrades"]["options"]) == 22
    assert squadrons["module"]["army_building"]["cost"]["surcharges"] == [
        {"min_upgrades": 5, "points": 10},
        {"min_upgrades": 7, "points": 15},
    ]


def test_site_publishes_the_export_and_links_it(built_site: Path, exported: Path) -> None:
    for name in BUILDABLE:
        published = json.loads((built_site / name / "data.json").read_text(encoding="utf-8"))
        assert published == json.loads((exported / f"{name}.json").read_text(encoding="utf-8"))
        index = (built_site / name / "index.html").read_text(encoding="utf-8")
        assert 'href="builder.html"' in index and 'href="data.json"' in index
        builder = (built_site / name / "builder.html").read_text(encoding="utf-8")
        assert 'data-src="data.json"' in builder and 'src="../assets/rules/builder.js"' in builder
    assert (built_site / "assets" / "rules-export.schema.json").is_file()
    assert not (built_site / "core-rules" / "builder.html").exists(), "a module without lists has no builder"


def test_swaps_say_what_they_give_up(exported: Path) -> None:
    """A swap of a carried weapon names it (Halo); a swap of an optional list names that list's weapons (Fracture)."""
    halo = json.loads((exported / "halo-breakpoint.json").read_text(encoding="utf-8"))
    unsc = next(army for army in halo["lists"] if army["id"] == "unsc-army-list")
    spartan = next(u for u in unsc["units"] if u["name"] == "Spartan II / IV")
    twin = spartan["weapons"]["swaps"][1]
    assert [[unsc["weapons"][k]["name"] for k in g] for g in twin["gives_up"]] == [["MA5 Assault Rifle"], ["M6 Pistol"]]
    assert twin["in_place_of"] == [] and twin["label"] == "MA5 Assault Rifle / M6 Pistol"
    fracture = json.loads((exported / "fracture.json").read_text(encoding="utf-8"))
    marauders = next(army for army in fracture["lists"] if army["id"] == "marauders")
    grunts = next(u for u in marauders["units"] if u["name"] == "Grunts")
    swap = grunts["weapons"]["swaps"][0]
    assert swap["gives_up"] == [] and swap["models"] == 2
    assert set(swap["in_place_of"]) == set(grunts["weapons"]["options"][0]["weapons"]) | set(grunts["weapons"]["options"][1]["weapons"])
    assert halo["module"]["army_building"]["reinforcements"] == {"name": "Reinforcements", "points": 100}


def test_game_sizes_name_their_rules_by_id(tmp_path: Path) -> None:
    """Wasteland: no Vehicle in the small game, one Transport for every unit that is not a Vehicle above it;
    each rule as written and by the id its units' models use (Monster is Vehicle's other name)."""
    assert main(["-C", str(REPO / "examples" / "wasteland-tactics"), "export", "--out", str(tmp_path)]) == 0
    document = json.loads((tmp_path / "core-rules.json").read_text(encoding="utf-8"))
    small, medium, large = document["module"]["army_building"]["game_sizes"]
    vehicle = {"text": "Vehicle", "rule": "core-rules#vehicle"}
    assert small["excluded_rules"] == [vehicle] and small["rule_ratios"] == []
    ratio = {"rule": {"text": "Transport", "rule": "core-rules#transport"}, "max": 1, "without": [vehicle]}
    assert medium["rule_ratios"] == large["rule_ratios"] == [ratio] and medium["excluded_rules"] == []
    assert document["rules"]["core-rules#transport"]["title"] == "Transport X"
    carrier = next(u for u in document["lists"][0]["units"] if u["name"] == "Troop Carrier")
    assert {use["rule"] for use in carrier["models"][0]["rules"]} >= {"core-rules#vehicle", "core-rules#transport"}
