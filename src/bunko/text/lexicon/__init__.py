"""Language knowledge: every word list and phrase pattern bunko recognises, one module per language.

``en.py``, ``ja.py`` and ``zh.py`` (the file name is the rule) hold the words; ``common.py`` the symbols no
language owns (currency signs, %). Nothing outside this package defines a word list: the test
tests/text/test_word_lists_live_in_lexicon.py fails when one appears elsewhere. This package imports nothing
from bunko, so every layer can read it.
"""

from __future__ import annotations

from bunko.text.lexicon import en, ja, zh

__all__ = ["en", "ja", "zh"]
