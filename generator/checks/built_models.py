"""Built models: what the source printed for a model built from a base, upgrades and weapons
must be what building it gives (the resolve stage builds each one once)."""

from __future__ import annotations

from collections.abc import Iterator

from ..catalogue import Project, walk_sections
from ..model import BuiltModel, Module, Printed
from ..points import BuiltProfile
from ..problems import Problem, error
from .base import CheckRun, at, currency


def check_built_models(run: CheckRun) -> Iterator[Problem]:
    """Printed points, profile values and special rules against the built model's."""
    project = run.project
    for entry in project.lists:
        module = project.modules[entry.module]
        for section in walk_sections(entry.army_list.sections):
            model = section.built_model
            built = run.resolved.built.get(id(model)) if model is not None else None
            if model is not None and built is not None and model.printed is not None:
                yield from _printed(project, model, model.printed, built, module)


def _printed(project: Project, model: BuiltModel, printed: Printed, built: BuiltProfile, module: Module) -> Iterator[Problem]:
    where = f"'{model.name}'"
    if printed.points is not None and printed.points != built.points:
        message = f"{where} is printed at {printed.points} {currency(module)}, but its setup costs {built.points}"
        yield error(at(printed.points, printed), "points", message)
    if printed.profile is not None:
        columns = {c.key: c for c in project.system.profiles.model}
        for key, value in printed.profile.items():
            if key in built.profile and str(built.profile[key]) != str(value):
                label = columns[key].label if key in columns else key
                message = f"{where} is printed with {label} {value}, but its setup gives {built.profile[key]}"
                yield error(at(value, printed), "profile", message)
    if printed.rules or printed.profile is not None:
        yield from _printed_rules(where, printed, built)


def _printed_rules(where: str, printed: Printed, built: BuiltProfile) -> Iterator[Problem]:
    printed_rules = {str(r) for r in printed.rules}
    computed = {str(r) for r in built.rules}
    for rule in sorted(printed_rules - computed):
        written = next(r for r in printed.rules if str(r) == rule)
        yield error(at(written, printed), "rules", f"{where} is printed with special rule '{rule}', which its setup does not give")
    for rule in sorted(computed - printed_rules):
        yield error(printed.loc, "rules", f"{where}'s setup gives special rule '{rule}', which the source does not print")
