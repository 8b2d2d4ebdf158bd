"""Hostile payloads in every string field of the model, for the payload tests (real build and Chromium).

The fields come from the model, not from a list: every string reachable from the three document
kinds through `schema.data_fields`, lists of records, optional records and mappings included. The
fixture `tests/fixtures/every-field` holds a value for each; a payload is written into each value
(renaming every use of a name with it, so references still resolve) and kept only in the fields
where the project still checks without errors. The rest are reported as refused by the checker.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

import yaml

from generator.catalogue import assemble
from generator.checks import run_checks
from generator.loader import load_directory
from generator.model import DOCUMENT_KINDS, LandingPages, Record
from generator.pages import read_content
from generator.problems import Problem
from generator.resolve import resolve
from generator.schema import data_fields, is_markdown, type_hints, yaml_key

EVERY_FIELD = Path(__file__).resolve().parent / "fixtures" / "every-field"

#: Each payload runs `window.__pwned = 1` or opens a dialog if anything of it executes.
PAYLOADS: dict[str, str] = {
    "script tag": "<script>window.__pwned=1</script>",
    "img onerror": '<img src=x onerror="window.__pwned=1">',
    "svg onload": "<svg onload=alert(1)>",
    "raw HTML block": '<div>\n<iframe src="javascript:alert(1)"></iframe><object data="x.swf"></object><embed src="x.swf">\n'
    '<form action="javascript:alert(1)"><button formaction="javascript:alert(1)">go</button></form>\n</div>',
    "attribute list (block)": 'Focus me\n{: onfocus="window.__pwned=1" autofocus tabindex=0 }',
    "attribute list (inline)": '*hover me*{ onmouseover="window.__pwned=1" }',
    "javascript: inline link": "[inline](javascript:window.__pwned=1)",
    "javascript: reference link": "[reference][evil]\n\n[evil]: javascript:window.__pwned=1",
    "javascript: autolink": "<javascript:window.__pwned=1>",
    "javascript: newline in scheme": "[newline](java\nscript:window.__pwned=1)",
    "javascript: tab in scheme": "[tab](java\tscript:window.__pwned=1)",
    "javascript: entity in scheme": "[entity](jav&#x61;script:window.__pwned=1)",
    "JAVASCRIPT: uppercase": "[upper](JaVaScRiPt:window.__pwned=1)",
    "data: and vbscript:": "[data](data:text/html,<script>alert(1)</script>) [vb](vbscript:alert(1)) ![img](javascript:alert(1))",
    "Jinja": "{{ 7*7 }} {% if true %}jinja{% endif %} {{ site.project }}",
    "directive": "[% table skirmish/weather %]\n\n[% special-rules core %]",
    # a call-out of a kind the theme does not have, a title that tries to end its quotes, a script in its body
    "call-out": '!!! md-header hidden "x\\" onmouseover=\\"window.__pwned=1"\n    <script>window.__pwned=1</script>'
    ' [in](javascript:window.__pwned=1)\n\n    !!! danger "<img src=x onerror=window.__pwned=1>"\n        deep',
}

#: Payloads built together: each batch is one project and one `mkdocs build`.
BATCHES: tuple[tuple[str, ...], ...] = (
    ("script tag", "img onerror", "svg onload", "raw HTML block", "Jinja", "directive"),
    ("attribute list (block)", "attribute list (inline)", "javascript: inline link", "javascript: reference link", "javascript: autolink"),
    (
        "javascript: newline in scheme",
        "javascript: tab in scheme",
        "javascript: entity in scheme",
        "JAVASCRIPT: uppercase",
        "data: and vbscript:",
        "call-out",
    ),
)


#: Site paths of generated pages. The checker does not refuse a payload in them yet, and MkDocs
#: then fails to write the page: a gap in input checking (issue #12's input side), not in output.
SITE_PATHS = {f"LandingPages.{f.name}" for f in data_fields(LandingPages)}


# --- the model's string fields -----------------------------------------------------------------


def string_fields(markdown_only: bool = False) -> set[str]:
    """`Record.field` for every field of the model that holds a string, anywhere inside a document (with
    `markdown_only`, only those the model declares Markdown)."""
    found: set[str] = set()
    seen: set[type] = set()

    def visit(cls: type) -> None:
        if cls in seen:
            return
        seen.add(cls)
        hints = type_hints(cls)
        for f in data_fields(cls):
            pending = [hints[f.name]]
            while pending:
                tp = pending.pop()
                origin = get_origin(tp)
                if tp is str and (is_markdown(f) or not markdown_only):
                    found.add(f"{cls.__name__}.{f.name}")
                elif isinstance(tp, type) and issubclass(tp, Record):
                    visit(tp)
                elif origin is dict:
                    pending.append(get_args(tp)[1])  # keys are ids and column keys; values are the data
                elif origin in (tuple, Union, types.UnionType):
                    pending.extend(a for a in get_args(tp) if a is not Ellipsis)
                # Literal values are fixed words of the format, not text

    for kind in DOCUMENT_KINDS.values():
        visit(kind)
    return found


@dataclass
class Leaf:
    """One string in a raw document: the model field it belongs to and where to write it."""

    field: str
    container: Any
    key: Any

    @property
    def value(self) -> str:
        return str(self.container[self.key])


def leaves(tp: Any, raw: Any, owner: str, container: Any = None, key: Any = None) -> Iterator[Leaf]:
    """Every string in a raw value, walked along the model's types."""
    origin = get_origin(tp)
    if tp is str or origin is Literal:
        if isinstance(raw, str) and tp is str:
            yield Leaf(owner, container, key)
    elif isinstance(tp, type) and issubclass(tp, Record):
        if isinstance(raw, dict):
            hints = type_hints(tp)
            for f in data_fields(tp):
                if yaml_key(f) in raw:
                    yield from leaves(hints[f.name], raw[yaml_key(f)], f"{tp.__name__}.{f.name}", raw, yaml_key(f))
    elif origin is tuple and isinstance(raw, list):
        item = get_args(tp)[0]
        for i in range(len(raw)):
            yield from leaves(item, raw[i], owner, raw, i)
    elif origin is dict and isinstance(raw, dict):
        for k in raw:
            yield from leaves(get_args(tp)[1], raw[k], owner, raw, k)
    elif origin in (Union, types.UnionType):
        for option in get_args(tp):
            sub = get_origin(option)
            fits = (
                (option is str and isinstance(raw, str))
                or (isinstance(option, type) and issubclass(option, Record) and isinstance(raw, dict))
                or (sub is tuple and isinstance(raw, list))
                or (sub is dict and isinstance(raw, dict))
            )
            if fits:
                yield from leaves(option, raw, owner, container, key)
                return


