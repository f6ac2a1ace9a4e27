"""A cheap prefilter for the reference grammar: the label stems a text holds say which rules are
worth trying on it (one pass over the text instead of ~45 regex scans)."""

from __future__ import annotations

import functools
import re

from docintel.parsing.refkinds import CONTROL_FAMILIES, DIRECTION_WORDS, KINDS, Kind
from docintel.parsing.refrules import RefPattern


def _stems(alt: str) -> set[str]:
    """Literal prefixes one of which a match of the regex alternative starts with
    ("[ée]quations?" -> {"équation", "equation"}; "tables?" -> {"table"})."""
    variants = [""]
    i = 0
    while i < len(alt):
        c = alt[i]
        if c == "[":
            j = alt.index("]", i)
            variants = [v + x for v in variants for x in alt[i + 1 : j]][:16]
            i = j + 1
        elif c in "(|)*+{\\.^$":
            break
        else:
            variants = [v + c for v in variants]
            i += 1
        if i < len(alt) and alt[i] == "?":
            variants = [v[:-1] for v in variants]
            break
    return set(variants)


def _top_level(rx: str) -> list[str]:
    """The alternatives of a regex, split at its top-level bars only."""
    out, depth, cur = [], 0, ""
    for c in rx:
        depth += (c in "([") - (c in ")]")
        if c == "|" and depth == 0:
            out, cur = [*out, cur], ""
        else:
            cur += c
    return [*out, cur]


def _needs(kind: Kind) -> tuple[str, ...]:
    alts = [a for _, w in kind.words for a in _top_level(w)]
    # a case-sensitive group ("(?-i:Definitions?|...)") is its alternatives; stems are matched lower-cased
    alts = [
        b for a in alts for b in (_top_level(a[5:-1]) if a.startswith("(?-i:") and a.endswith(")") else [a])
    ]
    stems = (
        {x.lower() for a in alts for x in _stems(a)}
        | set(kind.abbrevs)
        | {d + "." for d in kind.dotted}
        | set(kind.symbols)
    )
    return tuple(sorted(stems))


#: Substrings (lowercase) one of which a text must hold for a rule to be tried: a cheap test
#: that skips most rules on most lines. Rules not named here (external ids, brackets) are
#: gated by a digit or a bracket in the text.
def _rule_needs() -> dict[str, tuple[str, ...]]:
    needs: dict[str, tuple[str, ...]] = {k.name: _needs(k) for k in KINDS}
    needs.update(
        relative_direction=tuple(DIRECTION_WORDS),
        relative_postfix=("above", "below"),
        relative_self=("this", "these", "present", "cet", "ce ", "dies", "est", "pr\u00e9sent"),
        vague=("above", "below", "supra", "infra", "ci-d", "oben", "unten"),
        named_section=("section",),
        appendix_unnumbered=("appendix", "annex", "schedule"),
        selector_only=("row", "col", "line", "item", "entr", "step", "cell"),
        provision_path=(")",),
        control=tuple(f"{fam.lower()}-" for fam in CONTROL_FAMILIES),
    )
    return needs


@functools.cache
def _tables() -> tuple[dict[str, tuple[str, ...]], dict[str, set[str]], re.Pattern]:
    """(needs per rule, rules per stem, one regex of every stem): built on first use."""
    needs = _rule_needs()
    stem_rules: dict[str, set[str]] = {}
    for name, stems_of in needs.items():
        for s in stems_of:
            stem_rules.setdefault(s, set()).add(name)
    for s in list(stem_rules):  # a stem found stands for every stem it contains ("ci-dessus" holds "ci-d")
        stem_rules[s] = set().union(*(r for t, r in stem_rules.items() if t in s))
    any_stem = re.compile("|".join(re.escape(x) for x in sorted(stem_rules, key=len, reverse=True)))
    return needs, stem_rules, any_stem


_DIGIT = re.compile(r"[0-9]")


def applicable(text: str, rules: list[RefPattern]) -> list[RefPattern]:
    """The rules worth trying on ``text``: one pass over it finds the label stems it holds."""
    needs, stem_rules, any_stem = _tables()
    wanted: set[str] = set()
    for m in any_stem.finditer(text.lower()):
        wanted |= stem_rules[m.group(0)]
    digit, bracket = bool(_DIGIT.search(text)), "[" in text
    out = []
    for rule in rules:
        if rule.ref_type == "external" and rule.name != "bracket_report":
            ok = digit
        elif rule.name in ("bib_numeric", "bib_key", "bracket_requirement", "bracket_report"):
            ok = bracket
        else:
            ok = rule.name not in needs or rule.name in wanted
        if ok:
            out.append(rule)
    return out
