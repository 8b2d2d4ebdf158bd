"""Synthetic data for the benchmarks: the shipped Cadence project scaled N times.

`scale(root, out, n)` writes two projects under `out`:

* `out/generated/` — a rules project (data/, content/, overrides/, mkdocs.yml with the `rules` plugin)
  where every non-core module is replicated N times under new ids and folders (`fracture`,
  `fracture-2`, … `fracture-N`). Module id, title, page paths, `pages`, army list `page`, `uses`,
  errata files, directives (`[% special-rules fracture ... %]`, `[% table fracture/... %]`) and
  links are rewritten so every reference stays inside its copy and the project checks clean.
* `out/plain/` — the equivalent hand-written site: the generated project's staging tree (what
  `cadence build` hands an engine): the same pages as plain Markdown in `docs/`, and a mkdocs.yml
  with the same theme, extensions and navigation but no `rules` plugin. Generated pages are the
  generator's own rendered Markdown; content pages are written already expanded, so MkDocs (or
  Zensical) sees the same Markdown as in the plugin build.

Run directly: `python bench/synth.py 10 /tmp/cadence-10x` (from the repository root).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from generator.pages import generate, load_project  # noqa: E402
from generator.staging import StagingError, dump_config, read_config, stage  # noqa: E402

CONFIG_NAME = "mkdocs.yml"


def _copy_id(module: str, copy: int) -> str:
    return module if copy == 1 else f"{module}-{copy}"


def _path_pattern(module: str) -> re.Pattern[str]:
    """`module/` as a path segment start: not part of a longer slug (`fractured-skies`, `respawns`)."""
    return re.compile(rf"(?<![\w-]){re.escape(module)}/")


def rewrite_yaml(text: str, module: str, new: str, title: str, new_title: str) -> str:
    """Point one module file (module.yaml or an army list) at its copy."""
    text = _path_pattern(module).sub(f"{new}/", text)
    # the module's own id and title (top-level keys of `module:`, two-space indent)
    text = re.sub(rf"(?m)^(  id:\s*){re.escape(module)}\s*$", rf"\g<1>{new}", text)
    text = re.sub(rf"(?m)^(  title:\s*)(['\"]?){re.escape(title)}\2\s*$", lambda m: f"{m[1]}{_quote(new_title)}", text)
    return text


def rewrite_markdown(text: str, module: str, new: str) -> str:
    """Point a content page at its copy: directives and any `module/...` path (links, tables)."""
    text = _path_pattern(module).sub(f"{new}/", text)
    # `[% special-rules fracture kind=unit %]`: the scope is a bare module id
    text = re.sub(rf"(?m)^(\[%\s*special-rules\s+){re.escape(module)}(?=\s)", rf"\g<1>{new}", text)
    return text


def _quote(value: str) -> str:
    return yaml.safe_dump(value, default_style=None, width=1000).strip().removesuffix("...").strip()


def _module_ids(data: Path) -> dict[str, tuple[str, str, bool]]:
    """folder -> (module id, title, core) from each data/<folder>/module.yaml."""
    modules: dict[str, tuple[str, str, bool]] = {}
    for path in sorted(data.glob("*/module.yaml")):
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))["module"]
        modules[path.parent.name] = (str(raw["id"]), str(raw["title"]), bool(raw.get("core", False)))
    return modules


def read_mkdocs_yml(root: Path) -> dict[str, Any]:
    """The project's mkdocs.yml as data; values under tags MkDocs resolves itself are kept for writing back."""
    return read_config(root)


def write_mkdocs_yml(path: Path, config: dict[str, Any]) -> None:
    path.write_text(dump_config(config), encoding="utf-8")


def _plugin_name(entry: Any) -> str:
    return next(iter(entry)) if isinstance(entry, dict) else str(entry)


