"""Read YAML files into raw records that remember file, line and column.

Parse failures come back as problems, never as exceptions: a designer sees every broken file at once.
Anchors, aliases and tags are refused outright: rules data never needs them, and they are how YAML
documents blow up memory or smuggle in objects.
"""

from __future__ import annotations

import contextlib
import gc
import os
import re
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import ScalarNode

from . import cache
from .problems import Location, Problem, Severity, error, located, position, yaml_error_at
from .untrusted import SAFE_LOADER

#: The largest data file we read, in bytes. Larger ones are refused with a located error.
MAX_FILE_BYTES = 2 * 1024 * 1024
#: How deep mappings and lists may nest in one file.
MAX_DEPTH = 40
#: How many nodes (mappings, lists, scalars) one file may hold.
MAX_NODES = 200_000
#: The longest name of a file or folder under the data or content folder, in bytes of UTF-8 (`file_name_problem`).
MAX_NAME_BYTES = 100


class LocStr(str):
    """A string from a data file that knows where it was written."""

    loc: Location

    def __new__(cls, value: str, loc: Location) -> LocStr:
        self = super().__new__(cls, value)
        self.loc = loc
        return self


class LocInt(int):
    """A whole number from a data file that knows where, and how, it was written.

    `source` is the scalar as written (`+2`, `010`, `1:30`), so checks can compare it with what YAML
    made of it.
    """

    loc: Location
    source: str

    def __new__(cls, value: int, loc: Location, source: str = "") -> LocInt:
        self = super().__new__(cls, value)
        self.loc = loc
        self.source = source or str(value)
        return self


class LocFloat(float):
    """A decimal number from a data file that knows where, and how, it was written."""

    loc: Location
    source: str

    def __new__(cls, value: float, loc: Location, source: str = "") -> LocFloat:
        self = super().__new__(cls, value)
        self.loc = loc
        self.source = source or repr(value)
        return self


_new_str, _new_int, _new_float = str.__new__, int.__new__, float.__new__


def located_str(value: str, loc: Location) -> LocStr:
    """`LocStr(value, loc)` made without a call through its Python `__new__`: reading a project at 10x the
    shipped data makes some sixty thousand (parsed or read back from the cache)."""
    text = _new_str(LocStr, value)
    text.loc = loc
    return text


def located_int(value: int, loc: Location, source: str) -> LocInt:
    """`LocInt(value, loc, source)` for a `source` already known, made as `located_str` is."""
    number = _new_int(LocInt, value)
    number.loc, number.source = loc, source
    return number


def located_float(value: float, loc: Location, source: str) -> LocFloat:
    """`LocFloat(value, loc, source)` for a `source` already known, made as `located_str` is."""
    number = _new_float(LocFloat, value)
    number.loc, number.source = loc, source
    return number


def source_text(value: Any) -> str:
    """A scalar as the designer wrote it: `+2` stays `+2` even though YAML reads the number 2."""
    return str(getattr(value, "source", value))


class YMap(dict[str, Any]):
    """A mapping from a data file, with the place of the mapping and of each key."""

    loc: Location
    key_locs: dict[str, Location]


class YList(list[Any]):
    """A list from a data file, with its place."""

    loc: Location


def loc_of(value: Any, default: Location) -> Location:
    """Where a raw value was written, falling back to its container's place."""
    return getattr(value, "loc", default)


@dataclass(frozen=True)
class Document:
    """One loaded data file: its path relative to the project, and its top-level mapping."""

    path: str
    body: YMap


class _Limits(Exception):
    def __init__(self, where: Location, message: str) -> None:
        self.where = where
        self.message = message


class _AliasError(Exception):
    def __init__(self, mark: Any, anchor: bool = False) -> None:
        self.mark = mark
        self.anchor = anchor


_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_NULL = "tag:yaml.org,2002:null"
_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_MERGE = "tag:yaml.org,2002:merge"
#: The unquoted forms YAML reads exactly as written; any other int, float or bool form changes meaning.
_PLAIN_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_PLAIN_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]*)\.[0-9]*[1-9]|-?(?:0|[1-9][0-9]*)\.0")
_PLAIN_BOOL = re.compile(r"true|false|True|False|TRUE|FALSE")

