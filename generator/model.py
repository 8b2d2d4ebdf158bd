"""The rules model: frozen, keyword-only records in the game's own terms.

These classes are also the schema of the data files: `schema.py` builds them from raw records
(reporting every problem with its place) and derives the JSON Schema for editors from them. So a
field added here is at once read, checked and offered for completion.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, MutableSet
from dataclasses import dataclass, field, fields
from functools import lru_cache
from operator import attrgetter
from pathlib import Path
from reprlib import recursive_repr
from typing import Any, Literal

import yaml

from .problems import Location
from .untrusted import SAFE_LOADER

NOWHERE = Location("", 0, 0)

#: A profile value as written in the data: `6"`, `3+`, `4`, `-`, `d6`, `X`, `*`.
ProfileValue = int | str


# Anchors as Python-Markdown's table of contents (`markdown.extensions.toc`'s `slugify` and `unique`)
# makes them, written out here so that loading and checking a project never imports Markdown (a
# tenth of `cadence check`'s start); tests/test_anchors.py holds the two equal.
_NOT_WORD = re.compile(r"[^\w\s-]")
_SEPARATORS = re.compile(r"[-\s]+")
_ID_COUNT = re.compile(r"^(.*)_([0-9]+)$")


@lru_cache(maxsize=65536)
def _slug(name: str) -> str:
    ascii_only = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    return _SEPARATORS.sub("-", _NOT_WORD.sub("", ascii_only).strip().lower())


def slugify(name: str) -> str:
    """The id or anchor for a name, exactly as MkDocs' table of contents makes heading anchors."""
    return _slug(str(name))


def unique(anchor: str, used: MutableSet[str]) -> str:
    """`anchor`, or it with `_1`, `_2`... when taken (or empty), added to `used`: as the table of contents does."""
    if anchor in used or not anchor:
        count = _ID_COUNT.match(anchor)
        base, number = (count.group(1), int(count.group(2))) if count else (anchor, 0)
        number += 1
        while f"{base}_{number}" in used:
            number += 1
        anchor = f"{base}_{number}"
    used.add(anchor)
    return anchor


def doc(text: str, **extra: Any) -> Any:
    """Field metadata: the description shown to editors, and schema extras."""
    return {"doc": text, **extra}


def _field_getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function from a record to the tuple of the named fields' values."""
    if len(names) > 1:
        return attrgetter(*names)
    return lambda record: tuple(getattr(record, name) for name in names)


#: Per record class: its compared fields' getter, its hashed fields' getter, and its shown fields' names.
_METHOD_FIELDS: dict[type, tuple[Callable[[Any], tuple[Any, ...]], Callable[[Any], tuple[Any, ...]], tuple[str, ...]]] = {}


def _method_fields(cls: type) -> tuple[Callable[[Any], tuple[Any, ...]], Callable[[Any], tuple[Any, ...]], tuple[str, ...]]:
    """What `Record`'s comparison, hash and repr read of a class, worked out once per class."""
    found = _METHOD_FIELDS.get(cls)
    if found is None:
        every = fields(cls)
        compared = tuple(f.name for f in every if f.compare)
        hashed = tuple(f.name for f in every if (f.compare if f.hash is None else f.hash))
        found = _METHOD_FIELDS[cls] = (_field_getter(compared), _field_getter(hashed), tuple(f.name for f in every if f.repr))
    return found


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Record:
    """Every record remembers where its mapping was written.

    Records compare, hash and print as dataclasses with `eq=True` and `repr=True` would, field by
    field, but through the three methods here rather than three generated for each class: the
    model's classes are built at every start of the command, and generating those methods was most
    of the cost of importing the model. Subclasses are declared with `eq=False, repr=False` so they
    inherit these.
    """

    loc: Location = field(default=NOWHERE, compare=False, repr=False, metadata={"internal": True})

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            compared = _method_fields(self.__class__)[0]
            return bool(compared(self) == compared(other))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(_method_fields(self.__class__)[1](self))

    @recursive_repr()
    def __repr__(self) -> str:
        shown = _method_fields(self.__class__)[2]
        return f"{self.__class__.__qualname__}({', '.join(f'{name}={getattr(self, name)!r}' for name in shown)})"


# --- the game system -------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class ValueForm(Record):
    """How one kind of profile value is written (inches, a target number, dice)."""

    pattern: str = field(metadata=doc("A regular expression the whole value must match (RE2 syntax: no lookarounds or backreferences)."))
    example: str = field(default="", metadata=doc("An example, shown in error messages."))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Column(Record):
    """One column of a model or weapon profile table."""

    key: str = field(metadata=doc("The key used in profiles, e.g. 'mov'.", slug=True))
    label: str = field(metadata=doc("The column header, e.g. 'Mov'."))
    name: str = field(default="", metadata=doc("The attribute's full name, e.g. 'Movement'."))
    forms: tuple[str, ...] = field(metadata=doc("Names of the value forms this column accepts; a column with none takes any value."))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Profiles(Record):
    """The profile columns of models and of weapons, in table order."""

    model: tuple[Column, ...] = field(metadata=doc("Model profile columns, in table order."))
    weapon: tuple[Column, ...] = field(metadata=doc("Weapon profile columns, in table order."))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class LandingPages(Record):
    """Generated pages of the whole site; leave one out to not generate it."""

    released: str | None = field(default=None, metadata=doc("Page listing released modules."))
    in_development: str | None = field(default=None, metadata=doc("Page listing modules in development."))
    changes: str | None = field(default=None, metadata=doc("Page of recent changes."))
    rules_index: str | None = field(default=None, metadata=doc("Page indexing every special rule."))


#: The generator's own words in English, shipped as data (`generator/labels.yaml`), not code.
DEFAULT_LABELS: dict[str, str] = yaml.load(Path(__file__).with_name("labels.yaml").read_text(encoding="utf-8"), Loader=SAFE_LOADER)


def label(key: str, what: str, example: str) -> Any:
    """A `Labels` field: its English default from labels.yaml, what it names, and a translation as example."""
    return field(default=DEFAULT_LABELS[key], metadata=doc(what, example=example))


def roster_word(key: str, example: str) -> Any:
    """A `Labels` field naming what a roster value must be in `roster-format` problems ('a list of names'); its
    key is `roster_word_<key>`, and the key the roster checkers ask for stays in its metadata."""
    what = "A word of the `roster-format` problem: what a roster value must be, or the roster itself."
    return field(default=DEFAULT_LABELS[f"roster_word_{key}"], metadata=doc(what, example=example, roster_word=key))


def roster_message(code: str, example: str) -> Any:
    """A `Labels` field wording one roster problem: its key is the code with '_' for '-' ('roster-total' is
    `roster_total`), and the code stays in its metadata, so the codes are read from `Labels` alone."""
    what = f"Message of the roster problem `{code}`, from `cadence roster` and the army builder."
    return field(default=DEFAULT_LABELS[code.replace("-", "_")], metadata=doc(what, example=example, problem_code=code))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False, init=False)
