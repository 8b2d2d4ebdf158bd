"""A persistent cache of work that depends only on file contents, in the user's cache folder.

Entries are keyed by content, never by time stamps: a data file's built record (`stored.py`, keyed by
the file's bytes and path; what `load_project` reads, so `check`, `build` and `serve` share it), a data
file's located values (`loader.load_file`, for the commands that read data without building records),
whole results of a project (`ProjectMemo`, keyed by every file the work reads, the options and the
project folder: a `cadence check`'s output, the checks' problems, the last staging), the rendered pages
(`incremental.PageCache`), what the per-text checks found in each text (`checks.texts`), and the last
staging's files, all in one entry (`write_parts`, `STAGED_FILES`). Every key also holds `generator_hash`,
a hash of the generator's own source and of the libraries whose behaviour the result depends on, so
an upgraded or edited generator never reads an older answer.

Entries are plain values (numbers, strings, lists, tuples) written with `marshal`, never `pickle`:
loading them builds data and runs nothing (a staging's files are plain bytes, each framed by its length).
Each file starts with a magic word, the length and a CRC-32 of the rest (`header`), checked before anything
is unmarshalled, so a truncated, corrupt or foreign file is a miss and is written again. The cache lives
under `$XDG_CACHE_HOME/cadence-rules` (else `~/.cache`), never in the project, so a project cannot plant an
entry; writes go to a temporary file renamed into place, so a reader never sees half an entry.
`CADENCE_NO_CACHE=1` (or `cadence --no-cache`) turns it off.

Entries no run has read or written for `KEEP_DAYS` days are removed, at most once a day, when a
`cadence` command ends (`prune`): edited files leave their old records behind, and the cache would
otherwise only grow. A read marks an
entry used by its modification time, at most once a day per entry, so a hit costs no write.

This module imports nothing heavy: `cadence check` on an unchanged project answers from here before
the YAML parser, the model or the checks are imported.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import re
import shutil
import stat
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

#: Set to a non-empty value other than "0" to neither read nor write the cache.
NO_CACHE_ENV = "CADENCE_NO_CACHE"
#: Names the file layout; a new layout gets a new word, so an old file is never misread.
MAGIC = b"CDC2"
_DIGEST = 20
#: An entry's header after MAGIC: its body's length (8 bytes) and CRC-32 (4 bytes), little-endian.
_HEADER = len(MAGIC) + 12
#: Libraries whose installed files are part of `generator_hash`: YAML parsing, Markdown and its
#: sanitiser (unsafe_markup), the spelling dictionary.
_LIBRARIES = ("yaml", "_yaml", "markdown", "nh3", "spellchecker")
#: Entries (and word files) unused this long are removed.
KEEP_DAYS = 30
_DAY = 24 * 60 * 60
#: Its modification time says when the cache was last pruned.
_PRUNED = ".pruned"


def enabled() -> bool:
    """Whether the cache is on (it is unless `CADENCE_NO_CACHE` says otherwise)."""
    return os.environ.get(NO_CACHE_ENV, "") in ("", "0")


def cache_dir() -> Path:
    """`$XDG_CACHE_HOME/cadence-rules`, else `~/.cache/cadence-rules`: where the user's caches go."""
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError as exc:  # no HOME and no password entry: no cache, as for a read-only one
            raise OSError(f"no folder for the cache: {exc}") from None
    return Path(base) / "cadence-rules"


def _package_files(folder: Path) -> list[Path]:
    """Every file of the generator, sorted: its code and labels, and its templates, theme and assets, which
    the kept pages and the last staging were made from (a new builder script must reach the next build)."""
    found: list[Path] = []
    for entry in os.scandir(folder):
        if entry.is_dir() and entry.name != "__pycache__":
            found.extend(_package_files(Path(entry.path)))
        elif entry.is_file() and not entry.name.endswith((".pyc", ".pyo")):
            found.append(Path(entry.path))
    return sorted(found)


def _library_identity(name: str) -> str:
    """Where a library is installed, and its main file's size and age: an upgrade changes them."""
    try:
        spec = find_spec(name)
    except (ImportError, ValueError):
        return f"{name}:?"
    if spec is None or spec.origin is None:
        return f"{name}:-"
    try:
        info = os.stat(spec.origin)
    except OSError:
        return f"{name}:{spec.origin}"
    return f"{name}:{spec.origin}:{info.st_size}:{info.st_mtime_ns}"


