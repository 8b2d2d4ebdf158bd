"""mkdocs.yml is code: `cadence check` on copies of the mini fixture whose config runs code, leaves the project or
makes pages call another host. Each runs the real command in a subprocess and reads its lines and exit code."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .conftest import MINI, REPO, copy_project, mkdocs_build

EXIT_CLEAN, EXIT_PROBLEMS = 0, 1
FONT_LINE = "  font: false  # system fonts: no page asks a font host for anything\n"


def check(project: Path, *options: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "generator.cli", "-C", str(project), "check", *options]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def edit_config(project: Path, find: str, replace: str) -> None:
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    assert text.count(find) == 1, f"{find!r} must occur once in {config}"
    config.write_text(text.replace(find, replace), encoding="utf-8")


@pytest.mark.parametrize(
    ("find", "replace", "expected"),
    [
        (
            "docs_dir: content",
            "docs_dir: {outside}",
            "mkdocs.yml:2:1: error[outside-path]: the content folder '{outside}' is outside the project",
        ),
        (
            "docs_dir: content",
            "docs_dir: ../elsewhere",
            "mkdocs.yml:2:1: error[outside-path]: the content folder '../elsewhere' is outside the project",
        ),
        (
            "  - rules\n",
            "  - rules:\n      data_dir: {outside}\n",
            "mkdocs.yml:11:7: error[outside-path]: the data folder '{outside}' is outside the project",
        ),
    ],
    ids=["docs_dir absolute", "docs_dir through ..", "data_dir absolute"],
)
def test_a_folder_outside_the_project_is_one_error_not_a_traceback(find: str, replace: str, expected: str, tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    outside = tmp_path / "elsewhere"
    shutil.copytree(MINI / ("data" if "data_dir" in replace else "content"), outside)  # the very files: only their place is wrong
    edit_config(project, find, replace.format(outside=outside))
    result = check(project)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == EXIT_PROBLEMS, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        expected.format(outside=outside) + " (hint: keep the project's data and content folders inside"
    ), lines


def test_a_content_folder_linked_outside_is_refused_unless_the_project_follows_links(tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    (project / "content").rename(tmp_path / "shared-content")
    (project / "content").symlink_to(tmp_path / "shared-content", target_is_directory=True)
    refused = check(project)
    assert refused.returncode == EXIT_PROBLEMS and "Traceback" not in refused.stderr
    assert refused.stdout.startswith(
        "mkdocs.yml:2:1: error[outside-path]: the content folder 'content' is a symbolic link that leads outside the project"
    ), refused.stdout
    edit_config(project, "  - rules\n", "  - rules:\n      follow_outside_links: true\n")
    followed = check(project)
    assert (followed.returncode, followed.stdout.strip()) == (EXIT_CLEAN, "no problems found"), followed.stdout + followed.stderr


HOSTILE = """\
site_name: !ENV [CI_TOKEN, Mini Rules]
docs_dir: content
site_dir: /var/www
use_directory_urls: false
hooks:
  - hooks/publish.py
theme:
  name: material
  custom_dir: ../theme
  features: [content.tooltips]
extra_css:
  - https://fonts.example.net/type.css
plugins:
  - search
  - macros:
      module_name: main
  - rules
markdown_extensions:
  - attr_list
  - admonition
  - tables
  - main
  - pymdownx.emoji:
      emoji_generator: !!python/name:os.system
  - toc:
      permalink: true
