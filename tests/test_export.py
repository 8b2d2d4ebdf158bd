"""`cadence export` and the JSON the site publishes: versioned, valid against its schema, resolved."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from generator.cli import main
from generator.export import FORMAT_VERSION, MESSAGES

from .conftest import REPO

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
        assert document["messages"] == MESSAGES


def test_names_are_resolved_to_ids_with_profiles_costs_and_rule_texts(exported: Path) -> None:
    fracture = json.loads((exported / "fracture.json").read_text(encoding="utf-8"))
    assert fracture["module"]["army_building"]["game_sizes"][0] == {"name": "Small", "points": "500-1000", "limit": 1000}
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


def test_squadron_fleets_see_the_ships_of_the_list_they_use(exported: Path) -> None:
    squadrons = json.loads((exported / "squadrons.json").read_text(encoding="utf-8"))
    star_wars = next(army for army in squadrons["lists"] if army["id"] == "star-wars-fleets")
    assert [u["name"] for u in star_wars["units"]] == ["Basic Ship Profile"]
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
