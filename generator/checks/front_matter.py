"""A content page's front matter (the YAML between its first two `---` lines) reads as settings.

MkDocs takes front matter it cannot read for part of the page and publishes it as text (a stray rule and
a heading made of the settings); the build's own search settings go into the same block. So a page whose
front matter is not a YAML mapping is an error at the line that breaks it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import yaml

from ..problems import Location, Problem, error, shortened, yaml_error_at
from ..untrusted import SAFE_LOADER
from .base import CheckRun

#: MkDocs' own pattern: the block opens the page and ends at '---' or '...'.
FRONT_MATTER = re.compile(r"-{3}[ \t]*\n(.*?\n)(?:\.{3}|-{3})[ \t]*\n", re.DOTALL)
_FRONT_UNSAFE = frozenset('<>"')
_HINT = "write it as 'key: value' lines, or remove the block"


def check_front_matter(run: CheckRun) -> Iterator[Problem]:
    for page in sorted(run.resolved.content):
        match = FRONT_MATTER.match(run.resolved.content[page])
        if match is None:
            continue
        path = f"{run.resolved.content_dir}/{page}.md"
        try:
            settings = yaml.load(match[1], Loader=SAFE_LOADER)
        except yaml.MarkedYAMLError as exc:
            where, what = yaml_error_at(exc, path, first_line=2)
            yield error(where, "front-matter", f"the page's front matter is not valid YAML: {what}", _HINT)
            continue
        except yaml.YAMLError as exc:
            yield error(Location(path, 1, 1), "front-matter", f"the page's front matter is not valid YAML: {exc}", _HINT)
            continue
        if settings is not None and not isinstance(settings, dict):
            yield error(
                Location(path, 2, 1), "front-matter", "the page's front matter must be settings (key: value), not a list or a value", _HINT
            )
            continue
        yield from front_matter_values(path, match[1], 2)


def front_matter_values(path: str, block: str, first_line: int) -> Iterator[Problem]:
    """Front-matter texts the theme would write into the page unescaped (`title`, `description`)."""
    if not _FRONT_UNSAFE & set(block):
        return
    pending = [yaml.compose(block, Loader=SAFE_LOADER)]
    while pending:
        node = pending.pop()
        if isinstance(node, yaml.MappingNode):
            pending.extend(value for _key, value in node.value)
        elif isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
        elif isinstance(node, yaml.ScalarNode) and _FRONT_UNSAFE & set(node.value):
            mark = node.start_mark
            yield error(
                Location(path, mark.line + first_line, mark.column + 1),
                "unsafe-content",
                f"the front-matter text '{shortened(node.value)}' holds '<', '>' or '\"', which the theme writes into the page as HTML",
                "write it without those characters",
            )
