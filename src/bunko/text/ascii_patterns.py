"""What a regular expression can match in an ASCII text, read from its parsed form (`re._parser`, CPython's own).

`lazy_regex.LazyUnion` searches an ASCII text with only the parts of a pattern that can match one (the Japanese and
Chinese alternatives of a reader's cue pattern need a character outside ASCII), and a lower-case ASCII text without
IGNORECASE when no part's match depends on case there. Both readings are conservative: an item they cannot reason
about counts as matching ASCII, or as depending on case, and the whole pattern is used.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

ASCII_FOLD_FREE = 0x3000
"""From this code point on, no character's lower or upper case is ASCII (tests/text/test_lazy_regex.py checks every
one): a class range that starts here needs a character outside ASCII even under IGNORECASE."""


def _sre() -> Any:
    return importlib.import_module("re._constants")  # the names of the parsed items (3.11+)


def _folds_to_ascii(code: int) -> bool:
    """Whether a character outside ASCII has an ASCII lower or upper case (K, the Kelvin sign; ſ, the long s; İ; ı):
    under IGNORECASE it matches an ASCII letter."""
    if code >= ASCII_FOLD_FREE:
        return False
    char = chr(code)
    return any(ord(c) < 128 for c in char.lower() + char.upper())


def _needs_non_ascii_char(code: int, ignorecase: bool) -> bool:
    """Whether the literal `code` matches only characters outside ASCII."""
    return code >= 128 and not (ignorecase and _folds_to_ascii(code))


def _needs_non_ascii_item(op: Any, av: Any, ignorecase: bool) -> bool:
    sre = _sre()
    if op is sre.LITERAL:
        return _needs_non_ascii_char(av, ignorecase)
    if op is sre.IN:
        if not av or av[0][0] is sre.NEGATE:
            return False
        return all(
            (kind is sre.LITERAL and _needs_non_ascii_char(value, ignorecase))
            or (kind is sre.RANGE and (value[0] >= ASCII_FOLD_FREE or (value[0] >= 128 and not ignorecase)))
            for kind, value in av
        )
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", sre.MAX_REPEAT)):
        low, _, sub = av
        return low >= 1 and needs_non_ascii(sub, ignorecase)
    if op is sre.SUBPATTERN:
        _, add_flags, del_flags, sub = av
        inner = (ignorecase or bool(add_flags & re.IGNORECASE)) and not del_flags & re.IGNORECASE
        return needs_non_ascii(sub, inner)
    if op is getattr(sre, "ATOMIC_GROUP", None):
        return needs_non_ascii(av, ignorecase)
    if op is sre.BRANCH:
        return all(needs_non_ascii(alternative, ignorecase) for alternative in av[1])
    return False  # any other character, class or category; zero-width assertions; back-references: conservatively no


def needs_non_ascii(parsed: Any, ignorecase: bool) -> bool:
    """Whether every match of `parsed` (a sequence of `re._parser` items) takes at least one character outside ASCII,
    so that it matches nowhere in an ASCII text."""
    return any(_needs_non_ascii_item(op, av, ignorecase) for op, av in parsed)


def _case_blind_char(code: int) -> bool:
    """Whether the literal `code` matches the same characters of a lower-case ASCII text with IGNORECASE as without:
    not an upper-case ASCII letter, and outside ASCII not one that folds to it."""
    return not 65 <= code <= 90 and (code < 128 or not _folds_to_ascii(code))


def _case_blind_item(op: Any, av: Any) -> bool:
    sre = _sre()
    if op in (sre.LITERAL, sre.NOT_LITERAL):
        return _case_blind_char(av)
    if op is sre.IN:
        return all(
            kind in (sre.NEGATE, sre.CATEGORY)
            or (kind is sre.LITERAL and _case_blind_char(value))
            or (kind is sre.RANGE and (value[1] < 65 or value[0] > 90) and (value[1] < 128 or value[0] >= ASCII_FOLD_FREE))
            for kind, value in av
        )
    if op in (sre.ANY, sre.AT, sre.CATEGORY):
        return True
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", sre.MAX_REPEAT)):
        return case_blind(av[2])
    if op is sre.SUBPATTERN:
        return case_blind(av[3])
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        return case_blind(av[1])
    if op is getattr(sre, "ATOMIC_GROUP", None):
        return case_blind(av)
    if op is sre.BRANCH:
        return all(case_blind(alternative) for alternative in av[1])
    return False  # back-references and anything else: conservatively no


def case_blind(parsed: Any) -> bool:
    """Whether `parsed` matches a text holding no upper-case ASCII letter (and no character outside ASCII) the same
    with IGNORECASE as without: then such a text may be searched without it, which costs a third less."""
    return all(_case_blind_item(op, av) for op, av in parsed)


def ascii_parts(parts: tuple[str, ...], flags: int) -> tuple[tuple[str, ...], bool]:
    """The parts of `"|".join(parts)` that can match an ASCII text (the others need a character outside ASCII:
    Japanese and Chinese phrases), and whether those match a lower-case ASCII text alike without IGNORECASE. Every part
    when a part left out would hold a group (the groups' numbers would move), and every part and False when a part
    cannot be read."""
    try:
        parser = importlib.import_module("re._parser")
        parsed = [parser.parse(part, flags) for part in parts]
        kept = [(part, tree) for part, tree in zip(parts, parsed, strict=True)
                if not needs_non_ascii(tree.data, bool(tree.state.flags & re.IGNORECASE))]
        if any(tree.state.groups > 1 for part, tree in zip(parts, parsed, strict=True) if part not in dict(kept)):
            kept = list(zip(parts, parsed, strict=True))
        return tuple(part for part, _ in kept), all(case_blind(tree.data) for _, tree in kept)
    except Exception:  # an unreadable pattern: the whole of it, which is always right
        return parts, False
