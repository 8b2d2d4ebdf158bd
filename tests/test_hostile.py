"""Broken and hostile input: located one-line errors, no traceback, nothing published wrong or lost."""

from __future__ import annotations

import contextlib
import io
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator import cache
from generator.cli import UNFINISHED
from generator.cli import main as cadence
from generator.report import NOT_CHECKED

from .conftest import MINI, REPO, copy_project, mkdocs_build
from .payloads import EVERY_FIELD, RawProject, accepting_fields, check_errors, fields_at, string_fields, with_payload

LINE = re.compile(r"^[^:\n]+:[1-9]\d*:[1-9]\d*: (error|warning)\[[a-z-]+\]: .+$")
TARGETS = ("data/skirmish/army-lists/rangers.yaml", "data/skirmish/module.yaml", "data/core/module.yaml", "data/system.yaml")


# --- mutations that always make a document invalid ----------------------------------------------


def _insert(text: str, at: int, piece: str) -> str:
    at = max(0, min(at, len(text)))
    return text[:at] + piece + text[at:]


def _line_start(text: str, fraction: float) -> int:
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    return starts[min(int(fraction * len(starts)), len(starts) - 1)]


@st.composite
def broken_document(draw: st.DrawFn) -> tuple[str, bytes, str]:
    """(target file, new bytes, kind of damage) for one of the fixture's data files."""
    target = draw(st.sampled_from(TARGETS))
    text = (MINI / target).read_text(encoding="utf-8")
    kind = draw(
        st.sampled_from(
            [
                "unknown-key",
                "wrong-type",
                "drop-required",
                "unclosed",
                "bad-utf8",
                "duplicate-key",
                "alias",
                "tag",
                "deep",
                "not-a-mapping",
                "unsafe-page",
                "truncate",
                "tab-indent",
            ]
        )
    )
    at = draw(st.floats(0, 1))
    if kind == "unknown-key":
        name = draw(st.from_regex(r"[a-z]{3,12}", fullmatch=True).filter(lambda n: n not in _KNOWN_KEYS))
        top = text.split("\n", 1)
        text = top[0] + f"\n  {name}: {draw(st.integers())}\n" + top[1]
    elif kind == "wrong-type":
        field = {"data/system.yaml": "name", "data/skirmish/army-lists/rangers.yaml": "name"}.get(target, "title")
        replacement = draw(st.sampled_from(["[1, 2]", "{a: 1}", "~"]))
        text, count = re.subn(rf"(\n  {field}: )[^\n]*", lambda m: m.group(1) + replacement, text, count=1)
        assert count == 1
    elif kind == "drop-required":
        field = {"data/system.yaml": "profiles", "data/skirmish/army-lists/rangers.yaml": "name"}.get(target, "title")
        text = re.sub(rf"\n  {field}:[^\n]*(\n    [^\n]*)*", "\n", text, count=1)
    elif kind == "unclosed":
        text = _insert(text, _line_start(text, at), "  broken: [1, {2\n")
    elif kind == "bad-utf8":
        raw = text.encode()
        cut = int(at * len(raw))
        return target, raw[:cut] + draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xe9", b"\x80\x80"])) + raw[cut:], kind
    elif kind == "duplicate-key":
        first = text.split("\n", 2)
        text = first[0] + "\n" + first[1] + "\n" + first[1] + "\n" + first[2]
    elif kind == "alias":
        text = text.replace("\n", "\n  extra: &a [1]\n  more: *a\n", 1)
    elif kind == "tag":
        tag = draw(st.sampled_from(["!!python/object/apply:os.system ['true']", "!!binary aGVsbG8=", "!custom 1", "!!set {a}"]))
        text = text.replace("\n", f"\n  extra: {tag}\n", 1)
    elif kind == "deep":
        depth = draw(st.integers(41, 200))
        text = text.replace("\n", "\n  extra: " + "[" * depth + "]" * depth + "\n", 1)
    elif kind == "not-a-mapping":
        text = draw(st.sampled_from(["- a\n- b\n", "just text\n", "42\n", "[1, 2]\n", "---\n- x\n"]))
    elif kind == "unsafe-page":
        page = draw(st.sampled_from(["../../etc/x", "/abs/page", "skirmish/../../x", "Skirmish/Rules", "a//b", "..", "x/./y"]))
        target = "data/skirmish/army-lists/rangers.yaml"
        text = (
            (MINI / target)
            .read_text(encoding="utf-8")
            .replace("  title: Rangers Army List\n", f"  title: Rangers Army List\n  page: '{page}'\n")
        )
    elif kind == "truncate":
        # cut inside a flow mapping: always leaves it unclosed
        starts = [m.start() for m in re.finditer(r"\{", text)]
        if not starts:
            text = "{"
        else:
            start = starts[int(at * (len(starts) - 1))]
            text = text[: start + 2]
    elif kind == "tab-indent":
        text = _insert(text, _line_start(text, at), "\tbad: 1\n")
    return target, text.encode("utf-8"), kind