class Labels(Record):
    """The words the generator puts on the site itself; a game in another language replaces them all.

    `{name}` in a label stands for a value the generator puts in; every other character is shown as
    written. A module's `terms` replace the labels of the same name on that module's pages.
    """

    def __init__(self, **values: Any) -> None:
        """Each label given, or its default; as a dataclass's `__init__` would, without generating one
        of some 140 parameters at every start (a tenth of the model's import)."""
        for name, default in _label_defaults().items():
            object.__setattr__(self, name, values.pop(name, default))
        if values:
            raise TypeError(f"{type(self).__qualname__}.__init__() got an unexpected keyword argument {next(iter(values))!r}")

    home: str = label("home", "Navigation title of the home page.", "Startseite")
    overview: str = label("overview", "Navigation title of a module's index page.", "Übersicht")
    errata: str = label("errata", "Navigation title of a module's errata page.", "Korrekturen")
    module_errata: str = label(
        "module_errata", "Title of a module's errata page; '{module}' stands for the module's title.", "Korrekturen zu {module}"
    )
    released: str = label("released", "Title of the page and menu section of released modules.", "Veröffentlichte Spiele")
    in_development: str = label("in_development", "Title of the page and menu section of modules in development.", "Spiele in Entwicklung")
    rules_index: str = label("rules_index", "Title of the page indexing every special rule.", "Regelverzeichnis")
    changes: str = label("changes", "Title of the recent changes page.", "Letzte Änderungen")
    licences: str = label("licences", "Title of the licences page.", "Lizenzen")
    about: str = label("about", "Menu section of the about pages and the licences.", "Über das Projekt")
    roster: str = label(
        "roster", "Navigation title of a module's army builder page; a module's `terms` may name it otherwise.", "Armeeplaner"
    )
    module_roster: str = label(
        "module_roster",
        "Title and heading of a module's army builder page; '{module}': the module's title, '{roster}': the page's name (`roster`).",
        "{module}: {roster}",
    )
    not_found: str = label("not_found", "Heading of the page shown at an address where no page is.", "Seite nicht gefunden")
    not_found_text: str = label(
        "not_found_text",
        "What that page says under its heading.",
        "Unter dieser Adresse gibt es keine Seite. Suche oben in den Regeln oder wähle ein Spiel im Menü.",
    )

    model: str = label("model", "Header of the model column.", "Modell")
    weapon: str = label("weapon", "Header of the weapon column.", "Waffe")
    upgrade: str = label("upgrade", "Header of the upgrade column.", "Aufwertung")
    effect: str = label("effect", "Header of the upgrade effect column.", "Wirkung")
    rules: str = label("rules", "Header of the special rules column.", "Sonderregeln")
    count: str = label("count", "Header of the model count column.", "Anzahl")
    type: str = label("type", "Header of the upgrade type column.", "Art")
    rules_used: str = label("rules_used", "Heading of the list of rules a page mentions, with their text.", "Regeln auf dieser Seite")
    definition: str = label("definition", "Link from a rule's pop-up to where the rule is defined.", "Ganze Regel")
    close: str = label("close", "Button that closes a rule's pop-up.", "Schließen")
    jump: str = label("jump", "Label of an army list's quick links to its units.", "Springe zu")
    unit_composition: str = label("unit_composition", "Sub-heading of a unit's composition.", "Zusammensetzung")
    unit_weapons: str = label("unit_weapons", "Sub-heading of a unit's weapons.", "Waffen und Ausrüstung")
    unit_upgrades: str = label("unit_upgrades", "Sub-heading of a unit's upgrades.", "Aufwertungen")
    setup: str = label("setup", "Label of a built model's upgrades.", "Ausrüstung")
    weapons: str = label("weapons", "Label of a built model's weapons (a plural).", "Waffen")

    notice: str = label("notice", "Title of an army list's notice box.", "Hinweis")
    unit_cost: str = label("unit_cost", "A unit's cost line; '{cost}' and '{currency}' go in.", "Kosten der Einheit: {cost} {currency}")
    cost_open: str = label(
        "cost_open", "A unit's cost with no upper bound (a choice of any number of weapons); '{low}' goes in.", "ab {low}"
    )
    spending_cap: str = label(
        "spending_cap",
        "Follows the cost line of a unit with a spending cap; '{cap}' and '{currency}' go in.",
        "ein Modell darf bis zu {cap} {currency} für Waffen und Aufwertungen ausgeben",
    )
    equipped_with: str = label("equipped_with", "A unit's fixed weapons; '{weapons}': their links.", "Ausgerüstet mit: {weapons}.")
    weapon_lists: str = label("weapon_lists", "The weapon lists a unit draws on; '{lists}': their links.", "Waffenlisten: {lists}.")
    upgrade_choices: str = label("upgrade_choices", "A unit's upgrades; '{upgrades}': their links.", "Aufwertungen: {upgrades}.")
    cost_per_other_upgrade: str = label(
        "cost_per_other_upgrade",
        "Footnote of an upgrade whose cost grows with the model's other upgrades.",
        "Diese Kosten werden mit der Zahl der anderen Aufwertungen des Modells multipliziert.",
    )
    last_changed: str = label(
        "last_changed", "A unit's latest change; '{release}' and '{what}' go in.", "Zuletzt geändert: {release}, {what}."
    )
    reworded: str = label("reworded", "A reworded text in a unit's latest change; '{what}': the field.", "{what} neu formuliert")
    value_changed: str = label(
        "value_changed", "A changed value in a unit's latest change; '{what}', '{old}', '{new}' go in.", "{what} {old} → {new}"
    )

    development_title: str = label("development_title", "Title of the box on a module in development.", "In Entwicklung")
    development_text: str = label(
        "development_text",
        "Text of the box on a module in development.",
        "Dieses Spiel wird noch entwickelt; seine Regeln ändern sich oft.",
    )
    rounds: str = label("rounds", "A module's number of rounds, on its index page.", "Runden")
    battlefield: str = label("battlefield", "A module's or game size's battlefield.", "Spielfeld")
    costs_in: str = label("costs_in", "The currency a module's costs are in.", "Kosten in")
    budget: str = label("budget", "A module's budget.", "Budget")
    max_units: str = label("max_units", "The most units a module's army may have.", "Höchstens Einheiten")
    per_item_budget: str = label("per_item_budget", "The most one unit may cost with its gear.", "Höchstens je Einheit")
    pooled_budget_per_item: str = label(
        "pooled_budget_per_item", "Extra budget per unit, spendable on any unit's gear.", "Gemeinsam je Einheit"
    )
    typical_size: str = label("typical_size", "A module's usual number of units.", "Übliche Zahl an Einheiten")
    at_a_glance: str = label("at_a_glance", "Heading of a module's army-building summary.", "Auf einen Blick")
    category: str = label("category", "Header of the unit category column.", "Kategorie")
    share: str = label("share", "Header of a category's share of the points.", "Anteil an den Punkten")
    units: str = label("units", "Header of a category's number of units.", "Einheiten")
    notes: str = label("notes", "Header of a category's notes.", "Anmerkungen")
    share_at_least: str = label("share_at_least", "A least share; '{percent}' goes in.", "mindestens {percent} %")
    share_at_most: str = label("share_at_most", "A greatest share; '{percent}' goes in.", "höchstens {percent} %")
    any_number: str = label("any_number", "An open upper limit of units.", "beliebig")
    reinforcements_points: str = label(
        "reinforcements_points", "A module's reinforcements; '{points}' and '{currency}' go in.", "bis zu {points} {currency}"
    )
    reinforcements_from: str = label("reinforcements_from", "The round reinforcements arrive from; '{round}' goes in.", "ab Runde {round}")
    game_size: str = label("game_size", "Header of the game size column.", "Spielgröße")
    points: str = label("points", "Header of a game size's points, for a module without a currency.", "Punkte")
    points_unit: str = label(
        "points_unit", "The word after a number of points in roster problems, for a module without a currency.", "Punkte"
    )
    pages: str = label("pages", "Heading of a module's list of pages.", "Seiten")
    open_data: str = label("open_data", "Link to a module's published data.", "Daten (JSON)")
    licence: str = label("licence", "Heading of a module's licence.", "Lizenz")
    play: str = label("play", "Link from a landing page to a module; '{module}': its title.", "{module} spielen")

    errata_intro: str = label(
        "errata_intro",
        "Opening of a module's errata page; '{module}': its title.",
        "Diese Seite gibt {module} aus Daten wieder. Fehler der Vorlage berichtigen wir und führen sie hier auf.",
    )
    errata_where: str = label("errata_where", "Errata header: where the correction is.", "Wo")
    errata_published: str = label("errata_published", "Errata header: what the source printed.", "Gedruckt")
    errata_corrected: str = label("errata_corrected", "Errata header: what this site shows.", "Hier")
    errata_why: str = label("errata_why", "Errata header: why.", "Warum")
    licences_intro: str = label(
        "licences_intro",
        "Opening of the licences page; '{system}': the system's name.",
        "Inhalte von {system} auf dieser Seite sind aus Daten erzeugt und neu formuliert.",
    )
    no_licence: str = label("no_licence", "Shown for a module with no licence.", "Für dieses Spiel ist keine Lizenz angegeben.")
    rules_index_intro: str = label(
        "rules_index_intro", "Opening of the rules index.", "Jede Sonderregel, nach dem Spiel geordnet, das sie festlegt."
    )
    rule: str = label("rule", "Rules index header: the rule.", "Regel")
    kind: str = label("kind", "Rules index header: the rule's kind.", "Art")
    defined_in: str = label("defined_in", "Rules index header: where the rule is defined.", "Festgelegt in")
    used_on: str = label("used_on", "Rules index header: the pages that use it.", "Verwendet auf")
    changes_intro: str = label(
        "changes_intro", "Opening of the recent changes page.", "Änderungen an den Grundregeln und den veröffentlichten Spielen."
    )
    release_revisions: str = label(
        "release_revisions",
        "Under a release on the changes page: the revisions it compares; '{since}' and '{revision}' go in.",
        "Verglichen von Revision {since} bis Revision {revision}.",
    )
    thing_unit: str = label("thing_unit", "A changed unit, on the changes page.", "Einheit")
    thing_model: str = label("thing_model", "A changed model, on the changes page.", "Modell")
    thing_weapon: str = label("thing_weapon", "A changed weapon, on the changes page.", "Waffe")
    thing_weapon_list: str = label("thing_weapon_list", "A changed weapon list, on the changes page.", "Waffenliste")
    thing_upgrade: str = label("thing_upgrade", "A changed upgrade, on the changes page.", "Aufwertung")
    thing_upgrade_list: str = label("thing_upgrade_list", "A changed upgrade list, on the changes page.", "Aufwertungsliste")
    thing_rule: str = label("thing_rule", "A changed special rule, on the changes page.", "Regel")
    thing_table: str = label("thing_table", "A changed table, on the changes page.", "Tabelle")
    added: str = label("added", "A thing a release added.", "neu")
    removed: str = label("removed", "A thing a release removed.", "entfernt")
    changed: str = label("changed", "A thing a release changed.", "geändert")
    renamed: str = label("renamed", "A thing a release renamed; '{old_name}': its name before.", "umbenannt von {old_name}")
    nothing: str = label("nothing", "An empty value before or after a change.", "(nichts)")

    builder_list: str = label("builder_list", "Army builder: the army list chooser.", "Liste")
    builder_size: str = label("builder_size", "Army builder: the game size chooser.", "Spielgröße")
    builder_limit: str = label("builder_limit", "Army builder: the points limit, for a module without a currency.", "Grenze")
    builder_total: str = label("builder_total", "Army builder: the roster's total.", "Summe")
    builder_unit: str = label("builder_unit", "Army builder: the unit chooser.", "Einheit")
    builder_add: str = label("builder_add", "Army builder: the button that adds a unit.", "Hinzufügen")
    builder_remove: str = label("builder_remove", "Army builder: the buttons that remove a unit or models.", "Entfernen")
    builder_group: str = label("builder_group", "Army builder: the button that adds models to a unit.", "Modelle hinzufügen")
    builder_option: str = label(
        "builder_option",
        "Army builder: heading of the weapons one choice offers; '{weapons}': its lists, '{count}': how many it takes (1, 0–2).",
        "{weapons}: {count}",
    )
    builder_swap: str = label(
        "builder_swap", "Army builder: heading of the weapons a swap offers; '{weapons}': what they replace.", "Anstelle von {weapons}"
    )
    builder_copy: str = label("builder_copy", "Army builder: the button that copies the roster's link.", "Link kopieren")
    builder_export: str = label("builder_export", "Army builder: the button that saves the roster as a file.", "Speichern")
    builder_import: str = label("builder_import", "Army builder: the button that opens a roster file.", "Öffnen")
    builder_print: str = label("builder_print", "Army builder: the print button.", "Drucken")
    builder_unpriced: str = label(
        "builder_unpriced", "Army builder: after a unit's cost, when a model it takes has no printed cost.", "ohne angegebene Kosten"
    )
    builder_noscript: str = label(
        "builder_noscript", "Army builder: shown when the browser runs no scripts.", "Die Armeeliste braucht JavaScript."
    )
    builder_copied: str = label("builder_copied", "Army builder: said once the roster's link is copied.", "Link kopiert")
    builder_failed: str = label(
        "builder_failed",
        "Army builder: said when the page fails on a change; the last roster that worked is shown again.",
        "Etwas ist schiefgegangen; die letzte funktionierende Armeeliste wird wieder gezeigt",
    )

    army: str = label(
        "army",
        "What a roster builds, as the roster problems call it ('the {army} costs…'); a module's `terms` may call it otherwise.",
        "Armee",
    )
    # the roster checker's messages, one per problem code
    roster_format: str = roster_message("roster-format", "{what} muss {expected} sein")
    roster_unknown_module: str = roster_message("roster-unknown-module", "die Armeeliste ist für '{name}', diese Daten sind für '{module}'")
    roster_unknown_list: str = roster_message("roster-unknown-list", "'{name}' ist keine Liste von {module}")
    roster_dropped: str = roster_message("roster-dropped", "{what} '{name}' entfernt: {owner} hat kein solches {what}")
    roster_total: str = roster_message("roster-total", "die Armee kostet {total} {currency}, mehr als die erlaubten {limit} {currency}")
    roster_budget: str = roster_message("roster-budget", "die Armee kostet {total} {currency}, mehr als das Budget von {limit} {currency}")
    roster_max_units: str = roster_message("roster-max-units", "die Armee hat {count} Einheiten; höchstens {max} sind erlaubt")
    roster_per_army_min: str = roster_message("roster-per-army-min", "die Armee braucht mindestens {min} '{unit}' (sie hat {count})")
    roster_per_army_max: str = roster_message("roster-per-army-max", "die Armee darf höchstens {max} '{unit}' enthalten (sie hat {count})")
    roster_per_unit: str = roster_message("roster-per-unit", "'{unit}' ist {count}-mal gewählt; eine je '{other}' erlaubt {allowed}")
    roster_taken_in: str = roster_message("roster-taken-in", "'{unit}' ist {count}-mal gewählt; sie kommt in Gruppen zu {size}")
    roster_share_min: str = roster_message(
        "roster-share-min", "{category} kostet {points} {currency}, {percent}% der Armee; mindestens {share}% sind nötig"
    )
    roster_share_max: str = roster_message(
        "roster-share-max", "{category} kostet {points} {currency}, {percent}% der Armee; höchstens {share}% sind erlaubt"
    )
    roster_category_min: str = roster_message(
        "roster-category-min", "die Armee hat {count} Einheiten {category}; sie braucht mindestens {min}"
    )
    roster_category_max: str = roster_message(
        "roster-category-max", "die Armee hat {count} Einheiten {category}; höchstens {max} sind erlaubt"
    )
    roster_category_size: str = roster_message("roster-category-size", "Einheiten {category} gibt es erst in Spielen ab {min} {currency}")
    roster_models_min: str = roster_message("roster-models-min", "'{unit}' hat {count} Modelle; sie braucht mindestens {min}")
    roster_models_max: str = roster_message("roster-models-max", "'{unit}' hat {count} Modelle; höchstens {max} sind erlaubt")
    roster_model_limit: str = roster_message("roster-model-limit", "'{unit}' hat {count} '{model}'; höchstens {max} sind erlaubt")
    roster_model_limit_min: str = roster_message("roster-model-limit-min", "'{unit}' hat {count} '{model}'; mindestens {min} sind nötig")
    roster_weapon: str = roster_message("roster-weapon", "'{model}' in '{unit}' darf '{weapon}' nicht nehmen")
    roster_weapon_count_min: str = roster_message(
        "roster-weapon-count-min", "'{model}' in '{unit}' nimmt {count} Waffen; mindestens {min} sind nötig"
    )
    roster_weapon_count_max: str = roster_message(
        "roster-weapon-count-max", "'{model}' in '{unit}' nimmt {count} Waffen; höchstens {max} sind erlaubt"
    )
    roster_same_weapons: str = roster_message("roster-same-weapons", "alle Modelle in '{unit}' müssen dieselben Waffen tragen")
    roster_upgrade: str = roster_message("roster-upgrade", "'{model}' in '{unit}' darf '{upgrade}' nicht nehmen")
    roster_upgrade_count_min: str = roster_message(
        "roster-upgrade-count-min", "'{model}' in '{unit}' nimmt {count} Aufwertungen; mindestens {min} sind nötig"
    )
    roster_upgrade_count_max: str = roster_message(
        "roster-upgrade-count-max", "'{model}' in '{unit}' nimmt {count} Aufwertungen; höchstens {max} sind erlaubt"
    )
    roster_spending_cap: str = roster_message(
        "roster-spending-cap",
        "'{model}' in '{unit}' gibt {spent} {currency} für Waffen und Aufwertungen aus, mehr als die Grenze von {cap}",
    )
    roster_item_budget: str = roster_message(
        "roster-item-budget", "die Armee gibt {over} {currency} über {each} {currency} je Einheit aus, mehr als die gemeinsamen {pool}"
    )
    roster_option_min: str = roster_message(
        "roster-option-min", "'{model}' in '{unit}' nimmt {count} Waffen aus '{option}'; mindestens {min} sind nötig"
    )
    roster_option_max: str = roster_message(
        "roster-option-max", "'{model}' in '{unit}' nimmt {count} Waffen aus '{option}'; höchstens {max} sind erlaubt"
    )
    roster_option_models: str = roster_message(
        "roster-option-models", "in '{unit}' nehmen {count} Modelle Waffen aus '{option}'; höchstens {max} dürfen es"
    )
    roster_swap_gives_up: str = roster_message(
        "roster-swap-gives-up", "'{model}' in '{unit}' darf '{weapon}' nur statt '{replaced}' nehmen, das es nicht trägt"
    )
    roster_swap_once: str = roster_message(
        "roster-swap-once", "'{model}' in '{unit}' tauscht '{replaced}' ein zweites Mal gegen '{weapon}'; ein Modell tauscht es nur einmal"
    )
    roster_swap_models: str = roster_message(
        "roster-swap-models", "in '{unit}' tauschen {count} Modelle '{replaced}'; höchstens {max} dürfen es"
    )
    roster_swap_all: str = roster_message(
        "roster-swap-all", "in '{unit}' tauschen {count} von {models} Modellen '{replaced}'; alle oder keines müssen es"
    )
    roster_upgrade_per_model: str = roster_message(
        "roster-upgrade-per-model", "'{model}' in '{unit}' nimmt '{upgrade}' {count}-mal, mehr als erlaubt: {limit}"
    )
    roster_upgrade_per_army: str = roster_message(
        "roster-upgrade-per-army", "die Armee nimmt '{upgrade}' {count}-mal, mehr als erlaubt: {limit}"
    )
    roster_weapon_per_army: str = roster_message(
        "roster-weapon-per-army", "die Armee darf höchstens {max} '{weapon}' aus '{list}' enthalten (sie hat {count})"
    )
    roster_reinforcements: str = roster_message(
        "roster-reinforcements", "die {name} kosten {total} {currency}, mehr als die erlaubten {limit} {currency}"
    )
    roster_total_without_reinforcements: str = roster_message(
        "roster-total-without-reinforcements",
        "die Armee ohne ihre {name} kostet {total} {currency}, mehr als die erlaubten {limit} {currency}",
    )
    roster_no_reinforcements: str = roster_message(
        "roster-no-reinforcements", "'{unit}' wird als Verstärkung zurückgehalten, aber {module} hat keine"
    )
    roster_excluded_rule: str = roster_message(
        "roster-excluded-rule", "'{unit}' hat {rule} und darf in der Spielgröße '{size}' nicht gewählt werden"
    )
    roster_rule_ratio: str = roster_message(
        "roster-rule-ratio", "die Armee hat {count} Einheiten mit {rule}; {max} je Einheit ohne {without} erlaubt {allowed}"
    )
    roster_link: str = roster_message("roster-link", "die Armeeliste in diesem Link war nicht lesbar; nichts wurde daraus geladen")
    roster_unpriced: str = roster_message(
        "roster-unpriced", "'{model}' in '{unit}' hat keine gedruckten Kosten: die Summe zählt nur Waffen und Aufwertungen"
    )
    roster_empty: str = roster_message("roster-empty", "die Armee hat keine Einheiten")
    roster_duplicate_key: str = roster_message("roster-duplicate-key", "{what} steht zweimal: welcher Wert gemeint ist, bleibt offen")
    roster_too_large: str = roster_message(
        "roster-too-large", "die Armeeliste hat {size} Bytes, mehr als die erlaubten {max}; nichts wurde daraus gelesen"
    )
    roster_too_many_units: str = roster_message(
        "roster-too-many-units", "die Armeeliste hat {count} Einheiten, mehr als die erlaubten {max}; nichts wurde daraus gelesen"
    )
    roster_did_you_mean: str = label(
        "roster_did_you_mean",
        "The hint after a name in a roster that the data does not have: the nearest name it has.",
        "meinten Sie '{name}'?",
    )
    roster_word_name: str = roster_word("name", "ein Name")
    roster_word_names: str = roster_word("names", "eine Liste von Namen")
    roster_word_list: str = roster_word("list", "eine Liste")
    roster_word_mapping: str = roster_word("mapping", "eine Zuordnung")
    roster_word_number: str = roster_word("number", "eine ganze Zahl")
    roster_word_count: str = roster_word("count", "eine ganze Zahl ab 1")
    roster_word_flag: str = roster_word("flag", "true oder false")
    roster_word_roster: str = roster_word("roster", "eine Armeeliste")

    def say(self, key: str, **values: str) -> str:
        """A label with its values put in, as plain text (the renderer escapes; this is for titles)."""
        return fill(getattr(self, key), values)

    def of_module(self, title: str) -> str:
        """The errata page title of a module."""
        return self.say("module_errata", module=title)


