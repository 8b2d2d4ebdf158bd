"""`cadence diff`: what changed between two versions of a project, in game terms, and releases stored
from it for the Recent Changes page."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from generator.pages import generate, load_project

from .conftest import MINI, copy_project


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def _changed(project: Path) -> None:
    """A release's worth of edits: a profile and a cost moved, a weapon renamed, an upgrade added,
    a rule reworded, a rule removed."""
    rangers = project / "data" / "skirmish" / "army-lists" / "rangers.yaml"
    _edit(
        rangers,
        '{name: Ranger, profile: {mov: 6", skl: 4+, hp: 1}, rules: [Pathfinder], points: 10}',
        '{name: Ranger, profile: {mov: 7", skl: 4+, hp: 1}, rules: [Pathfinder], points: 12}',
    )
    _edit(rangers, "{name: Carbine, profile:", "{name: Long Carbine, profile:")
    _edit(
        rangers,
        "grants: [Heavy Armour (1)]}",
        "grants: [Heavy Armour (1)]}\n          - {name: Rope, effect: 'The model climbs freely.', points: 1}",
    )
    _edit(rangers, "options: [Camo Cloak]", "options: [Camo Cloak, Rope]")
    core = project / "data" / "core" / "module.yaml"
    _edit(core, "text: This weapon makes X more attacks.}", "text: This weapon makes X extra attacks at short range.}")


def _cadence(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "generator.cli", *args], cwd=cwd, capture_output=True, text=True)


def test_diff_of_two_folders_in_game_terms(tmp_path: Path) -> None:
    new = copy_project(MINI, tmp_path / "new")
    _changed(new)
    result = _cadence("diff", str(MINI), str(new), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "== Core Rules",
        "module rules: rule 'Rapid Fire' (Core Rules) changed",
        "    text reworded: This weapon makes X [-more attacks.-] {+extra attacks at short range.+}",
        "== Skirmish",
        "skirmish/army-lists/rangers: model 'Ranger' (Ranger Squad) changed",
        '    Mov: 6" -> 7"',
        "    points: 10 -> 12",
        "skirmish/army-lists/rangers: weapon list 'Sidearms' (Rangers) changed",
        "    contents: Pistol, Carbine -> Pistol, Long Carbine",
        "skirmish/army-lists/rangers: weapon 'Carbine' renamed 'Long Carbine' (Sidearms)",
        "skirmish/army-lists/rangers: upgrade list 'Upgrades' (Rangers) changed",
        "    contents: Camo Cloak -> Camo Cloak, Rope",
        "skirmish/army-lists/rangers: upgrade 'Rope' (Upgrades) added",
        "1 added, 0 removed, 1 renamed, 4 changed",
    ]


def test_json_and_markdown_formats(tmp_path: Path) -> None:
    new = copy_project(MINI, tmp_path / "new")
    _changed(new)
    data = json.loads(_cadence("diff", str(MINI), str(new), "--format", "json", cwd=tmp_path).stdout)
    ranger = next(e for e in data["entries"] if e["name"] == "Ranger")
    assert ranger["details"] == [{"what": "Mov", "old": '6"', "new": '7"'}, {"what": "points", "old": "10", "new": "12"}]
    renamed = next(e for e in data["entries"] if e["change"] == "renamed")
    assert (renamed["old_name"], renamed["name"]) == ("Carbine", "Long Carbine")
    markdown = _cadence("diff", str(MINI), str(new), "--format", "markdown", cwd=tmp_path).stdout
    assert '    - Mov: 6" → 7"' in markdown
    assert "~~more attacks.~~ **extra attacks at short range.**" in markdown


GIT = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.org", "-c", "commit.gpgsign=false"]


def _committed(project: Path) -> None:
    """The project as the first commit of a new repository in its folder."""
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run([*GIT, "add", "."], cwd=project, check=True)
    subprocess.run([*GIT, "commit", "-qm", "first"], cwd=project, check=True)


def test_diff_of_two_git_revisions_recorded_as_a_release(tmp_path: Path) -> None:
    """Revisions are read with git archive; --record stores the diff, and Recent Changes lists it."""
    project = copy_project(MINI, tmp_path / "repo")
    _committed(project)
    _changed(project)
    subprocess.run([*GIT, "commit", "-qam", "second"], cwd=project, check=True)
    result = _cadence("diff", "HEAD~1", "HEAD", "--record", "Spring Update", "--date", "2026-03-01", cwd=project)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "wrote data/releases/spring-update.yaml (6 changes)\n"
    stored = (project / "data" / "releases" / "spring-update.yaml").read_text(encoding="utf-8")
    assert "since: " in stored and "revision: " in stored
    _edit(project / "data" / "system.yaml", "  landing_pages:\n", "  landing_pages:\n    changes: recent-changes\n")
    loaded = load_project(project)
    assert [str(p) for p in loaded.problems] == []
    assert loaded.project is not None
    pages = generate(loaded.project, loaded.content).pages
    rangers = pages["skirmish/army-lists/rangers"]
    assert '*Last changed: [Spring Update](../../recent-changes.md#spring-update-2026-03-01), Mov 6" → 7"; points 10 → 12.*' in rangers
    page = pages["recent-changes"]
    assert "## Spring Update (2026-03-01)" in page
    assert "<del>more attacks.</del> <ins>extra attacks at short range.</ins>" in page
    assert '- Model [Ranger](skirmish/army-lists/rangers.md) (Ranger Squad): changed\n    - Mov: 6" → 7"' in page.replace("\\", "")
    assert _cadence("diff", "no-such-revision", cwd=project).returncode == 2


def test_recent_changes_show_the_words_a_reader_sees(built_site: Path) -> None:
    """A release stores the changed values as their data holds them (Markdown, `[[rule]]` mentions); the page
    shows them as read on the site: no `**` or `[[…]]` in its text, the removed and added words still marked."""
    page = (built_site / "recent-changes.html").read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert "[[" not in text and "**" not in text
    relay = page[page.index("Relay Reaper") :]
    relay = relay[: relay.index("</li>")]
    assert (
        "Accurate, Destructive (2), Relay: a model hit by this weapon makes no Defence Roll; <del>instead</del> <ins>instead,</ins>"
        in relay
    )


@pytest.mark.parametrize("target", ["/etc/hostname", "../../../outside.yaml"], ids=["absolute", "relative"])
def test_a_revision_holding_a_link_out_of_the_project_is_one_line_not_followed(target: str, tmp_path: Path) -> None:
    """Extracting such a revision ended with tarfile's LinkOutsideDestinationError (or AbsoluteLinkError): now it is
    one line, exit 2, and the link is never followed."""
    project = copy_project(MINI, tmp_path / "repo")
    (project / "data/core/linked.yaml").symlink_to(target)
    _committed(project)
    result = _cadence("diff", "HEAD", cwd=project)
    assert result.returncode == 2
    assert result.stderr == (
        "cadence: revision 'HEAD' holds data/core/linked.yaml, a symbolic link that leads outside the project; "
        "it was not followed (hint: compare with a folder, or remove the link from the revision)\n"
    )
    assert result.stdout == ""