_KNOWN_KEYS = {
    "id", "name", "title", "page", "intro", "notice", "uses", "special_rules", "sections", "core", "status", "summary", "rounds",
    "battlefield", "licence", "currency", "terms", "army_building", "pages", "tables", "errata", "changes", "value_forms", "profiles",
    "landing_pages", "changes_release",
}  # fmt: skip


def run_check(project: Path) -> tuple[int, str]:
    """`cadence check` in-process: the exit code and everything it printed."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cadence(["-C", str(project), "check"])
    return code, out.getvalue() + err.getvalue()


def test_malformed_documents_give_located_errors() -> None:
    """A thousand broken documents, each reported as located one-line problems; the kinds tried are
    counted here, in the same test, so the count never depends on which tests ran before."""
    tried: list[str] = []

    @settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(broken_document())
    def located(case: tuple[str, bytes, str]) -> None:
        target, data, kind = case
        with tempfile.TemporaryDirectory() as scratch:
            project = copy_project(MINI, Path(scratch) / "mini")
            (project / target).write_bytes(data)
            code, output = run_check(project)
        tried.append(kind)
        assert code in (1, 2), f"{kind}: exit {code}\n{output}"
        assert "Traceback" not in output
        lines = [line for line in output.splitlines() if line and not line.startswith(("as-published", "cadence:"))]
        problems = lines[:-1]
        assert problems, f"{kind}: no problem line\n{output}"
        assert all(LINE.match(line) for line in problems), f"{kind}:\n{output}"
        located_at = re.compile(rf"^{re.escape(target)}:[1-9][0-9]*:[1-9][0-9]*: error\[")
        assert any(located_at.match(line) for line in problems), f"{kind}: no error at a line and column of {target}\n{output}"

    located()
    counts = Counter(tried)
    print(f"\nmalformed inputs tried: {len(tried)}; by kind: {dict(sorted(counts.items()))}")
    assert len(tried) >= 1000


def test_html_in_data_is_shown_as_text(tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    payload = '<script>alert(1)</script><img src=x onerror="alert(2)">'
    path = project / "data/skirmish/army-lists/rangers.yaml"
    text = path.read_text()
    text = text.replace("intro: Scouts of the *outer* marches.", f"intro: '{payload} [x](javascript:alert(3))'")
    text = text.replace("{name: Ranger Captain,", f"{{name: 'Ranger Captain {payload}',")
    text = text.replace("effect: 'The model gains [[Heavy Armour (1)]].'", f"effect: '{payload}'")
    path.write_text(text)
    rules = project / "data/core/module.yaml"
    rules.write_text(rules.read_text().replace("text: This model ignores terrain when it moves.", f"text: '{payload}'"))
    site = tmp_path / "site"
    result = mkdocs_build(project, site, strict=False)
    assert result.returncode == 0, result.stderr
    for page in site.rglob("*.html"):
        elements = parse_elements(page.read_text(encoding="utf-8"))
        assert not [e for e in elements if any(name.startswith("on") for name, _ in e[1])], page
        assert not [e for e in elements if e[0] == "img" and dict(e[1]).get("src") == "x"], page
        assert not [e for e in elements if e[0] == "a" and (dict(e[1]).get("href") or "").startswith("javascript:")], page
        assert not [e for e in elements if e[0] == "script" and "alert" in e[2]], page
    army = (site / "skirmish/army-lists/rangers.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in army


def parse_elements(markup: str) -> list[tuple[str, list[tuple[str, str | None]], str]]:
    """Every element the browser would create: (tag, attributes, text of a script)."""
    from html.parser import HTMLParser

    found: list[tuple[str, list[tuple[str, str | None]], str]] = []

    class Collect(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.append((tag, attrs, ""))

        def handle_data(self, data: str) -> None:
            if found and found[-1][0] == "script":
                tag, attrs, text = found[-1]
                found[-1] = (tag, attrs, text + data)

    parser = Collect()
    parser.feed(markup)
    parser.close()
    return found


@pytest.mark.parametrize("page", ["../../outside", "/etc/passwd", "skirmish/../../../x"])
def test_pages_cannot_be_written_outside_the_site(page: str, tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    path = project / "data/skirmish/army-lists/rangers.yaml"
    path.write_text(path.read_text().replace("  title: Rangers Army List\n", f"  title: Rangers Army List\n  page: '{page}'\n"))
    result = mkdocs_build(project, tmp_path / "site")
    assert result.returncode != 0
    assert "error[unsafe-path]" in result.stderr
    assert not (tmp_path / "outside.html").exists() and not (tmp_path / "x.html").exists()


def test_too_many_units_is_refused(tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    units = "".join(
        f'        - unit: {{name: Extra {i}, models: [{{name: Extra Model {i}, profile: {{mov: 6", skl: 4+, hp: 1}}, points: 1}}]}}\n'
        for i in range(1001)
    )
    path = project / "data/skirmish/army-lists/rangers.yaml"
    path.write_text(
        path.read_text().replace("    - heading: Elite Units\n      sections:\n", "    - heading: Elite Units\n      sections:\n" + units)
    )
    code, output = run_check(project)
    assert code == 1
    assert (
        "data/skirmish/army-lists/rangers.yaml:2:3: error[too-large]: army list 'rangers' has 1003 units; the limit is 1000 (hint: split it into several lists)"
        in output
    )


# --- atomic builds ------------------------------------------------------------------------------


def _cadence_build(project: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "generator.cli", "build", "--quiet"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _snapshot(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


@pytest.fixture()
def project_with_site(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    project = copy_project(REPO, tmp_path / "cadence")
    process = _cadence_build(project)
    _, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    return project, _snapshot(project / "site")


def test_failed_build_leaves_the_previous_site(project_with_site: tuple[Path, dict[str, bytes]]) -> None:
    project, before = project_with_site
    path = project / "data/fracture/army-lists/sentinels.yaml"
    path.write_text(path.read_text().replace("lists: [Mounted Secondary Weapons]", "lists: [Mounted Secondry Weapons]", 1))
    process = _cadence_build(project)
    _, err = process.communicate(timeout=300)
    assert process.returncode == 1
    assert "error[unknown-weapon-list]" in err and "the previous site was left as it was" in err
    assert _snapshot(project / "site") == before
    assert not list(project.glob(".site-*"))


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_killed_build_leaves_the_previous_site(signum: int, project_with_site: tuple[Path, dict[str, bytes]]) -> None:
    project, before = project_with_site
    path = project / "content/index.md"
    path.write_text(path.read_text() + "\nA change that must not be published half way.\n")
    process = _cadence_build(project)
    unfinished = cache.staging_dir(project, project / "site") / UNFINISHED  # the build's kept staging folder, in use
    deadline = time.monotonic() + 60
    while not unfinished.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.5)  # well inside the build: MkDocs is loading, checking or writing pages
    assert process.poll() is None, "the build finished before it could be killed"
    if signum == signal.SIGKILL:
        os.killpg(process.pid, signal.SIGKILL)  # the whole build at once, as an OOM killer or a CI timeout would
    else:
        process.send_signal(signum)  # the command itself; it stops MkDocs and cleans up
    process.communicate(timeout=60)
    assert process.returncode != 0
    assert _snapshot(project / "site") == before
    if signum == signal.SIGTERM:
        assert not list(project.glob(".site-*"))
    assert unfinished.exists()  # so the next build empties the folder the killed one left
    # the next build tidies what a killed one left and publishes the change whole
    process = _cadence_build(project)
    _, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    assert "A change that must not be published half way." in (project / "site/index.html").read_text()
    assert not list(project.glob(".site-*")) and not unfinished.exists()


# --- files that are not files, links that leave the project -----------------------------------


@contextlib.contextmanager
def _deadline(seconds: int, why: str = "a FIFO was opened") -> Iterator[None]:
    """Fail instead of hanging for ever (when something opens a FIFO, say)."""

    def expired(_signum: int, _frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s: {why}")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_fifos_in_data_and_content_are_refused_unopened(tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    os.mkfifo(project / "data/core/extra.yaml")
    os.mkfifo(project / "content/notes.md")
    with _deadline(30):
        code, output = run_check(project)
    assert code == 1
    assert output.splitlines() == [
        "content/notes.md:1:1: error[not-a-file]: this is a FIFO, not a regular file; it was not read (hint: remove it or replace it with a file)",
        "data/core/extra.yaml:1:1: error[not-a-file]: this is a FIFO, not a regular file; it was not read (hint: remove it or replace it with a file)",
        f"2 errors, 0 warnings; {NOT_CHECKED}",
    ]
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--site-dir", str(tmp_path / "site")],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 1
    assert "data/core/extra.yaml:1:1: error[not-a-file]" in result.stderr


def test_symlink_leaving_the_project_is_refused_unless_allowed(tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    outside = tmp_path / "elsewhere" / "rangers.yaml"
    outside.parent.mkdir()
    listed = project / "data/skirmish/army-lists/rangers.yaml"
    listed.replace(outside)
    listed.symlink_to(outside)
    code, output = run_check(project)
    assert code == 1
    assert (
        "data/skirmish/army-lists/rangers.yaml:1:1: error[unsafe-path]: symbolic link leads outside the project; it was not followed "
        "(hint: copy the file into the project, or allow such links with --follow-outside-links or the plugin option follow_outside_links)"
    ) in output.splitlines()
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert cadence(["-C", str(project), "check", "--follow-outside-links"]) == 0, out.getvalue()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    refused = subprocess.run([sys.executable, "-m", "generator.cli", "build", "-q"], cwd=project, capture_output=True, text=True, env=env)
    assert refused.returncode == 1 and "error[unsafe-path]" in refused.stderr
    allowed = subprocess.run(
        [sys.executable, "-m", "generator.cli", "build", "-q", "--follow-outside-links"],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
    )
    assert allowed.returncode == 0, allowed.stderr
    assert "Ranger Captain" in (project / "site/skirmish/army-lists/rangers.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("find", "replace", "written"),
    [
        ("released: released-games", "released: /tmp/cadence-escape", "cadence-escape"),
        ("rules_index: rules-index", "rules_index: ../../escaped-index", "escaped-index"),
        ("pages: [core/rules]", "pages: [core/rules, ../outside]", "outside"),
    ],
)
def test_landing_and_module_pages_stay_inside_the_site(find: str, replace: str, written: str, tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "deep" / "er" / "mini")
    for path in (project / "data/system.yaml", project / "data/core/module.yaml"):
        path.write_text(path.read_text().replace(find, replace))
    result = mkdocs_build(project, tmp_path / "deep" / "er" / "site")
    assert result.returncode == 1
    assert "error[unsafe-path]" in result.stderr
    assert not [p for p in tmp_path.rglob(f"{written}*")]
    assert not Path(f"/tmp/{written}.html").exists() and not Path(f"/tmp/{written}.md").exists()


def test_a_page_name_longer_than_a_file_name_is_a_located_error(tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    path = project / "data/skirmish/army-lists/rangers.yaml"
    path.write_text(path.read_text().replace("id: rangers", "id: " + "r" * 300))
    code, output = run_check(project)
    assert code == 1
    assert (
        "data/skirmish/army-lists/rangers.yaml:2:7: error[unsafe-path]: army list page 'skirmish/army-lists/"
        + "r" * 300
        + "' cannot be used: a segment is 300 characters long; the limit is 100"
    ) in output


def test_symlink_loops_are_located_errors_not_tracebacks(tmp_path: Path) -> None:
    """A link to itself, two links to each other (in data and in content): each one error at the link, from
    `cadence check` and from `cadence build`, which leaves no site."""
    project = copy_project(MINI, tmp_path / "mini")
    (project / "data/core/self.yaml").symlink_to("self.yaml")
    (project / "content/one.md").symlink_to("two.md")
    (project / "content/two.md").symlink_to("one.md")
    loops = [
        f"{path}:1:1: error[io]: symbolic link loops: following it leads back to itself"
        for path in ("content/one.md", "content/two.md", "data/core/self.yaml")
    ]
    code, output = run_check(project)
    assert (code, output.splitlines()) == (1, [*loops, f"3 errors, 0 warnings; {NOT_CHECKED}"])
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run([sys.executable, "-m", "generator.cli", "build", "-q"], cwd=project, capture_output=True, text=True, env=env)
    assert built.returncode == 1 and "Traceback" not in built.stderr
    assert [line for line in built.stderr.splitlines() if "error[" in line] == loops
    assert not (project / "site").exists()


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        (
            b"site_name: [unclosed\n",
            "mkdocs.yml:2:1: error[yaml]: invalid YAML: expected ',' or ']', but got '<stream end>' (while parsing a flow sequence)",
        ),
        (
            b"- a\n- b\n",
            "mkdocs.yml:1:1: error[config]: mkdocs.yml must be a mapping of settings (site_name: ..., docs_dir: ...), not a list",
        ),
        (b"site_name: caf\xe9\n", "mkdocs.yml:1:15: error[encoding]: byte 0xe9 is not valid UTF-8 (hint: save the file as UTF-8)"),
    ],
)
def test_a_broken_mkdocs_yml_is_one_located_error(written: bytes, expected: str, tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    (project / "mkdocs.yml").write_bytes(written)
    assert run_check(project) == (1, expected + "\n")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert cadence(["-C", str(project), "build"]) == 1
    assert (out.getvalue(), err.getvalue()) == (expected + "\n", "")


def test_a_word_list_that_is_not_utf8_is_a_located_error(tmp_path: Path) -> None:
    """Not a traceback; and spelling is not checked against an empty list instead (a warning for every word
    the list accepts)."""
    project = copy_project(MINI, tmp_path / "mini")
    words = project / "data/words.txt"
    lines = len(words.read_bytes().splitlines())
    with words.open("ab") as handle:
        handle.write(b"caf\xe9\n")
    assert run_check(project) == (
        1,
        f"data/words.txt:{lines + 1}:4: error[encoding]: byte 0xe9 is not valid UTF-8 (hint: save the file as UTF-8)\n1 error, 0 warnings\n",
    )


def test_a_value_form_that_backtracks_for_ever_cannot_stop_the_check(tmp_path: Path) -> None:
    """A value form is data: `([0-9+]+)+x` against a long value would take a backtracking engine 2^60 steps
    (27 characters already took Python's `re` 5.5 s). RE2 matches in linear time, so the check ends and
    reports the value; the timeout only keeps a regression from hanging the suite."""
    project = copy_project(MINI, tmp_path / "mini")
    system = project / "data" / "system.yaml"
    system.write_text(system.read_text(encoding="utf-8").replace("pattern: '[1-6]\\+'", "pattern: '([0-9+]+)+x'"), encoding="utf-8")
    rangers = project / "data" / "skirmish" / "army-lists" / "rangers.yaml"
    long_value = "4" * 60 + "+"
    rangers.write_text(rangers.read_text(encoding="utf-8").replace("skl: 4+, hp: 1}", f"skl: '{long_value}', hp: 1}}"), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "generator.cli", "-C", str(project), "check", "--no-cache"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert f"model 'Ranger': Skl value '{long_value}' is not written as target" in result.stdout, result.stdout
    assert result.stderr == ""


#: Markdown that Python-Markdown does not finish in reasonable time: list markers 600 deep on one line end it with
#: a RecursionError (unchecked, `cadence build` ended with a traceback after `cadence check` passed); '[' never
#: closed make it reread the text for each (2,000 take 1 s, 20,000 held `cadence check` for 50 s); so do headings
#: line after line, for the rest of their paragraph. Small enough that all of them in every field of the system
#: file stay under the file size limit.
UNFINISHABLE = {
    "nested lists": "\n\n" + "+ " * 600 + "deep",
    "unclosed brackets": " " + "[" * 2000,
    "headings line after line": "\n\n" + "#\n" * 1000,
}


@pytest.mark.parametrize("payload", UNFINISHABLE)
def test_markdown_that_would_stop_the_build_is_refused_in_every_markdown_field(payload: str, tmp_path: Path) -> None:
    """Each field the model declares Markdown refuses the text, as a located `markdown-limit` error found in
    linear time; the deadline only keeps a regression from hanging the suite."""
    base = RawProject.read(EVERY_FIELD)
    markdown = string_fields(markdown_only=True)
    assert len(markdown) >= 20, markdown
    with _deadline(120, "Markdown was rendered that Python-Markdown does not finish"):
        for field in sorted(markdown):
            errors = check_errors(with_payload(base, {field}, UNFINISHABLE[payload]), tmp_path / "scratch")
            assert any(e.code == "markdown-limit" for e in errors), (field, [str(e) for e in errors])
            assert fields_at(tmp_path / "scratch", [e for e in errors if e.code == "markdown-limit"]) >= {field}, field


def test_every_other_field_that_takes_unfinishable_markdown_builds(tmp_path: Path) -> None:
    """Whatever the check passes, the build builds: the texts in every string field that checks clean with them
    (no Markdown field does), all at once, give a site that builds and shows them as text."""
    payload = "".join(UNFINISHABLE.values())
    fields, refused = accepting_fields(payload, tmp_path / "scratch")
    assert string_fields(markdown_only=True) <= refused
    assert len(fields) >= 100, sorted(fields)
    scratch = tmp_path / "project"
    assert not check_errors(with_payload(RawProject.read(EVERY_FIELD), fields, payload), scratch)
    build = _cadence_build(scratch)
    try:
        out, err = build.communicate(timeout=300)
    finally:
        if build.poll() is None:
            os.killpg(build.pid, signal.SIGKILL)
    assert build.returncode == 0, out + err
    assert "Traceback" not in err
    rendered = "".join(page.read_text(encoding="utf-8") for page in (scratch / "site").rglob("*.html"))
    assert "+ + + + deep" in rendered


# --- names, disks and revisions that once ended a command with a traceback (issue #40) ----------


def _cadence(project: Path, *argv: str, **options: Any) -> subprocess.CompletedProcess[str]:
    """The real `cadence` command on `project`, in a process of its own."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "generator.cli", "-C", str(project), *argv], capture_output=True, text=True, env=env, timeout=300, **options
    )


