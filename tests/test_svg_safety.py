"""An SVG in the content folder: a drawing is published byte for byte; one that runs or loads anything is
refused where it is written, and the build publishes nothing (`generator/checks/svg_safety.py`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .conftest import MINI, cadence_build, copy_project
from .svg_cases import DRAWING, HOSTILE
from .test_content_safety import _plain_build


def _check(project: Path) -> tuple[int, list[str]]:
    result = subprocess.run([sys.executable, "-m", "generator.cli", "check"], cwd=project, capture_output=True, text=True)
    assert "Traceback" not in result.stderr
    return result.returncode, result.stdout.splitlines()


def test_a_drawing_passes_and_is_published_as_written(tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    (project / "content/core/blast.svg").write_text(DRAWING, encoding="utf-8")
    page = project / "content/core/rules.md"
    page.write_text(
        page.read_text(encoding="utf-8").replace("# Core Rules", "# Core Rules\n\n![Blast template](blast.svg)", 1), encoding="utf-8"
    )
    assert _check(project) == (0, ["no problems found"])
    built = cadence_build(project, tmp_path / "site", "mkdocs")
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "site/core/blast.svg").read_bytes() == DRAWING.encode("utf-8")
    assert 'src="blast.svg"' in (tmp_path / "site/core/rules.html").read_text(encoding="utf-8")


def test_each_hostile_svg_is_refused_where_it_is_written_and_nothing_is_published(tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    folder = project / "content/core/pictures"
    folder.mkdir()
    for name, (text, _, _) in HOSTILE.items():
        (folder / f"{name}.svg").write_text(text, encoding="utf-8")
    plain = _plain_build(tmp_path / "plain", {}, {f"{name}.svg": text for name, (text, _, _) in HOSTILE.items()})
    assert all((plain / f"{name}.svg").read_text(encoding="utf-8") == HOSTILE[name][0] for name in HOSTILE)  # unguarded: as written
    code, lines = _check(project)
    assert code == 1
    for name, (_, where, what) in HOSTILE.items():
        found = [line for line in lines if line.startswith(f"content/core/pictures/{name}.svg:")]
        assert found, f"{name}: not reported\n" + "\n".join(lines)
        at = f"content/core/pictures/{name}.svg:{where}"
        assert any(line.startswith(at) and "error[unsafe-content]" in line and what in line for line in found), found
    built = cadence_build(project, tmp_path / "site", "mkdocs")
    assert built.returncode == 1 and not (tmp_path / "site").exists()


def test_an_svg_that_does_not_read_as_xml_is_refused_at_its_line(tmp_path: Path) -> None:
    """A browser shows an error where such a picture should be; the designer is told where it breaks."""
    project = copy_project(MINI, tmp_path / "mini")
    (project / "content/core/map.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg">\n  <rect>\n</svg>\n', encoding="utf-8")
    code, lines = _check(project)
    assert code == 1
    assert lines[0] == (
        "content/core/map.svg:3:3: error[unsafe-content]: the SVG is not well-formed XML (mismatched tag): a browser shows an error "
        "in its place (hint: save it again from the drawing program, or convert it to PNG or WebP)"
    )
