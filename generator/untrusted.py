"""Markdown syntax through which data or content could make a reader's browser run something.

Shared by the renderer (which drops it from data) and the content-safety check (which refuses it in
content pages), so both read the same text the same way.

A link's scheme decides what a click does; `javascript:` or `data:` runs or opens what the data wrote,
so only the schemes below (and relative URLs) pass, however the URL is spelt (entities, whitespace
or control characters inside the scheme, which browsers drop). An attribute list (`{: onclick=... }`)
sets attributes on the element before it wherever the page turns attr_list on.

Markdown that would stop Python-Markdown (nesting past Python's recursion limit, brackets it rereads for
ever) is found here too, in linear time (`markdown_overload`), before anything renders it.

Data files and front matter are read with one safe YAML loader, `SAFE_LOADER`: it builds only plain
values, never Python objects.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import yaml

#: The call-out kinds Material draws (`!!! warning`): a data section may be one of them (checked), and any other
#: class a call-out in data Markdown would carry is dropped.
ADMONITIONS = frozenset({
    "note", "abstract", "summary", "tldr", "info", "todo", "tip", "hint", "important", "success", "check", "done", "question",
    "help", "faq", "warning", "caution", "attention", "failure", "fail", "missing", "danger", "error", "bug", "example", "quote",
    "cite"
})  # fmt: skip

#: libyaml's C loader where PyYAML has it (ten times faster), the pure-Python safe loader otherwise.
SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: Schemes a link or image from data may use; a URL without a scheme (relative) is always allowed.
URL_SCHEMES = frozenset({"http", "https", "mailto"})
_SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*):")
_URL_IGNORED = re.compile(r"[\x00-\x20\x7f]")  # browsers drop these inside a URL: `java\nscript:` is javascript:


def url_allowed(url: str) -> bool:
    """Whether a browser would read this URL as relative or with an allowed scheme.

    Read from Markdown or raw HTML, with its entities still written: every space and control character is
    dropped, more than a browser drops (it keeps a space inside `java script:`), so what passes here passes
    there too."""
    bare = _URL_IGNORED.sub("", html.unescape(url))
    scheme = _SCHEME.match(bare)
    return scheme is None or scheme.group(1).lower() in URL_SCHEMES


#: What the URL standard strips before it reads a scheme: C0 controls and spaces at either end, and every
#: ASCII tab and newline anywhere (`java&#10;script:` is `javascript:`).
_URL_EDGES = "".join(map(chr, range(0x21)))
_URL_TAB_OR_NEWLINE = re.compile(r"[\t\n\r]")


def browser_url(value: str, *, decoded: bool = False) -> str:
    """An attribute's value, as written in the HTML (`decoded`: with its entities already decoded), read as a
    browser reads the URL in it: entities decoded, C0 controls and spaces stripped from its ends, and tabs and
    newlines removed."""
    return _URL_TAB_OR_NEWLINE.sub("", (value if decoded else html.unescape(value)).strip(_URL_EDGES))


def url_scheme(url: str) -> str | None:
    """The scheme of a URL already read as a browser reads it (`browser_url`), lower case; None for a relative URL."""
    scheme = _SCHEME.match(url)
    return scheme.group(1).lower() if scheme else None


#: A plain web address, the only form an outside link written as a bare field (a licence's) may take: one
#: URL of http or https with nothing a Markdown link or an HTML attribute would end at.
WEB_ADDRESS = r"https?://[^\s()<>\"']+"


#: A reference definition, `[id]: target`, at the start of a line; group 1 (`target`) is its URL.
REFERENCE_DEFINITION = r"^[ ]{0,3}\[[^\]\n]+\]:\s*<?(?P<target>[^\s>]+)"

#: attr_list's own syntax, `{: #id .class key=value }`, anywhere in a line; group 1 is what is inside the braces.
#: A '{' that opens none (no '}' after it on its line) matches too, without group 1, up to that '}' or the line's
#: end: a search then goes on past it, not from each '{' of a long run to the line's end again (2,000 of them on
#: one line took 3.5 s to render, growing with the square of their number).
ATTR_LIST = r"\{(?::?[ ]*([^\}\n ][^\}\n]*)[ ]*\}|[^\}\n]*)"


# --- Markdown that would stop the build ----------------------------------------------------------

#: How deep lists, quotes and indented blocks (call-out bodies among them) may nest in one Markdown text.
#: Python-Markdown parses each level by recursion and reparses what is inside it: `+ ` written 500 times
#: on one line ends the build with a RecursionError, and 500 levels of indentation take seconds first.
MAX_NESTING = 16
#: One level of a line's nesting: four spaces or a tab, a list marker, a quote marker.
_LEVEL = re.compile(r"[ ]{4}|\t|[ ]{0,3}(?:[-*+]|[0-9]{1,9}[.)])(?:[ \t]+|$)|[ ]{0,3}>[ \t]?")
#: Where a line could start to nest: its first character is one of these.
_NESTING_LINE = re.compile(r"^[ \t>*+0-9-]", re.MULTILINE)
_BRACKET = re.compile(r"[\[\]()]")
#: How many characters Python-Markdown may reread pairing brackets, per character of the text (and a little
#: more for a short text). It looks for each '[' its ']' (and for a link's '(' its ')') by reading on from it,
#: to the end of the text when there is none: a text of a few thousand '[' takes it seconds, one of 20,000 a
#: minute, growing with the square of the length. Links and `[[rule]]` links reread their own brackets only:
#: at most twice the text.
BRACKET_READS_PER_CHARACTER = 8
_BRACKET_READS_SPARE = 16_384


@dataclass(frozen=True)
class Overload:
    """Where a Markdown text would stop Python-Markdown, and what to tell its writer."""

    offset: int
    message: str
    hint: str


@lru_cache(maxsize=16384)
def markdown_overload(text: str, fenced: bool = False) -> Overload | None:
    """What in `text` would make Python-Markdown recurse past Python's limit or take time growing with the
    square of its length, found in time linear in it; None for a text it reads in linear time.

    Data Markdown is refused with this before it is rendered, and content pages before the engine reads them
    (`markdown-limit`), so a stranger's text can neither end a check or a build with a traceback nor hold it
    for hours. `fenced`: the text may hold fenced code blocks (a content page), whose lines are code, not
    nesting or links. Kept per text: the check judges each data text, and rendering judges it again.
    """
    read = _without_fenced_code(text) if fenced else text
    return _too_deep(read) or _brackets_reread(read) or _blocks_reread(read)


_FENCE = re.compile(r"[ ]{0,3}(`{3,}|~{3,})")


def _without_fenced_code(text: str) -> str:
    """`text` with the lines of each closed fenced code block (fences too) blanked out, each character kept in
    place. A fence never closed opens no block (Python-Markdown reads what follows as Markdown): kept."""
    lines = text.split("\n")
    fence, opened = "", 0
    for number, line in enumerate(lines):
        found = _FENCE.match(line)
        if fence:
            if found is not None and found.group(1).startswith(fence) and not line[found.end() :].strip():
                lines[opened : number + 1] = ["x" * len(code) for code in lines[opened : number + 1]]
                fence = ""
        elif found is not None and not (found.group(1)[0] == "`" and "`" in line[found.end() :]):
            fence, opened = found.group(1), number
    return "\n".join(lines)


def _too_deep(text: str) -> Overload | None:
    for line in _NESTING_LINE.finditer(text):
        at, depth = line.start(), 0
        while (level := _LEVEL.match(text, at)) is not None and level.end() > at:
            depth, at = depth + 1, level.end()
        if depth > MAX_NESTING:
            return Overload(
                line.start(),
                f"lists, quotes or indented blocks nest {depth} deep here, more than {MAX_NESTING}",
                "nest fewer levels: each list marker ('- ', '1. '), quote marker ('>') and four spaces of indentation "
                "at a line's start is one",
            )
    return None


def _brackets_reread(text: str) -> Overload | None:
    """The characters Python-Markdown rereads pairing brackets: from each '[' to its ']' or the text's end, and
    from each '(' just after a ']' to its ')' or the end."""
    budget = BRACKET_READS_PER_CHARACTER * len(text) + _BRACKET_READS_SPARE
    if text.count("[") * len(text) <= budget:  # no more than that however they pair
        return None
    squares: list[int] = []
    rounds: list[tuple[int, bool]] = []  # each open '(' and whether it opens a link's address
    reads, closed_at = 0, -2
    for found in _BRACKET.finditer(text):
        mark, at = found.group(), found.start()
        if mark == "[":
            squares.append(at)
        elif mark == "]":
            if squares:
                reads += at - squares.pop()
            closed_at = at
        elif mark == "(":
            rounds.append((at, at == closed_at + 1))
        elif rounds:
            opened, link = rounds.pop()
            reads += at - opened if link else 0
    unclosed = squares + [at for at, link in rounds if link]
    reads += sum(len(text) - at for at in unclosed)
    if reads <= budget:
        return None
    if unclosed:
        return Overload(
            min(unclosed),
            f"{len(unclosed):,} brackets here and after are never closed: Markdown would reread the rest of the text for each",
            "close each '[' with ']' (and a link's '(' with ')'), or write a bracket that opens nothing as '\\['",
        )
    return Overload(
        0, "its brackets nest so deep that Markdown would reread the text once for each", "nest fewer brackets inside each other"
    )


#: A line that ends the paragraph it is in: a heading, a rule or a heading's underline, a call-out. After each,
#: Python-Markdown searches the rest of the paragraph again: a paragraph of 16,000 '#' lines took 5 s.
_ENDS_BLOCK = re.compile(r"^[ ]{0,3}(?:#|!!!|(?:[-*_=][ \t]*)+$)", re.MULTILINE)
_BLANK_LINE = re.compile(r"\n[ \t]*(?:\n|$)")


def _blocks_reread(text: str) -> Overload | None:
    """The characters Python-Markdown searches again after each line that ends a paragraph: the rest of it."""
    budget = BRACKET_READS_PER_CHARACTER * len(text) + _BRACKET_READS_SPARE
    if len(text) * (text.count("\n") + 1) <= budget:  # no more than that whatever its lines: most texts
        return None
    reads, block_end, first = 0, -1, 0
    for line in _ENDS_BLOCK.finditer(text):
        if line.start() >= block_end:
            blank = _BLANK_LINE.search(text, line.start())
            block_end, first = (blank.start() if blank else len(text)), line.start()
        reads += block_end - line.start()
        if reads > budget:
            return Overload(
                first,
                "headings, rules or underlines here follow each other line after line: Markdown would reread the rest of "
                "the paragraph after each",
                "leave a blank line after a heading or a rule",
            )
    return None
