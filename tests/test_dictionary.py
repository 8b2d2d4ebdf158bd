"""The English dictionary's word file: the words pyspellchecker ships, found without loading them all."""

from __future__ import annotations

import os
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


def test_bytes_that_are_not_a_word_file_are_refused() -> None:
    with pytest.raises(ValueError):
        WordList(b"armour\narm\n")


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
