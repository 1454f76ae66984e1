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
