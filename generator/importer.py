"""Turn a module written in Markdown (headings, prose, pipe tables) into data files and content pages.

`cadence import FILE.md` reads the module the way its author writes it and writes a skeleton the
checker can read: a module file, one generated page per top-level section that holds units, weapon or
upgrade tables, and a content page per other section. Nothing about a game is known here: a table is a
model or weapon profile when its headers name the target system's profile columns (by label, name or
key); costs are recognised by the currency labels the project's modules declare; effects and rules by
the table headers the system's labels and each module's `terms` give. What cannot be placed is reported, one located line each.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .catalogue import Project, RuleUse, walk_sections
from .loader import MAX_FILE_BYTES, MAX_NODES
from .model import Column, Labels, slugify
from .paths import unsafe_reason
from .problems import Location, Problem, Severity, error, position, warning

HEADING = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<text>.*?)\s*#*\s*$")
SEPARATOR = re.compile(r"^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
RULE_LINE = re.compile(r"^\s*([-*_])\s*(\1\s*){2,}$")
DICE_HEADER = re.compile(r"\b(?P<dice>\d*d\d+)\b", re.I)
ROLL_VALUE = re.compile(r"^\d+\s*([-–]\s*\d+|\+|-)?$")
PARAMETER = re.compile(r"^(?P<name>.*?)\s*\((?P<parameter>[A-Z])\)$")
#: Words in a header that mean "what it does", besides the model's own effect term.
EFFECT_WORDS = frozenset({"effect", "effects", "description", "details", "rule", "result"})


# --- reading the Markdown ---------------------------------------------------------------------------


@dataclass
class Cell:
    text: str
    line: int
    column: int


@dataclass
class MdTable:
    header: list[Cell]
    rows: list[list[Cell]]
    line: int


@dataclass
class Node:
    """A heading and what is under it: prose, tables and subsections, in order."""

    heading: str
    level: int
    line: int
    blocks: list[str | MdTable] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)

    def tables(self) -> list[MdTable]:
        found = [b for b in self.blocks if isinstance(b, MdTable)]
        for child in self.children:
            found.extend(child.tables())
        return found

    @property
    def prose(self) -> str:
        return "\n\n".join(b for b in self.blocks if isinstance(b, str)).strip()


def _cells(line: str, number: int) -> list[Cell]:
    cells: list[Cell] = []
    start = line.index("|") + 1 if line.lstrip().startswith("|") else 0
    position = start
    for part in re.split(r"(?<!\\)\|", line[start:]):
        stripped = part.strip()
        offset = part.find(stripped) if stripped else 0
        cells.append(Cell(stripped.replace("\\|", "|"), number, position + offset + 1))
        position += len(part) + 1
    if cells and not cells[-1].text and line.rstrip().endswith("|"):
        cells.pop()
    return cells


def parse_markdown(text: str) -> Node:
    """The document as a tree of headings; prose paragraphs and tables stay in source order."""
    root = Node("", 0, 1)
    stack = [root]
    lines = text.splitlines()
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            stack[-1].blocks.append("\n".join(paragraph).strip())
            paragraph.clear()

    index = 0
    while index < len(lines):
        line = lines[index]
        heading = HEADING.match(line)
        if heading:
            flush()
            level = len(heading["hashes"])
            while stack[-1].level >= level:
                stack.pop()
            node = Node(heading["text"].strip(), level, index + 1)
            stack[-1].children.append(node)
            stack.append(node)
        elif line.lstrip().startswith("|") and index + 1 < len(lines) and SEPARATOR.match(lines[index + 1].strip()):
            flush()
            table = MdTable(_cells(line, index + 1), [], index + 1)
            index += 2
            while index < len(lines) and lines[index].lstrip().startswith("|"):
                table.rows.append(_cells(lines[index], index + 1))
                index += 1
            stack[-1].blocks.append(table)
            continue
        elif not line.strip() or RULE_LINE.match(line):
            flush()
        else:
            paragraph.append(line.rstrip())
        index += 1
    flush()
    return root


# --- recognising tables -------------------------------------------------------------------------------


@dataclass
class Vocabulary:
    """The words of the target project that tables are recognised by."""

    model: list[Column]
    weapon: list[Column]
    costs: set[str]
    rules: set[str]
    effects: set[str]
    known_rules: dict[str, Any]

    @classmethod
    def of(cls, project: Project | None) -> Vocabulary:
        terms = Labels()
        costs = {"points", "cost"}
        rules = {slugify(terms.rules), "special-rules", "rules"}
        effects = {slugify(terms.effect), *EFFECT_WORDS}
        if project is None:
            return cls([], [], costs, rules, effects, {})
        for module in project.modules.values():
            if module.currency:
                costs |= {module.currency.label.lower(), module.currency.name.lower()}
            words = module.terms.over(project.system.labels)
            rules.add(slugify(words["rules"]))
            effects.add(slugify(words["effect"]))
        known = {
            key: rule
            for scope in project.scopes.values()
            if scope.key in project.modules and project.modules[scope.key].core
            for key, rule in scope.rules.items()
        }
        profiles = project.system.profiles
        return cls(list(profiles.model), list(profiles.weapon), costs, rules, effects, known)


def _column_for(header: str, columns: list[Column]) -> Column | None:
    wanted = slugify(header)
    for column in columns:
        if wanted in {slugify(column.label), slugify(column.name), slugify(column.key)}:
            return column
    return None


def classify(table: MdTable, vocabulary: Vocabulary, heading: str) -> str:
    """'model', 'weapon', 'rules', 'upgrades', 'roll' or 'table' (any other table, kept as it is)."""
    headers = [c.text for c in table.header[1:]]
    profile = _profile_kind(headers, vocabulary)
    if profile:
        return profile
    effect = any(slugify(h) in vocabulary.effects for h in headers)
    if effect and _names_rules(table, vocabulary, heading):
        return "rules"
    if _is_roll(table):
        return "roll"
    return "upgrades" if effect else "table"


def _profile_kind(headers: list[str], vocabulary: Vocabulary) -> str:
    """'model' or 'weapon' when the headers name every column of that profile, else ''."""
    for kind, columns in (("model", vocabulary.model), ("weapon", vocabulary.weapon)):
        if columns and all(any(_column_for(h, [c]) for h in headers) for c in columns):
            return kind
    return ""


def _names_rules(table: MdTable, vocabulary: Vocabulary, heading: str) -> bool:
    """Whether the first header or the heading above says the rows are special rules."""
    first = slugify(table.header[0].text) if table.header else ""
    said = first in vocabulary.rules or slugify(heading) in vocabulary.rules or first.rstrip("s") + "s" in vocabulary.rules
    return len(table.header) >= 2 and said


def _is_roll(table: MdTable) -> bool:
    """A roll table: dice in the first header ('D6') and a roll ('1', '2-3', '6+') opening every row."""
    return bool(
        table.header and DICE_HEADER.search(table.header[0].text) and all(row and ROLL_VALUE.match(row[0].text) for row in table.rows)
    )


# --- building the data ----------------------------------------------------------------------------------


def _value(text: str) -> int | str:
    return int(text) if re.fullmatch(r"-?\d+", text) else text


def _uses(text: str) -> list[str]:
    """A cell of rule uses: 'Blast, Indirect, Rapid Fire (1)'; '-' or empty is none."""
    return [part.strip() for part in re.split(r",(?![^()]*\))", text) if part.strip() and part.strip() not in ("-", "—")]


@dataclass
class Imported:
    """What an import wrote and what it could not place.

    `refused` is set when nothing was written: the source could not be read, or a file the import would
    write is outside the project, already there (without `--force`), or unnamed (an empty id or page)."""

    module_id: str
    files: list[Path] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    tables: int = 0
    refused: bool = False
    #: Files that were there before and were written over (only with `--force`).
    replaced: list[Path] = field(default_factory=list)

    def count(self, what: str, n: int = 1) -> None:
        self.counts[what] = self.counts.get(what, 0) + n

    #: After the import, `cadence check` on the project: its problems, (errors, warnings) and the blocks with no problem.
    check_problems: list[Problem] = field(default_factory=list)
    check: tuple[int, int] = (0, 0)
    clean_blocks: int = 0
    blocks_without_errors: int = 0
    blocks: int = 0

    @property
    def failed(self) -> bool:
        """Whether the import was refused, or it or the check found an error: the command exits 1."""
        found = (*self.problems, *self.check_problems)
        return self.refused or any(p.severity is Severity.ERROR for p in found)

    def summary(self) -> str:
        placed = ", ".join(f"{n} {what}" for what, n in sorted(self.counts.items()))
        if self.refused:
            return f"nothing written; {len(self.problems)} import problems"
        return (
            f"imported {self.tables} tables as {placed}; wrote {len(self.files)} files; {len(self.problems)} import problems\n"
            f"check: {self.check[0]} errors, {self.check[1]} warnings; "
            f"{self.clean_blocks} of {self.blocks} tables and rule definitions are data with no problem, "
            f"{self.blocks_without_errors} with no error"
        )


@dataclass
class Names:
    """Ids given so far, each new one made unique with a number."""

    taken: set[str] = field(default_factory=set)
    #: The next number to try for each wanted name: a name every section repeats (each faction's "Weapons")
    #: costs one step, not one per earlier use.
    reached: dict[str, int] = field(default_factory=dict)

    def new(self, wanted: str) -> str:
        """`wanted`, or `wanted-1`, `wanted-2`, ... the first not taken."""
        key, n = wanted, self.reached.get(wanted, 1)
        while key in self.taken:
            key, n = f"{wanted}-{n}", n + 1
        self.reached[wanted] = n
        self.taken.add(key)
        return key


class Importer:
    def __init__(self, source: Path, rel: str, project: Project | None, module_id: str) -> None:
        self.rel = rel
        self.vocabulary = Vocabulary.of(project)
        self.module_id = module_id
        self.result = Imported(module_id)
        self.rules: list[dict[str, Any]] = []
        self.module_tables: list[dict[str, Any]] = []
        self.rule_uses: dict[str, list[tuple[str, Cell]]] = {}
        self.ids = Names()
        self.page_names = Names()
        self.page_lines: dict[str, int] = {}
        #: The page whose `[% special-rules %]` directive shows the module's rules; None until one does.
        self.rules_page: str | None = None
        self.warned: set[Problem] = set()
        self.kinds = project.system.rule_kinds if project is not None else ("unit", "weapon")

    def warn(self, cell: Cell | Node | MdTable, code: str, message: str, hint: str = "") -> None:
        line = cell.line
        column = cell.column if isinstance(cell, Cell) else 1
        found = warning(Location(self.rel, line, column), f"import-{code}", message, hint)
        if found not in self.warned:  # a table's header is met again for each of its rows: told once
            self.warned.add(found)
            self.result.problems.append(found)

    def refuse(self, node: Node, code: str, message: str, hint: str) -> None:
        """An error that stops the import before anything is written."""
        self.result.problems.append(error(Location(self.rel, node.line, 1), f"import-{code}", message, hint))

    def unique(self, wanted: str) -> str:
        return self.ids.new(wanted)

    # -- tables to blocks --

    def profile(self, table: MdTable, row: list[Cell], columns: list[Column], what: str) -> tuple[dict[str, Any], list[str], Any]:
        profile: dict[str, Any] = Flow()
        rules: list[str] = []
        points: Any = None
        for header, cell in zip(table.header[1:], row[1:], strict=False):
            column = _column_for(header.text, columns)
            name = slugify(header.text)
            if column is not None:
                profile[str(column.key)] = _value(cell.text)
            elif name in self.vocabulary.rules:
                rules = _uses(cell.text)
                for use in rules:
                    self.rule_uses.setdefault(slugify(RuleUse.parse(use).name), []).append(
                        (what, Cell(RuleUse.parse(use).name, cell.line, cell.column))
                    )
            elif name in self.vocabulary.costs:
                points = _value(cell.text) if cell.text not in ("", "-", "—") else None
            else:
                self.warn(header, "column", f"column '{header.text}' of a {what} table is not a profile column, rules or cost; left out")
        if len(row) != len(table.header):
            self.warn(row[0], "row", f"row has {len(row)} cells for {len(table.header)} columns")
        return profile, rules, points

    def profiled_rows(self, table: MdTable, columns: list[Column], what: str) -> list[dict[str, Any]]:
        """One entry per row (a model of a unit, a weapon of a list): name, profile, then rules and points if given."""
        entries = []
        for row in table.rows:
            profile, rules, points = self.profile(table, row, columns, what)
            entry: dict[str, Any] = {"name": row[0].text, "profile": profile}
            if rules:
                entry["rules"] = rules
            if points is not None:
                entry["points"] = points
            entries.append(entry)
        return entries

    def unit(self, table: MdTable, name: str, text: str) -> dict[str, Any]:
        models = self.profiled_rows(table, self.vocabulary.model, "model")
        self.result.count("units")
        unit: dict[str, Any] = {"name": name, "models": models}
        if text:
            unit["intro"] = text
        return {"unit": unit}

    def weapon_list(self, table: MdTable, name: str) -> dict[str, Any]:
        weapons = self.profiled_rows(table, self.vocabulary.weapon, "weapon")
        self.result.count("weapon lists")
        block: dict[str, Any] = {"id": self.unique(slugify(name)), "name": name, "weapons": weapons}
        if slugify(table.header[0].text) != slugify(name):
            block["label"] = table.header[0].text
        return {"weapon_list": block}

    def upgrade_list(self, table: MdTable, name: str, scope: str) -> dict[str, Any]:
        headers = [slugify(c.text) for c in table.header]
        effect = next(i for i, h in enumerate(headers) if i > 0 and h in self.vocabulary.effects)
        upgrades = []
        for row in table.rows:
            upgrade: dict[str, Any] = {"name": row[0].text, "effect": row[effect].text if effect < len(row) else ""}
            for index, header in enumerate(table.header[1:], start=1):
                if index == effect or index >= len(row):
                    continue
                if headers[index] in self.vocabulary.costs:
                    upgrade["points"] = _value(row[index].text) if row[index].text not in ("", "—") else "-"
                else:
                    self.warn(header, "column", f"column '{header.text}' of an upgrade table is neither its effect nor a cost; left out")
            upgrades.append(upgrade)
        self.result.count("upgrade lists")
        return {
            "upgrade_list": {
                "id": self.unique(slugify(f"{scope} {name}")),
                "name": name,
                "label": table.header[0].text,
                "effect_label": table.header[effect].text,
                "upgrades": upgrades,
            }
        }

    def table(self, table: MdTable, name: str, scope: str) -> dict[str, Any]:
        block: dict[str, Any] = {"id": self.unique(slugify(f"{scope} {name}") if scope else slugify(name)), "name": name}
        dice = DICE_HEADER.search(table.header[0].text) if table.header else None
        if dice and all(row and ROLL_VALUE.match(row[0].text) for row in table.rows):
            block["dice"] = dice["dice"].lower()
        block["columns"] = [c.text for c in table.header]
        block["rows"] = [[c.text for c in row] for row in table.rows]
        for row in table.rows:
            if len(row) != len(table.header):
                self.warn(row[0], "row", f"row has {len(row)} cells for {len(table.header)} columns")
        self.result.count("roll tables" if "dice" in block else "tables")
        return block

    def special_rules(self, table: MdTable) -> None:
        headers = [slugify(c.text) for c in table.header]
        effect = next(i for i, h in enumerate(headers) if i > 0 and h in self.vocabulary.effects)
        for row in table.rows:
            name = row[0].text
            rule: dict[str, Any] = {"name": name, "kind": "", "text": row[effect].text if effect < len(row) else ""}
            parameter = PARAMETER.match(name)
            if parameter:
                rule["name"], rule["parameter"] = parameter["name"], parameter["parameter"]
            rule["_cell"] = row[0]
            self.rules.append(rule)
        self.result.count("special rules", len(table.rows))

    # -- pages --

    def block(self, table: MdTable, name: str, text: str, scope: str) -> dict[str, Any] | None:
        kind = classify(table, self.vocabulary, name)
        self.result.tables += 1
        if kind == "model":
            return self.unit(table, name, text)
        if kind == "weapon":
            return self.weapon_list(table, name)
        if kind == "upgrades":
            return self.upgrade_list(table, name, scope)
        if kind == "rules":
            self.special_rules(table)
            return None
        return {"table": self.table(table, name, scope)}

    def list_sections(self, node: Node, scope: str) -> list[dict[str, Any]]:
        """A node's subsections as army-list sections: one block per table, prose as section text."""
        sections: list[dict[str, Any]] = []
        for child in node.children:
            tables = [b for b in child.blocks if isinstance(b, MdTable)]
            section: dict[str, Any] = {"heading": child.heading}
            if child.prose:
                section["text"] = child.prose
            subsections = []
            if len(tables) == 1 and not child.children:
                block = self.block(tables[0], child.heading, "", scope)
                if block is None:
                    section["special_rules"] = True
                elif "unit" in block:
                    block["unit"].update({"intro": child.prose} if child.prose else {})
                    section = dict(block)
                    section.pop("text", None)
                else:
                    section.update(block)
            else:
                for table in tables:
                    block = self.block(table, table.header[0].text if table.header else child.heading, "", f"{scope} {child.heading}")
                    if block is None:
                        section["special_rules"] = True
                    else:
                        subsections.append(block)
            subsections.extend(self.list_sections(child, f"{scope} {child.heading}" if scope else child.heading))
            if subsections:
                section["sections"] = subsections
            sections.append(section)
        return sections

    def is_list_page(self, node: Node) -> bool:
        return any(classify(t, self.vocabulary, node.heading) in ("model", "weapon", "upgrades") for t in node.tables())

    def army_list(self, node: Node, page: str) -> dict[str, Any]:
        list_id = page.rsplit("/", 1)[1]
        sections: list[dict[str, Any]] = []
        for table in (b for b in node.blocks if isinstance(b, MdTable)):
            block = self.block(table, table.header[0].text if table.header else node.heading, "", list_id)
            sections.append(block if block is not None else {"heading": "Special Rules", "special_rules": True})
        sections.extend(self.list_sections(node, ""))
        body: dict[str, Any] = {"id": list_id, "name": node.heading, "title": node.heading, "page": page}
        if node.prose:
            body["intro"] = node.prose
        body["sections"] = sections
        return body

    def content_page(self, node: Node, page: str) -> str:
        """A hand-written page: prose as written, tables as module tables inserted by directives.

        The module's special rules are shown once, where its first rules table was: a directive on every
        page that had one would show every rule on each of them."""
        out = [f"# {node.heading}", ""]

        def walk(n: Node, level: int) -> None:
            for block in n.blocks:
                if isinstance(block, str):
                    out.extend([block, ""])
                    continue
                self.result.tables += 1
                kind = classify(block, self.vocabulary, n.heading)
                if kind == "rules":
                    self.special_rules(block)
                    if self.rules_page is None:
                        self.rules_page = page
                        out.extend([f"[% special-rules {self.module_id} %]", ""])
                    else:
                        self.warn(block, "rules", f"these special rules are shown with the module's others, on page '{self.rules_page}'")
                    continue
                if kind in ("model", "weapon", "upgrades"):
                    self.warn(
                        block,
                        "table",
                        f"a {kind} table on a page of prose is kept as a plain table",
                        "move it under a section with the lists",
                    )
                table = self.table(block, n.heading, "")
                self.module_tables.append(table)
                out.extend([f"[% table {self.module_id}/{table['id']} %]", ""])
            for child in n.children:
                out.extend([f"{'#' * min(level, 6)} {child.heading}", ""])
                walk(child, level + 1)

        walk(node, 2)
        return "\n".join(out).rstrip() + "\n"

    def settle_rules(self) -> list[dict[str, Any]]:
        """Give each imported rule its kind, from what uses it; warn where nothing tells."""
        kinds = list(self.kinds)
        rules = []
        for rule in self.rules:
            cell = rule.pop("_cell")
            users = {what for what, _ in self.rule_uses.get(slugify(rule["name"]), [])}
            wanted = "weapon" if users == {"weapon"} else "unit" if users == {"model"} else None
            if wanted is None or wanted not in kinds:
                wanted = kinds[0]
                self.warn(
                    cell,
                    "rule-kind",
                    f"special rule '{rule['name']}': nothing in the file shows its kind; '{wanted}' was given",
                    f"kinds: {', '.join(kinds)}",
                )
            rule["kind"] = wanted
            rules.append(rule)
        return rules

    def check_uses(self) -> None:
        defined = {slugify(r["name"]) for r in self.rules} | set(self.vocabulary.known_rules)
        for name, places in sorted(self.rule_uses.items()):
            if name in defined:
                continue
            what, cell = places[0]
            self.warn(
                cell,
                "rule",
                f"a {what} uses special rule '{cell.text}', which neither this file nor the project's core rules define",
                "define it in a special rules table, or fix its name",
            )

    # -- the module --

    def pages(self, top: Node) -> tuple[list[str], dict[str, dict[str, Any]], dict[str, str]]:
        """One page per top-level section: an army list where it holds lists, else a content page."""
        pages: list[str] = []
        lists: dict[str, dict[str, Any]] = {}
        contents: dict[str, str] = {}
        for node in top.children:
            name = slugify(node.heading)
            reason = unsafe_reason(name)
            if reason is not None:
                self.refuse(
                    node,
                    "page",
                    f"section '{node.heading}' cannot name a page: {reason}",
                    "give the heading a few letters or digits" if not name else "shorten the heading",
                )
                continue
            page = f"{self.module_id}/{self.page_names.new(name)}"
            pages.append(page)
            self.page_lines[page] = node.line
            if self.is_list_page(node):
                lists[page] = self.army_list(node, page)
            else:
                contents[page] = self.content_page(node, page)
        return pages, lists, contents

    def named(self, top: Node, given: bool) -> bool:
        """Whether the module id can name its folders; else an error at the title that gave it."""
        reason = unsafe_reason(self.module_id)
        if reason is None:
            return True
        said = f"module id '{self.module_id}'" if given else f"title '{top.heading}' gives module id '{self.module_id}', which"
        self.refuse(top, "id", f"{said} cannot name the module's folders: {reason}", "give the module an id with --id, like --id my-module")
        return False

    def taken(self, top: Node, project: Project) -> None:
        """An error at the title when the project has a module of this id (wherever its file is)."""
        if self.module_id in project.modules:
            where = project.modules[self.module_id].loc.path
            self.refuse(top, "exists", f"module '{self.module_id}' is already in the project ({where})", _AGAIN)

    def plan(self, top: Node, data: Path, content: Path) -> list[tuple[Path, str, int]]:
        """Every file the import writes: its path, its text, and the source line it comes from."""
        pages, lists, contents = self.pages(top)
        module = self.module(top, pages)
        folder = data / self.module_id
        plan = [(folder / "module.yaml", self.data_file(folder / "module.yaml", {"module": module}, top.line), top.line)]
        for page, body in lists.items():
            path, line = folder / f"{page.split('/', 1)[1]}.yaml", self.page_lines[page]
            plan.append((path, self.data_file(path, {"army_list": body}, line), line))
        plan.extend((content / f"{page}.md", markdown, self.page_lines[page]) for page, markdown in contents.items())
        return plan

    def data_file(self, path: Path, body: dict[str, Any], line: int) -> str:
        """A data file's text; an error at the section it comes from when the loader would refuse it for its size.

        A module's special rules and tables all live in its one module file, and a list's sections in its one
        file: the data cannot be spread over more files, so a source that makes one too large is refused."""
        text = _yaml_text(body, depth=2)
        size = len(text.encode("utf-8"))
        values = _values(body) if len(text) > MAX_NODES else 0  # each value takes a character of the text at least
        if size > MAX_FILE_BYTES or values > MAX_NODES:
            shown = f"{path.parent.parent.name}/{path.parent.name}/{path.name}"
            held = f"{size:,} bytes" if size > MAX_FILE_BYTES else f"{values:,} values"
            limit = f"{MAX_FILE_BYTES:,} bytes (2 MiB)" if size > MAX_FILE_BYTES else f"{MAX_NODES:,} values"
            message = f"{shown} would hold {held}; the checker reads a data file of at most {limit}"
            hint = "split the source into several modules, a Markdown file each, and import each with its own --id"
            self.result.problems.append(error(Location(self.rel, line, 1), "import-too-large", message, hint))
        return text

    def module(self, top: Node, pages: list[str]) -> dict[str, Any]:
        """The module file's body, once every page is read (rules are settled from their uses)."""
        for block in top.blocks:
            if isinstance(block, MdTable):
                self.warn(block, "table", "a table before the first section heading has no page; left out")
        self.check_uses()
        module: dict[str, Any] = {"id": self.module_id, "title": top.heading, "status": "in-development"}
        summary = top.prose
        if summary:
            module["summary"] = summary
        module["pages"] = pages
        rules = self.settle_rules()
        if rules:
            module["special_rules"] = rules
        if self.module_tables:
            module["tables"] = self.module_tables
        return module


