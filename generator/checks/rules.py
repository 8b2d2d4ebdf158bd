"""Special rules: their definitions, and every use of one, bound or not, as the resolve stage left it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator

from ..catalogue import Project, Scope, walk_sections
from ..model import SpecialRule, slugify
from ..problems import Problem, did_you_mean, error, warning
from ..resolve import RuleRef
from .base import CheckRun, at, scope_names
from .design import UNSTATED
from .values import form_examples, usable_forms, written_in


def _definitions(project: Project, rules: tuple[SpecialRule, ...], scope: Scope) -> Iterator[Problem]:
    kinds = project.system.rule_kinds
    seen: dict[str, SpecialRule] = {}
    for rule in rules:
        key = slugify(rule.name)
        if key in seen:
            message = f"special rule '{rule.name}' is defined twice in {scope.title} (first at line {seen[key].loc.line})"
            yield error(rule.loc, "duplicate", message)
        seen[key] = rule
        if rule.kind not in kinds:
            hint = did_you_mean(rule.kind, list(kinds)) or f"rule kinds: {', '.join(kinds)}"
            yield error(
                at(rule.kind, rule),
                "value",
                f"special rule '{rule.name}' is of kind '{rule.kind}', which the system does not declare",
                hint,
            )
        if "(" in rule.name:
            message = f"special rule name '{rule.name}' has a parenthesis; put the parameter in 'parameter:'"
            yield error(at(rule.name, rule), "rule-name", message)


def check_rule_definitions(run: CheckRun) -> Iterator[Problem]:
    """Each scope's rules: named once, of a declared kind, parameters apart from names; list rules shown."""
    project = run.project
    for module in project.modules.values():
        yield from _definitions(project, module.special_rules, project.module_scope(module.id))
    for entry in project.lists:
        army_list = entry.army_list
        yield from _definitions(project, army_list.special_rules, project.list_scope(entry))
        if army_list.special_rules and not any(s.special_rules for s in walk_sections(army_list.sections)):
            yield error(
                army_list.loc,
                "rules-not-shown",
                f"army list '{army_list.id}' defines special rules but no section shows them",
                "add a section with 'special_rules: true'",
            )


def check_rule_uses(run: CheckRun) -> Iterator[Problem]:
    """Each use names a rule in scope, with a value exactly when the rule takes one, in the value's form."""
    for ref in run.resolved.rules:
        if ref.in_content or ref.scope is None:
            found: Iterable[Problem] = _content_link(ref)
        elif ref.found is None:
            found = (_unknown(ref),)
        else:
            found = _use(run.project, ref)
        # a [[link]] in a data text: at the link, once the file is read again
        yield from (dataclasses.replace(p, offset=ref.offset) for p in found) if ref.offset >= 0 else found


def _unknown(ref: RuleRef) -> Problem:
    assert ref.scope is not None  # a use read in no scope is `_content_link`'s
    names = [n for s in ref.scope.chain() for r in s.unique_rules() for n in (r.name, *r.aliases)]
    verb = "names" if ref.named else "uses"
    message = f"{ref.owner} {verb} special rule '{ref.use}', which is not defined in {scope_names(ref.scope)}"
    return error(ref.where, "unknown-rule", message, did_you_mean(ref.parsed.name, names))


def _content_link(ref: RuleRef) -> Iterator[Problem]:
    if ref.found is not None:
        return
    if ref.scope is None:
        place = "this page" if ref.in_content else "this text"
        yield error(ref.where, "unknown-rule", f"[[{ref.use}]] names no special rule: {place} is in no module and there are no core rules")
        return
    names = [r.name for s in ref.scope.chain() for r in s.unique_rules()]
    message = f"[[{ref.use}]] names no special rule in {scope_names(ref.scope)}"
    yield error(ref.where, "unknown-rule", message, did_you_mean(ref.parsed.name, names))


def _use(project: Project, ref: RuleRef) -> Iterator[Problem]:
    assert ref.found is not None
    rule, parsed, name, where = ref.found.item, ref.parsed, ref.owner, ref.where
    kinds = project.system.rule_kinds  # a rule of a kind the system does not declare is reported once, at the rule
    if ref.kind is not None and ref.kind in kinds and rule.kind in kinds and rule.kind != ref.kind:
        yield warning(where, "rule-kind", f"{name} uses '{rule.name}', which is a {rule.kind} rule, not a {ref.kind} rule")
    if parsed.name not in (rule.name, *rule.aliases):
        yield error(
            where, "rule-name", f"{name} writes '{parsed.name}', but the rule is named '{rule.name}'", f"did you mean '{rule.name}'?"
        )
    if ref.named:
        if parsed.value is not None:
            yield error(where, "rule-arity", f"{name} names '{rule.name}' with a value ({parsed.value}); name the rule alone")
    else:
        yield from _arity(project, ref)


def _arity(project: Project, ref: RuleRef) -> Iterator[Problem]:
    """A value exactly when the rule takes one, in one of the value forms it accepts."""
    assert ref.found is not None
    rule, parsed, name, where = ref.found.item, ref.parsed, ref.owner, ref.where
    if rule.parameter and parsed.value is None and not rule.parameter_optional:
        message = f"{name} uses '{rule.name}' without a value; the rule is {project.rule_title(rule)}"
        yield error(where, "rule-arity", message, _with_a_value(project, rule))
    elif not rule.parameter and parsed.value is not None:
        yield error(where, "rule-arity", f"{name} gives '{rule.name}' a value ({parsed.value}), but the rule takes none")
    elif rule.parameter and parsed.value is not None and rule.values and parsed.value not in (rule.parameter, UNSTATED):
        yield from _value_form(project, rule, parsed.value, name, ref)


def _with_a_value(project: Project, rule: SpecialRule) -> str:
    """How to write a rule with its value: an example of the first form it takes, or its parameter to replace."""
    forms = project.system.value_forms
    example = next((forms[f].example for f in rule.values if f in forms and forms[f].example), None)
    if example:
        return f"write it with a value, like '{project.use_text(rule.name, example)}'"
    return f"write '{project.use_text(rule.name, rule.parameter)}' with a value in place of {rule.parameter}"


def _value_form(project: Project, rule: SpecialRule, value: str, name: str, ref: RuleRef) -> Iterator[Problem]:
    """A value in one of the forms the rule takes; any value when none of them is usable (`usable_forms`)."""
    if written_in(project, rule.values, value):
        return
    known = usable_forms(project, rule.values)
    examples = form_examples(project, known)
    yield error(
        ref.where,
        "value-form",
        f"{name} gives '{rule.name}' the value {value!r}, which is not written as {' or '.join(known)}",
        f"write it like {project.use_text(rule.name, examples)}" if examples else "",
    )
