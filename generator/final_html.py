"""The built pages, made safe as a browser will read them, whatever engine wrote them (MkDocs or Zensical).

A post-build step (`postbuild.secure_pages`) passes over the final HTML of every page:

- a hand-written content page's article (from the theme's `<article class="md-content__inner md-typeset">` to
  the page's last `</article>`: the page's Markdown as the engine rendered it, with the heading and buttons the
  theme writes there) is cleaned by an allow-list sanitiser, nh3 (Rust's ammonia), as a data field is
  (`markup.py`): the tags and attributes that text, tables, lists, call-outs, details, footnotes, code and the
  theme's icons use, and links and images only to http, https, mailto or relative addresses. The check
  (`checks/content_safety.py`) refuses what this would remove; this is the last line of defence, for what a
  Markdown extension or a reading the check missed makes of a page. Only the article is cleaned: the rest of
  the page is the theme's (menus, search, scripts), which no allow-list for content would leave whole;
- on every page, every URL attribute (`href`, `src`, `action`, `formaction`, `xlink:href`, `srcset`...) is read
  as the URL standard reads it (entities decoded, C0 controls and spaces stripped from its ends, tabs and
  newlines removed, any case) and dropped unless its scheme is http, https or mailto, or it has none; every
  event handler attribute is dropped. The theme writes none of either, so its markup is left byte for byte;
- the theme's Content-Security-Policy (`generator/theme/partials/content-security-policy.html`, inert as the
  theme writes it) is switched on, with the sha256 hash of each inline script of the page that is one of the
  engine theme's own (`partials/javascripts/*.html` of Material and Zensical, read from the installed
  packages): never a hash of any other inline script, which the policy then blocks.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from collections.abc import Iterator
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path

import nh3

from .untrusted import URL_SCHEMES, browser_url, url_scheme

# --- the article of a hand-written page ------------------------------------------------------------

_ARTICLE = re.compile(r'<article\b[^>]*\bclass="md-content__inner md-typeset"[^>]*>')
_ARTICLE_END = "</article>"

#: What a content page's article may hold: the tags of text, tables, lists, call-outs, details, figures, code,
#: footnotes and task lists (Markdown and its extensions), and the theme's icons (SVG) and tab sets (inputs).
CONTENT_TAGS = frozenset({
    "a", "abbr", "aside", "b", "bdi", "bdo", "blockquote", "br", "caption", "cite", "code", "col", "colgroup", "dd",
    "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5",
    "h6", "header", "hr", "i", "img", "input", "ins", "kbd", "label", "li", "mark", "nav", "ol", "p", "path", "pre",
    "q", "rp", "rt", "ruby", "s", "samp", "section", "small", "span", "strong", "sub", "summary", "sup", "svg",
    "table", "tbody", "td", "tfoot", "th", "thead", "time", "tr", "u", "ul", "var", "wbr",
})  # fmt: skip
#: Attributes any of them may carry (and `aria-*`, `data-*`: `_kept_attribute` drops the theme's own `data-md-*`).
_EVERY_TAG = {"class", "id", "title", "lang", "dir", "role", "hidden", "tabindex", "style"}
CONTENT_ATTRIBUTES = {
    "*": _EVERY_TAG,
    "a": {"href", "name"},
    "abbr": {"title"},
    "col": {"span"},
    "colgroup": {"span"},
    "del": {"cite", "datetime"},
    "details": {"open"},
    "img": {"src", "alt", "width", "height", "loading"},
    "input": {"type", "checked", "disabled", "name"},
    "ins": {"cite", "datetime"},
    "label": {"for"},
    "ol": {"start", "reversed", "type"},
    "path": {"d", "fill", "fill-rule", "clip-rule"},
    "q": {"cite"},
    "blockquote": {"cite"},
    "svg": {"xmlns", "viewBox", "width", "height", "fill", "focusable"},
    "td": {"colspan", "rowspan", "headers", "align"},
    "th": {"colspan", "rowspan", "headers", "scope", "align", "abbr"},
    "time": {"datetime"},
}
#: A style may set only these properties (Markdown's tables align their columns with `style="text-align: ..."`):
#: a page may not lay itself over the site's own menus or search.
CONTENT_STYLES = {"text-align"}
#: Ids and names of the theme's own components (`document.getElementById("__config")`, the search form, the
#: drawer...): an element of the page's that took one would stand in for the theme's, which comes after it.
_THEME_NAMES = re.compile(r"__(?:config|drawer|search|toc|consent|analytics|announce|outdated|palette|nav)\b|search$")


def _kept_attribute(tag: str, name: str, value: str) -> str | None:
    """nh3's last word on each attribute: the theme's own `data-md-*` and component ids are not a page's to set."""
    if name.startswith("data-md-") or (name in ("id", "name", "for") and _THEME_NAMES.match(value)):
        return None
    return value


