"""Regular expressions compiled when first used, not when their module is imported.

Hundreds of module-level patterns (the lexicon's phrase alternations, the question and table readers) cost most of a
second to compile, and a process uses only some of them: `bunko search` never runs the answer checks. `lazy_compile`
takes the same arguments as `re.compile` and returns a stand-in that compiles on the first call of any pattern method;
from then on the compiled pattern's bound methods sit on the stand-in itself, so a call costs what it did before.
``pattern`` and ``flags`` are there without compiling, so patterns built from other patterns' text stay lazy.

A stand-in is not an `re.Pattern`: pass ``.compiled`` to code that needs the real object (``re.sub(p, …)`` with a
stand-in raises TypeError).
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Sequence
from typing import Any, cast, overload

_METHODS = ("search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer", "scanner")
_ATTRIBUTES = ("groups", "groupindex")


class LazyPattern:
    """`re.compile(pattern, flags)` on first use (see the module docstring)."""

    __slots__ = ("__dict__", "flags", "pattern")

    def __init__(self, pattern: str | bytes, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags

    @property
    def compiled(self) -> re.Pattern[Any]:
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = re.compile(self.pattern, self.flags)
            self.__dict__["_compiled"] = compiled
            for name in _METHODS + _ATTRIBUTES:
                self.__dict__[name] = getattr(compiled, name)
            self.flags = compiled.flags
        return compiled

    def __getattr__(self, name: str) -> Any:
        if name in _METHODS or name in _ATTRIBUTES:
            return getattr(self.compiled, name)
        raise AttributeError(name)

    def __repr__(self) -> str:
        return f"lazy_compile({self.pattern!r}, {self.flags})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyPattern):
            return (self.pattern, self.flags) == (other.pattern, other.flags)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.pattern, self.flags))


@overload
def lazy_compile(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]: ...


@overload
def lazy_compile(pattern: bytes, flags: int | re.RegexFlag = 0) -> re.Pattern[bytes]: ...


def lazy_compile(pattern: str | bytes, flags: int | re.RegexFlag = 0) -> re.Pattern[Any]:
    """What `re.compile(pattern, flags)` returns, compiled on first use; typed as the pattern it stands for."""
    return cast("re.Pattern[Any]", LazyPattern(pattern, int(flags)))


ASCII_FOLD_FREE = 0x3000
"""From this code point on, no character's lower or upper case is ASCII (tests/text/test_lazy_regex.py checks every
one): a class range that starts here needs a character outside ASCII even under IGNORECASE."""


def _needs_non_ascii_char(code: int, ignorecase: bool) -> bool:
    """Whether the literal `code` matches only characters outside ASCII: under IGNORECASE, a character whose lower or
    upper case is ASCII (K, the Kelvin sign; ſ, the long s; İ, ı) matches an ASCII letter."""
    if code < 128:
        return False
    if not ignorecase or code >= ASCII_FOLD_FREE:
        return True
    char = chr(code)
    return not any(ord(c) < 128 for c in char.lower() + char.upper())


def _needs_non_ascii_item(op: Any, av: Any, ignorecase: bool) -> bool:
    sre = importlib.import_module("re._constants")  # CPython's own names of the parsed items (3.11+)
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
    so that it matches nowhere in an ASCII text. Conservative: an item it cannot reason about counts as matching ASCII."""
    return any(_needs_non_ascii_item(op, av, ignorecase) for op, av in parsed)


def ascii_parts(parts: tuple[str, ...], flags: int) -> tuple[str, ...]:
    """The parts of `"|".join(parts)` that can match an ASCII text: the others need a character outside ASCII (Japanese
    and Chinese phrases). Every part when a part left out would hold a group (the groups' numbers would move), or when
    a part cannot be read (`re._parser` is CPython's own)."""
    try:
        parser = importlib.import_module("re._parser")
        parsed = [parser.parse(part, flags) for part in parts]
        kept = tuple(part for part, tree in zip(parts, parsed, strict=True)
                     if not needs_non_ascii(tree.data, bool(tree.state.flags & re.IGNORECASE)))
        if any(tree.state.groups > 1 for part, tree in zip(parts, parsed, strict=True) if part not in kept):
            return parts
        return kept
    except Exception:  # an unreadable pattern: the whole of it, which is always right
        return parts


_DISPATCHED = ("search", "match", "fullmatch", "finditer", "findall")


class LazyUnion:
    """`re.compile("|".join(parts), flags)` that searches an ASCII text with only the parts that can match one
    (`ascii_parts`), each of the two compiled when first needed. The matches are the same: the parts left out fail at
    every position of such a text, and an alternative that fails changes neither which alternative matches first nor
    the groups (none of the parts left out holds one). An English question skips the Japanese and Chinese alternatives
    of each reader's pattern: the table reader's cues took 19 µs of a 26-character question, 8 µs without them. The
    methods in `_DISPATCHED` choose; the others, and the attributes, are the whole pattern's."""

    __slots__ = ("__dict__", "flags", "parts", "pattern")

    def __init__(self, parts: tuple[str, ...], flags: int = 0) -> None:
        self.parts = parts
        self.pattern = "|".join(parts)
        self.flags = flags

    @property
    def compiled(self) -> re.Pattern[str]:
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = re.compile(self.pattern, self.flags)
            self.__dict__["_compiled"] = compiled
            for name in _METHODS + _ATTRIBUTES:
                if name not in _DISPATCHED:
                    self.__dict__[name] = getattr(compiled, name)
        return compiled

    @property
    def on_ascii(self) -> re.Pattern[str]:
        """The pattern an ASCII text is searched with."""
        on_ascii = self.__dict__.get("_on_ascii")
        if on_ascii is None:
            kept = ascii_parts(self.parts, self.flags)
            on_ascii = self.compiled if kept == self.parts else re.compile("|".join(kept), self.flags)
            self.__dict__["_on_ascii"] = on_ascii
        return on_ascii

    def __getattr__(self, name: str) -> Any:
        if name in _DISPATCHED:
            method = self.__dict__[name] = _dispatched(self, name)
            return method
        if name in _METHODS or name in _ATTRIBUTES or name == "flags":
            return getattr(self.compiled, name)
        raise AttributeError(name)

    def __repr__(self) -> str:
        return f"lazy_union({self.parts!r}, {self.flags})"


def _dispatched(union: LazyUnion, name: str) -> Any:
    whole: Any = None
    on_ascii: Any = None

    def method(string: str, pos: int = 0, endpos: int = sys.maxsize) -> Any:  # each dispatched method's signature
        nonlocal whole, on_ascii
        if string.isascii():
            if on_ascii is None:
                on_ascii = getattr(union.on_ascii, name)
            return on_ascii(string, pos, endpos)
        if whole is None:
            whole = getattr(union.compiled, name)
        return whole(string, pos, endpos)

    return method


def lazy_union(parts: Sequence[str], flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """`lazy_compile("|".join(parts), flags)` that searches an ASCII text with only the parts that can match it
    (`LazyUnion`); typed as the pattern it stands for."""
    return cast("re.Pattern[str]", LazyUnion(tuple(parts), int(flags)))
