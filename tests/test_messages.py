"""One line per problem, whatever the data holds.

A value quoted in a message (a name, a path, a key) comes from the data; a newline, a Unicode line
separator or a terminal escape in it must not split the report or forge a line of its own.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import time
from collections import Counter
from pathlib import Path

import pytest

from generator.cli import main as cadence
from generator.problems import Location, error, one_line, warning
from generator.report import NOT_CHECKED, format_problems

from .conftest import MINI, copy_project

LINE = re.compile(r"^[^:\n]+:\d+:\d+: (error|warning)\[[a-z-]+\]: ")
SUMMARY = re.compile(rf"^(no problems found|\d+ errors?, \d+ warnings?(; {re.escape(NOT_CHECKED)})?)$")
#: Everything Python's str.splitlines() breaks on, besides the ordinary newline.
BREAKERS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
HOSTILE = "a\nsrc/x.yaml:1:1: error[forged]: b\r\x1b[2Jc\x00d\u2028e\u2029f\x85g\u202eh\x0bi"


def test_one_line_escapes_what_could_split_or_forge_a_line() -> None:
    assert one_line(HOSTILE) == "a\\nsrc/x.yaml:1:1: error[forged]: b\\r\\x1b[2Jc\\x00d\\u2028e\\u2029f\\x85g\\u202eh\\x0bi"
    assert one_line('Heavy Armour (2) — 6" é') == 'Heavy Armour (2) — 6" é'


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_every_format_keeps_one_problem_on_one_line(fmt: str) -> None:
    problems = [
        error(Location(f"data/{HOSTILE}.yaml", 3, 4), "unknown-rule", f"unknown rule '{HOSTILE}'", hint=f"did you mean '{HOSTILE}'?"),
        warning(Location("data/b.yaml", 1, 1), "unused", f"weapon list '{HOSTILE}' is not offered to any unit"),
    ]
    output = format_problems(problems, fmt)
    lines = output.splitlines()
    assert len(lines) == len(problems) + (1 if fmt == "text" else 0)
    assert not any(char in output for char in BREAKERS + "\x1b\x00")
    if fmt == "json":
        first = json.loads(lines[0])
        assert (
            first["message"] == "unknown rule 'a\\nsrc/x.yaml:1:1: error[forged]: b\\r\\x1b[2Jc\\x00d\\u2028e\\u2029f\\x85g\\u202eh\\x0bi'"
        )
    if fmt == "text":
        assert all(LINE.match(line) for line in lines[:-1]) and SUMMARY.match(lines[-1])
        assert not any(line.startswith("src/x.yaml") for line in lines)


def test_a_name_with_a_line_break_cannot_forge_a_problem(tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    path = project / "data/skirmish/army-lists/rangers.yaml"
    forged = "Sidearms\\nsrc/evil.py:1:1: error[forged]: gotcha\\u2028\\e[31m"
    path.write_text(path.read_text().replace("lists: [Sidearms]", f'lists: ["{forged}"]'))
    code, output = _check(project)
    assert code == 1
    lines = output.splitlines()
    assert all(LINE.match(line) for line in lines[:-1]), output
    assert SUMMARY.match(lines[-1])
    assert not any(line.startswith("src/evil.py") for line in lines)
    assert any("Sidearms\\nsrc/evil.py:1:1: error[forged]: gotcha\\u2028\\x1b[31m" in line for line in lines), output


# --- two thousand mutated data files ----------------------------------------------------------------

TARGETS = ("data/system.yaml", "data/core/module.yaml", "data/skirmish/module.yaml", "data/skirmish/army-lists/rangers.yaml")
PIECES = [
    b"\n",
    b"\r",
    b"\r\n",
    "\u2028".encode(),
    "\u2029".encode(),
    "\u0085".encode(),
    "\u202e".encode(),
    "\ufeff".encode(),
    b"\x1b[31m",
    b"\x1b]8;;x\x07",
    b"\x00",
    b"\x07",
    b"\t",
    b"\xff",
    b"'",
    b'"',
    b"{",
    b"[",
    b": ",
    b"- ",
    b"#",
    b"&a ",
    b"*a",
    b"!!str ",
    b"---\n",
    b"...\n",
    b"%YAML 1.1\n",
    b"+2",
    b"yes",
    b"1:30",
]
#: Double-quoted YAML values whose escapes put line breaks and controls into names the checker quotes.
QUOTED = [
    '"x\\ny: forged"',
    '"a\\u2028b"',
    '"a\\rb"',
    '"\\e[2Jcleared"',
    '"nul\\0here"',
    '"tab\\there"',
    '"next\\Nline"',
    '"para\\Pgraph"',
    '"bell\\a"',
    '"data/x.yaml:1:1: error[fake]: forged"',
    '"\\u202eevil"',
]


def _mutate(data: bytes, rng: random.Random) -> bytes:
    """One to three seeded byte, line or value mutations of a data file."""
    for _ in range(rng.randint(1, 3)):
        how = rng.randrange(7)
        if how == 0 and data:
            at = rng.randrange(len(data))
            data = data[:at] + bytes([rng.randrange(256)]) + data[at + 1 :]
        elif how == 1:
            at = rng.randrange(len(data) + 1)
            data = data[:at] + rng.choice(PIECES) + data[at:]
        elif how == 2 and data:
            at = rng.randrange(len(data))
            data = data[:at] + data[at + rng.randint(1, 40) :]
        elif how in (3, 4):
            lines = data.split(b"\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            if how == 3:
                lines.insert(j, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            data = b"\n".join(lines)
        else:
            values = [m for m in re.finditer(rb"(?<=: )[^\n,{}\[\]]+", data)]
            if values:
                spot = rng.choice(values)
                data = data[: spot.start()] + rng.choice(QUOTED).encode() + data[spot.end() :]
    return data


def _check(project: Path) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cadence(["-C", str(project), "check"])
    return code, out.getvalue() + err.getvalue()


def test_two_thousand_mutated_data_files_give_one_line_per_problem(tmp_path: Path) -> None:
    project = copy_project(MINI, tmp_path / "mini")
    originals = {target: (project / target).read_bytes() for target in TARGETS}
    rng = random.Random(20261123)
    codes: Counter[int] = Counter()
    problem_lines = 0
    started, cpu = time.monotonic(), time.process_time()
    for number in range(2000):
        target = rng.choice(TARGETS)
        mutated = _mutate(originals[target], rng)
        (project / target).write_bytes(mutated)
        code, output = _check(project)
        (project / target).write_bytes(originals[target])
        codes[code] += 1
        lines = output.splitlines()
        assert lines and SUMMARY.match(lines[-1]), f"file {number} ({target}): {mutated!r}\n{output}"
        bad = [line for line in lines[:-1] if not LINE.match(line)]
        assert not bad, f"file {number} ({target}): {mutated!r}\n{output}"
        assert "Traceback" not in output
        assert code in (0, 1), f"file {number} ({target}) exit {code}: {mutated!r}\n{output}"
        problem_lines += len(lines) - 1
    print(
        f"\nmutated data files checked: 2000 in {time.monotonic() - started:.1f} s wall, {time.process_time() - cpu:.1f} s CPU; "
        f"exit codes {dict(sorted(codes.items()))}; problem lines {problem_lines}"
    )
    assert codes[1] > 1000