def clean_article(markup: str) -> str:
    """A content page's article through the allow-list: what could run, load, restyle the site or stand in for
    the theme's own markup is removed."""
    return nh3.clean(
        markup,
        tags=set(CONTENT_TAGS),
        attributes={tag: set(names) for tag, names in CONTENT_ATTRIBUTES.items()},
        url_schemes=set(URL_SCHEMES),
        link_rel=None,
        generic_attribute_prefixes={"aria-", "data-"},
        filter_style_properties=set(CONTENT_STYLES),
        attribute_filter=_kept_attribute,
        strip_comments=True,
    )


def article_span(page: str) -> tuple[int, int] | None:
    """Where the theme's article holds a page's content: after its start tag (the theme's, before any content)
    to the page's last `</article>` (the theme's, after it); None for a page without one."""
    start = _ARTICLE.search(page)
    end = page.rfind(_ARTICLE_END)
    if start is None or end < start.end():
        return None
    return start.end(), end


def clean_content_page(page: str) -> str:
    """A hand-written page with its article cleaned; a page the theme wrote no article into, as it is."""
    span = article_span(page)
    if span is None:
        return page
    return page[: span[0]] + clean_article(page[span[0] : span[1]]) + page[span[1] :]


# --- URLs and handlers on every page ---------------------------------------------------------------

#: Attributes whose value a browser loads, follows or submits to as a URL (`srcset`, `ping`: lists of them).
URL_ATTRIBUTES = frozenset({
    "href", "src", "action", "formaction", "xlink:href", "srcset", "imagesrcset", "poster", "data", "background",
    "cite", "ping", "codebase", "longdesc", "usemap", "manifest", "icon", "archive", "lowsrc", "dynsrc", "profile",
    "classid", "itemtype",
})  # fmt: skip
_LISTS = frozenset({"srcset", "imagesrcset", "ping", "archive"})
#: What the pass reads: raw text (scripts, styles, comments), passed over whole, or a start tag with its attributes.
_MARKUP = re.compile(
    r"<script\b.*?</script\s*>|<style\b.*?</style\s*>|<!--.*?-->|<([A-Za-z][^\s/>]*)((?:\"[^\"]*\"|'[^']*'|[^'\">])*)>",
    re.DOTALL | re.IGNORECASE,
)
_ATTRIBUTE = re.compile(r"""([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?""")


def url_runs(value: str, listed: bool = False) -> bool:
    """Whether a URL attribute's value, as written in the HTML, has a scheme other than http, https or mailto
    once a browser has read it (`listed`: a comma-separated list of URLs, each with an optional descriptor)."""
    text = html.unescape(value)
    urls = [part.split()[0] for part in text.split(",") if part.split()] if listed else [text]
    return any(url_scheme(browser_url(url, decoded=True)) not in (None, *URL_SCHEMES) for url in urls)


def _unsafe_attributes(attributes: str) -> Iterator[re.Match[str]]:
    for found in _ATTRIBUTE.finditer(attributes):
        name = found.group(1).lower()
        value = next((v for v in found.group(2, 3, 4) if v is not None), "")
        if name.startswith("on") or (name in URL_ATTRIBUTES and url_runs(value, name in _LISTS)):
            yield found


#: Over the whole page at once, in C: every place that might be an event handler or a URL attribute, tags or not.
#: Names in lower case, as the theme, the generator's templates and the sanitiser write them (a case-blind search
#: took ten times as long).
_MAYBE_HANDLER = re.compile(r"""[\s"'/][Oo][Nn][A-Za-z]+\s*=""")
_URL_NAMES = "|".join(sorted(map(re.escape, URL_ATTRIBUTES)))
_MAYBE_URL = re.compile(rf"""(?:{_URL_NAMES})\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)""")
#: A value that is a relative or http(s) URL however a browser reads it: no entity, control or ':' before the path.
_PLAINLY_SAFE = re.compile(r"(?:https?://|[#/?.]|[\w\-.~%/]*(?:[#?]|$))")