def import_markdown(root: Path, source: Path, module_id: str | None = None, out: Path | None = None, force: bool = False) -> Imported:
    """Import `source` into the project at `root` (or `out`); returns what was written and reported.

    Every file is planned before any is written: when one would leave the project, has no name, or is
    already there (without `force`), the import is refused whole and nothing on disk changes."""
    from .pages import load_project

    text, unreadable = read_source(source, source.name)
    if text is None:
        return Imported(module_id or "", problems=unreadable, refused=True)
    loaded = load_project(root) if (root / "mkdocs.yml").is_file() else None
    project = loaded.project if loaded else None
    top = _top(parse_markdown(text), source)
    importer = Importer(source, source.name, project, module_id or slugify(top.heading))
    result = importer.result
    target = out or root
    data_dir, content_dir = _folders(target)
    plan = importer.plan(top, target / data_dir, target / content_dir) if importer.named(top, module_id is not None) else []
    if project is not None and not force and _same(target, root):
        importer.taken(top, project)
    result.problems.extend(_refusals(target, plan, source.name, force))
    if any(p.severity is Severity.ERROR for p in result.problems):
        result.refused = True
        return result
    _write(plan, result)
    measure(target, data_dir, importer.module_id, result)
    return result


def _write(plan: list[tuple[Path, str, int]], result: Imported) -> None:
    """Write the planned files, noting those that were there before (with `--force`)."""
    for path, body, _ in plan:
        if path.exists():
            result.replaced.append(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
        result.files.append(path)


#: What to do when an import would replace what is there.
_AGAIN = "give the new module another id with --id, or pass --force to replace the files it writes"
#: A character no Markdown text holds: a file with one is binary, or not text of this kind.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def read_source(source: Path, rel: str) -> tuple[str | None, list[Problem]]:
    """The Markdown as text, or one located error: a binary file, or text in another encoding than UTF-8,
    is not read (a byte order mark is dropped)."""
    raw = source.read_bytes()
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        what = f"byte 0x{raw[exc.start]:02x} is not valid UTF-8"
        return None, [error(Location(rel, line, column), "encoding", what, "save the file as UTF-8 Markdown text")]
    bad = _CONTROL.search(text)
    if bad is not None:
        what = f"control character U+{ord(bad[0]):04X}: this is not Markdown text"
        hint = "a binary file cannot be imported; give the module's Markdown file"
        return None, [error(Location(rel, *position(text, bad.start())), "encoding", what, hint)]
    return text, []


def _same(one: Path, other: Path) -> bool:
    return one.resolve() == other.resolve()


def _refusals(target: Path, plan: list[tuple[Path, str, int]], rel: str, force: bool) -> list[Problem]:
    """An error for each planned file that would be written outside the project (a folder or file that is a
    link leading out, a data folder set outside), or over a file already there without `force`."""
    inside = target.resolve()
    found = []
    for path, _, line in plan:
        shown = path.relative_to(target).as_posix() if path.is_relative_to(target) else str(path)
        if not path.resolve().is_relative_to(inside):
            found.append(error(Location(rel, line, 1), "import-path", f"{shown} would be written outside the project", _OUTSIDE))
        elif path.exists() and not force:
            found.append(error(Location(rel, line, 1), "import-exists", f"{shown} is already there; importing would replace it", _AGAIN))
    return found


_OUTSIDE = "the data or content folder, or a folder in it, leads out of the project (a link, or a folder set outside in mkdocs.yml)"


def _top(tree: Node, source: Path) -> Node:
    """The module's node: the file's one top-level heading, or the whole file named after it."""
    if len(tree.children) == 1 and tree.children[0].level == 1:
        return tree.children[0]
    return Node(source.stem.replace("-", " ").title(), 1, 1, tree.blocks, tree.children)


def measure(root: Path, data_dir: str, module_id: str, result: Imported) -> None:
    """Check the project with the imported module, and count the imported blocks no problem points into.

    A block is a unit, weapon list, upgrade list or table of a generated page, or a module table or
    special rule: it spans from its own line to the next block's in the same file.
    """
    from .pages import load_project

    loaded = load_project(root, data_dir, _folders(root)[1])
    errors = sum(1 for p in loaded.problems if p.severity.value == "error")
    result.check = (errors, len(loaded.problems) - errors)
    result.check_problems = list(loaded.problems)
    project = loaded.project
    if project is None or module_id not in project.modules:
        return
    starts = _block_starts(project, module_id)
    dirty = _blocks_hit(loaded.problems, starts)
    wrong = _blocks_hit([p for p in loaded.problems if p.severity.value == "error"], starts)
    result.blocks = sum(len(lines) for lines in starts.values())
    result.clean_blocks = result.blocks - len(dirty)
    result.blocks_without_errors = result.blocks - len(wrong)


def _block_starts(project: Project, module_id: str) -> dict[str, list[int]]:
    """File -> the first line of each imported block in it."""
    starts: dict[str, list[int]] = {}
    module = project.modules[module_id]
    for record in (*module.tables, *module.special_rules):
        starts.setdefault(record.loc.path, []).append(record.loc.line)
    for entry in project.lists:
        if entry.module == module_id:
            for section in walk_sections(entry.army_list.sections):
                if section.block is not None:  # from the section's first line: its heading is the block's
                    starts.setdefault(entry.file, []).append(min(section.loc.line, section.block.loc.line))
    return starts


def _blocks_hit(problems: list[Problem], starts: dict[str, list[int]]) -> set[tuple[str, int]]:
    """The blocks (file, first line) these problems point into: the last block starting at or above each."""
    ordered = {path: sorted(lines) for path, lines in starts.items()}  # once: a large module has thousands of each
    hit: set[tuple[str, int]] = set()
    for problem in problems:
        lines = ordered.get(problem.location.path, [])
        at = bisect.bisect_right(lines, problem.location.line)
        if at:
            hit.add((problem.location.path, lines[at - 1]))
    return hit


def _folders(root: Path) -> tuple[str, str]:
    from .project_config import read_folders

    return read_folders(root) if (root / "mkdocs.yml").is_file() else ("data", "content")


class Flow(dict[str, Any]):
    """A mapping written on one line, as designers write profiles: {mov: 6", skl: 4+}."""


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """YAML as a designer writes it: prose as literal blocks, profiles on one line. LibYAML's emitter where
    PyYAML has it: the pure-Python one was most of the time a large import took."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(value), style=style)


def _flow(dumper: yaml.SafeDumper, value: Flow) -> yaml.Node:
    return dumper.represent_mapping("tag:yaml.org,2002:map", value, flow_style=True)


_Dumper.add_multi_representer(str, _str)  # also the loader's LocStr, which carries a source position
_Dumper.add_representer(Flow, _flow)


def _values(body: Any) -> int:
    """How many values the loader counts in a body (every mapping, list and scalar; keys are not values)."""
    count, waiting = 0, [body]
    while waiting:
        value = waiting.pop()
        count += 1
        if isinstance(value, dict):
            waiting.extend(value.values())
        elif isinstance(value, list):
            waiting.extend(value)
    return count


def _yaml_text(body: dict[str, Any], depth: int) -> str:
    """A data file's text, with the schema line editors read (`depth` folders below the project root)."""
    schema = "../" * depth + "schema/data.schema.json"
    text = yaml.dump(body, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    return f"# yaml-language-server: $schema={schema}\n# Imported by `cadence import`: check it, then edit freely.\n{text}"
