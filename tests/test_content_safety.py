"""Content pages and the content folder's files carry nothing that runs in a reader's browser.

Each payload is first shown to be live: a plain `mkdocs build` (no rules plugin, the shipped project's
theme and Markdown extensions) publishes it in a form a browser runs. Then `cadence check` reports it as
`error[unsafe-content]` on its page, and `cadence build` refuses the project and writes no site. The HTML a
page may use (text formatting, details, relative and https links, ids and classes) stays allowed.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
import yaml

from generator.cli import main as cadence
from generator.postbuild import BuildContext, secure_pages

from .conftest import MINI, REPO, cadence_build, copy_project, mkdocs_build
from .payloads import CONTENT_LINKS, elements, executable, script_url

#: Body payloads: each is a page `# Payload` followed by it.
BODY = {
    "script": "<script>alert(1)</script>",
    "event-handler": '<img src="x.png" onerror="alert(1)">',
    "slash-separated-handler": "<svg/onload=alert(1)>",
    "quoted-angle-in-tag": '<img title=">" onerror=alert(1)>',
    "mixed-case": "<IMG SRC=x.png oNeRrOr=alert(1)>",
    "inline-link": "[x](javascript:alert(1))",
    "reference-link": "[x][r]\n\n[r]: jav&#x61;script:alert(1)",
    # a tab written as such is four spaces once Markdown has read it (a relative URL); as an entity it stays a tab
    "whitespace-in-scheme": '<a href="  java&#9;script:alert(1)">x</a>',
    "data-link": "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "attribute-list-handler": 'Some text.\n{: onclick="alert(1)" }',
    "attribute-list-href": "[x](other.md){: href='javascript:alert(1)' }",
    "iframe": '<iframe src="https://example.com/"></iframe>',
    "image-data-svg": '<img src="data:image/svg+xml,<svg onload=alert(1)>">',
    # a scheme split by a line break, a tab, a control character or an entity, which a browser drops (issue #40)
    **{"split-" + re.sub(r"\W+", "-", name): link for name, link in CONTENT_LINKS.items() if name != "tab"},
}
#: Body payloads a browser runs but Python's HTML parser (the live test's reader) does not see: `<!-->` is a
#: whole comment to a browser, so the script after it runs; a check that skipped comments would miss it.
BROWSER_ONLY = {"comment-ended-early": "<!--><script>alert(1)</script>-->"}
#: Whole pages: front matter the theme writes into the page unescaped.
WHOLE = {
    "front-matter-title": '---\ntitle: "<img src=x.png onerror=alert(1)>"\n---\n# Payload\n',
    "front-matter-description": "---\ndescription: 'x\" onmouseover=\"alert(1)'\n---\n# Payload\n",
}
#: Files of the content folder a browser runs when opened.
FILES = {"page.html": "<script>alert(1)</script>\n", "picture.svg": '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>\n'}
ALLOWED = """# Allowed

<div class="note">A <b>bold</b> and <em>stressed</em> word.</div>

<details open><summary>More</summary>Hidden text.</details>

[Next](other.md) <https://example.com/> [Write](mailto:rules@example.com)

