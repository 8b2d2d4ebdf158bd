"""Docs complete by construction: every key of the data format is described, the reference and the
editors' schema are current, and the README's "Start a new game" works when followed literally."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from generator.docs import collect_examples, missing_docs, project_records, record_types, reference_text
from generator.schema import json_schema

from .conftest import REPO

README = REPO / "README.md"


def test_every_key_of_every_record_type_has_a_description_and_an_example() -> None:
    examples = collect_examples(project_records([REPO, REPO / "examples" / "wasteland-tactics"]))
    assert missing_docs(examples) == []


def test_a_key_without_a_description_is_found() -> None:
    """The test above can fail: a record type with an undocumented key is reported."""
    from dataclasses import dataclass, field

    from generator import model

    @dataclass(frozen=True, kw_only=True)
    class Undocumented(model.Record):
        """A record for this test."""

        colour: str = field(default="")

    original = dict(model.DOCUMENT_KINDS)
    model.DOCUMENT_KINDS["undocumented"] = Undocumented
    try:
        missing = missing_docs({})
    finally:
        model.DOCUMENT_KINDS.clear()
        model.DOCUMENT_KINDS.update(original)
    assert "Undocumented.colour: no description (doc(...) in its field metadata)" in missing


def test_the_reference_is_current() -> None:
    """data/REFERENCE.md is what `cadence reference` writes; regenerate it after changing model.py."""
    assert (REPO / "data" / "REFERENCE.md").read_text(encoding="utf-8") == reference_text(REPO)


def test_the_schema_carries_the_descriptions_not_python_signatures() -> None:
    schema = json_schema()
    assert (REPO / "data" / "schema" / "data.schema.json").read_text(encoding="utf-8") == json.dumps(
        schema, indent=2, ensure_ascii=False
    ) + "\n"
    for cls in record_types():
        definition = schema["$defs"][cls.__name__]
        assert definition["description"] and "loc:" not in definition["description"], cls.__name__
        for key, prop in definition["properties"].items():
            assert prop.get("description"), f"{cls.__name__}.{key}"
    assert schema["$defs"]["SpecialRule"]["properties"]["parameter_optional"]["default"] is False


def _readme_section(title: str, next_title: str) -> str:
    """A section of the README, up to the next one (its code blocks have `##` headings of their own)."""
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    return text[start : text.index(f"\n## {next_title}\n", start)]


def test_start_a_new_game_followed_literally(tmp_path: Path) -> None:
    """Write the files the README shows, run the commands it lists: a clean check and a built site."""
    section = _readme_section("Start a new game", "For designers")
    files = re.findall(r'^(`{3,})\w+ title="([^"]+)"\n(.*?)^\1$', section, flags=re.M | re.S)
    assert len(files) == 6
    for _fence, path, body in files:
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")
    commands = re.search(r"^```sh\n(.*?)^```$", section, flags=re.M | re.S)
    assert commands is not None
    cwd = tmp_path
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", "NO_MKDOCS_2_WARNING": "1"}
    outputs = []
    for line in commands.group(1).splitlines():
        words = shlex.split(line)
        if words[0] == "cd":
            cwd = cwd / words[1]
            continue
        result = subprocess.run(words, cwd=cwd, env=env, capture_output=True, text=True)
        assert result.returncode == 0, (line, result.stdout, result.stderr)
        outputs.append(result.stdout)
    assert outputs[:2] == ["wrote data/schema/data.schema.json\n", "no problems found\n"]
    site = cwd / "site"
    assert (site / "index.html").is_file()
    patrols = next(site.glob("core/patrols*"))
    page = (patrols / "index.html" if patrols.is_dir() else patrols).read_text(encoding="utf-8")
    assert "Scouts" in page and "Piercing (1)" in page


def test_every_command_and_option_says_what_it_does() -> None:
    """`cadence COMMAND --help` explains each command and every one of its arguments."""
    import argparse

    from generator.cli import parser

    commands = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    unexplained = [
        f"{name} {action.dest}"
        for name, command in commands.choices.items()
        for action in command._actions
        if not isinstance(action, argparse._HelpAction) and not action.help
    ]
    assert unexplained == []
    assert all(command.description for command in commands.choices.values())
