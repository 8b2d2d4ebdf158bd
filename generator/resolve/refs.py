"""What the resolve stage records: each name as written, where, and what it was bound to.

A reference that binds to nothing keeps what the checker needs to say so (the owner's description,
the scope it was looked up in); the renderer only ever reads references that did bind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..catalogue import Found, RuleUse, Scope
from ..layout import Directive
from ..model import Category, Module, SpecialRule, Table, Unit, slugify
from ..problems import Location


@dataclass(frozen=True)
class RuleRef:
    """A special rule named by a model, weapon, upgrade or a [[link]] in data or a content page."""

    use: str
    where: Location
    owner: str
    scope: Scope | None
    page: str
    kind: str | None
    parsed: RuleUse
    found: Found[SpecialRule] | None
    in_content: bool = False
    named: bool = False  # the rule itself, named (a game size's excluded rules): no value is given or needed
    offset: int = -1  # a [[link]] in a data text: where in the text that starts at `where` (`Problem.offset`)


@dataclass(frozen=True)
class NameRef:
    """A weapon, weapon list, upgrade, unit or model named in a scope; `items` is empty when unbound."""

    table: str
    what: str
    name: str
    where: Location
    owner: str
    scope: Scope
    items: tuple[object, ...]

    @property
    def bound(self) -> bool:
        return bool(self.items)


@dataclass(frozen=True)
class ModelRef:
    """A model named inside a unit's own options: it must be one of the unit's models."""

    unit: Unit
    name: str
    where: Location
    owner: str

    @property
    def bound(self) -> bool:
        return slugify(self.name) in {slugify(m.name) for m in self.unit.models}


@dataclass(frozen=True)
class CategoryRef:
    """A category named in data, in the categories of its module: a unit's `category`, a category's `counts_as`
    or a key of a game size's `category_units` (`role`)."""

    name: str
    where: Location
    owner: str
    module: Module
    target: Category | None
    role: Literal["unit", "counts_as", "game_size"] = "unit"


@dataclass(frozen=True)
class PageRef:
    """A page path named in data: a module's `pages` entry or an erratum's `page`."""

    path: str
    where: Location
    owner: str
    exists: bool
    listed: bool


@dataclass(frozen=True)
class DirectiveBinding:
    """A `[% ... %]` line of a content page and what it shows; `problem` says why it shows nothing."""

    page: str
    directive: Directive
    where: Location
    scope: Scope | None = None
    rules: tuple[SpecialRule, ...] = ()
    table: Table | None = None
    level: int = 3
    status: str = "released"
    problem: str | None = None
    hint: str = ""


@dataclass(frozen=True)
class PageLink:
    """A Markdown link from a content page (or a data text, read from the site's root) to a page of the
    site, with an optional anchor."""

    page: str
    target: str
    path: str
    dest: str
    anchor: str
    where: Location
    page_exists: bool
    anchor_exists: bool | None
    in_data: bool = False
    to_file: bool = False  # a link to a file of the content folder (`core/map.png`): `page_exists` is whether it exists
    offset: int = -1  # in a data text: where in the text that starts at `where` (`Problem.offset`)