@lru_cache(maxsize=1)
def generator_hash() -> bytes:
    """A digest of the generator's source, the Python version and the libraries it reads data with."""
    digest = hashlib.blake2b(digest_size=_DIGEST)
    digest.update(MAGIC + sys.version.encode())
    package = Path(__file__).resolve().parent
    for path in _package_files(package):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    for name in _LIBRARIES:
        digest.update(_library_identity(name).encode() + b"\0")
    return digest.digest()


def key(*parts: bytes | str) -> str:
    """A hex key for an entry: the generator's hash and the given parts, each length-prefixed."""
    digest = hashlib.blake2b(generator_hash(), digest_size=_DIGEST)
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()


def _path(kind: str, entry: str) -> Path:
    return cache_dir() / kind / entry[:2] / f"{entry}.marshal"


def read(kind: str, entry: str) -> Any:
    """The value stored under `kind`/`entry`, or None when there is none or it is damaged."""
    body = read_body(kind, entry)
    if body is None:
        return None
    try:
        return marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return None


def read_body(kind: str, entry: str) -> memoryview | None:
    """The bytes of the entry under `kind`/`entry` (`write` or `write_parts`), or None when there is none or
    it is damaged."""
    if not enabled():
        return None
    try:
        path = _path(kind, entry)
        data = path.read_bytes()
    except OSError:  # none yet, unreadable, or no cache folder at all
        return None
    mark_used(path)
    body = memoryview(data)[_HEADER:]  # not a copy
    if data[:_HEADER] != header(body):
        return None
    return body


def header(body: bytes | memoryview) -> bytes:
    """What an entry holds before its body: the layout's word, the body's length and its CRC-32.

    The checksum finds damage (a torn write, a bad disk block, a file cut short), which is all it must find:
    anyone who can write the user's cache can write a matching checksum whatever it is. CRC-32 reads 3.6 GB/s
    here against BLAKE2b's 0.73, and a build at 10x the shipped data reads and writes about 50 MB of entries.
    """
    return _header(len(body), zlib.crc32(body))


def _header(length: int, crc: int) -> bytes:
    return MAGIC + length.to_bytes(8, "little") + crc.to_bytes(4, "little")


def write(kind: str, entry: str, value: Any) -> None:
    """Store a plain value under `kind`/`entry`, whole or not at all; a cache that cannot be written is skipped."""
    if enabled():
        write_parts(kind, entry, (marshal.dumps(value),))


def write_parts(kind: str, entry: str, parts: Iterable[bytes]) -> None:
    """Store the bytes of `parts`, one after the other, under `kind`/`entry` (`read_body` reads them back),
    whole or not at all, holding one part at a time; a cache that cannot be written is skipped. The header
    goes in last, once the body's length and CRC-32 are known."""
    if not enabled():
        return
    with contextlib.suppress(OSError):
        path = _path(kind, entry)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".entry-")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(bytes(_HEADER))
                length, crc = 0, 0
                for part in parts:
                    handle.write(part)
                    length, crc = length + len(part), zlib.crc32(part, crc)
                handle.seek(0)
                handle.write(_header(length, crc))
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise


