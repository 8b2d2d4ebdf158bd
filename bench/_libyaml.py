"""Experiment: the generator's YAML loading on libyaml's C parser (bench only; generator/ is untouched).

`install()` swaps `generator.loader._Composer` for a drop-in that composes with `yaml.CSafeLoader`. The
node tree (tags, values, start marks with line and column) is the same one the pure-Python composer
builds, so the generator's own `_Builder` turns it into the same located values. Anchors and aliases
are still refused before anything is expanded: the C parser's event stream is scanned for them first
(cheap: libyaml emits events at ~10 MB/s), then the text is composed.

Used by `_stages.py --libyaml` and `_build.py --libyaml` to measure what the change would buy.
"""

from __future__ import annotations

from typing import Any

import yaml


class CComposer:
    """The interface `generator.loader.parse_yaml` uses: `Composer(text).get_single_node()`, `.dispose()`."""

    def __init__(self, text: str) -> None:
        self.text = text

    def get_single_node(self) -> Any:
        from generator import loader

        for event in yaml.parse(self.text, Loader=yaml.CSafeLoader):
            if isinstance(event, yaml.AliasEvent):
                raise loader._AliasError(event.start_mark)
            if getattr(event, "anchor", None) is not None:
                raise loader._AliasError(event.start_mark, anchor=True)
        return yaml.compose(self.text, Loader=yaml.CSafeLoader)

    def dispose(self) -> None:
        pass


def install() -> None:
    from generator import loader

    loader._Composer = CComposer  # type: ignore[misc,assignment]