A paragraph with an id.
{: .lead #intro }

| a | b |
| --- | --- |
| 1 | 2 |
"""


def _pages() -> dict[str, str]:
    pages = {f"payload-{name}": f"# Payload\n\n{payload}\n" for name, payload in {**BODY, **BROWSER_ONLY}.items()}
    pages.update({f"payload-{name}": text for name, text in WHOLE.items()})
    return pages


def _write(folder: Path) -> None:
    for name, text in {**_pages(), "allowed": ALLOWED, "other": "# Other\n"}.items():
        (folder / f"{name}.md").write_text(text, encoding="utf-8")
    for name, text in FILES.items():
        (folder / name).write_text(text, encoding="utf-8")


def _extensions() -> list[object]:
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    block = re.search(r"^markdown_extensions:\n(?:[ -].*\n)+", config, re.MULTILINE)
    assert block is not None
    return list(yaml.safe_load(block[0])["markdown_extensions"])


def _plain_build(folder: Path, pages: dict[str, str], files: dict[str, str] | None = None) -> Path:
    """A plain `mkdocs build` (no rules plugin) of these pages with the shipped theme and Markdown extensions."""
    docs = folder / "docs"
    docs.mkdir(parents=True)
    for name, text in {**pages, "allowed": ALLOWED, "other": "# Other\n"}.items():
        (docs / f"{name}.md").write_text(text, encoding="utf-8")
    for name, text in (files or {}).items():
        (docs / name).write_text(text, encoding="utf-8")
    config = {"site_name": "Plain", "use_directory_urls": False, "theme": {"name": "material"}, "markdown_extensions": _extensions()}
    (folder / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    result = mkdocs_build(folder, folder / "site", strict=False)
    assert result.returncode == 0, result.stderr
    return folder / "site"


def test_every_payload_runs_in_a_build_the_check_does_not_guard(tmp_path: Path) -> None:
    clean = elements((_plain_build(tmp_path / "clean", {}) / "allowed.html").read_text(encoding="utf-8"))
    assert executable(clean, clean) == []
    body = {f"payload-{name}": f"# Payload\n\n{payload}\n" for name, payload in BODY.items()}
    site = _plain_build(tmp_path / "body", body, FILES)
    live = {name: executable(elements((site / f"{name}.html").read_text(encoding="utf-8")), clean) for name in body}
    assert executable(elements((site / "allowed.html").read_text(encoding="utf-8")), clean) == []
    for name, text in WHOLE.items():  # a title goes into every page's menu: a site of its own for each
        whole = _plain_build(tmp_path / name, {f"payload-{name}": text})
        live[name] = executable(elements((whole / f"payload-{name}.html").read_text(encoding="utf-8")), clean)
    assert [name for name, found in live.items() if not found] == []
    assert executable(elements((site / "page.html").read_text(encoding="utf-8")), clean)
    assert (site / "picture.svg").read_text(encoding="utf-8") == FILES["picture.svg"]  # published as written


def _run(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cadence(list(argv))
    return code, out.getvalue() + err.getvalue()


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = copy_project(MINI, tmp_path_factory.mktemp("hostile") / "mini")
    _write(project / "content")
    return project


def test_the_check_reports_every_payload_where_it_is(hostile: Path) -> None:
    code, output = _run("-C", str(hostile), "check")
    assert code == 1
    unsafe = [line for line in output.splitlines() if "error[unsafe-content]" in line]
    reported = {line.split(":", 1)[0] for line in unsafe}
    expected = {f"content/{name}.md" for name in _pages()} | {f"content/{name}" for name in FILES}
    assert reported == expected, output
    for name, text in _pages().items():
        lines = [int(line.split(":")[1]) for line in unsafe if line.startswith(f"content/{name}.md:")]
        payload_lines = range(2, 5) if name.removeprefix("payload-") in WHOLE else range(3, 3 + text.count("\n"))
        assert all(line in payload_lines for line in lines), (name, lines)
    # the allowed page draws no complaint but the two any page at the content root would (not in a menu, words)
    about_allowed = [line for line in output.splitlines() if line.startswith("content/allowed.md:")]
    assert [line for line in about_allowed if "warning[spelling]" not in line and "warning[unlisted-page]" not in line] == []
    assert all(re.match(r"^content/\S+:\d+:\d+: error\[unsafe-content\]: .+ \(hint: .+\)$", line) for line in unsafe), unsafe


def test_the_build_refuses_a_project_with_unsafe_content(hostile: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    built = cadence_build(hostile, site, "mkdocs", strict=False)
    assert built.returncode == 1
    assert "error[unsafe-content]" in built.stderr + built.stdout
    assert not site.exists()
    result = mkdocs_build(hostile, tmp_path / "plugin-site", strict=False)  # the MkDocs plugin refuses it too
    assert result.returncode != 0 and "unsafe-content" in result.stderr
    assert not (tmp_path / "plugin-site" / "payload-script.html").exists()


def test_allowed_html_builds_as_written(tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    (project / "content" / "allowed.md").write_text(ALLOWED, encoding="utf-8")
    (project / "content" / "other.md").write_text("# Other\n", encoding="utf-8")
    site = tmp_path / "site"
    built = cadence_build(project, site, "mkdocs", strict=False)
    assert built.returncode == 0, built.stderr
    page = (site / "allowed.html").read_text(encoding="utf-8")
    assert '<div class="note">A <b>bold</b>' in page
    assert ("details", {"open": ""}) in [(e.tag, e.attrs) for e in elements(page)] and 'href="https://example.com/"' in page
    assert 'class="lead" id="intro"' in page


def test_the_final_html_of_every_hostile_page_holds_nothing_that_runs(tmp_path: Path) -> None:
    """The post-build over the final HTML (`postbuild.secure_pages`), on pages the check never saw (a plain
    `mkdocs build`): every payload that ran before it is gone after it, read as a browser reads a URL; a page of
    allowed HTML keeps every element and attribute."""
    clean = elements((_plain_build(tmp_path / "clean", {}) / "allowed.html").read_text(encoding="utf-8"))
    body = {f"payload-{name}": f"# Payload\n\n{payload}\n" for name, payload in BODY.items()}
    site = _plain_build(tmp_path / "body", body)
    before = {path: path.read_text(encoding="utf-8") for path in site.rglob("*.html")}
    assert all(executable(elements(before[site / f"{name}.html"]), clean) for name in body)
    secure_pages(site, BuildContext(tmp_path / "body", "mkdocs"))
    unsafe = {}
    for path in [site / f"{name}.html" for name in [*body, "allowed", "other"]]:
        found = elements(path.read_text(encoding="utf-8"))
        unsafe[path.name] = executable(found, clean) + [
            f"{e.tag} {e.attrs}" for e in found for value in e.attrs.values() if script_url(value)
        ]
    assert {name: found for name, found in unsafe.items() if found} == {}
    print(f"\nfinal HTML: {len(unsafe)} pages read, {len(body)} hostile, none with anything that runs")
    allowed = [(e.tag, e.attrs) for e in elements((site / "allowed.html").read_text(encoding="utf-8"))]
    assert allowed == [(e.tag, e.attrs) for e in elements(before[site / "allowed.html"])]
