"""The English dictionary as a hashed word file, searched in place.

pyspellchecker ships its words as one gzipped JSON object of word → frequency: reading it builds
160,000 Python strings (a tenth of a second and some 30 MiB) for a check that looks up a few
thousand. The first use writes the words to a cache file beside the user's other caches, as an
open-addressing hash table of offsets followed by the words; every later check maps that file and
finds a word in one or two probes, touching a few pages of it. The file is named after the
dictionary it came from, so a new pyspellchecker makes a new one. Where no cache can be written the
same table is kept in memory for the run.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import re
import struct
import sys
import zlib
from array import array
from collections.abc import Iterable
from importlib.util import find_spec
from itertools import accumulate
from pathlib import Path

from ..cache import cache_dir, mark_used, write_whole

#: The file's layout, named in the cache file's name so that an older layout is never misread:
#: MAGIC, the slot count (a power of two), one u32 per slot (0: empty, else the offset of a word in
#: the file), then the words, each followed by a newline. Numbers are in the machine's byte order,
#: which the cache file's name includes.
MAGIC = b"CDW1"
_HEADER = struct.Struct("=4sI")
_JSON_KEY = re.compile(rb'"([^"\\]*)":')


class WordList:
    """A set of words read from a word file's bytes (mapped or in memory) without building a set."""

    def __init__(self, data: bytes | mmap.mmap) -> None:
        magic, slots = _HEADER.unpack_from(data) if len(data) >= _HEADER.size else (b"", 0)
        if magic != MAGIC or slots & (slots - 1) or len(data) < _HEADER.size + 4 * slots:
            raise ValueError("not a word file")
        self._data = data
        self._mask = slots - 1
        self._slots = memoryview(data)[_HEADER.size : _HEADER.size + 4 * slots].cast("I")

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str) or not self._slots:
            return False
        key = word.encode("utf-8", "surrogatepass")
        data, slots, mask = self._data, self._slots, self._mask
        line = key + b"\n"
        slot = zlib.crc32(key) & mask
        for _ in range(mask + 1):  # a bound only a damaged file could reach
            offset = slots[slot]
            if not offset:
                return False
            if data[offset : offset + len(line)] == line:
                return True
            slot = (slot + 1) & mask
        return False


def word_file(words: Iterable[bytes]) -> bytes:
    """The bytes of a word file holding `words` (UTF-8; empty ones and those with a newline left out), a quarter
    to a half of its slots filled.

    The words keep the order given (the first of each): sorting pyspellchecker's 160,000 would take half
    of the first check's work on the dictionary, and its own order is as fixed as its file."""
    encoded = list(filter(None, dict.fromkeys(words)))
    if b"\n" in b"".join(encoded):  # never in the dictionary's keys: one pass over them to find out
        encoded = [w for w in encoded if b"\n" not in w]
    slots = 1 << max(4, (2 * len(encoded)).bit_length())
    table = array("I", bytes(4 * slots))  # 4 bytes a slot, not a Python int each: the first check's peak halves
    mask = slots - 1
    crc32 = zlib.crc32
    for word, offset in zip(encoded, accumulate((len(w) + 1 for w in encoded), initial=_HEADER.size + 4 * slots), strict=False):
        slot = crc32(word) & mask
        while table[slot]:
            slot = (slot + 1) & mask
        table[slot] = offset
    return b"".join([_HEADER.pack(MAGIC, slots), table.tobytes(), b"\n".join(encoded), b"\n" if encoded else b""])


def _source() -> Path | None:
    """pyspellchecker's English word file, found without importing the package."""
    spec = find_spec("spellchecker")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "resources" / "en.json.gz"
    return path if path.is_file() else None


def _read_source(path: Path) -> list[bytes]:
    """The keys of the JSON word list in its order, as UTF-8 bytes; read with a regular expression unless the
    file has escapes."""
    import gzip  # here: only the first check reads the source
    import json

    raw = gzip.decompress(path.read_bytes())
    if b"\\" in raw:
        return [word.encode("utf-8", "surrogatepass") for word in json.loads(raw)]
    return _JSON_KEY.findall(raw)


def _cache_name(source: Path) -> str:
    """The word file's name: the layout, the byte order and which dictionary file, of what size and age."""
    info = source.stat()
    where = zlib.crc32(str(source.resolve()).encode())
    return f"english-{MAGIC.decode()}-{sys.byteorder}-{where:08x}-{info.st_size}-{info.st_mtime_ns}.words"


def _map(path: Path) -> mmap.mmap | None:
    try:
        with path.open("rb") as handle:
            if os.fstat(handle.fileno()).st_size == 0:
                return None
            return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None


def _write(path: Path, data: bytes) -> None:
    """Write the word file whole or not at all: another check may be reading the same cache."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_whole(path, data)


def english() -> WordList:
    """pyspellchecker's English words, from the cache file (written on first use) or in memory."""
    source = _source()
    if source is None:
        return WordList(b"")
    try:
        path = cache_dir() / _cache_name(source)
    except OSError:  # no folder for caches: the words stay in memory for this run
        return WordList(word_file(_read_source(source)))
    mapped = _map(path)
    if mapped is not None:
        mark_used(path)
        try:
            return WordList(mapped)
        except ValueError:
            pass  # a damaged cache: written again below
    data = word_file(_read_source(source))
    with contextlib.suppress(OSError):  # a read-only home: the words stay in memory for this run
        _write(path, data)
    return WordList(data)
