"""Shared fixtures: the repository, a small fixture project, and real MkDocs and `cadence build` builds of them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MINI = Path(__file__).resolve().parent / "fixtures" / "mini"


def mkdocs_build(project: Path, site: Path, strict: bool = True) -> subprocess.CompletedProcess[str]:
    """A real `mkdocs build` of a project folder into `site`."""
    command = [sys.executable, "-m", "mkdocs", "build", "--site-dir", str(site)]
    if strict:
        command.append("--strict")
    return subprocess.run(command, cwd=project, capture_output=True, text=True, env={**_env(), "NO_MKDOCS_2_WARNING": "1"})


def cadence_build(project: Path, site: Path, engine: str, strict: bool = True) -> subprocess.CompletedProcess[str]:
    """A real `cadence build --engine ENGINE` of a project folder into `site`."""
    command = [sys.executable, "-m", "generator.cli", "-C", str(project), "build", "--site-dir", str(site), "--engine", engine]
    command += ["--strict"] if strict else []
    return subprocess.run(command, capture_output=True, text=True, env={**_env(), "NO_MKDOCS_2_WARNING": "1"}, timeout=600)


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)


def copy_project(source: Path, target: Path) -> Path:
    """A copy of a project's mkdocs.yml, data and content, safe to break."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(source / "mkdocs.yml", target / "mkdocs.yml")
    for folder in ("data", "content", "overrides"):
        if (source / folder).is_dir():
            shutil.copytree(source / folder, target / folder)
    return target


@pytest.fixture(scope="session", autouse=True)
def own_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The generator's caches (parsed files, check results, the word file) in a folder of the session's own,
    for every process the tests start: never the user's, and never one an earlier session left."""
    folder = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(folder))
        yield folder


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped Cadence project, built once with `mkdocs build --strict`."""
    site = tmp_path_factory.mktemp("cadence-site")
    result = mkdocs_build(REPO, site)
    assert result.returncode == 0, result.stderr
    return site


@pytest.fixture(scope="session")
def mini_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("mini-site")
    result = mkdocs_build(MINI, site)
    assert result.returncode == 0, result.stderr
    return site


@pytest.fixture()
def mini_copy(tmp_path: Path) -> Path:
    return copy_project(MINI, tmp_path / "mini")
