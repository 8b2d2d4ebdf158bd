"""Stage projects with two generators and compare every staged file: a speed-up must not change a byte.

    .venv/bin/python bench/same_staging.py                      # where this branch left main vs the working tree
    .venv/bin/python bench/same_staging.py --base HEAD~3 --project /tmp/p10/generated

Each project (by default the repository itself and examples/wasteland-tactics; add the 10x data from
`bench/synth.py`) is staged by `python -m generator.staging ROOT TARGET --search-entries FILE` once with
the `generator/` of `--base` (extracted from git) and once with the working tree's, with the user cache
off (CADENCE_NO_CACHE=1) so that every page is rendered. Exit 1 and the differing files if any differ.
"""

from __future__ import annotations

import argparse
import filecmp
import io
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, check=True, capture_output=True, text=True).stdout.strip()


def extract(revision: str, into: Path) -> Path:
    """The `generator/` folder of a git revision, in `into`."""
    archive = subprocess.run(["git", "archive", revision, "generator"], cwd=REPO, check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def stage(code: Path, root: Path, target: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(code), CADENCE_NO_CACHE="1")
    # run from the scratch folder: `python -m` puts its working folder first on the path, which in the
    # repository would be the working tree's generator/ whatever PYTHONPATH says
    command = [sys.executable, "-m", "generator.staging", str(root), str(target), "--search-entries", str(target / "search-entries.json")]
    subprocess.run(command, cwd=target.parent, env=env, check=True, capture_output=True)


def differences(left: Path, right: Path) -> list[str]:
    """Files that differ, or are only on one side, as paths under the two folders."""
    found: list[str] = []

    def walk(compared: filecmp.dircmp[str], prefix: str) -> None:
        found.extend(f"{prefix}{name}" for name in (*compared.left_only, *compared.right_only, *compared.diff_files, *compared.funny_files))
        for name, sub in compared.subdirs.items():
            walk(sub, f"{prefix}{name}/")

    filecmp.clear_cache()
    walk(filecmp.dircmp(left, right, ignore=[]), "")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", help="git revision whose generator/ is the reference (default: the merge base of HEAD and main)")
    parser.add_argument("--project", type=Path, action="append", help="a project folder (repeatable; default: the repo and Wasteland)")
    args = parser.parse_args()
    projects = args.project or [REPO, REPO / "examples" / "wasteland-tactics"]
    with tempfile.TemporaryDirectory(prefix="same-staging-") as scratch:
        work = Path(scratch)
        revision = args.base or git("merge-base", "HEAD", "main")
        base = extract(revision, work / "base")
        print(f"reference: generator/ of {revision}")
        bad = 0
        for number, project in enumerate(projects):
            left, right = work / f"{number}-base", work / f"{number}-tree"
            stage(base, project.resolve(), left)
            stage(REPO, project.resolve(), right)
            differ = differences(left, right)
            bad += len(differ)
            print(f"{project}: {'identical' if not differ else f'{len(differ)} files differ'}")
            for path in differ[:20]:
                print(f"  {path}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