def write_generated(root: Path, out: Path, n: int) -> Path:
    """The scaled rules project; returns its folder."""
    config = read_mkdocs_yml(root)
    data_dir = "data"
    for entry in config.get("plugins", []):
        if isinstance(entry, dict) and "rules" in entry:
            data_dir = (entry["rules"] or {}).get("data_dir", "data")
    content_dir = config.get("docs_dir", "docs")
    src_data, src_content = root / data_dir, root / content_dir
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    modules = _module_ids(src_data)
    # everything not in a non-core module folder is copied as is (system.yaml, core rules, README, about/, index.md)
    replicated = {folder for folder, (_, _, core) in modules.items() if not core}
    shutil.copytree(src_data, out / "data", ignore=lambda d, names: [x for x in names if Path(d) == src_data and x in replicated])
    shutil.copytree(src_content, out / "content", ignore=lambda d, names: [x for x in names if Path(d) == src_content and x in replicated])
    for folder in sorted(replicated):
        module, title, _ = modules[folder]
        for copy in range(1, n + 1):
            new = _copy_id(module, copy)
            new_title = title if copy == 1 else f"{title} {copy}"
            for src in sorted((src_data / folder).rglob("*")):
                if src.is_dir():
                    continue
                dst = out / "data" / new / src.relative_to(src_data / folder)
                dst.parent.mkdir(parents=True, exist_ok=True)
                if src.suffix in (".yaml", ".yml"):
                    dst.write_text(rewrite_yaml(src.read_text(encoding="utf-8"), module, new, title, new_title), encoding="utf-8")
                else:
                    shutil.copy2(src, dst)
            if (src_content / folder).is_dir():
                for src in sorted((src_content / folder).rglob("*")):
                    if src.is_dir():
                        continue
                    dst = out / "content" / new / src.relative_to(src_content / folder)
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    if src.suffix == ".md":
                        dst.write_text(rewrite_markdown(src.read_text(encoding="utf-8"), module, new), encoding="utf-8")
                    else:
                        shutil.copy2(src, dst)
    theme = config.get("theme", {})
    if isinstance(theme, dict) and theme.get("custom_dir"):
        custom = root / theme["custom_dir"]
        if custom.is_dir():
            shutil.copytree(custom, out / theme["custom_dir"])
        else:
            (out / theme["custom_dir"]).mkdir(parents=True)
    config["docs_dir"] = "content"
    config["site_dir"] = "site"
    for entry in config.get("plugins", []):
        if isinstance(entry, dict) and "rules" in entry:
            entry["rules"] = {**(entry["rules"] or {}), "data_dir": "data"}
    write_mkdocs_yml(out / CONFIG_NAME, config)
    return out


def write_plain(generated: Path, out: Path) -> Path:
    """The equivalent plain-Markdown site of a rules project: its staging tree (`generator.staging.stage`),
    which is exactly what `cadence build` hands an engine; returns its folder."""
    if out.exists():
        shutil.rmtree(out)
    try:
        stage(generated, out, out / "site")
    except StagingError as exc:
        raise SystemExit("synthetic project does not stage:\n" + "\n".join(str(p) for p in exc.problems[:20])) from None
    return out


def _docs_dir(root: Path) -> str:
    return str(read_mkdocs_yml(root).get("docs_dir", "docs"))


def scale(root: Path, out: Path, n: int) -> tuple[Path, Path]:
    """Write `out/generated` (rules project, N copies of each game) and `out/plain` (same site, plain MkDocs)."""
    source = load_project(root, "data", _docs_dir(root))
    if source.errors:
        raise SystemExit(f"{root} does not check clean, so neither would its copies:\n" + "\n".join(str(p) for p in source.errors[:10]))
    generated = write_generated(root, out / "generated", n)
    plain = write_plain(generated, out / "plain")
    return generated, plain


def count_pages(project: Path) -> int:
    """Markdown pages MkDocs will build for a project (generated + content, or docs/)."""
    loaded = load_project(project, "data", "content") if (project / "data").is_dir() else None
    if loaded is not None and loaded.project is not None:
        return len(generate(loaded.project, loaded.content).pages) + len(loaded.content)
    return sum(1 for _ in (project / "docs").rglob("*.md"))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("n", type=int, help="how many copies of each non-core module")
    p.add_argument("out", type=Path, help="output folder (replaced)")
    p.add_argument("--root", type=Path, default=REPO, help="the project to scale (default: this repository)")
    args = p.parse_args()
    generated, plain = scale(args.root.resolve(), args.out.resolve(), args.n)
    print(f"{generated}  ({count_pages(generated)} pages)")
    print(f"{plain}  ({count_pages(plain)} pages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