@lru_cache(maxsize=1)
def _label_defaults() -> dict[str, Any]:
    """Every `Labels` field (and `loc`) with its default, in field order."""
    return {f.name: f.default for f in fields(Labels)}


#: A value's place in a label: `{module}`.
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def fill(text: str, values: dict[str, str], literal: Callable[[str], str] = str) -> str:
    """`text` with each `{name}` given in `values` replaced by its value; the rest through `literal`."""
    out, at = [], 0
    for match in PLACEHOLDER.finditer(text):
        if match[1] in values:
            out += [literal(text[at : match.start()]), values[match[1]]]
            at = match.end()
    return "".join([*out, literal(text[at:])])


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Change(Record):
    """A group of change entries under one heading on the Recent Changes page."""

    section: str = field(metadata=doc("The heading the changes are listed under."))
    items: tuple[str, ...] = field(metadata=doc("Markdown, one entry each (nested lists allowed).", markdown=True))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class System(Record):
    """The game system: profile columns, value forms, rule kinds and site-wide pages."""

    id: str = field(metadata=doc("The system's slug.", slug=True))
    name: str = field(metadata=doc("The system's name, shown as the site title."))
    summary: str = field(
        default="", metadata=doc("One paragraph about the system (Markdown), opening the released games' page.", markdown=True)
    )
    value_forms: dict[str, ValueForm] = field(metadata=doc("How profile values are written."))
    profiles: Profiles = field(metadata=doc("Model and weapon profile columns."))
    landing_pages: LandingPages = field(default_factory=LandingPages, metadata=doc("Generated landing pages."))
    rule_values: Literal["brackets", "space"] = field(
        default="brackets", metadata=doc("How a rule's value follows its name: 'Heavy Armour (2)' (brackets) or 'Tough 2' (space).")
    )
    rule_kinds: tuple[str, ...] = field(
        default=("unit", "weapon"), metadata=doc("The kinds of special rule, e.g. unit, weapon, terrain: each rule is of one.", least=1)
    )
    rule_kind_labels: dict[str, str] = field(
        default_factory=dict,
        metadata=doc(
            "How the site names each rule kind (Rules Index); a kind without a label is shown as written.",
            example={"command-trait": "Command Trait"},
        ),
    )
    name_case: Literal["title", "any"] = field(default="title", metadata=doc("Whether names must be in title case."))
    changes_release: str = field(default="", metadata=doc("The release the recent changes belong to, shown as their heading."))
    changes: tuple[Change, ...] = field(default=(), metadata=doc("Site-wide change entries."))
    labels: Labels = field(
        default_factory=Labels,
        metadata=doc(
            "The generator's own words on the site, for a game in another language.",
            example={"home": "Startseite", "overview": "Übersicht", "module_errata": "Korrekturen zu {module}"},
        ),
    )
    spelling_variants: dict[str, str] = field(
        default_factory=dict,
        metadata=doc("Words players may type for the site's own spelling, e.g. {armor: armour}; search finds the site's word."),
    )