"""


def test_every_setting_that_is_code_is_a_warning_at_its_key(tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    (project / "mkdocs.yml").write_text(HOSTILE, encoding="utf-8")
    result = check(project)
    assert result.returncode == EXIT_CLEAN and "Traceback" not in result.stderr, result.stdout + result.stderr
    found = [re.sub(r" \(hint: .*\)$", "", line) for line in result.stdout.splitlines()[:-1]]
    assert found == [
        "mkdocs.yml:1:12: warning[config-tag]: the tag '!ENV' puts an environment variable of the machine that builds the site into its settings: a secret there could be published",
        "mkdocs.yml:3:1: warning[outside-path]: site_dir '/var/www' is outside the project: `mkdocs build` empties that folder and writes the site into it",
        "mkdocs.yml:6:5: warning[config-hook]: mkdocs.yml runs the hook 'hooks/publish.py': Python code that runs at every build",
        "mkdocs.yml:7:1: warning[outside-request]: theme.font is not false: every page loads its fonts from Google Fonts, which sees each reader's address",
        "mkdocs.yml:9:3: warning[outside-path]: theme.custom_dir '../theme' is outside the project: the build runs its templates, which no pull request shows",
        "mkdocs.yml:12:5: warning[outside-request]: extra_css 'https://fonts.example.net/type.css' is loaded from another host by every page, which sees each reader's address",
        "mkdocs.yml:15:5: warning[config-plugin]: mkdocs.yml loads the plugin 'macros', Python code that runs at every build; the project knows rules and search",
        "mkdocs.yml:22:5: warning[config-extension]: mkdocs.yml loads the Markdown extension 'main', Python code that reads every page at build",
        "mkdocs.yml:24:24: warning[config-tag]: the tag '!!python/name:os.system' names Python code the engine imports and runs at build",
    ]
    assert result.stdout.splitlines()[-1] == "0 errors, 9 warnings"
    assert check(project, "--strict").returncode == EXIT_PROBLEMS  # a pull request's CI stops on them


def test_a_config_of_many_aliases_is_reviewed_in_one_pass(tmp_path: Path) -> None:
    """Aliases nest a list of ten under each of nine keys (a billion values if walked): each node is read once."""
    project = copy_project(MINI, tmp_path / "mini")
    laughs = "".join(f"  l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 10)}]\n" for n in range(1, 10))
    edit_config(project, "use_directory_urls: false\n", "use_directory_urls: false\nextra:\n  l0: &l0 lol\n" + laughs)
    result = check(project)
    assert (result.returncode, result.stdout.strip(), result.stderr) == (EXIT_CLEAN, "no problems found", "")


def _readme_config() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.search(r"```yaml title=\"my-game/mkdocs.yml\"\n(.*?)```", readme, re.S)
    assert found, "README's starter mkdocs.yml"
    return found.group(1)


@pytest.mark.parametrize(
    "config",
    [
        "README.md",
        "mkdocs.yml",
        "tests/fixtures/mini/mkdocs.yml",
        "tests/fixtures/every-field/mkdocs.yml",
        "examples/wasteland-tactics/mkdocs.yml",
    ],
)
def test_every_config_the_repository_offers_keeps_fonts_off(config: str) -> None:
    """Material links Google Fonts from every page unless `theme.font` is false (the browser test sees the requests)."""
    text = _readme_config() if config == "README.md" else (REPO / config).read_text(encoding="utf-8")
    assert yaml.safe_load(text)["theme"]["font"] is False


def test_plain_mkdocs_build_with_a_content_folder_outside_stops_on_one_located_line(tmp_path: Path) -> None:
    """The plugin reads the folders as `cadence check` does: an absolute docs_dir outside is the same error, no traceback."""
    project = copy_project(MINI, tmp_path / "mini")
    outside = tmp_path / "elsewhere"
    shutil.copytree(MINI / "content", outside)
    edit_config(project, "docs_dir: content", f"docs_dir: {outside}")
    result = mkdocs_build(project, tmp_path / "site")
    assert result.returncode != EXIT_CLEAN and "Traceback" not in result.stderr, result.stderr
    expected = f"mkdocs.yml:2:1: error[outside-path]: the content folder '{outside}' is outside the project (hint: keep"
    assert expected in result.stderr, result.stderr


def test_plain_mkdocs_build_follows_a_linked_content_folder_when_the_plugin_says_so(tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    (project / "content").rename(tmp_path / "shared-content")
    (project / "content").symlink_to(tmp_path / "shared-content", target_is_directory=True)
    edit_config(project, "  - rules\n", "  - rules:\n      follow_outside_links: true\n")
    result = mkdocs_build(project, tmp_path / "site")
    assert result.returncode == EXIT_CLEAN and "Traceback" not in result.stderr, result.stderr
    assert (tmp_path / "site" / "index.html").is_file()


def test_a_hook_is_warned_of_even_when_the_data_has_errors(tmp_path: Path) -> None:
    """The review of mkdocs.yml does not depend on the data: a pull request that breaks both shows both at once."""
    project = copy_project(MINI, tmp_path / "mini")
    module = project / "data" / "core" / "module.yaml"
    module.write_text(module.read_text(encoding="utf-8") + "broken: [unclosed\n", encoding="utf-8")
    edit_config(project, "use_directory_urls: false\n", "use_directory_urls: false\nhooks:\n  - hooks/publish.py\n")
    result = check(project)
    assert result.returncode == EXIT_PROBLEMS and "Traceback" not in result.stderr, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert [line for line in lines if "error[yaml]" in line and line.startswith("data/core/module.yaml:")], lines
    assert "mkdocs.yml:5:5: warning[config-hook]: mkdocs.yml runs the hook 'hooks/publish.py'" in result.stdout, lines
    assert lines[-1].startswith("1 error, 1 warning; names, links"), lines  # the checks across files still wait for the data


def test_the_follow_outside_links_flag_reaches_the_folder_check(tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    (project / "content").rename(tmp_path / "shared-content")
    (project / "content").symlink_to(tmp_path / "shared-content", target_is_directory=True)
    refused = check(project)
    assert refused.returncode == EXIT_PROBLEMS, refused.stdout + refused.stderr
    hint = refused.stdout.splitlines()[0].split(" (hint: ")[1]
    assert "--follow-outside-links" in hint and "follow_outside_links: true" in hint, hint
    followed = check(project, "--follow-outside-links")
    assert (followed.returncode, followed.stdout.strip()) == (EXIT_CLEAN, "no problems found"), followed.stdout + followed.stderr


def test_a_theme_folder_linked_outside_later_is_warned_of_with_the_cache_on(tmp_path: Path) -> None:
    """mkdocs.yml stays byte for byte the same; only where its `custom_dir` leads changes: the cached answer must not hold."""
    project = copy_project(MINI, tmp_path / "mini")
    edit_config(project, "  name: material\n", "  name: material\n  custom_dir: overrides\n")
    (project / "overrides").mkdir()
    first = check(project)
    assert (first.returncode, first.stdout.strip()) == (EXIT_CLEAN, "no problems found"), first.stdout + first.stderr
    (project / "overrides").rmdir()
    (tmp_path / "theme").mkdir()
    (project / "overrides").symlink_to(tmp_path / "theme", target_is_directory=True)
    second = check(project)
    assert second.stdout.startswith(
        "mkdocs.yml:6:3: warning[outside-path]: theme.custom_dir 'overrides' is a symbolic link that leads outside the project"
    ), second.stdout


def test_cadence_build_follows_a_linked_content_folder_with_the_flag(tmp_path: Path) -> None:
    """What `check --follow-outside-links` passes, `build --follow-outside-links` builds: the build's own reading of
    the folders takes the flag too (it refused the link before staging began)."""
    project = copy_project(MINI, tmp_path / "mini")
    (project / "content").rename(tmp_path / "shared-content")
    (project / "content").symlink_to(tmp_path / "shared-content", target_is_directory=True)
    command = [sys.executable, "-m", "generator.cli", "-C", str(project), "build", "--quiet"]
    refused = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert refused.returncode != EXIT_CLEAN and "outside-path" in refused.stdout + refused.stderr, refused.stdout + refused.stderr
    assert "Traceback" not in refused.stderr
    built = subprocess.run([*command, "--follow-outside-links"], capture_output=True, text=True, timeout=600)
    assert built.returncode == EXIT_CLEAN, built.stdout + built.stderr
    assert (project / "site" / "index.html").is_file()
