"""While serving: a site that shows the data's problems, and a wait for files an editor is still writing.

`mkdocs build` stops on a data error. `mkdocs serve` must not: a designer who saves a broken file
should see the located problems in the browser, on whatever page they had open, and the page should
reload by itself once the file is fixed. So while serving, a data error produces a site whose pages
are all this error page (live reload is injected into every page by MkDocs).
"""

from __future__ import annotations

import html
import os
import time
from collections.abc import Iterable
from pathlib import Path

from .problems import Problem, Severity, one_line
from .report import summary

#: How long a file must stay unchanged before it is read while serving, in seconds.
SETTLE_SECONDS = 0.2
#: The longest we wait for files to stop changing before reading them anyway.
SETTLE_TIMEOUT = 5.0


def _snapshot(folders: Iterable[Path]) -> dict[str, tuple[int, int]]:
    """Size and modification time of every regular file under the folders (links are not followed)."""
    seen: dict[str, tuple[int, int]] = {}
    for folder in folders:
        for base, _dirs, names in os.walk(folder):
            for name in names:
                path = os.path.join(base, name)
                try:
                    info = os.lstat(path)
                except OSError:
                    continue
                seen[path] = (info.st_size, info.st_mtime_ns)
    return seen


def wait_until_stable(folders: Iterable[Path], settle: float = SETTLE_SECONDS, timeout: float = SETTLE_TIMEOUT) -> bool:
    """Return once no file under `folders` has changed for `settle` seconds (True), or after `timeout` (False).

    An editor saving a large file, or a tool writing several, fires the watcher on the first bytes;
    reading then would build a page from half a file and flash a false error.
    """
    folders = [f for f in folders if f.is_dir()]
    deadline = time.monotonic() + timeout
    before = _snapshot(folders)
    while True:
        time.sleep(settle)
        after = _snapshot(folders)
        if after == before:
            return True
        if time.monotonic() >= deadline:
            return False
        before = after


def error_page(problems: list[Problem], *, checked: bool = True) -> str:
    """The page shown in place of every page while the data has errors: the located problems, escaped.

    It is HTML inside Markdown so nothing from the data is read as Markdown; every value passes
    `one_line` and `html.escape`.
    """
    ordered = sorted(problems, key=lambda p: (p.severity is not Severity.ERROR, p.sort_key))
    items = "\n".join(
        f'<li class="rules-problem rules-problem--{p.severity.value}"><code>{html.escape(str(p.location))}</code> '
        f"{html.escape(p.severity.value)}[{html.escape(one_line(p.code))}]: {html.escape(p.text)}</li>"
        for p in ordered
    )
    return (
        "# The rules data has problems\n\n"
        '<div class="rules-problems" role="alert">\n'
        f"<p>{html.escape(summary(problems, checked=checked))}. Fix them and save: this page reloads by itself.</p>\n"
        f"<ul>\n{items}\n</ul>\n</div>\n"
    )


def error_pages(problems: list[Problem], pages: Iterable[str], *, checked: bool = True) -> dict[str, str]:
    """The error page at each of `pages` (site paths without `.md`), so any open page shows it."""
    text = error_page(problems, checked=checked)
    return dict.fromkeys(sorted({*pages, "index"}), text)
