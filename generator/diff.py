"""What changed between two versions of a project, in game terms (`cadence diff OLD NEW`).

Both sides are loaded as projects (a folder, or a git revision read with `git archive`), flattened
into the things players look up (units, models, weapons, weapon lists, upgrades, upgrade lists, special
rules, tables) with their comparable values, and compared: added, removed, renamed (a removed and an
added thing in the same place whose names or values are close) and changed, with every moved value
as old -> new and reworded texts as a word diff.

The result is a list of `ReleaseEntry` records, so it can be stored as a release
(`data/releases/*.yaml`) that the Recent Changes page reads without needing git.
"""

from __future__ import annotations

import difflib
import io
import json
import re
import subprocess
import tarfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .catalogue import ListEntry, Project, assemble, walk_sections
from .loader import load_directory
from .model import ProfileValue, Release, ReleaseDetail, ReleaseEntry, Section, Unit, UpgradeList, WeaponList, slugify
from .problems import one_line
from .releases import TEXT_FIELDS, word_segments

#: How alike a removed and an added thing must be (0-1) to count as one thing renamed.
RENAME_SIMILARITY = 0.6
#: Fields compared as prose: their changes are shown as a word diff.


class DiffError(Exception):
    """A side of the diff could not be read (not a folder, not a revision, no project there)."""


@dataclass(frozen=True)
class Thing:
    """One thing a player looks up, with the values a change to it would be about."""

    kind: str
    module: str
    page: str
    within: str
    name: str
    values: dict[str, str]
    within_id: str = ""

    @property
    def place(self) -> tuple[str, str, str, str]:
        """Where it lives: renames are only looked for within one place."""
        return (self.kind, self.module, self.page, self.within_id or slugify(self.within))


# --- loading either side ----------------------------------------------------------------------------


def load_side(root: Path, spec: str, scratch: Path) -> Project:
    """A project from a folder (a project root or its data folder) or a git revision of `root`."""
    folder = Path(spec)
    if folder.is_dir():
        return _load_folder(folder)
    target = scratch / re.sub(r"[^A-Za-z0-9._-]", "_", spec)
    target.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", spec], capture_output=True)
    if result.returncode != 0:
        raise DiffError(f"'{spec}' is neither a folder nor a git revision of {root}: {result.stderr.decode(errors='replace').strip()}")
    try:
        with tarfile.open(fileobj=io.BytesIO(result.stdout)) as archive:
            archive.extractall(target, filter="data")
    except tarfile.FilterError as exc:  # refused before anything is written through it
        raise DiffError(f"revision '{spec}' holds {_refused(exc)}") from None
    except tarfile.TarError as exc:
        raise DiffError(f"revision '{spec}' could not be read: {exc}") from None
    return _load_folder(target)


def _refused(exc: tarfile.FilterError) -> str:
    """What `tarfile`'s data filter refused in a revision, as one line: `check` refuses the same in a working tree."""
    name = one_line(exc.tarinfo.name)
    if isinstance(exc, (tarfile.AbsoluteLinkError, tarfile.LinkOutsideDestinationError)):
        return (
            f"{name}, a symbolic link that leads outside the project; it was not followed "
            "(hint: compare with a folder, or remove the link from the revision)"
        )
    return f"{name}, which cannot be extracted safely: {exc}"


def _load_folder(folder: Path) -> Project:
    from .project_config import read_folders

    if (folder / "mkdocs.yml").is_file():
        root, data_dir = folder, read_folders(folder)[0]
    elif (folder / "system.yaml").is_file():
        root, data_dir = folder.parent, folder.name
    else:
        raise DiffError(f"{folder} holds no project (no mkdocs.yml, no system.yaml)")
    documents, _ = load_directory(root, data_dir)
    project, _ = assemble(documents, data_dir)
    if project is None:
        raise DiffError(f"the data in {folder} could not be read")
    return project


# --- flattening a project into things ---------------------------------------------------------------


def _profile(values: dict[str, str], profile: dict[str, ProfileValue] | None, labels: dict[str, str], prefix: str = "") -> None:
    for key, value in (profile or {}).items():
        values[f"{prefix}{labels.get(str(key), str(key))}"] = str(value)


def _points(value: object) -> str:
    return "" if value is None else str(value)