def write_whole(path: Path, data: bytes) -> None:
    """Write `data` to `path` whole or not at all (a temporary file beside it, renamed into place): a reader
    (another check, the engine, a browser) never sees half a file."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def mark_used(path: Path) -> None:
    """Note that an entry was used today (by its modification time), unless that is already known."""
    with contextlib.suppress(OSError):
        now = time.time()
        if os.stat(path).st_mtime < now - _DAY:
            os.utime(path, (now, now))


def prune() -> list[Path]:
    """Remove the entries and word files unused for `KEEP_DAYS` days, at most once a day; returns the removed."""
    now = time.time()
    removed: list[Path] = []
    if not enabled():
        return removed
    with contextlib.suppress(OSError):
        base = cache_dir()
        stamp = base / _PRUNED
        if stamp.exists() and os.stat(stamp).st_mtime > now - _DAY:
            return removed
        stamp.touch()
        os.utime(stamp, (now, now))
        for folder, dirs, names in os.walk(base):
            if folder == str(base) and STAGING in dirs:
                dirs.remove(STAGING)  # the kept stagings go whole, by their lock's time
                removed.extend(_prune_stagings(base / STAGING, now - KEEP_DAYS * _DAY))
            for name in names:
                path = Path(folder) / name
                if name.endswith((".marshal", ".words")) and _unused_since(path, now - KEEP_DAYS * _DAY):
                    removed.append(path)
    return removed


#: The user cache's folder of kept staging folders (`staging_dir`).
STAGING = "staging"


def staging_dir(root: Path, out: Path) -> Path:
    """Where `cadence build` of `root` into `out` keeps its staging folder between builds: one per project and
    output folder, under the user's cache, where no project can plant a file. Not a `key`: a new generator
    keeps the folder (staging rewrites every file that differs)."""
    place = f"{os.path.realpath(root)}\0{os.path.realpath(out)}".encode("utf-8", "surrogateescape")
    return cache_dir() / STAGING / hashlib.blake2b(place, digest_size=_DIGEST).hexdigest()


def _prune_stagings(base: Path, since: float) -> list[Path]:
    """Remove the kept staging folders no build has used since `since` (a build marks its folder's lock)."""
    removed = []
    for folder in base.iterdir() if base.is_dir() else ():
        with contextlib.suppress(OSError):
            if os.stat(folder / ".lock").st_mtime < since:
                shutil.rmtree(folder)
                removed.append(folder)
    return removed


def _unused_since(path: Path, since: float) -> bool:
    """Remove `path` if it was last used before `since`; True if it was removed."""
    try:
        if os.stat(path).st_mtime >= since:
            return False
        path.unlink()
    except OSError:
        return False
    return True


# --- a whole `cadence check`, memoised by every file it reads ------------------------------------


class _Outside(Exception):
    """A symbolic link leaves the project: what the check reads through it is not ours to hash."""


#: The most of a file the check reads: `loader.read_text` refuses a file over 2 MiB after reading one
#: byte more than that (a test keeps the two equal). Past it only the size can change what is reported.
READ_LIMIT = 2 * 1024 * 1024 + 1


#: Files hashed in this process by path: what `os.stat` said of each then, and its digest.
_HASHED: dict[str, tuple[tuple[int, ...], bytes]] = {}
#: A file changed less than this long before it was hashed may change again within its timestamps'
#: resolution and keep them (git's "racy" files): it is read again at every look.
SETTLED_NS = 2_000_000_000


def file_digest(path: str, info: os.stat_result | None = None) -> bytes:
    """The file's size and a digest of as much of it as the check can read.

    One staging hashes the project's files up to seven times (each memo's answer, and its digests before
    and after its work; the page cache's two looks), so a file hashed before in this process is not read
    again while its device, inode, size and modification and change times are what they were, and it had
    settled when it was hashed. A file written during the work has new times: it is read again. `info`:
    the file's `os.stat`, if taken.
    """
    info = os.stat(path) if info is None else info
    seen = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    known = _HASHED.get(path)
    if known is not None and known[0] == seen:
        return known[1]
    with open(path, "rb") as handle:
        fd = handle.fileno()
        size = os.fstat(fd).st_size
        value = size.to_bytes(8, "little") + hashlib.blake2b(read_at_most(fd, size, READ_LIMIT - 1), digest_size=_DIGEST).digest()
    if time.time_ns() - max(info.st_mtime_ns, info.st_ctime_ns) > SETTLED_NS:
        _HASHED[path] = (seen, value)
    return value


def read_at_most(fd: int, size: int, limit: int) -> bytes:
    """An open file's bytes, at most one past `limit` (so that a caller sees it is over): read in one call of its
    `size` as the caller's `fstat` gave it. A read into a buffer of the limit's size (2 MiB) cost five times the
    read of a data file."""
    data = os.read(fd, min(size, limit) + 1)
    if len(data) <= size or len(data) > limit:  # the end, or already over the limit
        return data
    parts, total = [data], len(data)  # it grew since: on to its end, or one past the limit
    while total <= limit and (chunk := os.read(fd, min(1 << 16, limit + 1 - total))):
        parts.append(chunk)
        total += len(chunk)
    return b"".join(parts)


def _walk(digest: Any, top: str, folder: str, rel: str, hash_all: bool, seen: set[str]) -> None:
    """Every entry under `folder` into `digest`: name, kind, a link's target, a read file's bytes.

    Files the check reads (everything under the data folder, the content folder's `.md` pages) are
    hashed whole; of the rest only the name and kind count, as in the check. Links into the project
    are followed once, as the loader follows them; a link out of it makes the walk give up.
    """
    real = os.path.realpath(folder)
    if real in seen:
        digest.update(b"loop\0")
        return
    seen.add(real)
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        digest.update(f"unreadable\0{rel}\0{exc.errno}\0".encode("utf-8", "surrogateescape"))
        return
    for entry in entries:
        name = f"{rel}/{entry.name}"
        digest.update(name.encode("utf-8", "surrogateescape") + b"\0")
        try:
            info = os.lstat(entry.path)
            if entry.is_symlink():
                target = os.path.realpath(entry.path)
                if target != top and not target.startswith(top + os.sep):
                    raise _Outside(entry.path)
                digest.update(b"link\0" + os.readlink(entry.path).encode("utf-8", "surrogateescape") + b"\0")
                info = os.stat(entry.path)
        except OSError as exc:
            digest.update(f"gone\0{exc.errno}\0".encode())
            continue
        if entry.is_dir():
            digest.update(b"dir\0")
            _walk(digest, top, entry.path, name, hash_all, seen)
        elif not stat.S_ISREG(info.st_mode) or not (hash_all or entry.name.endswith(".md")):
            digest.update(f"{info.st_mode:o}\0".encode())
        else:
            try:
                digest.update(b"file\0" + file_digest(entry.path, info))
            except OSError as exc:
                digest.update(f"unreadable\0{exc.errno}\0".encode())


def project_digest(root: Path, data_dir: str, content_dir: str, whole: Sequence[str] = ()) -> str | None:
    """A digest of everything `cadence check` reads in a project, or None when that cannot be known
    (a folder or a symbolic link outside the project). `whole`: folders (the content folder among them,
    or others such as the theme's) whose every file counts, as staging copies them all."""
    top = os.path.realpath(root)
    digest = hashlib.blake2b(generator_hash(), digest_size=_DIGEST)
    folders = [(data_dir, True), (content_dir, content_dir in whole), *((f, True) for f in whole if f not in (data_dir, content_dir))]
    try:
        config = file_digest(os.path.join(top, "mkdocs.yml"))
        digest.update(b"mkdocs\0" + config)
        targets = folder_targets(top, config)
        if targets is None:
            return None
        digest.update(targets)
        for folder, hash_all in folders:
            path = os.path.realpath(os.path.join(top, folder))
            if path != top and not path.startswith(top + os.sep):
                return None
            digest.update(f"\0folder\0{folder}\0{hash_all}\0".encode("utf-8", "surrogateescape"))
            if os.path.isdir(path):
                _walk(digest, top, path, folder, hash_all, set())
    except (_Outside, OSError):
        return None
    return digest.hexdigest()


#: The settings of mkdocs.yml that name a folder, and the folder each means when it is not written.
FOLDER_SETTINGS = {b"docs_dir": "docs", b"data_dir": "data", b"site_dir": "site", b"custom_dir": "", b"templates_dir": ""}
#: One such setting and its value, in block or flow style (`theme: {custom_dir: overrides}`), quoted or plain.
_FOLDER_SETTING = re.compile(
    rb"""(?:^|[\s{,])(docs_dir|data_dir|site_dir|custom_dir|templates_dir)[ \t]*:[ \t]*"""
    rb"""(?:"([^"\n]*)"|'([^'\n]*)'|([^\s,{}\[\]#][^\n,{}#]*))?""",
    re.M,
)


#: The folders each mkdocs.yml names, by the digest of its bytes: a settled file is not read again (`file_digest`).
_NAMED_FOLDERS: dict[bytes, list[tuple[bytes, str]] | None] = {}


def _named_folders(top: str) -> list[tuple[bytes, str]] | None:
    with open(os.path.join(top, "mkdocs.yml"), "rb") as file:
        text = file.read()
    written: list[tuple[bytes, str]] = [(name, folder) for name, folder in FOLDER_SETTINGS.items() if folder]
    for found in _FOLDER_SETTING.finditer(text):
        value = next((part for part in found.groups()[1:] if part is not None), b"").strip()
        if value[:1] in (b"!", b"*", b"&", b"|", b">"):
            return None
        if value:
            written.append((found.group(1), value.decode("utf-8", "surrogateescape")))
    return written


def folder_targets(top: str, config: bytes) -> bytes | None:
    """Where each folder mkdocs.yml names (or means by default) leads once its links are followed: the check
    warns of one that leads outside the project, which a symbolic link can do while mkdocs.yml stays the same.
    Read from the file's lines without the YAML parser, once per content of the file (`config`, its digest);
    None (no answer kept) for a value it cannot take as a plain path (a tag, an alias, a block scalar)."""
    if config not in _NAMED_FOLDERS:
        _NAMED_FOLDERS[config] = _named_folders(top)
    written = _NAMED_FOLDERS[config]
    if written is None:
        return None
    where = [f"{name.decode()}\0{folder}\0{os.path.realpath(os.path.join(top, folder))}" for name, folder in written]
    return ("\0targets\0" + "\0".join(where)).encode("utf-8", "surrogateescape")


class ProjectMemo:
    """A value worked out from everything `cadence check` reads in a project, kept while that stays the same.

    One entry per kind, project and options, replaced at each run that computes a new value. An entry
    answers only when the project's mkdocs.yml, its data and content files and the generator are
    byte for byte what they were; the digest is taken before and after the work, and a value
    computed while a file changed is not stored. `valid` says whether a stored value has the right shape;
    `whole` names the folders whose every file counts (`project_digest`).
    """

    def __init__(self, kind: str, root: Path, options: tuple[str, ...], valid: Callable[[Any], bool], whole: Sequence[str] = ()) -> None:
        self.kind, self.root, self.valid, self.whole = kind, root, valid, tuple(whole)
        self.entry = key(kind, os.path.realpath(root), *options, *self.whole)
        self.before: str | None = None
        self._looked: tuple[str, str, str | None] | None = None  # the folders `answer` digested, and their digest

    def _digest(self, data_dir: str, content_dir: str) -> str | None:
        return project_digest(self.root, data_dir, content_dir, self.whole)

    def answer(self) -> Any:
        """The stored value, when nothing the check reads has changed since; else None."""
        stored = read(self.kind, self.entry)
        if not (isinstance(stored, tuple) and len(stored) == 4 and all(isinstance(s, str) for s in stored[:3])):
            return None
        data_dir, content_dir, digest, value = stored
        # After `start`, against what was there when the work began: the value must be of those files.
        now = self.before
        if now is None:
            now = self._digest(data_dir, content_dir)
            self._looked = (data_dir, content_dir, now)
        if not self.valid(value) or now != digest:
            return None
        return value

    def start(self, data_dir: str, content_dir: str) -> None:
        """Note what the work is about to read. The digest `answer` took of the same folders will do: a file
        changed since then makes `store`'s digest differ from it, and nothing is kept."""
        looked = self._looked
        self.before = looked[2] if looked is not None and looked[:2] == (data_dir, content_dir) else self._digest(data_dir, content_dir)

    def store(self, data_dir: str, content_dir: str, value: Any) -> None:
        """Keep the value, if the files read did not change while it was worked out."""
        if self.before is not None and self._digest(data_dir, content_dir) == self.before:
            write(self.kind, self.entry, (data_dir, content_dir, self.before, value))


def check_memo(root: Path, options: tuple[str, ...]) -> ProjectMemo:
    """The last output and exit code of `cadence check` with these options."""
    return ProjectMemo(
        "check", root, options, lambda v: isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) and type(v[1]) is int
    )


