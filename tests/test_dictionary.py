"""The English dictionary's word file: the words pyspellchecker ships, found without loading them all."""

from __future__ import annotations

import gzip
import os
import random
import sys
from pathlib import Path

import pytest

from generator.checks import dictionary
from generator.checks.dictionary import WordList, word_file


def test_a_word_file_holds_exactly_its_words() -> None:
    words = {"armour", "arm", "armoured", "café", "o'clock", "zeal", "a"}
    found = WordList(word_file([w.encode("utf-8") for w in [*words, "", "with\nnewline", "arm"]]))
    assert all(word in found for word in words)
    for stranger in ("", "ar", "armou", "armours", "Armour", "cafe", "zeal\n", "b", "armour\narm", "with\nnewline", "with"):
        assert stranger not in found, stranger


def test_words_in_any_order_are_found_in_every_chunk_and_no_others_are() -> None:
    rng = random.Random(7)
    letters = "abcdefghijklmnopqrstuvwxyzé'"
    words = {"".join(rng.choice(letters) for _ in range(rng.randint(1, 12))) for _ in range(8_000)}
    found = WordList(word_file(w.encode("utf-8") for w in words))
    assert len(found._starts) > 40  # the words span many chunks, each looked up by its first word
    assert all(word in found for word in words)
    strangers = {w + "q" for w in words} | {w[:-1] for w in words} | {w.upper() for w in words}
    assert not [word for word in strangers - words if word in found]
    assert "" not in found and "\n" not in found and "\x00" not in found


def test_bytes_that_are_not_a_word_file_are_refused() -> None:
    with pytest.raises(ValueError):
        WordList(b"armour\narm\n")
    good = word_file([b"arm", b"armour", b"zeal"])
    assert "zeal" in WordList(good)
    with pytest.raises(ValueError):  # a chunk that does not start at a line
        WordList(good[:8] + (2).to_bytes(4, sys.byteorder) + good[12:])
    with pytest.raises(ValueError):  # cut short
        WordList(good[:-1])


def test_the_english_words_are_cached_once_and_read_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    words = dictionary.english()
    assert "armour" in words and "the" in words and "armourr" not in words
    (cached,) = (tmp_path / "cadence-rules").iterdir()
    inode = cached.stat().st_ino
    os.utime(cached, ns=(1, 1))
    again = dictionary.english()
    assert "armour" in again and "armourr" not in again
    assert cached.stat().st_ino == inode  # read, not written again (a write renames a new file into place)
    assert cached.stat().st_mtime_ns > 1  # but marked used, so pruning keeps it


def test_a_damaged_cache_is_written_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    dictionary.english()
    (cached,) = (tmp_path / "cadence-rules").iterdir()
    cached.write_bytes(b"CDW1")
    assert "armour" in dictionary.english()
    assert "armour" in WordList(cached.read_bytes())


def test_without_a_writable_cache_the_words_stay_in_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    words = dictionary.english()
    assert "armour" in words and "armourr" not in words


def test_the_source_is_read_for_its_keys_only(tmp_path: Path) -> None:
    source = tmp_path / "en.json.gz"
    source.write_bytes(gzip.compress(b'{"arm": 1, "zeal": "x", "o\'clock": 2}'))  # a value that is a string
    assert sorted(dictionary._read_source(source)) == [b"arm", b"o'clock", b"zeal"]
    source.write_bytes(gzip.compress(b'{"caf\\u00e9": 1, "arm": 3}'))  # an escape
    assert sorted(dictionary._read_source(source)) == [b"arm", "café".encode()]
    source.write_bytes(gzip.compress(b'{\n"a": 5,\n"arm": 3\n}'))
    assert dictionary._read_source(source) == [b"a", b"arm"]