# --- modules ---------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class SpecialRule(Record):
    """A special rule: its name, parameter, kind and definition."""

    name: str = field(metadata=doc("The rule's name without its parameter, e.g. 'Heavy Armour'."))
    id: str = field(default="", metadata=doc("Anchor; the slug of the name when omitted.", slug=True, example="heavy-armour"))
    parameter: str | None = field(default=None, metadata=doc("The parameter's letter, e.g. 'X', when the rule takes a value."))
    values: tuple[str, ...] = field(
        default=(), metadata=doc("Value forms the parameter accepts (names from the system's value_forms); any text when empty.")
    )
    kind: str = field(metadata=doc("What the rule applies to: one of the system's rule_kinds (unit, weapon, ...)."))
    aliases: tuple[str, ...] = field(default=(), metadata=doc("Other names of the same rule, each found and linked like the name."))
    parameter_optional: bool = field(default=False, metadata=doc("The rule may be used with or without its value."))
    cost: str | None = field(default=None, metadata=doc("What using it costs, shown after the name, e.g. '1 Cmd'."))
    text: str = field(metadata=doc("The rule, in Markdown; [[Rule]] links to another rule.", markdown=True))
    optional: bool = field(default=False, metadata=doc("Offered for players to give their own units; not reported when nothing uses it."))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Range(Record):
    """A least and a most, either of which may be left open."""

    min: int | None = field(default=None, metadata=doc("Least.", least=0))
    max: int | None = field(default=None, metadata=doc("Most.", least=0))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class ArmyLimit(Range):
    """How many of a unit an army may take, alone or with other units counted against the same limit."""

    shared_with: tuple[str, ...] = field(default=(), metadata=doc("Other units counted against the same limit."))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Table(Record):
    """A table: a roll table (with dice) or any other table of Markdown cells."""

    id: str = field(default="", metadata=doc("Id used by `[% table MODULE/ID %]`.", slug=True))
    name: str = field(metadata=doc("The table's name (its heading in army lists)."))
    text: str = field(default="", metadata=doc("Markdown shown before the table.", markdown=True))
    dice: str | None = field(default=None, metadata=doc("The dice rolled on the table, e.g. 'd6'; makes the first column a roll."))
    columns: tuple[str, ...] = field(metadata=doc("Column headers."))
    rows: tuple[tuple[ProfileValue, ...], ...] = field(metadata=doc("Rows, one value per column (Markdown).", markdown=True))
    results: Range | None = field(
        default=None, metadata=doc("Results the roll column covers, when not every result of the dice (e.g. 1-12).")
    )


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Licence(Record):
    """The licence a module is published under, and its attribution."""

    name: str = field(metadata=doc("Licence name, e.g. 'CC BY 4.0'."))
    url: str = field(default="", metadata=doc("Where the licence text is: a web address (http or https).", web_address=True))
    notice: str = field(default="", metadata=doc("Attribution and changes made (Markdown).", markdown=True))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Currency(Record):
    """What a module counts costs in, and the header of its cost columns."""

    name: str = field(metadata=doc("What costs are counted in: points, dollars, credits."))
    label: str = field(metadata=doc("The cost column header."))