# --- a project with payloads in it --------------------------------------------------------------


@dataclass
class RawProject:
    """A project's data as plain YAML values and its content pages as text, ready to edit and write."""

    documents: dict[str, Any]
    content: dict[str, str]
    config: str

    @classmethod
    def read(cls, root: Path) -> RawProject:
        documents = {
            p.relative_to(root).as_posix(): yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted((root / "data").rglob("*.yaml"))
        }
        content = {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in sorted((root / "content").rglob("*.md"))}
        return cls(documents, content, (root / "mkdocs.yml").read_text(encoding="utf-8"))

    def leaves(self) -> list[Leaf]:
        found: list[Leaf] = []
        for body in self.documents.values():
            ((kind, record),) = body.items()
            found.extend(leaves(DOCUMENT_KINDS[kind], record, kind, body, kind))
        return found

    def write(self, root: Path) -> Path:
        if root.exists():
            shutil.rmtree(root)
        for path, body in self.documents.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(yaml.safe_dump(body, allow_unicode=True, sort_keys=False, width=10_000), encoding="utf-8")
        for path, text in self.content.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text, encoding="utf-8")
        (root / "mkdocs.yml").write_text(self.config, encoding="utf-8")
        words = EVERY_FIELD / "data" / "words.txt"
        shutil.copy(words, root / "data" / "words.txt")
        return root


def with_payload(base: RawProject, fields: set[str], payload: str) -> RawProject:
    """A copy with `payload` added to every value of `fields`, each name renamed wherever it is used."""
    project = copy.deepcopy(base)
    targets = [leaf for leaf in project.leaves() if leaf.field in fields]
    renames = {leaf.value: f"{leaf.value} {payload}" for leaf in targets}
    for leaf in project.leaves():
        old = leaf.value
        if old in renames:
            leaf.container[leaf.key] = renames[old]
        else:
            for name, new in renames.items():
                if old.startswith(name + " ("):  # a rule used with its value: `Heavy Armour (1)`
                    leaf.container[leaf.key] = new + old[len(name) :]
                    break
    pattern = (
        re.compile(r"\[\[(" + "|".join(re.escape(n) for n in sorted(renames, key=len, reverse=True)) + r")([\] (])") if renames else None
    )

    def relink(text: str) -> str:
        return pattern.sub(lambda m: f"[[{renames[m.group(1)]}{m.group(2)}", text) if pattern else text

    for leaf in project.leaves():
        leaf.container[leaf.key] = relink(leaf.value)
    project.content = {path: relink(text) for path, text in project.content.items()}
    return project


