"""The English dictionary as a sorted word file, searched in place.

pyspellchecker ships its words as one gzipped JSON object of word → frequency: reading it builds
160,000 Python strings (a tenth of a second and some 30 MiB) for a check that looks up a few
thousand. The first use writes the words to a cache file beside the user's other caches: the words
sorted, one a line, after a short index of where every chunk of about a kilobyte begins. A later
check maps that file and reads each chunk's first word (some 1,500: under a millisecond); a word is
found by bisecting those, then searching its one chunk. Building the file is a sort (of words
pyspellchecker already keeps sorted, so one pass) and a join: no Python work per word, which the
first check on a machine would pay. The file is named after the dictionary it came from, so a new
pyspellchecker makes a new one. Where no cache can be written the same bytes are kept in memory.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import struct
import sys
import zlib
from array import array
from bisect import bisect_right
from collections.abc import Iterable
from importlib.util import find_spec
from pathlib import Path

from ..cache import cache_dir, mark_used, write_whole

#: The file's layout, named in the cache file's name so that an older layout is never misread:
#: MAGIC, the chunk count, one u32 per chunk (the offset in the text of the newline before its first
#: word), then the text: a newline, then each word followed by a newline, in byte order. Numbers are
#: in the machine's byte order, which the cache file's name includes.
MAGIC = b"CDW2"
_HEADER = struct.Struct("=4sI")
#: Bytes of text between chunk starts: a lookup searches one chunk (about a hundred words).
CHUNK = 1024


class WordList:
    """A set of words read from a word file's bytes (mapped or in memory) without building a set."""

    def __init__(self, data: bytes | mmap.mmap) -> None:
        magic, chunks = _HEADER.unpack_from(data) if len(data) >= _HEADER.size else (b"", 0)
        text_at = _HEADER.size + 4 * chunks
        if magic != MAGIC or len(data) < text_at:
            raise ValueError("not a word file")
        starts = array("I", bytes(data[_HEADER.size : text_at]))
        text = memoryview(data)[text_at:].toreadonly()
        if chunks and (len(text) < 2 or text[0] != 10 or text[-1] != 10 or any(s >= len(text) - 1 or text[s] != 10 for s in starts)):
            raise ValueError("not a word file")
        self._data = data
        self._text_at = text_at
        self._starts = starts
        self._ends = [*starts[1:], len(text) - 1]
        # each chunk's first word: what a lookup bisects (a few hundred short slices, once per check)
        self._firsts = [bytes(text[s + 1 : data.find(b"\n", text_at + s + 1) - text_at]) for s in starts]

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str) or not word or "\n" in word:
            return False
        key = word.encode("utf-8", "surrogatepass")
        chunk = bisect_right(self._firsts, key) - 1
        if chunk < 0:
            return False
        at = self._text_at
        return self._data.find(b"\n" + key + b"\n", at + self._starts[chunk], at + self._ends[chunk] + 1) >= 0


def word_file(words: Iterable[bytes]) -> bytes:
    """The bytes of a word file holding `words` (UTF-8; empty ones and those with a newline left out).

    Sorting costs one pass over pyspellchecker's words, which it keeps in order; a word given twice is
    kept twice, which no lookup minds."""
    encoded = sorted(filter(None, words))
    text = b"\n".join([b"", *encoded, b""]) if encoded else b""
    if text.count(b"\n") > len(encoded) + 1:  # never in the dictionary's keys: one pass over them to find out
        return word_file(w for w in encoded if b"\n" not in w)
    starts = array("I")
    at = 0 if encoded else -1
    while 0 <= at < len(text) - 1:
        starts.append(at)
        at = text.find(b"\n", at + CHUNK)
    return b"".join([_HEADER.pack(MAGIC, len(starts)), starts.tobytes(), text])


def _source() -> Path | None:
    """pyspellchecker's English word file, found without importing the package."""
    spec = find_spec("spellchecker")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "resources" / "en.json.gz"
    return path if path.is_file() else None


def _read_source(path: Path) -> list[bytes]:
    """The keys of the JSON word list, as UTF-8 bytes. Where no string has an escape and every one is
    followed by a colon (all are keys: the values are numbers) the keys are every other piece between
    quotes, found without parsing the JSON; else it is parsed."""
    import gzip  # here: only the first check reads the source
    import json

    raw = gzip.decompress(path.read_bytes())
    if b"\\" not in raw:
        keys = raw.split(b'"')[1::2]
        if len(keys) == raw.count(b'":'):
            return keys
    return [word.encode("utf-8", "surrogatepass") for word in json.loads(raw)]


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
        return WordList(word_file(()))
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
