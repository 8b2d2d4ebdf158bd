"""The cache of parsed files and check results: the same answers as without it, whatever is in it.

Every `cadence check` here is the real command in its own process, with `XDG_CACHE_HOME` in the test's
own folder, so what one run leaves is exactly what the next one finds.
"""

from __future__ import annotations

import dataclasses
import marshal
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from generator import cache, loader, stored
from generator.loader import LocFloat, LocInt, LocStr, YList, YMap, parse_yaml
from generator.model import Record
from generator.pages import load_project
from generator.schema import build_document

from .conftest import MINI, REPO, copy_project


def check(project: Path, cache_home: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    env.pop(cache.NO_CACHE_ENV, None)
    command = [sys.executable, "-m", "generator.cli", "--project", str(project), "check", *extra]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def entries(cache_home: Path, kind: str) -> list[Path]:
    return sorted((cache_home / "cadence-rules" / kind).rglob("*.marshal"))


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    return copy_project(MINI, tmp_path / "mini")


def test_an_unchanged_project_is_answered_from_the_cache_with_the_same_lines(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "cache"
    (project / "data" / "words.txt").write_text("")  # a few spelling warnings, so there are lines to repeat
    first = check(project, home, "--format", "github")
    assert entries(home, "built") and len(entries(home, "check")) == 1
    stored = entries(home, "check")[0].stat().st_mtime_ns
    second = check(project, home, "--format", "github")
    assert "::warning" in first.stdout
    assert (second.returncode, second.stdout, second.stderr) == (first.returncode, first.stdout, first.stderr)
    assert entries(home, "check")[0].stat().st_mtime_ns == stored  # answered, not computed and written again
    strict = check(project, home, "--format", "github", "--strict")  # other options: another entry
    assert strict.returncode == 1 and strict.stdout == first.stdout
    assert len(entries(home, "check")) == 2


def test_an_edit_shows_at_once_and_undoing_it_clears_it(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "cache"
    clean = check(project, home)
    assert clean.returncode == 0, clean.stdout
    system = project / "data" / "system.yaml"
    text = system.read_text()
    system.write_text(text + "unknown_key: 1\n")
    broken = check(project, home)
    assert broken.returncode == 1
    assert "data/system.yaml:" in broken.stdout and "unknown_key" in broken.stdout
    system.write_text(text)
    again = check(project, home)
    assert (again.returncode, again.stdout) == (0, clean.stdout)


def test_a_new_content_page_and_a_word_list_edit_are_seen(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "cache"
    assert check(project, home).returncode == 0
    (project / "content" / "new-page.md").write_text("# New\n\nSee [[No Such Rule]].\n")
    found = check(project, home)
    assert found.returncode == 1 and "content/new-page.md:3:" in found.stdout
    (project / "content" / "new-page.md").unlink()
    (project / "data" / "words.txt").write_text("")
    assert "warning[spelling]" in check(project, home).stdout


def _damage(paths: list[Path], how: str) -> None:
    for path in paths:
        data = path.read_bytes()
        if how == "truncated":
            path.write_bytes(data[: len(data) // 2])
        elif how == "flipped":
            path.write_bytes(data[:-1] + bytes([data[-1] ^ 0xFF]))
        elif how == "foreign":
            path.write_bytes(b"not a cache file at all")
        else:  # well framed, with a checksum that fits, holding values the generator never writes
            body = marshal.dumps(("not ours", ["odd", {"shape": 1}], (9, 9, 9, 9, 9)))
            path.write_bytes(cache.header(body) + body)


@pytest.mark.parametrize("how", ["truncated", "flipped", "foreign", "wrong shape"])
def test_a_damaged_cache_is_ignored_and_written_again(project: Path, tmp_path: Path, how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    (project / "data" / "words.txt").write_text("")
    first = check(project, home)
    damaged = entries(home, "built") + entries(home, "check")
    _damage(damaged, how)
    second = check(project, home)
    assert (second.returncode, second.stdout, second.stderr) == (first.returncode, first.stdout, first.stderr)
    assert not second.stderr
    for path in damaged:  # every damaged entry was replaced by a good one
        stored = cache.read(path.parent.parent.name, path.stem)
        assert stored is not None and stored[0] != "not ours"


def test_a_damaged_entry_never_hides_a_new_problem(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "cache"
    assert check(project, home).returncode == 0
    _damage(entries(home, "built") + entries(home, "check"), "flipped")
    (project / "data" / "system.yaml").write_text((project / "data" / "system.yaml").read_text() + "unknown_key: 1\n")
    assert check(project, home).returncode == 1


def test_no_cache_reads_and_writes_nothing(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "cache"
    result = check(project, home, "--no-cache")
    assert result.returncode == 0, result.stdout
    assert not (home / "cadence-rules" / "built").exists() and not (home / "cadence-rules" / "check").exists()


def test_a_link_out_of_the_project_turns_the_check_memo_off(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / "content" / "elsewhere").symlink_to(outside)
    assert cache.project_digest(project, "data", "content") is None
    home = tmp_path / "cache"
    result = check(project, home)
    assert result.returncode == 1 and "unsafe-path" in result.stdout
    assert not entries(home, "check")


def test_a_memo_started_after_answering_keeps_nothing_when_a_file_changed_between(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`start` after `answer` takes the digest `answer` took instead of walking the folders again: a file
    edited after the answer and before the work must still keep the work's value out of the memo."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)

    def memo() -> cache.ProjectMemo:
        return cache.ProjectMemo("check", project, ("t",), lambda v: isinstance(v, str))

    first = memo()
    first.start("data", "content")
    first.store("data", "content", "old")
    walks: list[int] = []
    digest = cache.project_digest
    monkeypatch.setattr(cache, "project_digest", lambda *a: walks.append(1) or digest(*a))
    second = memo()
    assert second.answer() == "old"
    rules = project / "data" / "system.yaml"
    rules.write_text(rules.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")  # after the answer
    second.start("data", "content")
    assert walks == [1]  # the answer's digest, not a second walk
    second.store("data", "content", "new")  # worked out from the edited file: not under the old digest
    assert walks == [1, 1] and memo().answer() is None
    third = memo()
    third.start("data", "content")
    third.store("data", "content", "new")
    assert memo().answer() == "new"


def _same(a: Any, b: Any) -> None:
    """Two located values alike in type, value, place and written form, all the way down."""
    assert type(a) is type(b)
    if isinstance(a, (LocStr, LocInt, LocFloat, YMap, YList)):
        assert a.loc == b.loc
    if isinstance(a, (LocInt, LocFloat)):
        assert a.source == b.source
    if isinstance(a, YMap):
        assert list(a) == list(b) and a.key_locs == b.key_locs
        for name in a:
            _same(a[name], b[name])
    elif isinstance(a, YList):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    else:
        assert a == b


def _parsed_files(folder: str) -> Iterator[tuple[str, Any, list[Any]]]:
    """Every data file under `folder` as the loader parses it: its path, located body and read problems."""
    files = sorted((REPO / folder).rglob("*.yaml"))
    assert files
    for path in files:
        rel = path.relative_to(REPO).as_posix()
        body, problems = parse_yaml(path.read_text(encoding="utf-8"), rel)
        assert body is not None
        yield rel, body, problems


@pytest.mark.parametrize("folder", ["data", "examples/wasteland-tactics/data"])
def test_a_cached_file_reads_back_as_parsed(folder: str) -> None:
    """Every shipped data file, through the cache's encoding and back: the same values, places and problems."""
    for rel, body, problems in _parsed_files(folder):
        stored = marshal.loads(marshal.dumps(loader._encode_document(body, problems)))
        document, read_back = loader._decode_document(stored, rel)
        _same(body, document.body)
        assert read_back == problems


def test_values_yaml_reads_otherwise_keep_their_problems_through_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = tmp_path / "x.yaml"
    path.write_text("a: 1\nb: +2\nc: 1.50\na: 3\nd: [yes, 'no', ~, 1e3]\n")
    parsed = loader.load_file(path, "data/x.yaml")
    assert entries(tmp_path / "cache", "parsed")
    cached = loader.load_file(path, "data/x.yaml")
    assert parsed[0] is not None and cached[0] is not None
    _same(parsed[0].body, cached[0].body)
    assert [str(p) for p in parsed[1]] == [str(p) for p in cached[1]] and len(parsed[1]) == 4


def test_every_file_the_check_reads_is_in_the_project_digest(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An in-process check, watched through an audit hook: changing any project file it opens changes the digest.

    This is what makes the memo sound; a new check that reads a new kind of file fails here.
    """
    monkeypatch.setenv(cache.NO_CACHE_ENV, "1")
    (project / "data" / "core" / "notes.txt").write_text("any file under data/ may be an erratum's patch target\n")
    opened: list[str] = []
    watching = [True]

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if watching and event == "open" and isinstance(args[0], (str, Path)):
            opened.append(os.path.realpath(args[0]))

    sys.addaudithook(hook)  # an audit hook cannot be removed; it stops recording below
    try:
        load_project(project)
    finally:
        watching.clear()
    top = os.path.realpath(project)
    read = sorted({p for p in opened if p.startswith(top + os.sep)})
    assert any(p.endswith(".yaml") for p in read) and any(p.endswith(".md") for p in read)
    before = cache.project_digest(project, "data", "content")
    for path in [*read, str(project / "data" / "core" / "notes.txt")]:
        original = Path(path).read_bytes()
        Path(path).write_bytes(original + b" ")
        assert cache.project_digest(project, "data", "content") != before, path
        Path(path).write_bytes(original)
    assert cache.project_digest(project, "data", "content") == before


def _same_record(a: Any, b: Any, where: str = "") -> None:
    """Two built values alike in type, value and place all the way down, records field by field."""
    assert type(a) is type(b), where
    if isinstance(a, Record):
        assert a.loc == b.loc, where
        for f in dataclasses.fields(a):
            _same_record(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for (key, value), (other_key, other) in zip(a.items(), b.items(), strict=True):
            _same_record(key, other_key, where)
            _same_record(value, other, f"{where}.{key}")
        if isinstance(a, YMap):
            assert a.loc == b.loc and a.key_locs == b.key_locs, where
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        if isinstance(a, YList):
            assert a.loc == b.loc, where
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            _same_record(x, y, f"{where}[{index}]")
    else:
        _same(a, b)


@pytest.mark.parametrize("folder", ["data", "examples/wasteland-tactics/data", "tests/fixtures/mini/data"])
def test_a_stored_record_reads_back_as_built(folder: str) -> None:
    """Every shipped data file's record, through the cache's encoding and back: the same records, values and places."""
    for rel, body, read in _parsed_files(folder):
        built = (rel, *build_document(body, rel))
        assert built[2] is not None
        read_back, again = stored.decode_built(marshal.loads(marshal.dumps(stored.encode_built(read, built))))
        _same_record(built, again, rel)
        assert read_back == read


def test_a_stored_record_with_problems_reads_back_with_them(tmp_path: Path) -> None:
    """A file whose record fails to build, and one with reading and building problems: the same problems."""
    for text in ("module:\n  id: Bad Id\n  title: 3\n  colour: red\n", "system:\n  name: x\n  a: 1\n  a: 2\n  b: +2\n"):
        body, read = parse_yaml(text, "data/x.yaml")
        assert body is not None
        built = ("data/x.yaml", *build_document(body, "data/x.yaml"))
        assert built[3] or read
        read_back, again = stored.decode_built(marshal.loads(marshal.dumps(stored.encode_built(read, built))))
        _same_record(built, again)
        assert read_back == read and [p.data_path for p in again[3]] == [p.data_path for p in built[3]]


def test_the_digest_reads_as_much_of_a_file_as_the_check(project: Path) -> None:
    """A huge file is not hashed whole (the check reads one byte past the limit and stops), yet a change within
    what the check reads, or in the size it reports, changes the digest."""
    assert cache.READ_LIMIT == loader.MAX_FILE_BYTES + 1
    huge = project / "data" / "huge.yaml"
    huge.write_bytes(b"a: 1\n" + b"#" * (loader.MAX_FILE_BYTES + 10))
    before = cache.project_digest(project, "data", "content")
    with huge.open("r+b") as handle:
        handle.seek(loader.MAX_FILE_BYTES + 5)
        handle.write(b"!")  # beyond what the check reads: the same check, the same digest
    assert cache.project_digest(project, "data", "content") == before
    with huge.open("r+b") as handle:
        handle.seek(2)
        handle.write(b"2")
    edited = cache.project_digest(project, "data", "content")
    assert edited != before
    with huge.open("ab") as handle:
        handle.write(b"#")  # only the size changes within what the check sees: it reports the size
    assert cache.project_digest(project, "data", "content") != edited


def test_a_settled_file_is_read_once_a_process_and_again_when_it_changes(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Staging takes the project's digest up to four times: a file unchanged since is not read again. A
    rewrite that keeps the size and puts the modification time back still changes the change time; a
    file written just now (it may change again within its timestamps' resolution) is read at every look."""
    monkeypatch.setattr(cache, "_HASHED", {})
    opened: list[str] = []

    def counting_open(path: str, mode: str = "r") -> Any:
        opened.append(os.path.basename(path))
        return open(path, mode)

    monkeypatch.setattr(cache, "open", counting_open, raising=False)
    monkeypatch.setattr(cache, "SETTLED_NS", 0)  # every file counts as settled once hashed
    before = cache.project_digest(project, "data", "content")
    assert "module.yaml" in opened
    opened.clear()
    assert cache.project_digest(project, "data", "content") == before
    assert opened == []
    edited = next((project / "data").rglob("module.yaml"))
    info = edited.stat()
    text = edited.read_bytes()
    edited.write_bytes(text.replace(b"a", b"b", 1))
    os.utime(edited, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert cache.project_digest(project, "data", "content") != before
    assert opened == ["module.yaml"]
    edited.write_bytes(text)
    monkeypatch.setattr(cache, "SETTLED_NS", 3_600 * 10**9)  # written within the hour: read at every look
    opened.clear()
    assert cache.project_digest(project, "data", "content") == before
    assert cache.project_digest(project, "data", "content") == before
    assert opened == ["module.yaml", "module.yaml"]  # the files hashed before, settled then, are not read


def test_a_second_load_in_a_process_takes_unchanged_records_from_the_last_and_reads_an_edited_file(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cadence serve` loads the project after every edit: an unchanged file's record is the last load's, not
    decoded from the disk cache again; an edited file is parsed again and its new record is the one used."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(stored, "_last_load", {})
    read_back: list[str] = []
    parsed: list[str] = []
    cache_read, parse = cache.read, stored.parse_yaml
    monkeypatch.setattr(cache, "read", lambda kind, entry: read_back.append(kind) or cache_read(kind, entry))
    monkeypatch.setattr(stored, "parse_yaml", lambda text, rel: parsed.append(rel) or parse(text, rel))
    first = load_project(project)
    data_files = len(parsed)
    assert data_files > 3 and read_back.count("built") == data_files
    parsed.clear()
    read_back.clear()
    second = load_project(project)
    assert parsed == [] and "built" not in read_back
    assert [str(p) for p in second.problems] == [str(p) for p in first.problems]
    rangers = project / "data" / "skirmish" / "army-lists" / "rangers.yaml"
    rangers.write_text(rangers.read_text().replace("Each Ranger takes one sidearm.", "Each Ranger takes one sidearmm."))
    edited = load_project(project)
    assert parsed == ["data/skirmish/army-lists/rangers.yaml"] and read_back.count("built") == 1
    assert any("'sidearmm' is not a known word" in str(p) for p in edited.problems)
    monkeypatch.setenv(cache.NO_CACHE_ENV, "1")  # no cache: nothing kept either
    parsed.clear()
    assert [str(p) for p in load_project(project).problems] == [str(p) for p in edited.problems]
    assert len(parsed) == data_files


def test_a_check_after_an_edit_looks_again_only_at_the_texts_that_changed(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spelling and unsafe markup keep what they found in each text (`checks.texts`): a second check of the
    same texts works out none of them, an edited text is looked at alone, and the problems are those a
    check without any cache finds."""
    from generator.checks import markup, spelling

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    looked: list[str] = []
    unknown, removed = spelling._unknown_words, markup._removed_if_any
    monkeypatch.setattr(spelling, "_unknown_words", lambda text, words: looked.append(str(text)) or unknown(text, words))
    monkeypatch.setattr(markup, "_removed_if_any", lambda text: looked.append(str(text)) or removed(text))

    def problems() -> list[str]:
        looked.clear()
        return [str(p) for p in load_project(project).problems]

    first = problems()
    assert len(looked) > 20 and any("core rules" in text for text in looked)  # content pages and data texts
    assert problems() == first and looked == []
    rangers = project / "data" / "skirmish" / "army-lists" / "rangers.yaml"
    rangers.write_text(rangers.read_text().replace("Each Ranger takes one sidearm.", "Each Ranger takes one sidearmm."))
    edited = problems()
    assert set(looked) == {"Each Ranger takes one sidearmm."}  # by both checks, and no other text
    assert any("'sidearmm' is not a known word" in line for line in edited) and not any("sidearmm" in line for line in first)
    monkeypatch.setenv(cache.NO_CACHE_ENV, "1")
    assert problems() == edited
    monkeypatch.delenv(cache.NO_CACHE_ENV)
    words = project / "data" / "words.txt"
    words.write_text(words.read_text() + "sidearmm\n")  # another word list: every text is looked at again
    assert not any("sidearmm" in line for line in problems()) and len(looked) > 20


def test_a_check_after_an_edit_checks_again_only_the_lists_of_the_game_it_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-list checks keep each army list's problems (`checks.lists`): an unchanged project checks no list
    again; a profile value broken in one game's list checks that game's lists alone, and reports it; the
    problems are always those of a check without any cache."""
    from generator.checks.lists import ListMemo

    project = copy_project(REPO, tmp_path / "project")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)
    worked: list[tuple[str, str]] = []
    find = ListMemo.find
    monkeypatch.setattr(
        ListMemo,
        "find",
        lambda memo, check, p, entry, work: find(memo, check, p, entry, lambda: worked.append((check, entry.module)) or work()),
    )

    def problems() -> list[str]:
        worked.clear()
        return [str(p) for p in load_project(project).problems]

    def uncached() -> list[str]:
        monkeypatch.setenv(cache.NO_CACHE_ENV, "1")
        found = problems()
        monkeypatch.delenv(cache.NO_CACHE_ENV)
        return found

    first = problems()
    checks = {check for check, _ in worked}
    per_list = {"check_profiles", "check_budgets", "check_unstated_values", "check_list_spelling", "check_list_markup"}
    assert checks == per_list and len({m for _, m in worked}) > 3
    [kept] = entries(tmp_path / "cache", "lists")
    written = kept.stat().st_mtime_ns
    assert problems() == first and worked == []
    assert kept.stat().st_mtime_ns == written  # nothing new found: the entry is not written again
    marauders = project / "data" / "fracture" / "army-lists" / "marauders.yaml"
    published = marauders.read_text(encoding="utf-8")
    brute = 'profile: {cmd: 5, mov: 6", skl: 4+, def: 5+, tgh: 5, hp: 6}'
    assert brute in published
    marauders.write_text(published.replace(brute, brute.replace("hp: 6", "hp: six")), encoding="utf-8")
    broken = problems()
    assert worked and {m for _, m in worked} == {"fracture"}
    assert any("marauders.yaml" in line and "value-form" in line and "'six'" in line for line in broken)
    assert broken == uncached()
    marauders.write_text(published, encoding="utf-8")
    assert problems() == first == uncached()


def test_the_lists_problems_are_not_kept_when_a_data_file_changed_while_checking(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-list problems are kept under the files as they were before the project was read: a file saved
    while the checks run keeps nothing, and the next check checks every list again."""
    from generator.checks.lists import ListMemo

    project = copy_project(REPO, tmp_path / "project")
    home = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)
    find = ListMemo.find
    rules = project / "data" / "fracture" / "module.yaml"

    def saving_meanwhile(memo: ListMemo, check: str, p: Any, entry: Any, work: Any) -> Any:
        if "# saved meanwhile" not in rules.read_text(encoding="utf-8"):
            rules.write_text(rules.read_text(encoding="utf-8") + "\n# saved meanwhile\n", encoding="utf-8")
        return find(memo, check, p, entry, work)

    monkeypatch.setattr(ListMemo, "find", saving_meanwhile)
    load_project(project)
    assert entries(home, "lists") == []
    monkeypatch.setattr(ListMemo, "find", find)
    load_project(project)
    assert len(entries(home, "lists")) == 1


def test_the_findings_of_a_text_no_check_saw_for_a_month_are_dropped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A text an army list kept whole (`checks.lists`) is not seen until the list changes: its findings stay
    kept for `KEEP_DAYS` days after a run last saw it, then go, so the entry holds a month of edits."""
    from generator.checks import texts

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)
    looked: list[str] = []

    def spell(text: str) -> tuple[str, ...]:
        looked.append(text)
        return (text.upper(),)

    def run(days_later: float, *seen: str) -> None:
        monkeypatch.setattr(texts.time, "time", lambda: 1_800_000_000 + days_later * 24 * 60 * 60)
        memo = texts.TextMemo("a project")
        for text in seen:
            assert memo.find("spelling", text, spell) == (text.upper(),)
        memo.save()

    run(0, "kept whole", "edited")
    run(10, "edited again")  # the list holding "kept whole" did not change: not seen
    looked.clear()
    run(20, "kept whole")
    assert looked == []  # still kept, 20 days after it was seen
    run(45, "edited again")
    looked.clear()
    run(46, "kept whole", "edited")
    assert looked == ["edited"]  # "kept whole" was seen on day 20; "edited" last on day 0, over a month before


def test_an_erratum_patch_is_counted_again_only_when_its_file_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The errata check counts each patch's text in its file once per version of the file (kept by the file's
    digest): a second check reads no patched file, and a file changed so a patch's text occurs twice is
    reported, as a check without any cache reports it."""
    from generator.checks import errata

    project = copy_project(REPO, tmp_path / "project")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)
    opened: list[str] = []
    read_text = errata.read_text
    monkeypatch.setattr(errata, "read_text", lambda path, rel: opened.append(rel) or read_text(path, rel))

    def problems() -> list[str]:
        opened.clear()
        return [str(p) for p in load_project(project).problems]

    first = problems()
    assert "data/fracture/army-lists/marauders.yaml" in opened
    assert problems() == first and opened == []
    marauders = project / "data" / "fracture" / "army-lists" / "marauders.yaml"
    marauders.write_text(marauders.read_text(encoding="utf-8") + "\n# name: Frag Grenade\n", encoding="utf-8")
    edited = problems()
    assert opened == ["data/fracture/army-lists/marauders.yaml"]
    assert any("erratum-patch" in line and "occurs 2 times in fracture/army-lists/marauders.yaml" in line for line in edited)
    monkeypatch.setenv(cache.NO_CACHE_ENV, "1")
    assert problems() == edited


@pytest.mark.parametrize("cache_on", [True, False])
def test_an_erratum_patch_of_a_missing_file_is_a_located_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache_on: bool) -> None:
    """A patch naming a file that is not there is reported where the patch names it, with the cache and
    without, and again from whatever the first check kept. (A FIFO in the data folder is refused by the
    loader before any check runs: `test_hostile`.)"""
    project = copy_project(REPO, tmp_path / "project")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    if cache_on:
        monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)
    else:
        monkeypatch.setenv(cache.NO_CACHE_ENV, "1")
    module = project / "data" / "fracture" / "module.yaml"
    text = module.read_text(encoding="utf-8")
    line = text[: text.index("file: fracture/army-lists/marauders.yaml")].count("\n") + 1  # the first patch's line
    module.write_text(text.replace("file: fracture/army-lists/marauders.yaml", "file: fracture/nowhere.yaml", 1), encoding="utf-8")
    for _ in range(2):
        assert [str(p) for p in load_project(project).problems] == [
            f"data/fracture/module.yaml:{line}:15: error[missing]: erratum patch file 'fracture/nowhere.yaml' cannot be read: no such file"
        ]


def _age(folder: Path, days: float) -> None:
    """Make every file under `folder` look last used `days` ago."""
    then = time.time() - days * 24 * 60 * 60
    for path in folder.rglob("*"):
        if path.is_file():
            os.utime(path, (then, then))


def test_entries_unused_for_a_month_are_pruned_and_used_ones_kept(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "cache"
    system = project / "data" / "system.yaml"
    original = system.read_text(encoding="utf-8")
    assert check(project, home).returncode == 0
    system.write_text(original + "\n# first edit\n", encoding="utf-8")
    assert check(project, home).returncode == 0
    data_files = len(list((project / "data").rglob("*.yaml")))
    assert len(entries(home, "built")) == data_files + 1  # the system file's record before the edit is left behind
    _age(home, cache.KEEP_DAYS + 5)  # a month and more later, the stamp of the last pruning too
    system.write_text(original + "\n# second edit\n", encoding="utf-8")
    words = project / "data" / "words.txt"
    words.write_text(words.read_text(encoding="utf-8") + "zyx\n", encoding="utf-8")  # every text is spell-checked again
    again = check(project, home)
    # the other files' records were read, so kept; the two old records of the system file were not
    assert len(entries(home, "built")) == data_files and len(entries(home, "check")) == 1
    assert list((home / "cadence-rules").glob("*.words"))  # the spelling word file was used (for the texts): kept
    plain = subprocess.run(
        [sys.executable, "-m", "generator.cli", "--project", str(project), "check"],
        capture_output=True, text=True, env={**os.environ, cache.NO_CACHE_ENV: "1"}, timeout=120,
    )  # fmt: skip
    assert (again.returncode, again.stdout) == (plain.returncode, plain.stdout)


def test_pruning_runs_at_most_once_a_day(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache.write("built", "ab" * 20, ("old",))
    _age(tmp_path, cache.KEEP_DAYS + 1)
    assert [p.name for p in cache.prune()] == [f"{'ab' * 20}.marshal"]
    cache.write("built", "cd" * 20, ("new",))
    _age(tmp_path, cache.KEEP_DAYS + 1)
    (tmp_path / "cadence-rules" / ".pruned").touch()  # pruned today: not again
    assert cache.prune() == [] and cache.read("built", "cd" * 20) == ("new",)


def test_a_build_after_a_check_takes_its_problems_and_an_edit_checks_again(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from generator import pages
    from generator.staging import stage

    home = tmp_path / "cache"
    (project / "data" / "words.txt").write_text("")  # spelling warnings: problems to carry over
    monkeypatch.setenv(cache.NO_CACHE_ENV, "1")
    expected = [str(p) for p in load_project(project).problems]
    assert any("warning[spelling]" in line for line in expected)
    assert check(project, home).returncode == 0
    monkeypatch.delenv(cache.NO_CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    found = pages.run_checks
    calls: list[int] = []
    monkeypatch.setattr(pages, "run_checks", lambda *a, **k: calls.append(1) or found(*a, **k))
    staged = stage(project, tmp_path / "built", tmp_path / "built/site")
    assert staged.loaded is not None and [str(p) for p in staged.loaded.problems] == expected
    assert calls == []  # the checks' problems came from the check's run
    system = project / "data" / "system.yaml"
    system.write_text(system.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    stage(project, tmp_path / "again", tmp_path / "again/site")
    assert calls == [1]


def test_a_stored_problem_reads_back_equal() -> None:
    from generator.problems import Location, Problem, Severity

    problem = Problem(
        location=Location("data/x.yaml", 3, 7), severity=Severity.WARNING, code="spelling", message="m", hint="h", data_path="a[1]"
    )
    back = Problem.from_plain(marshal.loads(marshal.dumps(problem.to_plain())))
    assert back == problem and str(back) == str(problem) and back.data_path == "a[1]"
    with pytest.raises((TypeError, ValueError)):
        Problem.from_plain(("data/x.yaml", "3", 7, "warning", "c", "m", "", ""))


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_staging_an_unchanged_project_writes_the_last_staging_again(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cadence build`'s staging step (`python -m generator.staging`) of an unchanged project loads, checks
    and renders nothing: it writes out what the last staging wrote, byte for byte, search entries and
    warnings included. Any file staging reads (content images, the theme's overrides, data) stages anew."""
    from generator import staging

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)
    (project / "data" / "words.txt").write_text("")  # spelling warnings: problems the memo must repeat
    (project / "content" / "map.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("  name: material\n", "  name: material\n  custom_dir: overrides\n"))
    staged = staging.stage
    calls: list[Path] = []
    monkeypatch.setattr(staging, "stage", lambda root, target, *a: calls.append(target) or staged(root, target, *a))

    def run(name: str) -> tuple[int, str, dict[str, bytes]]:
        target = tmp_path / name
        code = staging.main([str(project), str(target), "--search-entries", str(tmp_path / f"{name}.json")])
        return code, (tmp_path / f"{name}.json").read_text(encoding="utf-8"), _tree(target)

    first = run("first")
    assert calls == [tmp_path / "first"] and first[0] == 0 and "docs/map.png" in first[2]
    assert run("again") == first and len(calls) == 1  # written out again, not staged
    (kept,) = entries(tmp_path / "cache", cache.STAGED_FILES)  # the staging's files, all in one entry
    kept.write_bytes(kept.read_bytes()[:-1])  # a damaged entry: that staging is not written out again
    assert run("damaged") == first and len(calls) == 2
    # the files of another staging under the memo's entry (a build stopped between its two writes): staged anew
    body = cache.read_body(cache.STAGED_FILES, kept.stem)
    assert body is not None and staging.unpacked_files(body[cache.TOKEN_BYTES :]) == first[2]
    cache.write_parts(cache.STAGED_FILES, kept.stem, (bytes(cache.TOKEN_BYTES), bytes(body[cache.TOKEN_BYTES :])))
    assert run("other") == first and len(calls) == 3
    assert staging.main([str(project), str(tmp_path / "strict"), "--strict"]) == 1  # the warnings still count
    edits = {
        "content/map.png": "PNG, edited",
        "overrides/main.html": "{% extends 'base.html' %}",
        "data/system.yaml": (project / "data" / "system.yaml").read_text(encoding="utf-8") + "\n# edited\n",
    }
    for number, (path, text) in enumerate(edits.items()):
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text, encoding="utf-8")
        before = len(calls)
        code, _, tree = run(f"edit-{number}")
        assert code == 0 and len(calls) == before + 1, path  # staged anew
        monkeypatch.setenv(cache.NO_CACHE_ENV, "1")
        assert tree == run(f"plain-{number}")[2], path  # and as a staging without any cache
        monkeypatch.delenv(cache.NO_CACHE_ENV)


def test_a_staging_s_files_read_back_as_written_and_other_bytes_are_refused(tmp_path: Path) -> None:
    from generator import staging

    (tmp_path / "docs" / "a").mkdir(parents=True)
    (tmp_path / staging.CONFIG_NAME).write_bytes(b"site_name: x\n")
    (tmp_path / "docs" / "a" / "page.md").write_bytes(b"# Page\n")
    (tmp_path / "docs" / "empty.md").write_bytes(b"")
    body = b"".join(staging.packed_files(tmp_path, b"t" * cache.TOKEN_BYTES))
    assert body[: cache.TOKEN_BYTES] == b"t" * cache.TOKEN_BYTES
    files = body[cache.TOKEN_BYTES :]
    assert staging.unpacked_files(memoryview(files)) == {
        staging.CONFIG_NAME: b"site_name: x\n",
        "docs/a/page.md": b"# Page\n",
        "docs/empty.md": b"",
    }
    for cut in range(1, len(files)):  # cut anywhere: whole files only (the entry's CRC finds the cut), never an error
        found = staging.unpacked_files(memoryview(files[:cut]))
        assert found is None or set(found) < {staging.CONFIG_NAME, "docs/a/page.md", "docs/empty.md"}
    assert staging.unpacked_files(memoryview(b"\xff\xff\xff\xff" + files)) is None


def test_a_link_out_of_the_project_turns_the_staging_memo_off(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Followed links out of the project make its digest unknowable: every staging stages anew, and none
    keeps files it could never be answered with."""
    from generator import staging

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)
    monkeypatch.setenv(staging.FOLLOW_OUTSIDE_LINKS, "1")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "page.md").write_text("# Outside\n")
    (project / "content" / "outside").symlink_to(outside)
    staged = staging.stage
    calls: list[Path] = []
    monkeypatch.setattr(staging, "stage", lambda root, target, *a: calls.append(target) or staged(root, target, *a))
    for name in ("first", "again"):
        assert staging.main([str(project), str(tmp_path / name)]) == 0
        assert (tmp_path / name / "docs" / "outside" / "page.md").is_file()
    assert len(calls) == 2
    assert entries(tmp_path / "cache", "staged") == [] and entries(tmp_path / "cache", cache.STAGED_FILES) == []


def test_an_edited_generator_theme_template_or_asset_reaches_the_next_build(project: Path, tmp_path: Path) -> None:
    """The kept pages and the last staging are keyed by the generator's hash: it covers its templates, theme
    and assets too, so an upgrade that changes only a stylesheet or the page template is built, not the last
    staging written out again."""
    package = tmp_path / "code" / "generator"
    shutil.copytree(REPO / "generator", package, ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(package.parent), "NO_MKDOCS_2_WARNING": "1"}
    env.pop(cache.NO_CACHE_ENV, None)

    def build() -> str:
        site = tmp_path / "site"
        command = [sys.executable, "-m", "generator.cli", "--project", str(project), "build", "--quiet", "--site-dir", str(site)]
        result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        return (site / "index.html").read_text(encoding="utf-8") + (site / "assets" / "rules" / "rules.css").read_text(encoding="utf-8")

    assert "rules-games" in build()
    theme, style = package / "theme" / "main.html", package / "assets" / "rules.css"
    theme.write_text(theme.read_text(encoding="utf-8").replace("{{ super() }}", "{{ super() }}<!-- theme-edited -->"), encoding="utf-8")
    style.write_text(style.read_text(encoding="utf-8") + "\n/* style-edited */\n", encoding="utf-8")
    built = build()
    assert "<!-- theme-edited -->" in built and "/* style-edited */" in built


@pytest.mark.parametrize(("size", "read"), [(0, 0), (5, 5), (10, 10), (11, 11), (50, 11)])
def test_a_file_is_read_up_to_one_byte_past_the_limit(tmp_path: Path, size: int, read: int) -> None:
    """What `read_text` and the digests read: the whole file, or one byte past the limit to tell it is over."""
    path = tmp_path / "f"
    path.write_bytes(bytes(range(size)))
    fd = os.open(path, os.O_RDONLY)
    try:
        assert cache.read_at_most(fd, size, 10) == bytes(range(read))
    finally:
        os.close(fd)


def test_a_file_that_grows_after_its_size_was_taken_is_read_on(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 30)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert cache.read_at_most(fd, 4, 100) == b"x" * 30  # its size was taken at 4 bytes
        os.lseek(fd, 0, os.SEEK_SET)
        assert cache.read_at_most(fd, 4, 10) == b"x" * 11
    finally:
        os.close(fd)