def check_errors(project: RawProject, scratch: Path) -> list[Problem]:
    """The errors a check finds in the project (spelling aside: it only warns, and is slow on payloads)."""
    root = project.write(scratch)
    documents, problems = load_directory(root, "data")
    content, found = read_content(root, "content")
    built, assembled = assemble(documents, "data")
    problems += found + assembled
    if built is not None and not any(p.severity.value == "error" for p in problems):
        problems += run_checks(resolve(built, content, "content"), root=root, words=None)
    return [p for p in problems if p.severity.value == "error"]


def fields_at(root: Path, problems: list[Problem]) -> set[str]:
    """The fields whose strings are written on the lines the problems point at."""
    documents, _ = load_directory(root, "data")
    by_line: dict[tuple[str, int], set[str]] = {}
    for document in documents:
        ((kind, body),) = document.body.items()
        for leaf in leaves(DOCUMENT_KINDS[kind], body, kind, document.body, kind):
            loc = getattr(leaf.container[leaf.key], "loc", None)
            if loc is not None:
                by_line.setdefault((loc.path, loc.line), set()).add(leaf.field)
    return set().union(*(by_line.get((p.location.path, p.location.line), set()) for p in problems))


@dataclass
class Hostile:
    """A project with a batch of payloads in every field that accepts them."""

    root: Path
    payloads: tuple[str, ...]
    fields: set[str]

    @property
    def tried(self) -> int:
        return len(self.fields) * len(self.payloads)


def accepting_fields(payload: str, scratch: Path) -> tuple[set[str], set[str]]:
    """(fields that keep the project clean with the payload in them, fields the checker refuses it in).

    Each field is tried on its own, then all the accepted ones together; a field whose text
    conflicts with another's (seen on the lines the errors point at) is taken out.
    """
    base = RawProject.read(EVERY_FIELD)
    candidates = sorted({leaf.field for leaf in base.leaves()} - SITE_PATHS)
    fields = {f for f in candidates if not check_errors(with_payload(base, {f}, payload), scratch)}
    while (errors := check_errors(with_payload(base, fields, payload), scratch)) and (at_fault := fields_at(scratch, errors) & fields):
        fields -= at_fault
    assert not errors, "\n".join(map(str, errors))
    shutil.rmtree(scratch, ignore_errors=True)
    return fields, set(candidates) - fields


def hostile_project(batch: tuple[str, ...], fields: set[str], dest: Path) -> Hostile:
    """The every-field fixture with the batch's payloads in each of `fields`, written to `dest`."""
    payload = "\n\n".join(PAYLOADS[name] for name in batch)
    project = with_payload(RawProject.read(EVERY_FIELD), fields, payload)
    errors = check_errors(project, dest)
    assert not errors, "\n".join(map(str, errors))
    return Hostile(dest, batch, fields)


#: Links whose scheme a line break, a tab, a control character or an entity splits, in a content page: Markdown
#: keeps it in the address, and a browser drops it, so a click runs the script (issue #40).
CONTENT_LINKS: dict[str, str] = {
    "line feed": "[Click me](java\nscript:window.__pwned=1)",
    "line feed before the colon": "[colon](javascript\n:window.__pwned=1)",
    "carriage return": "[cr](java\rscript:window.__pwned=1)",
    "CR LF, mixed case": "[crlf](JaVa\r\nScRiPt:window.__pwned=1)",
    "tab": "[tab](java\tscript:window.__pwned=1)",
    "newline entity": "[entity](java&#10;script:window.__pwned=1)",
    "named newline entity": "[named](java&NewLine;script:window.__pwned=1)",
    "tab entity": "[tab entity](java&Tab;script:window.__pwned=1)",
    "colon entity": "[colon entity](javascript&colon;window.__pwned=1)",
    "control character before": "[control](&#1;&#32;javascript:window.__pwned=1)",
    "image": "![image](java\nscript:window.__pwned=1)",
    "angle brackets": "[angle](<java\nscript:window.__pwned=1>)",
    "with a title": '[title](java\nscript:window.__pwned=1 "a title")',
    "raw HTML": '<a href="java\nscript:window.__pwned=1">raw</a>',
}