@dataclass(frozen=True)
class _Labels:
    """The system's profile labels, so a changed value is named as the site names it."""

    model: dict[str, str]
    weapon: dict[str, str]


def things(project: Project) -> Iterator[Thing]:
    """Every thing of a project a changelog speaks of, with its comparable values."""
    labels = _Labels(
        model={c.key: c.label for c in project.system.profiles.model},
        weapon={c.key: c.label for c in project.system.profiles.weapon},
    )
    for module in project.modules.values():
        page = ""  # module-level rules and tables: shown wherever content pages insert them
        for rule in module.special_rules:
            yield _rule_thing(module.id, page, module.title, rule)
        for table in module.tables:
            yield Thing("table", module.id, page, module.title, table.name, _table_values(table))
    for entry in project.lists:
        for rule in entry.army_list.special_rules:
            yield _rule_thing(entry.module, entry.page, entry.army_list.name, rule)
        for section in walk_sections(entry.army_list.sections):
            yield from _section_things(entry, section, labels)


def _section_things(entry: ListEntry, section: Section, labels: _Labels) -> Iterator[Thing]:
    """The things one army-list section holds: its unit, weapon list, upgrade list or table."""
    if section.unit is not None:
        yield from _unit_things(entry, section.unit, labels)
    if section.weapon_list is not None:
        yield from _weapon_list_things(entry, section.weapon_list, labels)
    if section.upgrade_list is not None:
        yield from _upgrade_list_things(entry, section.upgrade_list, labels)
    if section.table is not None:
        yield Thing("table", entry.module, entry.page, entry.army_list.name, section.table.name, _table_values(section.table))


def _unit_things(entry: ListEntry, unit: Unit, labels: _Labels) -> Iterator[Thing]:
    """A unit, then each of its models (within the unit, so models are matched unit by unit)."""
    values = {
        "category": unit.category or "",
        "composition": unit.composition.text if unit.composition else "",
        "weapons": unit.weapons.text if unit.weapons else "",
        "upgrades": unit.upgrades.text if unit.upgrades else "",
    }
    yield Thing("unit", entry.module, entry.page, entry.army_list.name, unit.name, values)
    for model in unit.models:
        values = {}
        _profile(values, model.profile, labels.model)
        values["rules"] = ", ".join(model.rules)
        values["points"] = _points(model.points)
        yield Thing("model", entry.module, entry.page, unit.name, model.name, values, unit.id or slugify(unit.name))


def _weapon_list_things(entry: ListEntry, wl: WeaponList, labels: _Labels) -> Iterator[Thing]:
    """A weapon list (its contents), then each weapon with the profiles of all its modes."""
    weapons = {"contents": ", ".join(w.name for w in wl.weapons)}
    list_id = wl.id or slugify(wl.name)
    yield Thing("weapon list", entry.module, entry.page, entry.army_list.name, wl.name, weapons, entry.key + "/" + list_id)
    for weapon in wl.weapons:
        values: dict[str, str] = {}
        _profile(values, weapon.profile, labels.weapon)
        for mode in weapon.modes:
            _profile(values, mode.profile, labels.weapon, f"{mode.name} ")
            values[f"{mode.name} rules"] = ", ".join(mode.rules)
        values["rules"] = ", ".join(weapon.rules)
        values["points"] = _points(weapon.points)
        values["footnote"] = weapon.footnote or ""
        yield Thing("weapon", entry.module, entry.page, wl.name, weapon.name, values, list_id)


def _upgrade_list_things(entry: ListEntry, ul: UpgradeList, labels: _Labels) -> Iterator[Thing]:
    """An upgrade list (its contents), then each upgrade with what it costs, grants and sets."""
    upgrades = {"contents": ", ".join(u.name for u in ul.upgrades)}
    list_id = ul.id or slugify(ul.name)
    yield Thing("upgrade list", entry.module, entry.page, entry.army_list.name, ul.name, upgrades, entry.key + "/" + list_id)
    for upgrade in ul.upgrades:
        values = {"effect": upgrade.effect, "points": _points(upgrade.points), "grants": ", ".join(upgrade.grants)}
        _profile(values, upgrade.sets, labels.model, "sets ")
        yield Thing("upgrade", entry.module, entry.page, ul.name, upgrade.name, values, list_id)


