"""Markdown syntax through which data or content could make a reader's browser run something.

Shared by the renderer (which drops it from data) and the content-safety check (which refuses it in
content pages), so both read the same text the same way.

A link's scheme decides what a click does; `javascript:` or `data:` runs or opens what the data wrote,
so only the schemes below (and relative URLs) pass, however the URL is spelt (entities, whitespace
or control characters inside the scheme, which browsers drop). An attribute list (`{: onclick=... }`)
sets attributes on the element before it wherever the page turns attr_list on.

Data files and front matter are read with one safe YAML loader, `SAFE_LOADER`: it builds only plain
values, never Python objects.
"""

from __future__ import annotations

import html
import re
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
    """Whether a browser would read this URL as relative or with an allowed scheme."""
    bare = _URL_IGNORED.sub("", html.unescape(url))
    scheme = _SCHEME.match(bare)
    return scheme is None or scheme.group(1).lower() in URL_SCHEMES


#: A plain web address, the only form an outside link written as a bare field (a licence's) may take: one
#: URL of http or https with nothing a Markdown link or an HTML attribute would end at.
WEB_ADDRESS = r"https?://[^\s()<>\"']+"


#: A reference definition, `[id]: target`, at the start of a line; group 1 (`target`) is its URL.
REFERENCE_DEFINITION = r"^[ ]{0,3}\[[^\]\n]+\]:\s*<?(?P<target>[^\s>]+)"

#: attr_list's own syntax, `{: #id .class key=value }`, anywhere in a line; group 1 is what is inside the braces.
ATTR_LIST = r"\{:?[ ]*([^\}\n ][^\}\n]*)[ ]*\}"