def term(what: str, example: str = "") -> Any:
    """A `Terms` field: a module's own word, the system's label of the same name when left out."""
    extra = {"example": example} if example else {}
    return field(default=None, metadata=doc(f"{what} The system's label of the same name when omitted.", **extra))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Terms(Record):
    """Table headers and other words in the module's own terms, where they differ from the system's labels."""

    model: str | None = term("Header of the model column.")
    weapon: str | None = term("Header of the weapon column.", "Ranged Weapon")
    upgrade: str | None = term("Header of the upgrade column.")
    effect: str | None = term("Header of the upgrade effect column.")
    rules: str | None = term("Header of the special rules column.", "Keywords")
    count: str | None = term("Header of the model count column.", "Number")
    type: str | None = term("Header of the upgrade type column.", "Kind")
    rules_used: str | None = term("Heading of the list of rules a page mentions, with their text.", "Rules on this Page")
    definition: str | None = term("Link from a rule's pop-up to where the rule is defined.", "Read the rule")
    close: str | None = term("Button that closes a rule's pop-up.", "Done")
    jump: str | None = term("Label of an army list's quick links to its units.", "Units")
    army: str | None = term("What a roster of this module builds, in roster problems ('the gang costs…').", "gang")
    roster: str | None = term("Name of the module's army builder page, in the menu and its title.", "Gang builder")

    def over(self, labels: Labels) -> dict[str, str]:
        """Every label, with this module's own words in place of the system's."""
        words = {k: v for k, v in vars(labels).items() if k != "loc"}
        words.update({k: v for k, v in vars(self).items() if k != "loc" and v is not None})
        return words


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Category(Record):
    """A unit category and its share of an army."""

    id: str = field(metadata=doc("Category id used by units.", slug=True))
    name: str = field(metadata=doc("Category name."))
    min_share: int | None = field(default=None, metadata=doc("Least share of the army's points, in percent.", least=0, most=100))
    max_share: int | None = field(default=None, metadata=doc("Greatest share of the army's points, in percent.", least=0, most=100))
    units: Range | None = field(default=None, metadata=doc("How many units of this category an army has."))
    counts_as: str | None = field(default=None, metadata=doc("Another category whose share this one counts towards."))
    min_game_points: int | None = field(default=None, metadata=doc("Only used in games of at least this many points."))
    note: str = field(default="", metadata=doc("Anything else about the category (Markdown).", markdown=True))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class RuleRatio(Record):
    """Units with a special rule allowed for every unit without some others ('0-1 Transport for every unit that is
    not a Vehicle'): a game size's counterpart of a unit's `per_unit`, with special rules in place of units.

    A unit has a rule when any of its models does. The units counted are those the army takes that have none
    of the `without` rules and are not themselves limited by this ratio (a transport does not allow itself).
    """

    rule: str = field(metadata=doc("The special rule (by name) of the units limited.", example="Transport"))
    max: int = field(default=1, metadata=doc("How many such units for every unit counted.", example=2, least=1))
    without: tuple[str, ...] = field(
        metadata=doc("Special rules (by name): every unit with none of them allows `max` units more.", example=["Vehicle"])
    )


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class GameSize(Record):
    """A recommended game size."""

    name: str = field(metadata=doc("Name of the game size."))
    points: ProfileValue = field(metadata=doc("Points (or a range such as '500-1000')."))
    battlefield: str = field(default="", metadata=doc("Recommended battlefield."))
    category_units: dict[str, Range] = field(
        default_factory=dict,
        metadata=doc("Units of each category (by id) in games of exactly these points, in place of the categories' own counts."),
    )
    excluded_rules: tuple[str, ...] = field(
        default=(),
        metadata=doc(
            "Special rules (by name) that no unit may have in games of exactly these points: a unit any of whose models has one is not allowed.",
            example=["Vehicle"],
        ),
    )
    rule_ratios: tuple[RuleRatio, ...] = field(
        default=(), metadata=doc("Units with a special rule allowed for every unit without others, in games of exactly these points.")
    )


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Surcharge(Record):
    """A cost added to built models with many upgrades."""

    min_upgrades: int = field(metadata=doc("Applies to built models with at least this many upgrades."))
    points: int = field(metadata=doc("Cost added."))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class CostRules(Record):
    """How built models are priced."""

    surcharges: tuple[Surcharge, ...] = field(default=(), metadata=doc("The largest one that applies is added."))
    weapons_count_as_upgrades: bool = field(default=False, metadata=doc("Weapons count as upgrades for multiplied costs and surcharges."))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Reinforcements(Record):
    """Reinforcements that join an army later in a game."""

    name: str = field(metadata=doc("What the game calls them; the army builder labels a unit held back as them.", example="Reinforcements"))
    points: int = field(metadata=doc("Points of reinforcements."))
    from_round: int | None = field(default=None, metadata=doc("First round they may arrive."))
    text: str = field(default="", metadata=doc("How they work (Markdown), under the module's army-building summary.", markdown=True))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class ArmyBuilding(Record):
    """A module's army-building rules: budget, categories, game sizes."""

    budget: int | None = field(default=None, metadata=doc("Total an army may spend.", least=1))
    max_units: int | None = field(default=None, metadata=doc("Most units (or ships, cars) an army may have.", least=1))
    per_item_budget: int | None = field(default=None, metadata=doc("Most one unit may cost with its gear.", least=0))
    pooled_budget_per_item: int | None = field(default=None, metadata=doc("Extra budget per unit, spendable on any unit's gear.", least=0))
    typical_size: ProfileValue | None = field(default=None, metadata=doc("Usual number of units, e.g. '3-6'."))
    reinforcements: Reinforcements | None = field(default=None, metadata=doc("Reinforcements arriving later in the game."))
    categories: tuple[Category, ...] = field(default=(), metadata=doc("Unit categories and their shares."))
    game_sizes: tuple[GameSize, ...] = field(default=(), metadata=doc("Recommended game sizes."))
    cost: CostRules | None = field(default=None, metadata=doc("How built models are priced."))
    text: str = field(default="", metadata=doc("Other army-building rules (Markdown).", markdown=True))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class ErratumPatch(Record):
    """The text edit that puts back what the source printed."""

    file: str = field(metadata=doc("Data file, relative to the data folder."))
    find: str = field(metadata=doc("Text of the corrected data; must occur exactly once."))
    replace: str = field(metadata=doc("Text the source printed."))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Erratum(Record):
    """One place where we publish something other than what the source printed, and why."""

    page: str = field(metadata=doc("Site path where it shows, without .html."))
    anchor: str | None = field(default=None, metadata=doc("Section anchor on that page."))
    published: str = field(metadata=doc("What the source printed."))
    corrected: str = field(metadata=doc("What we publish."))
    why: str = field(metadata=doc("Why the two differ.", markdown=True))
    as_published: ErratumPatch | None = field(default=None, metadata=doc("How to put the printed version back."))
    caught_by: str | None = field(
        default=None,
        metadata=doc(
            "The check code that reports the printed version; omitted where no check can (a reworded sentence).",
            unpublished="the checker's own record: the test that each erratum's code still reports it reads it",
        ),
    )


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Module(Record):
    """A module (a game, or the core rules): metadata, special rules, tables, errata and changes."""

    id: str = field(metadata=doc("Module slug; also its URL folder.", slug=True))
    title: str = field(metadata=doc("Module title."))
    core: bool = field(default=False, metadata=doc("True for the core rules: their rules are in every scope."))
    status: Literal["released", "in-development"] = field(default="released", metadata=doc("Release status."))
    summary: str = field(default="", metadata=doc("One paragraph for the landing pages (Markdown).", markdown=True))
    rounds: int | None = field(default=None, metadata=doc("Rounds a game lasts."))
    battlefield: str = field(default="", metadata=doc("Battlefield size."))
    licence: Licence | None = field(default=None, metadata=doc("Licence and attribution."))
    currency: Currency | None = field(default=None, metadata=doc("What costs are counted in."))
    terms: Terms = field(default_factory=Terms, metadata=doc("Table headers, and what its rosters build, in the module's own words."))
    army_building: ArmyBuilding | None = field(default=None, metadata=doc("Army-building rules."))
    pages: tuple[str, ...] = field(default=(), metadata=doc("Pages in navigation order (site paths without .md)."))
    special_rules: tuple[SpecialRule, ...] = field(default=(), metadata=doc("Module-scope special rules."))
    rule_order: Literal["name", "source"] = field(
        default="name",
        metadata=doc(
            "Order of the rules `[% special-rules %]` shows: by name, or as written here (states, orders, phases).", example="source"
        ),
    )
    tables: tuple[Table, ...] = field(default=(), metadata=doc("Roll tables and other tables."))
    errata: tuple[Erratum, ...] = field(default=(), metadata=doc("Where we publish other than the source printed."))
    changes: tuple[Change, ...] = field(default=(), metadata=doc("Change entries for Recent Changes."))


