"""A field made the first time it is read, then kept on the instance: `functools.cached_property` without its lock.

Python 3.11's `cached_property` takes a lock shared by every instance at each first read, about a microsecond; a
keyword search reads half a dozen facts of a new question (`question.QuestionFacts`) and makes thirty hits whose lists
are made on read (`hit_chunks.KeptChunk`). Two threads reading one new field at once may both make it; the fields
made here are values of the instance alone, so either is right.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class MadeOnRead(Generic[T]):
    """A field made by `make` the first time it is read, then kept in the instance's dict. A non-data descriptor: a
    value kept or set there (by the dataclass's own `__init__`, by a caller) is read directly, at a plain attribute's
    cost, and the descriptor is never asked again."""

    def __init__(self, make: Callable[[Any], T]) -> None:
        self.make = make
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> MadeOnRead[T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> T | MadeOnRead[T]:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.make(instance)
        return value