def _check_and_build_refuse(project: Path, line: str) -> None:
    """`cadence check` reports `line` alone, and `cadence build` refuses the project with it: no traceback, no site."""
    checked = _cadence(project, "check")
    assert (checked.returncode, checked.stdout.splitlines()[:-1], checked.stderr) == (1, [line], "")
    built = _cadence(project, "build", "-q")
    assert built.returncode == 1 and "Traceback" not in built.stderr, built.stderr
    assert [row for row in built.stderr.splitlines() if "error[" in row] == [line]
    assert not (project / "site").exists()


@pytest.mark.parametrize(
    ("name", "shown", "expected"),
    [
        (
            b"a" * 247 + b".md",
            "a" * 247 + ".md",
            "error[unsafe-path]: the name is 250 characters long; the limit is 100; it was not read (hint: shorten the name)",
        ),
        (
            "é".encode() * 60 + b".png",
            "é" * 60 + ".png",
            "error[unsafe-path]: the name is 64 characters (124 bytes of UTF-8) long; the limit is 100 bytes; it was not read "
            "(hint: shorten the name)",
        ),
        (
            b"caf\xe9.md",
            "caf\\xe9.md",
            "error[encoding]: the name is not valid UTF-8 (byte 0xe9); it was not read (hint: rename it, in UTF-8)",
        ),
        (
            b"caf\xe9/page.md",
            "caf\\xe9",
            "error[encoding]: the name is not valid UTF-8 (byte 0xe9); it was not read (hint: rename it, in UTF-8)",
        ),
    ],
    ids=["250 bytes", "124 bytes in 64 letters", "not UTF-8", "a folder not UTF-8"],
)
def test_a_content_file_name_the_site_cannot_carry_is_one_located_error(name: bytes, shown: str, expected: str, tmp_path: Path) -> None:
    """`cadence check` passed such a name and `cadence build` ended with a traceback (ENAMETOOLONG when staging,
    UnicodeEncodeError in the checks): the check now refuses it at the file, and the build with the same line."""
    project = copy_project(MINI, tmp_path / "mini")
    target = os.fsencode(project / "content") + b"/" + name
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "wb") as handle:
        handle.write(b"# A page\n")
    _check_and_build_refuse(project, f"content/{shown}:1:1: {expected}")


