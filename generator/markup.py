"""Markdown from data, rendered so that nothing in it can run in a reader's browser.

Data is written by many hands (community modules, pull requests, copied fan content), so a Markdown
field gets a restricted dialect: emphasis, code, lists, quotes, links and call-outs (`!!! warning "Title"`,
the theme's admonition kinds only), but no raw HTML, no
attribute lists and no link or image whose scheme is not on an allow-list, whatever form the link
takes (inline, reference, autolink, entities or whitespace inside the scheme). Each fragment is
rendered here, cleaned by an allow-list sanitiser (nh3, Rust's ammonia) as the last line of
defence, and then written back into the page's Markdown in an inert form: every character the
page's own Markdown (attr_list, tables, a macros plugin...) could read as syntax is an entity, so
the page cannot reinterpret what the data said. Links stay Markdown links, so MkDocs still resolves
and checks them and `[[Rule]]` tooltips keep working.

The `unsafe-markup` check (`checks/markup.py`) lists, as located warnings, what the restricted dialect
removed from each field.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as etree
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from html.parser import HTMLParser
from typing import Any

import markdown
import nh3
from markdown.extensions import Extension
from markdown.extensions.admonition import AdmonitionExtension
from markdown.inlinepatterns import HTML_RE, InlineProcessor
from markdown.treeprocessors import Treeprocessor

from .problems import shortened
from .untrusted import ADMONITIONS, ATTR_LIST, URL_SCHEMES, markdown_overload, url_allowed

TAGS = frozenset({"p", "br", "em", "strong", "code", "pre", "ul", "ol", "li", "blockquote", "hr", "a", "img", "div"})
ATTRIBUTES = {"a": {"href", "title"}, "img": {"src", "alt", "title"}}
CLASSES = {"div": {"admonition", *ADMONITIONS}, "p": {"admonition-title"}}

_ATTR_TOKEN = re.compile(r"^(?:[#.][^ =}]+|[^ =}]+=.*)$")


class _DropHtml(InlineProcessor):
    """Raw HTML (and comments) in data is removed, and the removal noted."""

    def __init__(self, removed: list[tuple[str, str]]) -> None:
        super().__init__(HTML_RE)
        self.removed = removed

    def handleMatch(self, m: re.Match[str], data: str) -> tuple[str, int, int]:  # type: ignore[override]
        self.removed.append((f"raw HTML '{shortened(m.group(1))}'", m.group(1)))
        return "", m.start(0), m.end(0)


class _DropAttributeList(InlineProcessor):
    """`{: onclick=... }` would set attributes where the page's attr_list is on: removed, and noted."""

    def __init__(self, removed: list[tuple[str, str]]) -> None:
        super().__init__(ATTR_LIST)
        self.removed = removed

    def handleMatch(self, m: re.Match[str], data: str) -> tuple[str | None, int | None, int | None]:  # type: ignore[override]
        if m.group(1) is None:  # a '{' that opens no attribute list
            return None, None, None
        body = m.group(1).strip()
        tokens = body.lstrip(":").split()
        if not (m.group(0).startswith("{:") or (tokens and all(_ATTR_TOKEN.match(t) for t in tokens))):
            return None, None, None  # `{ 7*7 }`, `{% x %}`: plain braces, shown as written
        self.removed.append((f"attribute list '{shortened(m.group(0))}'", m.group(0)))
        return "", m.start(0), m.end(0)


class _CheckLinks(Treeprocessor):
    """Links and images with a scheme off the allow-list lose it; data headings become bold paragraphs.

    Runs after python-markdown has unescaped the tree, so it sees each URL as the browser will.
    """

    def __init__(self, md: markdown.Markdown, removed: list[tuple[str, str]]) -> None:
        super().__init__(md)
        self.removed = removed

    def run(self, root: etree.Element) -> None:
        for parent in root.iter():
            for el in list(parent):
                url_attr = "href" if el.tag == "a" else "src" if el.tag == "img" else None
                url = el.get(url_attr) if url_attr else None
                if url is not None and not url_allowed(url):
                    self.removed.append((f"{'link' if el.tag == 'a' else 'image'} to '{shortened(url)}'", url))
                    if el.tag == "img":
                        parent.remove(el)
                        continue
                    el.tag = "span"
                    el.attrib.clear()
                if el.tag in ("h1", "h2", "h3", "h4", "h5", "h6"):  # the page's outline is the generator's, not the data's
                    strong = etree.SubElement(el, "strong")
                    strong.text, el.text = el.text, None
                    for child in list(el)[:-1]:
                        el.remove(child)
                        strong.append(child)
                    el.tag = "p"


class Restricted(Extension):
    """python-markdown without raw HTML, attribute lists or unsafe URLs; `removed` collects what went, each
    as (what a problem says, the markup as the parser met it)."""

    def __init__(self) -> None:
        super().__init__()
        self.removed: list[tuple[str, str]] = []

    def extendMarkdown(self, md: markdown.Markdown) -> None:
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")
        md.inlinePatterns.register(_DropHtml(self.removed), "drop_html", 90)
        md.inlinePatterns.register(_DropAttributeList(self.removed), "drop_attr_list", 85)
        md.treeprocessors.register(_CheckLinks(md, self.removed), "check_links", -10)


