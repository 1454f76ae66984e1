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

import re
import sys
from collections.abc import Sequence
from typing import Any, cast, overload

from bunko.text.ascii_patterns import ascii_parts

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


_DISPATCHED = ("search", "match", "fullmatch", "finditer", "findall")


class LazyUnion:
    """`re.compile("|".join(parts), flags)` that searches an ASCII text with only the parts that can match one, and,
    when no kept part's match depends on case there (`ascii_patterns.ascii_parts`), without IGNORECASE: a lower-case
    text as it is, another's `search` in its lower case, the match then read at the same position from the text itself
    (ASCII lower-cases one character for one). Each pattern is compiled when first needed. The matches are the same:
    the parts left out fail at every position of such a text, an alternative that fails changes neither which
    alternative matches first nor the groups (none of the parts left out holds one), and a case-blind pattern matches
    the lower case where the pattern ignoring case matches the text. An English question skips the Japanese and
    Chinese alternatives of each reader's pattern and the case folding: the table reader's eleven cue patterns took 49
    µs a heading (100 English headings), 23 µs without the other languages' parts, 13 µs without IGNORECASE too. The
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

    def _on_ascii(self) -> tuple[re.Pattern[str], re.Pattern[str]]:
        found = self.__dict__.get("_ascii_patterns")
        if found is None:
            kept, case_blind = ascii_parts(self.parts, self.flags)
            on_ascii = self.compiled if kept == self.parts else re.compile("|".join(kept), self.flags)
            blind = case_blind and bool(self.flags & re.IGNORECASE)
            found = self.__dict__["_ascii_patterns"] = on_ascii, re.compile("|".join(kept), self.flags & ~re.IGNORECASE) if blind else on_ascii
        return cast("tuple[re.Pattern[str], re.Pattern[str]]", found)

    @property
    def on_ascii(self) -> re.Pattern[str]:
        """The pattern an ASCII text is searched with."""
        return self._on_ascii()[0]

    @property
    def on_lower_ascii(self) -> re.Pattern[str]:
        """The pattern an ASCII text without an upper-case letter is searched with."""
        return self._on_ascii()[1]

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
    on_lower: Any = None
    blind = False

    def method(string: str, pos: int = 0, endpos: int = sys.maxsize) -> Any:  # each dispatched method's signature
        nonlocal whole, on_ascii, on_lower, blind
        if string.isascii():
            if on_lower is None:
                on_lower = getattr(union.on_lower_ascii, name)
                on_ascii = getattr(union.on_ascii, name if name != "search" else "match")
                blind = union.on_lower_ascii is not union.on_ascii
            if string.islower():  # a cased letter and no upper-case one
                return on_lower(string, pos, endpos)
            if not blind or name != "search":
                return (on_ascii if name != "search" else union.on_ascii.search)(string, pos, endpos)
            # the lower-case text matches where the text does ignoring case (ASCII: one character for one); the
            # match at that position is then read from the text itself, so its groups are the text's
            found = on_lower(string.lower(), pos, endpos)
            return None if found is None else on_ascii(string, found.start(), endpos)
        if whole is None:
            whole = getattr(union.compiled, name)
        return whole(string, pos, endpos)

    return method


def lazy_union(parts: Sequence[str], flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """`lazy_compile("|".join(parts), flags)` that searches an ASCII text with only the parts that can match it
    (`LazyUnion`); typed as the pattern it stands for."""
    return cast("re.Pattern[str]", LazyUnion(tuple(parts), int(flags)))