def test_no_rule_kinds_is_one_located_error(tmp_path: Path) -> None:
    """`rule_kinds: []` gave an IndexError in check and build: every special rule is of one of the kinds, so an empty
    list is refused where it is written (and the rules are not each reported as of a kind the system lacks)."""
    project = copy_project(MINI, tmp_path / "mini")
    system = project / "data/system.yaml"
    system.write_text(
        system.read_text(encoding="utf-8").replace("  landing_pages:\n", "  rule_kinds: []\n  landing_pages:\n"), encoding="utf-8"
    )
    line = next(n for n, text in enumerate(system.read_text(encoding="utf-8").splitlines(), 1) if "rule_kinds" in text)
    expected = f"data/system.yaml:{line}:15: error[value]: system.rule_kinds must not be empty (hint: leave it out to have its default)"
    _check_and_build_refuse(project, expected)


def _file_size_limit(most: int) -> Callable[[], None]:
    """For `preexec_fn`: no file the process writes may grow past `most` bytes. The kernel then refuses the write that
    would (EFBIG, where a full disk gives ENOSPC): a real failed write, where it falls, without filling a disk."""

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # else the kernel ends the process instead of failing the write
        resource.setrlimit(resource.RLIMIT_FSIZE, (most, most))

    return limit


@pytest.mark.parametrize("cached", [True, False], ids=["engine's write", "staging's write"])
def test_a_build_that_cannot_write_is_one_io_error_and_the_site_stays(cached: bool, tmp_path: Path) -> None:
    """A disk that fills during the build ended it with a traceback (from the engine or from staging) and exit 1:
    now one line naming the file, exit 2, and the previous site as it was."""
    project = copy_project(MINI, tmp_path / "mini")
    assert _cadence(project, "build", "-q").returncode == 0
    before = _snapshot(project / "site")
    page = project / "content/index.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nA change the full disk keeps out.\n", encoding="utf-8")
    argv = ["build", "-q", *([] if cached else ["--no-cache"])]
    built = _cadence(project, *argv, preexec_fn=_file_size_limit(16 * 1024))
    assert built.returncode == 2, built.stderr
    assert "Traceback" not in built.stderr
    lines = built.stderr.splitlines()
    assert len(lines) == 2 and re.fullmatch(r"cadence: cannot write .+: File too large", lines[0]), built.stderr
    assert lines[1] == "cadence: build failed; the previous site was left as it was"
    assert _snapshot(project / "site") == before
    assert not list(project.glob(".site-*"))