def checks_memo(root: Path, follow_outside_links: bool) -> ProjectMemo:
    """The problems the registered checks found (`problems.to_plain`): `cadence check` stores them and
    `cadence build` of the unchanged project takes them instead of checking again."""
    return ProjectMemo("checks", root, (str(follow_outside_links),), lambda v: isinstance(v, list) and all(isinstance(i, tuple) for i in v))


#: The kind of the entry that holds a staging's files (`staged_memo`), one per project and options.
STAGED_FILES = "staged-files"
#: Bytes that tie a staging's files to the memo entry naming them: written first in the files' entry.
TOKEN_BYTES = 16


def staged_memo(root: Path, options: tuple[str, ...], whole: Sequence[str]) -> ProjectMemo:
    """The last staging of the project: a token naming its files (kept apart, under `STAGED_FILES` and the
    memo's own entry, by `write_parts`), the search entries and the problems (`Problem.to_plain`).
    `cadence build` of a project unchanged since then writes it out again instead of loading, checking and
    rendering it. `whole`: the folders staging copies whole (content, the theme's custom_dir, the templates)."""
    return ProjectMemo("staged", root, options, _staged_shape, whole)


def _staged_shape(value: Any) -> bool:
    if not (isinstance(value, tuple) and len(value) == 3 and isinstance(value[1], bytes)):
        return False
    if not (isinstance(value[0], bytes) and len(value[0]) == TOKEN_BYTES):
        return False
    return isinstance(value[2], list) and all(isinstance(p, tuple) for p in value[2])