def _rule_thing(module: str, page: str, within: str, rule: Any) -> Thing:
    values = {"text": rule.text, "kind": rule.kind, "parameter": rule.parameter or "", "cost": rule.cost or ""}
    return Thing("rule", module, page, within, rule.name, values)


def _table_values(table: Any) -> dict[str, str]:
    values = {"columns": ", ".join(table.columns)}
    for row in table.rows:
        if row:
            values[f"row {row[0]}"] = " | ".join(str(cell) for cell in row[1:])
    return values


# --- comparing ----------------------------------------------------------------------------------------


def word_diff(old: str, new: str) -> str:
    """The words of `new` with removed runs as [-...-] and added ones as {+...+} (git's word diff)."""
    a, b = old.split(), new.split()
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            out.extend(a[i1:i2])
            continue
        if i2 > i1:
            out.append("[-" + " ".join(a[i1:i2]) + "-]")
        if j2 > j1:
            out.append("{+" + " ".join(b[j1:j2]) + "+}")
    return " ".join(out)


def _details(old: Thing, new: Thing) -> tuple[ReleaseDetail, ...]:
    details = []
    for what in dict.fromkeys([*old.values, *new.values]):
        before, after = old.values.get(what, ""), new.values.get(what, "")
        if " ".join(before.split()) == " ".join(after.split()):
            continue
        words = word_diff(before, after) if (what in TEXT_FIELDS or what.startswith("row ")) and before and after else ""
        details.append(ReleaseDetail(what=what, old=before, new=after, words=words))
    return tuple(details)


def _similarity(old: Thing, new: Thing) -> float:
    """How alike two things are: their names, and the share of their values that are equal."""
    name = difflib.SequenceMatcher(a=old.name.lower(), b=new.name.lower()).ratio()
    keys = set(old.values) | set(new.values)
    same = sum(1 for k in keys if old.values.get(k, "") == new.values.get(k, "")) / len(keys) if keys else 0.0
    return max(name * 0.5 + same * 0.5, same if same == 1.0 and any(old.values.values()) else 0.0)


def diff_projects(old: Project, new: Project) -> list[ReleaseEntry]:
    """Every thing added, removed, renamed or changed from `old` to `new`, in the order of `new`."""
    before = {(*t.place, slugify(t.name)): t for t in things(old)}
    after = {(*t.place, slugify(t.name)): t for t in things(new)}
    removed = [t for k, t in before.items() if k not in after]
    added = [t for k, t in after.items() if k not in before]
    renamed = _renames(removed, added)
    entries = _changed(before, after)
    for j, thing in enumerate(added):
        if j in renamed:
            entries.append(_entry(thing, "renamed", old_name=removed[renamed[j]].name, details=_details(removed[renamed[j]], thing)))
        else:
            entries.append(_entry(thing, "added"))
    kept = set(renamed.values())
    entries.extend(_entry(thing, "removed") for i, thing in enumerate(removed) if i not in kept)
    order = {key[:2]: n for n, key in enumerate(after)}
    return sorted(entries, key=lambda e: (e.module, e.page, order.get((e.kind, e.module), 0), e.kind, e.within, e.name))


def _renames(removed: list[Thing], added: list[Thing]) -> dict[int, int]:
    """Added index -> removed index for each pair taken as one thing renamed: the most alike pairs
    in one place first, each thing in at most one pair."""
    pairs = sorted(
        ((_similarity(r, a), i, j) for i, r in enumerate(removed) for j, a in enumerate(added) if r.place == a.place),
        reverse=True,
    )
    renamed: dict[int, int] = {}
    used_old: set[int] = set()
    for score, i, j in pairs:
        if score < RENAME_SIMILARITY or i in used_old or j in renamed:
            continue
        used_old.add(i)
        renamed[j] = i
    return renamed


def _changed(before: dict[Any, Thing], after: dict[Any, Thing]) -> list[ReleaseEntry]:
    """The things on both sides whose values moved, in the order of `after`."""
    entries: list[ReleaseEntry] = []
    for key, thing in after.items():
        if key in before:
            details = _details(before[key], thing)
            if details:
                entries.append(_entry(thing, "changed", details=details))
    return entries