# --- army lists ------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Mode(Record):
    """One firing mode of a weapon with several."""

    name: str = field(metadata=doc("Firing mode name, e.g. 'Overcharge'."))
    profile: dict[str, ProfileValue] = field(metadata=doc("Weapon profile values by column key."))
    rules: tuple[str, ...] = field(default=(), metadata=doc("Special rule uses."))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Weapon(Record):
    """A weapon: its profile, special rules and cost."""

    name: str = field(metadata=doc("Weapon name."))
    id: str = field(default="", metadata=doc("Anchor; slug of the name when omitted.", slug=True, example="plasma-rifle"))
    parameter: str | None = field(default=None, metadata=doc("Parameter letter when the name takes a value, e.g. 'X'."))
    profile: dict[str, ProfileValue] | None = field(default=None, metadata=doc("Weapon profile values by column key."))
    rules: tuple[str, ...] = field(default=(), metadata=doc("Special rule uses."))
    points: int | None = field(default=None, metadata=doc("Cost."))
    modes: tuple[Mode, ...] = field(default=(), metadata=doc("Firing modes, when the weapon has several."))
    footnote: str | None = field(default=None, metadata=doc("Explains a '*' value (Markdown).", markdown=True))
    pending: bool = field(default=False, metadata=doc("Named by the source, but its profile is not published yet."))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class WeaponList(Record):
    """A named list of weapons that units choose from."""

    name: str = field(metadata=doc("List name, also its heading."))
    id: str = field(default="", metadata=doc("List id; slug of the name when omitted.", slug=True))
    label: str | None = field(default=None, metadata=doc("Header of the first column, when not the module's weapon term."))
    weapons: tuple[Weapon, ...] = field(metadata=doc("The weapons."))
    max_per_army: int | None = field(
        default=None,
        metadata=doc(
            "Most times each weapon of the list may appear in an army, over all its models (what the prose says, checked in rosters).",
            example=1,
            least=1,
        ),
    )
    library: bool = field(
        default=False,
        metadata=doc("A library other lists and modules draw on: not reported when no unit of this page takes it.", example=True),
    )


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Upgrade(Record):
    """An upgrade: its effect, cost and what it grants or sets."""

    name: str = field(metadata=doc("Upgrade name."))
    id: str = field(default="", metadata=doc("Id; slug of the name when omitted.", slug=True, example="adaptive-camo"))
    type: str | None = field(default=None, metadata=doc("Upgrade type, e.g. 'Equipment'."))
    effect: str = field(metadata=doc("What it does (Markdown).", markdown=True))
    points: ProfileValue | None = field(default=None, metadata=doc("Cost; '-' where none is printed."))
    limit: str | None = field(default=None, metadata=doc("A limit on taking it, as printed, e.g. 'one per gang'."))
    max_per_army: int | None = field(
        default=None,
        metadata=doc("Most models of an army that may take it (what `limit` says, checked in rosters).", example=1, least=1),
    )
    max_per_model: int | None = field(
        default=None, metadata=doc("Most times one model may take it (what `limit` says, checked in rosters).", example=1, least=1)
    )
    grants: tuple[str, ...] = field(default=(), metadata=doc("Special rules it gives."))
    sets: dict[str, ProfileValue] = field(default_factory=dict, metadata=doc("Profile values it sets."))
    cost_per_other_upgrade: bool = field(default=False, metadata=doc("Cost is multiplied by the number of other upgrades."))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class UpgradeList(Record):
    """A named list of upgrades that units choose from."""

    name: str = field(metadata=doc("List name, also its heading."))
    id: str = field(default="", metadata=doc("List id; slug of the name when omitted.", slug=True))
    label: str | None = field(default=None, metadata=doc("Header of the first column, when not the module's upgrade term."))
    effect_label: str | None = field(default=None, metadata=doc("Header of the effect column."))
    upgrades: tuple[Upgrade, ...] = field(metadata=doc("The upgrades."))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Model(Record):
    """A model of a unit: its profile, special rules and cost."""

    name: str = field(metadata=doc("Model name."))
    profile: dict[str, ProfileValue] = field(metadata=doc("Profile values by column key."))
    rules: tuple[str, ...] = field(default=(), metadata=doc("Special rule uses."))
    points: int | None = field(default=None, metadata=doc("Cost per model."))
    count: str | None = field(default=None, metadata=doc("Count shown in the table, e.g. '0-2'."))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class PerUnit(Record):
    """A limit of one unit for every so many of another."""

    unit: str = field(metadata=doc("The unit that allows this one."))
    max: int = field(default=1, metadata=doc("How many of this unit per such unit.", example=2, least=1))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class ModelLimit(Record):
    """How many of one model a unit may have."""

    model: str = field(metadata=doc("A model of the unit."))
    min: int = field(default=0, metadata=doc("Least of that model in the unit.", example=1, least=0))
    max: int = field(metadata=doc("Most of that model in the unit.", least=0))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Composition(Record):
    """How many models a unit has and how many of the unit an army may take."""

    text: str = field(default="", metadata=doc("The composition, in words (Markdown).", markdown=True))
    heading: str | None = field(default=None, metadata=doc("Sub-heading, when not the module's term.", example="Unit Composition"))
    models: Range | None = field(default=None, metadata=doc("Models in the unit."))
    per_army: ArmyLimit | None = field(default=None, metadata=doc("Limit of this unit per army."))
    per_unit: PerUnit | None = field(default=None, metadata=doc("One of this unit for every such unit."))
    limits: tuple[ModelLimit, ...] = field(default=(), metadata=doc("Most of a given model in the unit."))
    taken_in: int | None = field(default=None, metadata=doc("The unit is always taken in groups of this many.", least=1))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class WeaponOption(Record):
    """A weapon choice: from lists or from single weapons, with a least and a most."""

    lists: tuple[str, ...] = field(default=(), metadata=doc("Weapon lists to choose from."))
    weapons: tuple[str, ...] = field(default=(), metadata=doc("Single weapons to choose from."))
    models: Literal["one", "any", "all"] | None = field(default=None, metadata=doc("Which models the choice is for."))
    min: int = field(default=0, metadata=doc("Least weapons chosen.", least=0))
    max: int | None = field(
        default=1, metadata=doc("Most weapons chosen; null where the rules set no number (any number may be chosen).", least=0)
    )


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Swap(Record):
    """A weapon a model may give up for others."""

    replace: str | tuple[str, ...] = field(metadata=doc("The weapon (or weapons, or weapon list) given up."))
    with_: tuple[str, ...] = field(default=(), metadata=doc("Weapons that may replace it.", key="with"))
    lists: tuple[str, ...] = field(default=(), metadata=doc("Weapon lists whose weapons may replace it."))
    models: Literal["one", "any", "all"] | int = field(default="any", metadata=doc("Which models may swap: one, any, all, or how many."))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class ModelWeapons(Record):
    """Weapons one model of a unit carries instead of the unit's."""

    model: str = field(metadata=doc("A model of the unit."))
    fixed: tuple[str, ...] = field(metadata=doc("Weapons that model has instead of the unit's."))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class UnitWeapons(Record):
    """A unit's weapons: fixed ones, choices and swaps."""

    text: str = field(default="", metadata=doc("The options, in words (Markdown).", markdown=True))
    fixed: tuple[str, ...] = field(default=(), metadata=doc("Weapons every model has."))
    options: tuple[WeaponOption, ...] = field(default=(), metadata=doc("Choices per model."))
    swaps: tuple[Swap, ...] = field(default=(), metadata=doc("Replacements."))
    by_model: tuple[ModelWeapons, ...] = field(default=(), metadata=doc("Weapons particular models have."))
    same: bool = field(default=False, metadata=doc("Every model of the unit carries the same weapons."))
    total: Range | None = field(default=None, metadata=doc("How many weapons a model takes over all options."))
    heading: str | None = field(default=None, metadata=doc("Sub-heading, when not the module's term."))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class UpgradeOption(Record):
    """An upgrade offered to some models of a unit only."""

    name: str = field(metadata=doc("The upgrade."))
    models: tuple[str, ...] = field(default=(), metadata=doc("Only these models of the unit may take it."))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class UnitUpgrades(Record):
    """A unit's upgrades: fixed ones and choices."""

    text: str = field(default="", metadata=doc("The options, in words (Markdown).", markdown=True))
    options: tuple[str | UpgradeOption, ...] = field(
        default=(), metadata=doc("Upgrades the unit may take (a name, or a name with the models that may take it).")
    )

    @property
    def option_names(self) -> tuple[str, ...]:
        return tuple(o if isinstance(o, str) else o.name for o in self.options)

    fixed: tuple[str, ...] = field(default=(), metadata=doc("Upgrades every model has."))
    min: int | None = field(default=None, metadata=doc("Least upgrades taken from the options."))
    max: int | None = field(default=None, metadata=doc("Most upgrades taken from the options."))
    heading: str | None = field(default=None, metadata=doc("Sub-heading, when not the module's term.", example="Upgrades"))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Ability(Record):
    """An ability or reaction of a unit, with its cost to use."""

    name: str = field(metadata=doc("Ability name."))
    cost: str = field(default="", metadata=doc("What it costs to use, e.g. '1 Command Point Reaction'."))
    text: str = field(metadata=doc("What it does (Markdown).", markdown=True))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Unit(Record):
    """A unit: its models, composition, weapon and upgrade options."""

    name: str = field(metadata=doc("Unit name, also its heading."))
    id: str = field(default="", metadata=doc("Id; slug of the name when omitted.", slug=True, example="vanguard-squad"))
    anchor: str | None = field(
        default=None, metadata=doc("Public anchor when not the slug of the name.", slug=True, example="vanguard-squad-1")
    )
    category: str | None = field(default=None, metadata=doc("Category id from the module's army building."))
    intro: str = field(default="", metadata=doc("Markdown shown before the profile.", markdown=True))
    models: tuple[Model, ...] = field(metadata=doc("The unit's models."))
    composition: Composition | None = field(default=None, metadata=doc("How many models and units."))
    weapons: UnitWeapons | None = field(default=None, metadata=doc("Weapon options."))
    upgrades: UnitUpgrades | None = field(default=None, metadata=doc("Upgrade options."))
    abilities: tuple[Ability, ...] = field(default=(), metadata=doc("Abilities and reactions."))
    spending_cap: int | None = field(default=None, metadata=doc("Most a model may spend on weapons and upgrades."))
    spending_cap_own_cost: bool = field(
        default=False, metadata=doc("A model may spend on weapons and upgrades at most what the model itself costs.")
    )
    notes: str = field(default="", metadata=doc("Markdown after everything.", markdown=True))
    headings: bool = field(default=False, metadata=doc("Give composition, weapons and upgrades their own headings."))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Printed(Record):
    """What the source printed for a built model, checked against the computation."""

    name: str | None = field(default=None, metadata=doc("The name the source's summary prints, when shorter."))
    points: int | None = field(default=None, metadata=doc("Points the source printed."))
    profile: dict[str, ProfileValue] | None = field(default=None, metadata=doc("Profile the source printed."))
    rules: tuple[str, ...] = field(default=(), metadata=doc("Rules the source printed."))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class BuiltModel(Record):
    """A model built from a base model, upgrades and weapons; profile and cost are computed."""

    name: str = field(metadata=doc("Model name."))
    anchor: str | None = field(default=None, metadata=doc("Public anchor.", slug=True))
    base: str = field(metadata=doc("The model it is built on."))
    upgrades: tuple[str, ...] = field(default=(), metadata=doc("Upgrades, in order."))
    weapons: tuple[str, ...] = field(default=(), metadata=doc("Weapons."))
    printed: Printed | None = field(default=None, metadata=doc("What the source printed, checked against the computation."))
    text: str = field(default="", metadata=doc("Markdown shown under its heading.", example="Flown by the squadron's ace.", markdown=True))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class ProfileSummary(Record):
    """A table summing up built models."""

    name: str = field(metadata=doc("Heading of the summary."))
    anchor: str | None = field(default=None, metadata=doc("Public anchor.", slug=True, example="empire-summary"))
    of: str | None = field(
        default=None, metadata=doc("Heading of the section whose built models it sums up; all of the list's when omitted.")
    )


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Section(Record):
    """A section of a generated page: a heading with text, one block, and subsections."""

    heading: str | None = field(default=None, metadata=doc("Heading; blocks default to their name."))
    anchor: str | None = field(default=None, metadata=doc("Public anchor when not the slug of the heading.", slug=True))
    text: str = field(default="", metadata=doc("Markdown under the heading.", markdown=True))
    admonition: str | None = field(default=None, metadata=doc("Show the text as a note of this kind: note, warning, info.", example="note"))
    unit: Unit | None = field(default=None, metadata=doc("A unit."))
    weapon_list: WeaponList | None = field(default=None, metadata=doc("A weapon list."))
    upgrade_list: UpgradeList | None = field(default=None, metadata=doc("An upgrade list."))
    table: Table | None = field(default=None, metadata=doc("A table."))
    built_model: BuiltModel | None = field(default=None, metadata=doc("A model built from a base, upgrades and weapons."))
    profile_summary: ProfileSummary | None = field(default=None, metadata=doc("A table of built models."))
    special_rules: bool = field(default=False, metadata=doc("Show this list's special rules here."))
    sections: tuple[Section, ...] = field(default=(), metadata=doc("Subsections, one heading level down."))

    @property
    def block(self) -> Any:
        for name in BLOCKS:
            value = getattr(self, name)
            if value is not None:
                return value
        return None

    @property
    def title(self) -> str:
        if self.heading:
            return self.heading
        block = self.block
        return str(getattr(block, "name", "")) if block is not None else ""

    @property
    def given_anchor(self) -> str | None:
        """The anchor the data gives the section's heading: its own, else its block's; None leaves it to the heading."""
        return self.anchor or getattr(self.block, "anchor", None)