@dataclass(frozen=True)
class Digests:
    """What the project's files held when read: one digest per top-level data folder, one for the rest."""

    folders: dict[str, bytes]
    rest: bytes


def regular_file_digest(path: str) -> bytes | None:
    """`file_digest` of a regular file (a file hashed before in this process and unchanged since is not read
    again; its size and its first 2 MiB: all the loader reads of a data file, and two hundred times the
    generator's largest template); None for anything else (a FIFO is never opened) or a file that cannot be read."""
    try:
        info = os.stat(path)
        return file_digest(path, info) if stat.S_ISREG(info.st_mode) else None
    except OSError:
        return None


def _digest_file(digest: hashlib.blake2b, name: str, path: str) -> bool:
    """Add a regular file's name and digest (`regular_file_digest`); False for anything else."""
    value = regular_file_digest(path)
    if value is None:
        return False
    digest.update(f"{name}\0".encode() + value)
    return True


def _files(base: Path) -> Iterable[tuple[str, str]] | None:
    """(path relative to base, path) of every file under base, in a stable order; None if a folder is a link."""
    found: list[tuple[str, str]] = []
    for folder, dirs, files in os.walk(base):
        if any(os.path.islink(os.path.join(folder, d)) for d in dirs):
            return None  # files behind a linked folder could change where this walk never looks
        dirs.sort()
        found.extend((os.path.relpath(os.path.join(folder, f), base), os.path.join(folder, f)) for f in sorted(files))
    return found


