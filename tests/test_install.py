"""The tool as a game's repository gets it: built into a source distribution and a wheel, installed (not
editable) into a fresh virtual environment, then run on a project outside this repository.

An editable install finds every file in the work tree, so a subpackage or asset the packaging leaves out
passes every other test and fails only for users (`No module named 'generator.checks'`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from tests.conftest import REPO, copy_project

#: What a copy of the repository to build from leaves out: the work tree's own installs and outputs.
_NOT_SOURCE = shutil.ignore_patterns(".git", ".venv", "node_modules", "site", "mutants", "*.egg-info", "__pycache__", "build", "dist")


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key not in {"VIRTUAL_ENV", "PYTHONPATH"}}
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env, timeout=1200)
    assert result.returncode == 0, f"{' '.join(command)}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the tool installed from its sdist, itself built from a copy of the
    repository (pip turns the sdist into a wheel, so both artefacts must be complete)."""
    work = tmp_path_factory.mktemp("install")
    source = work / "source"
    shutil.copytree(REPO, source, ignore=_NOT_SOURCE)
    dist = work / "dist"
    _run([sys.executable, "-c", f"from setuptools.build_meta import build_sdist; build_sdist({str(dist)!r})"], source)
    sdist = next(dist.glob("*.tar.gz"))
    environment = work / "env"
    venv.EnvBuilder(with_pip=True).create(environment)
    pip = environment / "bin" / "pip"
    _run([str(pip), "install", "-q", str(sdist), "-c", str(REPO / ".ci" / "constraints.txt")], work)
    return environment


def test_an_installed_tool_builds_the_shipped_games_with_their_army_builders(installed: Path, tmp_path: Path) -> None:
    project = copy_project(REPO, tmp_path / "game")
    _run([str(installed / "bin" / "cadence"), "check"], project)
    _run([str(installed / "bin" / "cadence"), "build", "--quiet"], project)
    site = project / "site"
    assert (site / "fracture" / "builder.html").is_file()
    assert (site / "fracture" / "builder" / "data.json").is_file() or (site / "fracture" / "data.json").is_file()
    for asset in ("builder.js", "builder.css", "rules.js", "search_rank.js"):
        assert list(site.rglob(asset)), f"{asset} missing from a site built by the installed tool"
    imported = _run([str(installed / "bin" / "python"), "-c", "import generator, sys; print(generator.__file__)"], tmp_path)
    assert str(REPO) not in imported.stdout, "the fresh environment imported the work tree, not the installed tool"