def with_content_payload(base: RawProject, payload: str) -> RawProject:
    """A copy with `payload` at the end of every content page, after a blank line."""
    project = copy.deepcopy(base)
    project.content = {path: f"{text.rstrip()}\n\n{payload}\n" for path, text in project.content.items()}
    return project


def content_payload() -> str:
    """Every hostile content link, each a paragraph of its own, then every data payload but our directives (a
    content page's own syntax: it shows the same rules twice)."""
    return "\n\n".join([*CONTENT_LINKS.values(), *(text for name, text in PAYLOADS.items() if name != "directive")])


#: Runs `cadence` or `mkdocs` (argv after the script) with the checks that refuse a hostile content page switched
#: off (its markup; its links, which read `java&Tab;script:` as a missing page), so the sanitiser behind them (the
#: post-build over the final HTML) is what a test sees.
_UNCHECKED = """
import sys
import generator.checks as checks
from generator.checks.content_safety import check_content_markup
from generator.checks.links import check_page_links
checks.CHECKS = tuple(check for check in checks.CHECKS if check.run not in (check_content_markup, check_page_links))
tool, argv = sys.argv[1], sys.argv[2:]
if tool == "mkdocs":
    from mkdocs.__main__ import cli
    cli(argv)
else:
    from generator.cli import main
    sys.exit(main(argv))
"""