def _may_hold_unsafe(page: str) -> bool:
    """Whether the page might hold an event handler or an unsafe URL: a superset, found fast, so that the pages
    with none (every page of a site the check passed) skip the pass over each of their tags."""
    if _MAYBE_HANDLER.search(page):
        return True
    return any(not _PLAINLY_SAFE.match(found.group(1).strip("\"'")) for found in _MAYBE_URL.finditer(page))


def strip_unsafe_urls(page: str) -> tuple[str, int]:
    """The page without event handlers and URL attributes that would run script or open data, and how many
    attributes went. A tag with none is left as written."""
    if not _may_hold_unsafe(page):
        return page, 0
    parts: list[str] = []
    at = removed = 0
    for tag in _MARKUP.finditer(page):
        if tag.group(1) is None:
            continue
        unsafe = list(_unsafe_attributes(tag.group(2)))
        if not unsafe:
            continue
        attributes, kept_from = [], 0
        for found in unsafe:
            attributes.append(tag.group(2)[kept_from : found.start()])
            kept_from = found.end()
        attributes.append(tag.group(2)[kept_from:])
        parts += [page[at : tag.start(2)], "".join(attributes)]
        at, removed = tag.end(2), removed + len(unsafe)
    return ("".join(parts) + page[at:], removed) if parts else (page, 0)


# --- the Content-Security-Policy -----------------------------------------------------------------

#: The policy as the theme writes it: inert (`name`), so a page the post-build never reached (a preview while
#: serving, whose live reload is an inline script) still works. The post-build switches it on (`http-equiv`).
INERT_POLICY = re.compile(r'<meta name="cadence-content-security-policy" content="([^"<>]*)">')
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)
_TEMPLATE_VALUE = re.compile(r"\{\{.*?\}\}")
#: What a value the theme writes into one of its scripts may be (a base URL, inside a JavaScript string).
_VALUE = r"[^\"'\\<>\n]*"
#: The engines' themes, whose inline scripts (`partials/javascripts/`) a page may run.
THEME_PACKAGES = ("material", "zensical")


@lru_cache(maxsize=1)
def theme_scripts() -> re.Pattern[str]:
    """Every inline script the engines' themes write, as one pattern: each `{{ value }}` in it may be any
    value that stays inside its JavaScript string. Read from the installed themes, so a new theme release's
    scripts are known without a change here."""
    found: set[str] = set()
    for package in THEME_PACKAGES:
        spec = find_spec(package)
        if spec is None or spec.origin is None:
            continue
        for template in sorted((Path(spec.origin).parent / "templates" / "partials" / "javascripts").glob("*.html")):
            for script in _INLINE_SCRIPT.findall(template.read_text(encoding="utf-8")):
                found.add(_VALUE.join(re.escape(piece) for piece in _TEMPLATE_VALUE.split(script)))
    return re.compile("|".join(f"(?:{pattern})" for pattern in sorted(found)) or r"(?!)")


def script_hash(script: str) -> str:
    """The CSP source that lets exactly this inline script run."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii") + "'"


def with_policy(page: str) -> str:
    """The page with the theme's policy switched on, its script-src given the hashes of the theme's own inline
    scripts on the page; a page without the theme's policy, as it is."""
    policy = INERT_POLICY.search(page)
    if policy is None:
        return page
    known = theme_scripts()
    hashes = dict.fromkeys(script_hash(s) for s in _INLINE_SCRIPT.findall(page) if known.fullmatch(s))
    directives = [d.strip() for d in policy.group(1).split(";") if d.strip()]
    directives = [f"{d} {' '.join(hashes)}" if d.split()[0] == "script-src" and hashes else d for d in directives]
    meta = f'<meta http-equiv="Content-Security-Policy" content="{"; ".join(directives)}">'
    return page[: policy.start()] + meta + page[policy.end() :]


# --- which pages are hand-written ----------------------------------------------------------------


def content_page_files(root: Path, site_dir: Path) -> list[Path]:
    """The built file of each hand-written page of the project (its content folder's Markdown), as the engines
    name them (`use_directory_urls`): the pages whose article is cleaned."""
    from .project_config import content_folder
    from .staging import read_config

    config = read_config(root)
    content = root / content_folder(config)
    directories = config.get("use_directory_urls", True) is not False
    found = []
    for source in sorted(content.rglob("*.md")) if content.is_dir() else ():
        page = source.relative_to(content).with_suffix("")
        if page.name in ("index", "README"):
            built = page.parent / "index.html"
        else:
            built = page / "index.html" if directories else page.with_suffix(".html")
        if (site_dir / built).is_file():
            found.append(site_dir / built)
    return found