BLOCKS = ("unit", "weapon_list", "upgrade_list", "table", "built_model", "profile_summary")


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class ArmyList(Record):
    """A generated page (an army list, a team-building page): units, lists, tables and prose."""

    id: str = field(metadata=doc("List id.", slug=True))
    name: str = field(metadata=doc("List name."))
    title: str = field(default="", metadata=doc("Page title; the name when omitted."))
    page: str = field(default="", metadata=doc("Site path of the page, without .md."))
    intro: str = field(default="", metadata=doc("Markdown under the title.", markdown=True))
    notice: str = field(default="", metadata=doc("A notice shown at the top (fan-made content).", markdown=True))
    uses: tuple[str, ...] = field(default=(), metadata=doc("Other lists ('module/list') whose contents are in scope."))
    special_rules: tuple[SpecialRule, ...] = field(default=(), metadata=doc("This list's own special rules."))
    sections: tuple[Section, ...] = field(default=(), metadata=doc("The page's sections, in order."))


# --- releases --------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class ReleaseDetail(Record):
    """One value that moved in a release: a profile value, a cost, a rule list or a text."""

    what: str = field(metadata=doc("What changed: a profile column's label, 'points', 'rules', 'text'.", example="Mov"))
    old: str = field(default="", metadata=doc("The value before.", example='5"'))
    new: str = field(default="", metadata=doc("The value after.", example='7"'))
    words: str = field(
        default="",
        metadata=doc(
            "For a reworded text: the word diff, removed words as [-...-] and added ones as {+...+}.",
            example="costs [-1-]{+2+} Command Points",
        ),
    )


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class ReleaseEntry(Record):
    """One thing a release added, removed, renamed or changed."""

    module: str = field(metadata=doc("The module it belongs to.", slug=True, example="my-game"))
    page: str = field(default="", metadata=doc("The site page that shows it (without .md).", example="my-game/army-lists/raiders"))
    kind: Literal["unit", "model", "weapon", "weapon list", "upgrade", "upgrade list", "rule", "table"] = field(
        metadata=doc("What kind of thing it is.", example="weapon")
    )
    within: str = field(default="", metadata=doc("The unit or list it is part of.", example="Standard Weapons"))
    name: str = field(metadata=doc("Its name (after the release).", example="Plasma Rifle"))
    change: Literal["added", "removed", "renamed", "changed"] = field(metadata=doc("What happened to it.", example="changed"))
    old_name: str = field(default="", metadata=doc("Its name before, when it was renamed.", example="Plasma Carbine"))
    details: tuple[ReleaseDetail, ...] = field(default=(), metadata=doc("The values that moved."))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Release(Record):
    """A release: what changed in game terms between two revisions, stored so a fresh clone builds it.

    Written by `cadence diff OLD NEW --record NAME`; the Recent Changes page lists releases newest first.
    """

    name: str = field(metadata=doc("The release's name, its heading on Recent Changes.", example="Season 3 update"))
    date: str = field(default="", metadata=doc("When it was released (YYYY-MM-DD).", example="2026-11-22"))
    summary: str = field(
        default="", metadata=doc("A few words about the release (Markdown).", example="Points of the army lists revised.", markdown=True)
    )
    since: str = field(
        default="", metadata=doc("The git revision the changes are counted from, shown under the release.", example="a1c6886")
    )
    revision: str = field(default="", metadata=doc("The git revision the release is, shown under the release.", example="441d777"))
    entries: tuple[ReleaseEntry, ...] = field(default=(), metadata=doc("What changed, thing by thing."))


#: The kinds of data file, by their one top-level key.
DOCUMENT_KINDS: dict[str, type[Record]] = {"system": System, "module": Module, "army_list": ArmyList, "release": Release}