@dataclass(frozen=True)
class Fragment:
    """One data field rendered: sanitised HTML, and what the restricted dialect removed."""

    html: str
    removed: tuple[str, ...]
    #: Each removal's markup as the parser met it (a tag, an attribute list, a link's address), to find it in the text.
    markup: tuple[str, ...] = ()


_restricted = Restricted()
# The extension itself, not its name: a name is looked up among every installed package's entry points.
_md = markdown.Markdown(extensions=[_restricted, AdmonitionExtension()])


#: One line of words and punctuation that no Markdown syntax reads (no list marker can start it, no
#: emphasis, code, link, HTML or entity can occur in it): most rule and unit texts. Python-Markdown
#: gives such a line back as one paragraph, unchanged, so it skips the parser.
_PLAIN = re.compile(r"[A-Za-z](?:[A-Za-z0-9,.;:!?'\"()/%+\-–—’]| (?! ))*(?<! )")


def is_plain(text: str) -> bool:
    """Whether `text` is one line of plain words: its HTML is one paragraph of itself, its text itself."""
    return _PLAIN.fullmatch(text) is not None


@lru_cache(maxsize=16384)
def render(text: str) -> Fragment:
    """Markdown from data as sanitised HTML; a text Python-Markdown could not read in linear time (refused by the
    check, `markdown-limit`) as its plain words."""
    if is_plain(text):
        return Fragment(f"<p>{text}</p>", ())
    if markdown_overload(text) is not None:
        return Fragment(f"<p>{html.escape(text)}</p>", ())
    _md.reset()
    _restricted.removed.clear()
    out = _md.convert(str(text))
    removed = tuple(what for what, _markup in _restricted.removed)
    markup = tuple(found for _what, found in _restricted.removed)
    clean = nh3.clean(
        out,
        tags=set(TAGS),
        attributes=ATTRIBUTES,
        allowed_classes=CLASSES,
        url_schemes=set(URL_SCHEMES),
        link_rel=None,
        strip_comments=True,
    )
    return Fragment(clean, removed, markup)


def outline_text(text: Any) -> str:
    """A name as it may appear in the menu and the table of contents: no '<' in it.

    Material shows a truncated menu or contents entry in full by copying its text into a title
    and its tooltip writes titles as HTML, so a '<' there would become markup; the full-width
    '＜' reads the same and cannot.
    """
    return str(text).replace("<", "\uff1c")


# --- writing sanitised HTML back into a page's Markdown, inert -----------------------------------

_ALWAYS = set("&<>\\`*_{}[]|~^#")
_AT_LINE_START = set("-+=:.)!%$")


#: Every character the page's Markdown could read as syntax anywhere, and control characters, as entities.
_ENTITIES = {ord(ch): f"&#{ord(ch)};" for ch in _ALWAYS} | {code: f"&#{code};" for code in range(32)}
_WHITESPACE = re.compile(r"\s+")


def inert_text(text: str, line_start: bool = False, quote: bool = False) -> str:
    """Text that the page's Markdown shows as written: every character it could read as syntax is an entity.

    `line_start` also covers what is syntax only at the start of a line (`- `, `1. `, `: `): the first
    character, or the one after a leading run of digits; `quote` the quotes that would end a link's title.
    """
    s = _WHITESPACE.sub(" ", text)
    if line_start:
        s = s.lstrip()
    out = s.translate(_ENTITIES)
    if quote:
        out = out.replace('"', "&#34;").replace("'", "&#39;")
    if line_start and s:
        digits = next((i for i, ch in enumerate(s) if not ch.isdigit()), len(s))
        for at in sorted({0, digits}, reverse=True):
            if at < len(s) and s[at] in _AT_LINE_START:  # digits are never entities, so `at` is the same in `out`
                out = f"{out[:at]}&#{ord(s[at])};{out[at + 1 :]}"
    return out


def _url(url: str) -> str:
    """A URL for a Markdown link: characters that would end or split it are percent-encoded."""
    return re.sub(r"[\s()<>\"'\\]", lambda m: f"%{ord(m.group(0)):02X}", url)


@dataclass
class _Node:
    tag: str
    attrs: dict[str, str]
    children: list[_Node | str]


