"""Symbols no language owns: currency signs and ISO currency codes, read alike in Japanese, Chinese and English text.

Words go in ``en/``, ``ja/`` or ``zh/``; only what is written the same in every language lives here.
"""

from __future__ import annotations

CURRENCY_SIGNS = {"us$": "USD", "$": "USD", "¥": "JPY", "€": "EUR", "£": "GBP"}
"""A sign before an amount names its currency (text/numbers.py); keys are lower case, as the text is read."""
CURRENCY_SIGN_PATTERN = r"US\$|\$|¥|€|£"
"""The same signs, as they are matched before an amount."""
CURRENCY_CODES = {"rmb": "CNY", "cny": "CNY", "jpy": "JPY", "usd": "USD", "eur": "EUR", "gbp": "GBP"}
"""ISO codes (and RMB) before or after an amount; keys are lower case, as the text is read."""
CURRENCY_CODE_PATTERN = r"RMB\s?|CNY\s?|JPY\s?|USD\s?|EUR\s?|GBP\s?"
"""The same codes, as they are matched before an amount."""