def unchecked_build(project: Path, site: Path, engine: str) -> subprocess.CompletedProcess[str]:
    """A real build of the project with the content pages' safety check off: `mkdocs build` (the plugin) for
    MkDocs, `cadence build --engine zensical` for Zensical. Nothing is cached: the check's memo would bring
    back its problems."""
    if engine == "mkdocs":
        command = [sys.executable, "-c", _UNCHECKED, "mkdocs", "build", "--site-dir", str(site)]
    else:
        command = [sys.executable, "-c", _UNCHECKED, "cadence", "-C", str(project), "build", "--site-dir", str(site), "--engine", engine]
    env = {**os.environ, "CADENCE_NO_CACHE": "1", "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(command, cwd=project, capture_output=True, text=True, env=env, timeout=600)


def all_payloads() -> str:
    """Every payload in one text: the fields that accept this accept each of them."""
    return "\n\n".join(PAYLOADS.values())


# --- what the built site contains ---------------------------------------------------------------

URL_ATTRIBUTES = ("href", "src", "action", "formaction", "data", "xlink:href", "poster", "background", "srcset", "imagesrcset", "ping")
FOREIGN = ("iframe", "object", "embed", "form", "frame", "frameset", "base", "meta")
#: What the URL standard strips before it reads a scheme: C0 controls and spaces at the ends, tabs and newlines anywhere.
_URL_EDGES = "".join(map(chr, range(0x21)))
_TAB_OR_NEWLINE = re.compile(r"[\t\n\r]")


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    text: str = ""


def elements(markup: str) -> list[Element]:
    """Every element a browser would create from the markup, with the text of scripts."""
    found: list[Element] = []

    class Collect(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.append(Element(tag, {k: v or "" for k, v in attrs}))

        def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.handle_starttag(tag, attrs)

        def handle_data(self, data: str) -> None:
            if found and found[-1].tag == "script":
                found[-1].text += data

    parser = Collect(convert_charrefs=True)
    parser.feed(markup)
    parser.close()
    return found


def script_url(value: str) -> bool:
    """Whether a URL (an attribute's value as html.parser gives it: entities decoded) runs code or loads inline
    content, read as the URL standard reads it; each URL of a list (`srcset`, `ping`) is read."""
    for candidate in [value, *(part.split()[0] for part in value.split(",") if part.split())]:
        bare = _TAB_OR_NEWLINE.sub("", candidate.strip(_URL_EDGES)).lower()
        if bare.startswith(("javascript:", "vbscript:", "data:")):
            return True
    return False


def executable(found: list[Element], allowed: list[Element]) -> list[str]:
    """What in `found` could run, other than what the clean build of the same page has (`allowed`)."""
    theirs = {(e.tag, tuple(sorted(e.attrs.items())), e.text) for e in allowed}
    counts = {tag: sum(1 for e in allowed if e.tag == tag) for tag in FOREIGN}
    problems: list[str] = []
    for e in found:
        mine = (e.tag, tuple(sorted(e.attrs.items())), e.text)
        if e.tag == "script" and mine not in theirs:
            problems.append(f"script {e.attrs} {e.text[:80]!r}")
        problems.extend(f"<{e.tag} {name}={value[:60]!r}>" for name, value in e.attrs.items() if name.startswith("on"))
        if "autofocus" in e.attrs:
            problems.append(f"<{e.tag} autofocus>")
        for name in URL_ATTRIBUTES:
            if name in e.attrs and script_url(e.attrs[name]) and mine not in theirs:
                problems.append(f"<{e.tag} {name}={e.attrs[name][:60]!r}>")
    for tag in FOREIGN:
        extra = sum(1 for e in found if e.tag == tag) - counts[tag]
        if extra > 0:
            problems.append(f"{extra} <{tag}> more than the clean build")
    return problems


def search_documents(site: Path) -> list[dict[str, str]]:
    """The search index's documents: Material's `search/search_index.json` (MkDocs), else Zensical's `search.json`."""
    material = site / "search" / "search_index.json"
    if material.is_file():
        return list(json.loads(material.read_text(encoding="utf-8"))["docs"])
    return list(json.loads((site / "search.json").read_text(encoding="utf-8"))["items"])


# --- the built sites, shared by the build and browser tests -------------------------------------

_SITES: dict[str, Any] = {}


def built_sites(workdir: Path) -> tuple[Path, list[tuple[Hostile, Path]]]:
    """(the clean fixture's site, each batch's hostile project with its site): built once a session."""
    from .conftest import mkdocs_build

    if "sites" not in _SITES:
        fields, _ = accepting_fields(all_payloads(), workdir / "probe")
        clean = RawProject.read(EVERY_FIELD).write(workdir / "clean")
        result = mkdocs_build(clean, workdir / "clean-site", strict=False)
        assert result.returncode == 0, result.stderr
        sites = []
        for number, batch in enumerate(BATCHES, 1):
            hostile = hostile_project(batch, fields, workdir / f"batch-{number}")
            result = mkdocs_build(hostile.root, workdir / f"site-{number}", strict=False)
            assert result.returncode == 0, result.stderr
            sites.append((hostile, workdir / f"site-{number}"))
        _SITES["sites"] = (workdir / "clean-site", sites)
    return _SITES["sites"]


def zensical_sites(mkdocs_sites: tuple[Path, list[tuple[Hostile, Path]]], workdir: Path) -> tuple[Path, list[tuple[Hostile, Path]]]:
    """The clean and hostile projects of `built_sites`, each built by `cadence build --engine zensical` into `workdir`."""
    from .conftest import cadence_build

    clean_site, built = mkdocs_sites
    sites = []
    for project, site in [(clean_site.parent / "clean", workdir / "zensical-clean")] + [
        (hostile.root, workdir / f"zensical-{number}") for number, (hostile, _) in enumerate(built, 1)
    ]:
        result = cadence_build(project, site, "zensical", strict=False)
        assert result.returncode == 0, result.stderr
        sites.append(site)
    return sites[0], [(hostile, site) for (hostile, _), site in zip(built, sites[1:], strict=True)]


@dataclass
class ContentSites:
    """The every-field fixture with every hostile link and payload in every content page, built by each engine
    with the content check off (`unchecked_build`), beside the clean fixture built by the same engine."""

    project: Path
    sites: dict[str, tuple[Path, Path]]  # engine: (clean site, hostile site)


def content_sites(workdir: Path) -> ContentSites:
    """`ContentSites`, built once a session."""
    if "content" not in _SITES:
        clean = RawProject.read(EVERY_FIELD)
        hostile = with_content_payload(clean, content_payload()).write(workdir / "content-hostile")
        clean_root = clean.write(workdir / "content-clean")
        sites = {}
        for engine in ("mkdocs", "zensical"):
            pair = (workdir / f"{engine}-clean", workdir / f"{engine}-hostile")
            for project, site in zip((clean_root, hostile), pair, strict=True):
                result = unchecked_build(project, site, engine)
                assert result.returncode == 0, result.stdout + result.stderr
            sites[engine] = pair
        _SITES["content"] = ContentSites(hostile, sites)
    found = _SITES["content"]
    assert isinstance(found, ContentSites)
    return found
