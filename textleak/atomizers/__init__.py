"""Atomizers: break a record into atomic, independent claims (seed 000 §2.2, appendix C.1).

Built-ins, each one file registered by name in :data:`textleak.registry.atomizers`: ``rules`` (the
offline default) and ``llm`` (the appendix C.1 prompt). The caching stage that runs them is
:func:`textleak.leakage.atomize.atomize_records`.
"""

from __future__ import annotations

from typing import Any

from textleak.atomizers.base import Atomizer
from textleak.registry import atomizers

__all__ = ["Atomizer", "make_atomizer"]


def make_atomizer(spec: "str | Atomizer | None" = "rules", llm: Any = None, **options: Any) -> Atomizer:
    """A registered atomizer by name configured by ``options``; ``llm`` goes to atomizers that use
    one (default ``"embedded"``); an Atomizer passes through."""
    return atomizers.build(spec or "rules", llm=llm, **options)
