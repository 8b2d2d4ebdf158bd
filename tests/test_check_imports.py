"""`cadence check` imports only what checking needs: not Markdown, its sanitiser, Jinja or the exporter.

Imports are a large part of a check's time (bench/results/check-cache.md); these are the renderer's.
A project whose data fields hold markup the check cannot vouch for imports Markdown to render them.
"""

from __future__ import annotations

import subprocess
import sys

from .conftest import REPO

_SCRIPT = """
import sys
from pathlib import Path
from generator.cli import main  # the command, as `cadence check` starts
from generator.errata import apply_as_published
from generator.pages import load_project
loaded = load_project(Path(sys.argv[1]))
assert loaded.project is not None and not loaded.problems, loaded.problems
print(" ".join(sorted(m for m in sys.modules if m.split(".")[0] in ("markdown", "nh3", "jinja2", "generator"))))
"""


def test_checking_the_shipped_data_imports_no_renderer() -> None:
    out = subprocess.run([sys.executable, "-c", _SCRIPT, str(REPO)], capture_output=True, text=True, check=True, cwd=REPO)
    imported = set(out.stdout.split())
    assert "generator.checks" in imported
    assert not {m for m in imported if m.split(".")[0] in ("markdown", "nh3", "jinja2")}
    assert not imported & {"generator.markup", "generator.render", "generator.export", "generator.staging"}