_RESOLVER: Any = yaml.SafeLoader("")
#: The safe loader's implicit types (null, bool, int, float, timestamp, merge...) by the first
#: character a plain scalar must start with to be one; it has no path or catch-all resolvers, so
#: these patterns are all its `resolve` tries.
_IMPLICIT: dict[str, tuple[tuple[str, re.Pattern[str]], ...]] = {
    first: tuple(resolvers) for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
assert None not in _IMPLICIT and not yaml.SafeLoader.yaml_path_resolvers
_NODE_EVENTS = frozenset({ScalarEvent, MappingStartEvent, SequenceStartEvent, AliasEvent})


def _tag(event: ScalarEvent) -> str:
    """The tag YAML gives a scalar, as PyYAML's composer resolves it."""
    if event.tag is not None and event.tag != "!":
        return str(event.tag)
    if event.implicit[0]:
        value = event.value
        for tag, pattern in _IMPLICIT.get(value[:1], ()):
            if pattern.match(value):
                return tag
    return _STR


def _collection_tag(event: MappingStartEvent | SequenceStartEvent, default: str) -> str:
    return default if event.tag in (None, "!") else str(event.tag)


class _Builder:
    """Turns the YAML event stream into located raw values in one pass, refusing duplicate keys.

    Anchors and aliases are refused as they are met, before anything is expanded, so an alias bomb
    costs nothing; after any other refusal the rest of the stream is still read, so an anchor or a
    syntax error further on is what the designer is told about, whichever came first.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.problems: list[Problem] = []
        self.count = 0
        self._next: Any = None

    def event(self) -> Any:
        """The next event; anchors and aliases are refused here, wherever they are."""
        event = self._next()
        kind = type(event)
        if kind in _NODE_EVENTS and event.anchor is not None:  # an alias's `anchor` is the name it refers to
            raise _AliasError(event.start_mark, anchor=kind is not AliasEvent)
        return event

    def location(self, event: Any) -> Location:
        mark = event.start_mark
        return Location(self.path, mark.line + 1, mark.column + 1)

    def document(self, text: str) -> tuple[Any, Location] | None:
        """The text's one document and where it starts; None for a text with no document."""
        loader = SAFE_LOADER(text)
        self._next = loader.get_event
        try:
            return self._document()
        finally:
            loader.dispose()

    def _document(self) -> tuple[Any, Location] | None:
        self.event()  # stream start
        if isinstance(self.event(), StreamEndEvent):
            return None
        first = self.event()
        where = self.location(first)
        try:
            value = self.value(first, 0)
        except _Limits:
            self.drain()
            raise
        self.event()  # document end
        after = self.event()
        if not isinstance(after, StreamEndEvent):
            self.drain()
            raise yaml.composer.ComposerError(
                "expected a single document in the stream", first.start_mark, "but found another document", after.start_mark
            )
        return value, where

    def drain(self) -> None:
        """Read the rest of the stream for the anchors, aliases and syntax errors in it."""
        while not isinstance(self.event(), StreamEndEvent):
            pass

    def skip(self, event: Any) -> None:
        """Read past one value that is not kept (a duplicate key's)."""
        depth = 1 if isinstance(event, (MappingStartEvent, SequenceStartEvent)) else 0
        while depth:
            event = self.event()
            if isinstance(event, (MappingStartEvent, SequenceStartEvent)):
                depth += 1
            elif isinstance(event, (MappingEndEvent, SequenceEndEvent)):
                depth -= 1

    def value(self, event: Any, depth: int) -> Any:
        self.count += 1
        mark = event.start_mark  # `location`, written out: it runs for every value of every file
        where = located(self.path, mark.line + 1, mark.column + 1)
        if self.count > MAX_NODES:
            raise _Limits(where, f"the file holds more than {MAX_NODES} values")
        if depth > MAX_DEPTH:
            raise _Limits(where, f"data nests deeper than {MAX_DEPTH} levels")
        if type(event) is ScalarEvent:
            return self.scalar(event, where)
        if type(event) is MappingStartEvent:
            return self.mapping(event, where, depth)
        tag = _collection_tag(event, _SEQ)
        if tag != _SEQ:
            raise _Limits(where, f"YAML tag '{tag}' is not allowed in rules data")
        items = YList()
        items.loc = where
        item = self.event()
        while type(item) is not SequenceEndEvent:
            items.append(self.value(item, depth + 1))
            item = self.event()
        return items

    def mapping(self, event: MappingStartEvent, where: Location, depth: int) -> YMap:
        tag = _collection_tag(event, _MAP)
        if tag != _MAP:
            raise _Limits(where, f"YAML tag '{tag}' is not allowed in rules data")
        result = YMap()
        result.loc = where
        result.key_locs = {}
        key_event = self.event()
        path = self.path
        while type(key_event) is not MappingEndEvent:
            mark = key_event.start_mark
            key_loc = located(path, mark.line + 1, mark.column + 1)
            if type(key_event) is not ScalarEvent:
                raise _Limits(key_loc, "a mapping key must be a plain name")
            # only a key written '<<...' or with a tag can be a merge key: the others skip resolving
            if (key_event.value[:1] == "<" or key_event.tag not in (None, "!")) and _tag(key_event) == _MERGE:
                raise _Limits(key_loc, "merge keys ('<<') are not allowed in rules data")
            key = str(key_event.value)
            if key in result:
                first = result.key_locs[key]
                self.problems.append(
                    error(key_loc, "duplicate-key", f"key '{key}' appears twice in this mapping (first at line {first.line})")
                )
                self.skip(self.event())
            else:
                result.key_locs[key] = key_loc
                result[key] = self.value(self.event(), depth + 1)
            key_event = self.event()
        return result

    def scalar(self, event: ScalarEvent, where: Location) -> Any:
        tag = _tag(event)
        if tag == _STR:
            return located_str(event.value, where)
        if tag == _NULL:
            return None
        if tag not in (_INT, _FLOAT, _BOOL):
            raise _Limits(where, f"YAML tag '{tag}' is not allowed in rules data")
        try:
            return self._typed(event, tag, where)
        except (ValueError, KeyError):  # an explicit `!!int abc`, or more digits than Python turns into a number
            value = str(event.value)
            if tag == _INT and _PLAIN_INT.fullmatch(value):
                digits, most = len(value.lstrip("-")), sys.get_int_max_str_digits()
                raise _Limits(where, f"a number of {digits} digits is more than can be read (at most {most})") from None
            shown = value if len(value) <= 40 else f"{value[:40]}… ({len(value)} characters)"
            raise _Limits(where, f"YAML tag '{tag}' does not fit the value '{shown}'") from None

    def _typed(self, event: ScalarEvent, tag: str, where: Location) -> Any:
        """A number or a truth value, noting where YAML reads it otherwise than it was written."""
        if tag == _INT and _PLAIN_INT.fullmatch(event.value):  # most numbers: YAML reads them as written
            return located_int(int(event.value), where, event.value)  # too many digits: ValueError, as from the constructor
        node = ScalarNode(tag, event.value, None, None, event.style)
        if tag == _INT:
            number = LocInt(_RESOLVER.construct_yaml_int(node), where, event.value)
            self._meaning(event, where, str(int(number)), f"the number {int(number)}", plain=_PLAIN_INT)
            return number
        if tag == _FLOAT:
            decimal = LocFloat(_RESOLVER.construct_yaml_float(node), where, event.value)
            self._meaning(event, where, repr(float(decimal)), f"the number {float(decimal)!r}", plain=_PLAIN_FLOAT)
            return decimal
        truth = bool(_RESOLVER.construct_yaml_bool(node))
        self._meaning(event, where, "true" if truth else "false", "true" if truth else "false", plain=_PLAIN_BOOL)
        return truth

    def _meaning(self, event: ScalarEvent, loc: Location, canonical: str, reads_as: str, plain: re.Pattern[str]) -> None:
        """An unquoted scalar YAML turns into something other than what was written (`+2`, `1:30`, `yes`).

        The site would publish YAML's reading (`2`, `90`, `true`), silently; the designer decides instead.
        """
        if event.style or plain.fullmatch(event.value):  # libyaml gives plain scalars the style "", PyYAML None
            return
        self.problems.append(
            error(
                loc,
                "yaml-value",
                f"YAML reads {event.value} as {reads_as}, not as written",
                hint=f"write '{event.value}' in quotes to keep it as written, or write {canonical}",
            )
        )


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device")):
        if test(mode):
            return name
    return "not a regular file"


def read_text(path: Path, rel: str) -> tuple[str | None, list[Problem]]:
    """Read a project text file as UTF-8, turning every I/O failure into a located problem.

    Only regular files are opened: a FIFO or device would block the read for ever. The file is
    checked with `stat` before it is opened and again, on the open descriptor, in case it was swapped.
    """
    where = Location(rel, 1, 1)
    try:
        info = path.stat()
    except OSError as exc:
        return None, [error(where, "io", f"cannot read file: {exc.strerror or exc}")]
    if stat.S_ISDIR(info.st_mode):
        return None, [error(where, "io", "expected a file but found a directory")]
    if not stat.S_ISREG(info.st_mode):
        return None, [_not_regular(where, info.st_mode)]
    if info.st_size > MAX_FILE_BYTES:
        return None, [_too_large(where, info.st_size)]
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        return None, [error(where, "io", f"cannot read file: {exc.strerror or exc}")]
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            return None, [_not_regular(where, opened.st_mode)]
        raw = cache.read_at_most(fd, opened.st_size, MAX_FILE_BYTES)
    except OSError as exc:
        return None, [error(where, "io", f"cannot read file: {exc.strerror or exc}")]
    finally:
        os.close(fd)
    if len(raw) > MAX_FILE_BYTES:
        return None, [_too_large(where, len(raw))]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        return None, [
            error(Location(rel, line, column), "encoding", f"byte 0x{raw[exc.start]:02x} is not valid UTF-8", hint="save the file as UTF-8")
        ]
    # In UTF-8 a control character is its own byte, never part of another's: deleting those bytes is a tenth of
    # searching the text for them, and only a file that holds one is searched, to say where.
    if len(raw.translate(None, _CONTROL_BYTES)) != len(raw) and (bad := _CONTROL.search(text)) is not None:
        return None, [_control(rel, text, bad.start(), "control character")]
    return text, []


#: Control characters no rules text needs (tab, line feed and carriage return are fine).
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CONTROL_BYTES = bytes(code for code in range(128) if _CONTROL.match(chr(code)))
#: Characters YAML 1.1 reads as line breaks, which editors do not: they would shift every position.
_YAML_BREAKS = re.compile("[\x85\u2028\u2029]")


def _control(rel: str, text: str, at: int, what: str) -> Problem:
    """A located error for the character at index `at`, at the line and column an editor shows."""
    return error(
        Location(rel, *position(text, at)),
        "encoding",
        f"{what} U+{ord(text[at]):04X} is not allowed in rules data",
        hint="delete it; an editor may show it as a blank or a box",
    )


def _not_regular(where: Location, mode: int) -> Problem:
    return error(
        where, "not-a-file", f"this is {_kind(mode)}, not a regular file; it was not read", hint="remove it or replace it with a file"
    )


def _too_large(where: Location, size: int) -> Problem:
    return error(where, "too-large", f"file is {size} bytes; the limit is {MAX_FILE_BYTES} bytes", hint="split it into several files")


def _outside_link(where: Location) -> Problem:
    return error(
        where,
        "unsafe-path",
        "symbolic link leads outside the project; it was not followed",
        hint="copy the file into the project, or allow such links with --follow-outside-links or the plugin option follow_outside_links",
    )


def _loops(where: Location) -> Problem:
    return error(where, "io", "symbolic link loops: following it leads back to itself")


def _followed(
    link: Path, where: Location, top: Path, wanted: bool, allow_outside_links: bool
) -> tuple[os.stat_result | None, list[Problem]]:
    """What a symbolic link leads to, if it may be followed; else None, with the problem if there is one."""
    target = resolved(link)
    if target is None:
        return None, [_loops(where)]
    if top != target and top not in target.parents and not allow_outside_links:
        return None, [_outside_link(where)]
    try:
        return link.stat(), []
    except OSError:
        return None, [error(where, "io", "symbolic link leads nowhere")] if wanted else []


def resolved(path: Path) -> Path | None:
    """Where a symbolic link leads, or None for one that loops back on itself (Python raises for those)."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):
        return None


def shown_name(name: str) -> str:
    """A file name as read from the file system, printable: bytes that are not UTF-8 written as `\\xe9`."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def file_name_problem(name: str, where: str) -> Problem | None:
    """A located error for a file or folder under data/ or content/ whose name the site cannot carry, else None.

    Such names are any characters, but at most `MAX_NAME_BYTES` bytes of UTF-8 (the site adds its own endings
    and staging a temporary one to each, and most file systems stop at 255) and valid UTF-8 (the file
    system hands other bytes over as they are; no address or report line could hold them).
    """
    raw = os.fsencode(name)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        message = f"the name is not valid UTF-8 (byte 0x{raw[exc.start]:02x}); it was not read"
        return error(Location(where, 1, 1), "encoding", message, "rename it, in UTF-8")
    if len(raw) > MAX_NAME_BYTES:
        size, limit = f"{len(name)} characters", str(MAX_NAME_BYTES)
        if len(raw) != len(name):  # a letter outside ASCII takes 2 to 4 bytes
            size, limit = f"{size} ({len(raw)} bytes of UTF-8)", f"{MAX_NAME_BYTES} bytes"
        message = f"the name is {size} long; the limit is {limit}; it was not read"
        return error(Location(where, 1, 1), "unsafe-path", message, "shorten the name")
    return None


def project_files(
    root: Path, folder: str, suffixes: tuple[str, ...], *, allow_outside_links: bool = False, others: list[Path] | None = None
) -> tuple[list[Path], list[Problem]]:
    """The files with one of `suffixes` under `root/folder`, sorted, walked without trusting the tree;
    `others` collects the other regular files met on the way (what MkDocs would copy as they are).

    An entry whose name is not UTF-8 or too long for the site (`file_name_problem`) is refused,
    unread. Each entry is examined with `lstat`: FIFOs, sockets and devices are refused, whatever their
    name (never opened); a
    symbolic link whose target leaves the project is refused unless `allow_outside_links`; a link
    inside the project is followed once (loops are cut).
    """
    top = root.resolve()
    problems: list[Problem] = []
    seen: set[Path] = set()

    def rel(path: Path) -> str:
        return path.relative_to(root).as_posix()

    def walk(folder_path: Path) -> Iterator[Path]:
        real = resolved(folder_path)
        if real is None:  # the folder itself is a link that loops
            problems.append(_loops(Location(rel(folder_path), 1, 1)))
            return
        if real in seen:
            return
        seen.add(real)
        try:
            entries = sorted(os.scandir(folder_path), key=lambda e: e.name)
        except OSError as exc:
            problems.append(error(Location(rel(folder_path), 1, 1), "io", f"cannot read folder: {exc.strerror or exc}"))
            return
        for entry in entries:
            misnamed = file_name_problem(entry.name, f"{rel(folder_path)}/{shown_name(entry.name)}")
            if misnamed is not None:  # no page, address or report line could carry its name: never read
                problems.append(misnamed)
                continue
            path = Path(entry.path)
            try:
                info: os.stat_result | None = path.lstat()
            except OSError:
                continue
            wanted = path.suffix in suffixes
            if info is not None and stat.S_ISLNK(info.st_mode):
                info, refused = _followed(path, Location(rel(path), 1, 1), top, wanted, allow_outside_links)
                problems.extend(refused)
            if info is None:
                continue
            if stat.S_ISDIR(info.st_mode):
                yield from walk(path)
            elif stat.S_ISREG(info.st_mode):
                if wanted:
                    yield path
                elif others is not None:
                    others.append(path)
            else:  # whatever its name: MkDocs copies every file of the content folder, and would block on it
                problems.append(_not_regular(Location(rel(path), 1, 1), info.st_mode))

    return sorted(walk(root / folder)), problems


def parse_yaml(text: str, rel: str) -> tuple[YMap | None, list[Problem]]:
    """Parse one YAML document into located raw values; the top level must be a mapping."""
    if text.startswith("\ufeff"):
        text = text[1:]
    odd = _YAML_BREAKS.search(text)
    if odd is not None:
        return None, [_control(rel, text, odd.start(), "line separator")]
    builder = _Builder(rel)
    try:
        document = builder.document(text)
    except _Limits as exc:
        return None, [*builder.problems, error(exc.where, "yaml", exc.message)]
    except (_AliasError, yaml.YAMLError, RecursionError) as exc:
        return None, [_refused(exc, rel, text)]
    if document is None:
        return None, [error(Location(rel, 1, 1), "empty", "the file is empty", hint="remove it or give it a top-level key")]
    value, where = document
    if not isinstance(value, YMap):
        return None, [*builder.problems, error(where, "type", "the top level of a data file must be a mapping")]
    return value, builder.problems


def _refused(exc: BaseException, rel: str, text: str) -> Problem:
    """The located problem for a file YAML cannot read, or that uses what rules data may not."""
    if isinstance(exc, _AliasError):
        loc = Location(rel, exc.mark.line + 1, exc.mark.column + 1)
        what = "anchors ('&name')" if exc.anchor else "aliases ('*name')"
        return error(loc, "yaml", f"YAML {what} are not allowed in rules data", hint="write the value out in full")
    if isinstance(exc, yaml.MarkedYAMLError):
        return _invalid_yaml(exc, rel, text)
    if isinstance(exc, yaml.reader.ReaderError):
        # libyaml counts the position in UTF-8 bytes; editors count characters.
        at = len(text.encode("utf-8")[: exc.position].decode("utf-8", "ignore")) if SAFE_LOADER is not yaml.SafeLoader else exc.position
        return _control(rel, text, min(at, len(text) - 1), "character")
    if isinstance(exc, RecursionError):
        return error(Location(rel, 1, 1), "too-deep", f"data nests deeper than {MAX_DEPTH} levels")
    return error(Location(rel, 1, 1), "yaml", f"invalid YAML: {exc}")


def _invalid_yaml(exc: yaml.MarkedYAMLError, rel: str, text: str) -> Problem:
    """YAML that does not parse, at the place the designer should look."""
    mark = exc.problem_mark or exc.context_mark
    loc, message = yaml_error_at(exc, rel)
    quote = _unclosed_quote(text, exc.context_mark, mark)
    if quote is not None and (quote.line, quote.column) != (loc.line, loc.column):
        # the parser stops where the quoted text runs into the next value: the slip is where it opened
        hint = f"this quote is not closed on its line; YAML read on to line {loc.line}, column {loc.column}"
        return error(Location(rel, quote.line, quote.column), "yaml", f"invalid YAML: {message}", hint)
    return error(loc, "yaml", f"invalid YAML: {message}", _yaml_hint(text, mark))


#: Where a quoted scalar may open: at the start of a line's content, or after ': ', '- ', '[', '{' or ','.
_COMMENT = re.compile(r"(?:^|[ \t])#")
_QUOTE_OPENS = re.compile(r"""(?:^[ \t]*|[:\-][ \t]+|[\[{,][ \t]*)(['"])""")


def _unclosed_quote(text: str, context: Any, problem: Any) -> Location | None:
    """The first quote between the parser's context and the place it stopped that its line does not close.

    `text: 'It ignores terrain}` makes YAML read on into the next lines and fail there; the designer's slip
    is the quote. Quoted text running over several lines is legal YAML, but this is asked only of a file
    that failed to parse.
    """
    if problem is None:
        return None
    lines = text.splitlines()
    first = min(context.line if context is not None else problem.line, problem.line)
    for number in range(max(first, problem.line - 50), min(problem.line, len(lines) - 1) + 1):
        column = _open_quote_column(lines[number])
        if column is not None:
            return Location("", number + 1, column + 1)
    return None


def _open_quote_column(line: str) -> int | None:
    """The column of a quote that opens a quoted value and is still open at the end of the line, if any."""
    at = 0
    while (opening := _QUOTE_OPENS.search(line, at)) is not None:
        start = opening.start(1)
        if _COMMENT.search(line, at, start):  # the rest of the line is a comment
            return None
        end = _closing(line, start + 1, opening.group(1))
        if end is None:
            return start
        at = end + 1
    return None


def _closing(line: str, at: int, quote: str) -> int | None:
    """Where a quoted value that starts at `at` ends on this line: `''` inside single quotes, and a
    backslash-escaped character inside double ones, do not end it."""
    while at < len(line):
        char = line[at]
        if quote == '"' and char == "\\":
            at += 2
            continue
        if char == quote:
            if quote == "'" and line[at + 1 : at + 2] == "'":
                at += 2
                continue
            return at
        at += 1
    return None


def _yaml_hint(text: str, mark: Any) -> str:
    """A hint where the cause is a common one: a tab where YAML wants spaces."""
    if mark is None:
        return ""
    lines = text.splitlines()
    line = lines[mark.line] if mark.line < len(lines) else ""
    if "\t" in line[: len(line) - len(line.lstrip())] or line[mark.column : mark.column + 1] == "\t":
        return "YAML indents with spaces, not tabs: this line has a tab"
    return ""


def load_file(path: Path, rel: str) -> tuple[Document | None, list[Problem]]:
    """One data file's located values, from the parse cache when the same bytes were read before."""
    text, problems = read_text(path, rel)
    if text is None:
        return None, problems
    entry = cache.key("parsed", rel, text) if cache.enabled() else ""
    stored = cache.read("parsed", entry) if entry else None
    if stored is not None:
        with contextlib.suppress(ValueError, TypeError, IndexError, KeyError):
            return _decode_document(stored, rel)
    body, problems = parse_yaml(text, rel)
    if body is None:
        return None, problems
    if entry:
        cache.write("parsed", entry, _encode_document(body, problems))
    return Document(rel, body), problems


# --- the parse cache: located values as plain nested tuples -------------------------------------
#
# A string, number, mapping or list is a tuple (kind, line, column, ...); true, false and null are
# themselves. A mapping's items are flattened as key, key line, key column, value.
_AS_STR, _AS_INT, _AS_FLOAT, _AS_MAP, _AS_LIST = range(5)


def _encode(value: Any) -> Any:
    if value is None or type(value) is bool:
        return value
    loc: Location = value.loc
    if type(value) is LocStr:
        return (_AS_STR, loc.line, loc.column, str(value))
    if type(value) is LocInt:
        return (_AS_INT, loc.line, loc.column, int(value), value.source)
    if type(value) is LocFloat:
        return (_AS_FLOAT, loc.line, loc.column, float(value), value.source)
    if type(value) is YMap:
        items: list[Any] = []
        for name, item in value.items():
            where = value.key_locs[name]
            items += (name, where.line, where.column, _encode(item))
        return (_AS_MAP, loc.line, loc.column, tuple(items))
    if type(value) is YList:
        return (_AS_LIST, loc.line, loc.column, tuple(_encode(item) for item in value))
    raise TypeError(f"not a located value: {type(value).__name__}")


def _decode(node: Any, path: str) -> Any:
    """The located value `_encode` wrote; a shape it never writes raises, and the file is parsed again."""
    if node is None or type(node) is bool:
        return node
    kind, line, column, value = node[0], node[1], node[2], node[3]
    loc = Location(path, line, column)
    if kind == _AS_STR and type(value) is str:
        return LocStr(value, loc)
    if kind == _AS_MAP:
        mapping = YMap()
        mapping.loc = loc
        mapping.key_locs = key_locs = {}
        for at in range(0, len(value), 4):
            name = value[at]
            if type(name) is not str:
                raise TypeError("a mapping key must be a string")
            key_locs[name] = Location(path, value[at + 1], value[at + 2])
            mapping[name] = _decode(value[at + 3], path)
        return mapping
    if kind == _AS_LIST:
        items = YList(_decode(item, path) for item in value)
        items.loc = loc
        return items
    if kind == _AS_INT and type(value) is int:
        return LocInt(value, loc, node[4])
    if kind == _AS_FLOAT and type(value) is float:
        return LocFloat(value, loc, node[4])
    raise ValueError("not a value the parse cache writes")


def _encode_document(body: YMap, problems: list[Problem]) -> tuple[Any, ...]:
    """A parsed file and the problems found in it."""
    found = tuple(
        (p.location.path, p.location.line, p.location.column, p.severity.value, p.code, p.message, p.hint, p.data_path) for p in problems
    )
    return (_encode(body), found)


def _decode_document(stored: Any, rel: str) -> tuple[Document, list[Problem]]:
    encoded, found = stored
    body = _decode(encoded, rel)
    if type(body) is not YMap:
        raise ValueError("the top level of a cached file is not a mapping")
    problems = [
        Problem(
            location=Location(path, line, column), severity=Severity(severity), code=code, message=message, hint=hint, data_path=data_path
        )
        for path, line, column, severity, code, message, hint, data_path in found
    ]
    return Document(rel, body), problems


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while a project is read and checked.

    Reading allocates hundreds of thousands of objects that all live on (located values, the records
    built from them) and form no reference cycles, so the collector's repeated passes over them find
    nothing: a fifth of `cadence check`'s time and a third of staging's at 10x the shipped data.
    Reference counting still frees everything else at once; a cycle made meanwhile is collected once
    the collector resumes, so a server that stages again and again frees the old graphs.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def data_files(root: Path, data_dir: str, problems: list[Problem], *, allow_outside_links: bool = False) -> Iterator[tuple[Path, str]]:
    """Each `.yaml`/`.yml` file under the data folder and its path in the project, in a stable order
    (the `schema` folder's are the editors' schema, not data); problems go to `problems`."""
    base = root / data_dir
    if not base.is_dir():
        hint = "create it, or name the project's data folder as the rules plugin's data_dir in mkdocs.yml"
        problems.append(error(Location(data_dir, 0, 0), "missing", f"data folder '{data_dir}' does not exist", hint))
        return
    paths, found = project_files(root, data_dir, (".yaml", ".yml"), allow_outside_links=allow_outside_links)
    problems.extend(found)
    for path in paths:
        if "schema" not in path.relative_to(base).parts[:1]:
            yield path, path.relative_to(root).as_posix()


def read_documents(root: Path, data_dir: str, problems: list[Problem], *, allow_outside_links: bool = False) -> Iterator[Document]:
    """Each data file in turn (see `data_files`), loaded; problems go to `problems`.

    A caller that builds each document as it comes holds one file's raw values at a time, not the
    whole project's (at 10x the shipped data those are some 25 MiB).
    """
    for path, rel in data_files(root, data_dir, problems, allow_outside_links=allow_outside_links):
        document, found = load_file(path, rel)
        problems.extend(found)
        if document is not None:
            yield document


def load_directory(root: Path, data_dir: str, *, allow_outside_links: bool = False) -> tuple[list[Document], list[Problem]]:
    """Load every `.yaml`/`.yml` file under the data folder, in a stable order."""
    problems: list[Problem] = []
    documents = list(read_documents(root, data_dir, problems, allow_outside_links=allow_outside_links))
    return documents, problems