def _entry(thing: Thing, change: str, old_name: str = "", details: tuple[ReleaseDetail, ...] = ()) -> ReleaseEntry:
    return ReleaseEntry(
        module=thing.module,
        page=thing.page,
        kind=thing.kind,  # type: ignore[arg-type]
        within=thing.within,
        name=thing.name,
        change=change,  # type: ignore[arg-type]
        old_name=old_name,
        details=details,
    )


# --- output -------------------------------------------------------------------------------------------


def summary(entries: Iterable[ReleaseEntry]) -> dict[str, int]:
    """How many things were added, removed, renamed and changed."""
    counts = {"added": 0, "removed": 0, "renamed": 0, "changed": 0}
    for entry in entries:
        counts[entry.change] += 1
    return counts


def _headline(entry: ReleaseEntry) -> str:
    where = f" ({entry.within})" if entry.within else ""
    if entry.change == "renamed":
        return f"{entry.kind} '{entry.old_name}' renamed '{entry.name}'{where}"
    return f"{entry.kind} '{entry.name}'{where} {entry.change}"


def _detail_text(detail: ReleaseDetail) -> str:
    if detail.words:
        return f"{detail.what} reworded: {detail.words}"
    return f"{detail.what}: {detail.old or '(none)'} -> {detail.new or '(none)'}"


def format_text(entries: list[ReleaseEntry], titles: dict[str, str]) -> str:
    lines: list[str] = []
    module = None
    for entry in entries:
        if entry.module != module:
            module = entry.module
            lines.append(f"== {titles.get(module, module)}")
        lines.append(f"{entry.page or 'module rules'}: {_headline(entry)}")
        lines.extend(f"    {_detail_text(d)}" for d in entry.details)
    counts = summary(entries)
    lines.append(", ".join(f"{n} {what}" for what, n in counts.items()))
    return "\n".join(lines)


def _md(text: str) -> str:
    from .render import escape_text

    return escape_text(text)


def _detail_markdown(detail: ReleaseDetail) -> str:
    if detail.words:
        marked = "".join(
            _md(text) if kind == "same" else f"~~{_md(text)}~~" if kind == "old" else f"**{_md(text)}**"
            for kind, text in word_segments(detail.words)
        )
        return f"{_md(detail.what)} reworded: {marked}"
    return f"{_md(detail.what)}: {_md(detail.old or '(none)')} → {_md(detail.new or '(none)')}"


def format_markdown(entries: list[ReleaseEntry], titles: dict[str, str]) -> str:
    lines: list[str] = []
    module = None
    for entry in entries:
        if entry.module != module:
            module = entry.module
            lines += ["", f"## {_md(titles.get(module, module))}", ""]
        lines.append(f"- {_md(_headline(entry))}")
        lines.extend(f"    - {_detail_markdown(d)}" for d in entry.details)
    counts = summary(entries)
    lines += ["", ", ".join(f"{n} {what}" for what, n in counts.items())]
    return "\n".join(lines).strip() + "\n"


def plain(record: Any) -> Any:
    """A record as plain data without defaults, for JSON and for writing a release file."""
    from .docs import _plain

    return _plain(record)


def format_json(entries: list[ReleaseEntry]) -> str:
    return json.dumps({"summary": summary(entries), "entries": [plain(e) for e in entries]}, indent=2, ensure_ascii=False)


def release_yaml(release: Release) -> str:
    """A release as a data file: `data/releases/<slug>.yaml`."""
    body = yaml.safe_dump({"release": plain(release)}, sort_keys=False, allow_unicode=True, width=110)
    return "# yaml-language-server: $schema=../schema/data.schema.json\n# Written by `cadence diff --record`: a stored diff.\n" + body


def module_titles(*projects: Project) -> dict[str, str]:
    titles: dict[str, str] = {}
    for project in projects:
        titles.update({m.id: m.title for m in project.modules.values()})
    return titles


def git_revision(root: Path, spec: str) -> str:
    """The short commit a revision names, or '' for a folder (the working tree)."""
    if Path(spec).is_dir():
        return ""
    result = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", spec], capture_output=True, text=True)
    return result.stdout.strip() if result.returncode == 0 else spec