class _Tree(HTMLParser):
    VOID = frozenset({"br", "hr", "img"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _Node("", {}, [])
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = _Node(tag, {k: v or "" for k, v in attrs}, [])
        self.stack[-1].children.append(node)
        if tag not in self.VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def _parse(fragment: str) -> _Node:
    tree = _Tree()
    tree.feed(fragment)
    tree.close()
    return tree.root


_BLOCKS = frozenset({"p", "ul", "ol", "li", "blockquote", "pre", "hr", "div"})


def _inline(nodes: list[_Node | str], line_start: bool = False) -> str:
    """Inline content: text as entities, tags as inline HTML, links and images as Markdown."""
    out: list[str] = []
    for node in nodes:
        if isinstance(node, str):
            out.append(inert_text(node, line_start and not "".join(out).strip()))
        elif node.tag == "a":
            inner = _inline(node.children) or "&#8203;"
            href = node.attrs.get("href")
            if href is None:
                out.append(inner)
            else:
                title = node.attrs.get("title")
                out.append(f"[{inner}]({_url(href)}" + (f' "{inert_text(title, quote=True)}")' if title else ")"))
        elif node.tag == "img":
            title = node.attrs.get("title")
            alt = inert_text(node.attrs.get("alt", ""))
            out.append(f"![{alt}]({_url(node.attrs.get('src', ''))}" + (f' "{inert_text(title, quote=True)}")' if title else ")"))
        elif node.tag in ("br", "hr"):
            out.append(f"<{node.tag}>")
        elif node.tag == "pre":
            code = "".join(_text_of(node))
            out.append("<pre><code>" + "&#10;".join(inert_text(line) for line in code.rstrip("\n").split("\n")) + "</code></pre>")
        else:
            out.append(f"<{node.tag}>{_inline(node.children)}</{node.tag}>")
    return "".join(out).strip()


def _text_of(node: _Node) -> Iterator[str]:
    for child in node.children:
        if isinstance(child, str):
            yield child
        else:
            yield from _text_of(child)


def _blocks(nodes: list[_Node | str]) -> list[str]:
    """Block content as Markdown blocks: paragraphs, lists and quotes the page's Markdown builds again."""
    blocks: list[str] = []
    loose: list[_Node | str] = []

    def flush() -> None:
        text = _inline(loose, line_start=True)
        if text:
            blocks.append(text)
        loose.clear()

    for node in nodes:
        if isinstance(node, str) or node.tag not in _BLOCKS:
            loose.append(node)
            continue
        flush()
        blocks.append(_block(node))
    flush()
    return [b for b in blocks if b]


def _block(node: _Node) -> str:
    """One block element as Markdown."""
    if node.tag == "p":
        return _inline(node.children, line_start=True)
    if node.tag in ("ul", "ol"):
        return _list(node)
    if node.tag == "blockquote":
        return "\n".join(f"> {line}" if line else ">" for line in "\n\n".join(_blocks(node.children)).split("\n"))
    if node.tag == "div":
        return _admonition(node)
    return _inline([node])


def _admonition(node: _Node) -> str:
    """A call-out as the page's admonition syntax: its kind (one the sanitiser kept), its title as inert text
    in quotes, its blocks indented under it."""
    kind = next((c for c in node.attrs.get("class", "").split() if c in ADMONITIONS), "note")
    children = [c for c in node.children if not (isinstance(c, str) and not c.strip())]
    title = ""
    first = children[0] if children else None
    if isinstance(first, _Node) and "admonition-title" in first.attrs.get("class", "").split():
        title = inert_text("".join(_text_of(first)), quote=True)
        children.pop(0)
    body = "\n\n".join(_blocks(children)) or "&#8203;"
    return f'!!! {kind} "{title}"\n\n' + "\n".join(f"    {line}" if line else "" for line in body.split("\n"))


def _list(node: _Node) -> str:
    """A list as Markdown items, each item's blocks indented under its marker."""
    items = [child for child in node.children if isinstance(child, _Node) and child.tag == "li"]
    lines: list[str] = []
    for number, item in enumerate(items, 1):
        body = "\n\n".join(_blocks(item.children)) or "&#8203;"
        marker = f"{number}. " if node.tag == "ol" else "- "
        lines.append(marker + body.replace("\n", "\n    "))
    return "\n".join(lines)


@lru_cache(maxsize=16384)
def embed_block(fragment: str) -> str:
    """Sanitised HTML as Markdown blocks for a page: the page's Markdown rebuilds it, and can add nothing."""
    return "\n\n".join(_blocks(_parse(fragment).children))


@lru_cache(maxsize=16384)
def embed_inline(fragment: str) -> str:
    """Sanitised HTML as one line of inline Markdown (a table cell): paragraphs joined by line breaks."""
    parts: list[str] = []
    for node in _parse(fragment).children:
        if isinstance(node, _Node) and node.tag == "p":
            parts.append(_inline(node.children))
        elif isinstance(node, _Node) and node.tag in ("ul", "ol", "blockquote"):
            parts.append(_inline([node]))
        elif isinstance(node, str) and not node.strip():
            continue
        else:
            parts.append(_inline([node]))
    return "<br>".join(p for p in parts if p)


@lru_cache(maxsize=16384)
def text_content(fragment: str) -> str:
    """The text a reader sees in sanitised HTML, on one line."""
    return " ".join("".join(_text_of(_parse(fragment))).split())
