"""The code stays as the house style asks: ruff-clean and fully typed."""

from __future__ import annotations

import subprocess
import sys

from .conftest import REPO


def test_ruff_is_clean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "generator", "tests", "bench"], cwd=REPO, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_is_clean() -> None:
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_json_schema_is_current() -> None:
    """The editors' schema in data/schema is generated from the model; it must match it."""
    result = subprocess.run([sys.executable, "-m", "generator.cli", "schema", "--check"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_shipped_data_file_points_editors_at_the_schema() -> None:
    for path in sorted((REPO / "data").rglob("*.yaml")):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# yaml-language-server: $schema="), path
        target = (path.parent / first.split("$schema=", 1)[1].strip()).resolve()
        assert target == (REPO / "data/schema/data.schema.json").resolve(), path
