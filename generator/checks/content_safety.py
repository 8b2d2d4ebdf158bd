"""The `unsafe-content` check: nothing in a content page or the content folder may run in a reader's browser.

Content pages come from the same strangers as data (a community module brings its pages), but unlike a
data field (`generator/markup.py`, which removes what is unsafe) a page goes to the engine as written,
with raw HTML and attribute lists (`attr_list`) on, and the theme writes front-matter settings such as
`title` and `description` into the page without escaping them. So each of these is an error, and a build
with errors publishes nothing:

- a raw HTML tag off `TAGS`, an attribute off `ATTRIBUTES` (no event handler, no `style`), or a URL whose
  scheme is not on `urls.URL_SCHEMES`, in a tag or in an attribute list (`{: onclick=... }`);
- a Markdown link or image, inline, by reference or autolink, to such a URL (`javascript:`, `data:`);
- a front-matter text holding `<`, `>` or `"` (`front_matter.py`);
- a file a browser would run when opened from the site (HTML, XML, scripts), and an SVG that holds more than
  a drawing (`svg_safety.py`).

A page the engine's Markdown could not read in linear time (lists nested hundreds deep, thousands of
unclosed brackets: `untrusted.markdown_overload`) is a `markdown-limit` error: it would end the build with a
traceback, or hold it for hours.

The page is read as written, code spans and comments included: a browser can end a comment sooner than
it looks (`<!-->`) and raw HTML blocks take no code spans, so nothing is skipped as inert. A designer who
means a literal `<` writes `&lt;`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

from ..problems import Location, Problem, error, position, shortened
from ..untrusted import ATTR_LIST, REFERENCE_DEFINITION, URL_SCHEMES, browser_url, markdown_overload, url_allowed
from .base import CheckRun
from .front_matter import FRONT_MATTER
from .svg_safety import check_svg

#: Tags a content page may use: text, tables, lists, figures, details; nothing that loads, embeds or runs.
TAGS = frozenset({
    "a", "abbr", "b", "bdi", "bdo", "blockquote", "br", "caption", "cite", "code", "col", "colgroup", "dd", "del",
    "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i",
    "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "rp", "rt", "ruby", "s", "samp", "small", "span",
    "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "time", "tr", "u", "ul",
    "var", "wbr",
})  # fmt: skip
#: Attributes a tag or an attribute list may set; `URL_ATTRIBUTES` among them must hold an allowed URL.
ATTRIBUTES = frozenset({
    "abbr", "align", "alt", "cite", "class", "colspan", "datetime", "dir", "headers", "height", "href", "id", "lang",
    "name", "open", "reversed", "rowspan", "scope", "span", "src", "start", "title", "type", "width",
})  # fmt: skip
URL_ATTRIBUTES = frozenset({"href", "src", "cite"})
#: Files a static host serves as a page or a script (HTML, XML, JavaScript, a compressed SVG the check cannot
#: read), with what to do instead. An SVG is read: a drawing passes (`svg_safety.py`).
RUNNABLE_FILES = {
    ".svgz": "convert the image to PNG or WebP",
    ".html": "write the page in Markdown",
    ".htm": "write the page in Markdown",
    ".xhtml": "write the page in Markdown",
    ".xht": "write the page in Markdown",
    ".shtml": "write the page in Markdown",
    ".hta": "remove it",
    ".js": "a script belongs in the theme overrides, which maintainers review as code",
    ".mjs": "a script belongs in the theme overrides, which maintainers review as code",
    ".swf": "remove it",
    ".xml": "offer it zipped, or from another site",
    ".xsl": "offer it zipped, or from another site",
    ".xslt": "offer it zipped, or from another site",
}

_SCHEMES = ", ".join(sorted(URL_SCHEMES))
_URL_HINT = f"link with {_SCHEMES} or a relative path"
_TAG_START = re.compile(r"<(/?)([A-Za-z][^\s/>]*)")
#: The rest of a tag up to its `>`, with quoted values kept whole (`title=">"` does not end the tag).
_TAG_REST = re.compile(r"""(?:"[^"]*"|'[^']*'|[^'">])*>?""")
#: An event handler or a style anywhere in a tag, however it is written (`<img/onerror=...>`): for a tag the
#: parser below would read otherwise than a browser.
_HANDLER = re.compile(r"""(?:^|[\s/"'])(on[a-z]+|style|formaction|srcdoc)\s*=""", re.IGNORECASE)
#: An inline link's or image's address, as far as its scheme could reach: the characters a scheme is made of, the
#: spaces, tabs, line breaks and controls a browser drops or Markdown keeps (`java` + a line feed + `script:` is
#: `javascript:` to a browser), and entities, but no blank line (which ends the paragraph), then what could end
#: the scheme. Linear in the page: no ']' or '(' is inside, so one address never runs into the next.
_INLINE_LINK = re.compile(r"\]\(\s*<?((?:(?!\n[ \t]*\n)[A-Za-z0-9+.\-\x00-\x20\x7f]|&#?[A-Za-z0-9]+;?)*[^)>\s]{0,12})")
_REFERENCE = re.compile(REFERENCE_DEFINITION, re.MULTILINE)
_ATTR_LIST = re.compile(ATTR_LIST)
#: An attribute list's key=value pairs.
_ATTR_PAIR = re.compile(r"""([^\s=#.][^\s=]*)=("[^"]*"|'[^']*'|\S*)""")
#: What no pair's name starts with, and the run of characters a name is read over.
_NO_NAME_START = re.compile(r"[\s=#.]*")
_NAME_RUN = re.compile(r"[^\s=]*")


class _Attributes(HTMLParser):
    """The tag name and attributes of one start tag, as Python's HTML parser (close to a browser's) reads them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.attributes: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.attributes.extend(attrs)

    handle_startendtag = handle_starttag


def _attributes(tag: str) -> list[tuple[str, str | None]]:
    parser = _Attributes()
    parser.feed(tag if tag.endswith(">") else tag + ">")
    parser.close()
    return parser.attributes


class _Page:
    """One content page's text, where its body starts (after any front matter), and a place for every offset."""

    def __init__(self, path: str, text: str) -> None:
        self.path, self.text = path, text
        front = FRONT_MATTER.match(text)  # its texts: front_matter.py
        self.body = front.end() if front else 0

    def problem(self, offset: int, message: str, hint: str) -> Problem:
        return error(Location(self.path, *position(self.text, offset)), "unsafe-content", message, hint)


def check_content_markup(run: CheckRun) -> Iterator[Problem]:
    """Raw HTML, attribute lists and links of every content page."""
    for name in sorted(run.resolved.content):
        page = _Page(f"{run.resolved.content_dir}/{name}.md", run.resolved.content[name])
        yield from _tags(page)
        yield from _attribute_lists(page)
        yield from _links(page)
        overload = markdown_overload(page.text[page.body :], fenced=True)
        if overload is not None:  # the engine's Markdown would end the build with a traceback, or not end it
            where = Location(page.path, *position(page.text, page.body + overload.offset))
            yield error(where, "markdown-limit", overload.message, overload.hint)


#: How many characters the tags of a page may span in all, per character of the page (and a little more for a short
#: one). A tag is read to its '>', so tags that never end (`<a 1<a 1<a …`) were each read to the page's end (8,000
#: such characters took 13.5 s, growing with the square of their number): the first is an error, and no more is
#: read. Tags before one '>' (`<a <a <a … >`) are each read to it: past this many, the page is refused.
_TAG_READS_PER_CHARACTER = 2
_TAG_READS_SPARE = 65_536


_TAG_HINT = "end each tag with '>', and write a literal '<' as '&lt;'"


def _tags(page: _Page) -> Iterator[Problem]:
    budget = _TAG_READS_PER_CHARACTER * len(page.text) + _TAG_READS_SPARE
    for start in _TAG_START.finditer(page.text, page.body):
        closing, name = start.group(1), start.group(2)
        if closing:  # an end tag runs nothing; its start tag is what is looked at
            continue
        if ":" in name or "@" in name:  # an autolink, `<https://...>` or `<name@host>`
            if ":" in name and not url_allowed(name):
                yield page.problem(start.start(), f"the autolink to '{shortened(name)}' would run script", _URL_HINT)
            continue
        if name.lower() not in TAGS:
            yield page.problem(
                start.start(),
                f"raw HTML <{shortened(name, 20)}> is not allowed in a content page: it can run script or load another site",
                "write a literal '<' as '&lt;'; tags a page may use: tables, lists, details, figures and text formatting",
            )
            continue
        rest = _TAG_REST.match(page.text, start.end())
        tag = page.text[start.start() : rest.end() if rest else start.end()]
        if not tag.endswith(">"):  # it runs to the page's end, and so would every tag after it
            yield page.problem(start.start(), f"raw HTML <{shortened(name, 20)}> never ends with '>'", _TAG_HINT)
            return
        budget -= len(tag)
        if budget < 0:  # the rest of the page is not read: it is refused as it is
            where = Location(page.path, *position(page.text, start.start()))
            yield error(where, "markdown-limit", "raw HTML tags here and before overlap, too many to read", _TAG_HINT)
            return
        yield from _tag_attributes(page, start.start(), name.lower(), tag)


def _tag_attributes(page: _Page, offset: int, name: str, tag: str) -> Iterator[Problem]:
    handler = _HANDLER.search(tag)
    if handler:
        yield page.problem(
            offset, f"<{name}> sets '{handler.group(1).lower()}', which can run script", "remove the attribute; style a page with a class"
        )
        return
    for key, value in _attributes(tag):
        if key not in ATTRIBUTES:
            yield page.problem(offset, f"<{name}> sets '{shortened(key, 20)}', which a content page may not set", "remove the attribute")
        elif key in URL_ATTRIBUTES and value is not None and not url_allowed(value):
            yield page.problem(offset, f"<{name}> {key} '{shortened(value)}' would run script or load another site", _URL_HINT)


def attribute_pairs(body: str) -> Iterator[re.Match[str]]:
    """`_ATTR_PAIR.finditer(body)`, in time linear in the body.

    Tried at each place, the pattern rereads a run of name characters to its end from each of them (thousands
    of them took seconds). A name that fails at a run's first possible start fails at every later one in the
    run (it needs an '=' where the run ends), so the run is passed over whole.
    """
    at = 0
    while at < len(body):
        found = _ATTR_PAIR.match(body, at)
        if found is not None:
            yield found
            at = found.end()
            continue
        past = _NO_NAME_START.match(body, at).end()  # type: ignore[union-attr]  # matches anywhere, maybe empty
        at = past if past > at else _NAME_RUN.match(body, at).end()  # type: ignore[union-attr]


def _attribute_lists(page: _Page) -> Iterator[Problem]:
    for found in _ATTR_LIST.finditer(page.text, page.body):
        if found.group(1) is None:  # a '{' that opens no attribute list
            continue
        for pair in attribute_pairs(found.group(1)):
            key, value = pair.group(1).lower(), pair.group(2).strip("\"'")
            if key not in ATTRIBUTES:
                yield page.problem(
                    found.start(),
                    f"the attribute list '{shortened(found.group(0))}' sets '{shortened(key, 20)}', which can run script or restyle the site",
                    "an attribute list may set an id, a class and plain attributes such as title",
                )
            elif key in URL_ATTRIBUTES and not url_allowed(value):
                yield page.problem(
                    found.start(), f"the attribute list sets {key} to '{shortened(value)}', which would run script", _URL_HINT
                )


def _links(page: _Page) -> Iterator[Problem]:
    for pattern in (_INLINE_LINK, _REFERENCE):
        for found in pattern.finditer(page.text, page.body):
            if not url_allowed(found.group(1)):
                written = page.text[found.start(1) : page.text.find(")", found.start(1)) % (len(page.text) + 1)]
                read = browser_url(written)
                also = f" (a browser reads it as '{shortened(read)}')" if shortened(read) != shortened(written) else ""
                yield page.problem(
                    found.start(1), f"the link to '{shortened(written)}'{also} would run script or open data as a page", _URL_HINT
                )


def check_content_files(run: CheckRun) -> Iterator[Problem]:
    """Files of the content folder a browser would run when opened from the site (the build copies them as they are)."""
    if run.root is None:
        return
    base = run.root / run.content_dir
    for path in sorted(base.rglob("*")) if base.is_dir() else ():
        suffix = path.suffix.lower()
        if suffix == ".svg" and not path.is_symlink() and path.is_file():
            yield from check_svg(path.read_bytes(), f"{run.content_dir}/{_relative(path, base)}")
        elif suffix in RUNNABLE_FILES and not path.is_symlink() and path.is_file():
            yield error(
                Location(f"{run.content_dir}/{_relative(path, base)}", 1, 1),
                "unsafe-content",
                f"a {suffix} file in the content folder would be published where a browser runs what is in it",
                RUNNABLE_FILES[suffix],
            )


def _relative(path: Path, base: Path) -> str:
    return path.relative_to(base).as_posix()