def read_digests(root: Path, data_dir: str, template_dirs: Iterable[Path] = ()) -> Digests | None:
    """Digests of the project's data, config and templates; None when they cannot all be read.

    One per top-level folder of the data (a module's), so what reads only some modules (a page, an army
    list's checks) can be kept while other modules change (`incremental.PageCache`, `checks.lists`)."""
    folders: dict[str, hashlib.blake2b] = {}
    rest = hashlib.blake2b()
    if not _digest_file(rest, "mkdocs.yml", str(root / "mkdocs.yml")):
        return None
    files = _files(root / data_dir)
    if files is None:
        return None
    for relative, path in files:
        top, _, _ = relative.partition(os.sep)
        digest = folders.setdefault(top, hashlib.blake2b()) if os.sep in relative else rest
        if not _digest_file(digest, relative, path) and os.path.exists(path):
            return None
    for number, base in enumerate(template_dirs):
        templates = _files(base) if base.is_dir() else []
        if templates is None:
            return None
        for relative, path in templates:
            _digest_file(rest, f"{number}:{relative}", path)
    return Digests({name: d.digest() for name, d in folders.items()}, rest.digest())


class FolderKeys:
    """Keys of what reads some modules' data folders (a scope chain's) and everything outside the modules'
    folders (the system, mkdocs.yml, the templates, folders of no module), as the files read now.

    What is kept under such a key is worked out again only when one of those changed: a rule's text edited
    in one game changes that game's keys only. Every key also holds `generator_hash` and `extra` (what else
    all the keys read, such as a site map's digest).
    """

    def __init__(self, digests: Digests, module_folders: dict[str, str], *extra: bytes) -> None:
        self._digests, self._module_folders = digests, module_folders
        owned = set(module_folders.values()) - {""}
        digest = hashlib.blake2b(digests.rest)
        digest.update(generator_hash())
        for folder, folder_digest in sorted(digests.folders.items()):
            if folder not in owned:
                digest.update(f"{folder}\0".encode() + folder_digest)
        for part in extra:
            digest.update(part)
        self._base = digest.digest()

    def key(self, what: str, modules: Iterable[str]) -> bytes:
        """The key of `what`, which reads the folders of these modules (by id) and everything outside them."""
        digest = hashlib.blake2b(self._base)
        digest.update(f"{what}\0".encode())
        for folder in sorted({self._module_folders.get(module, "") for module in modules} - {""}):
            digest.update(f"{folder}\0".encode() + self._digests.folders.get(folder, b"-"))
        return digest.digest()
