"""Linkers: find the sanitized record an adversary would attach to an original from its known claims.

Built-ins, each one file registered by name in :data:`textleak.registry.linkers`: ``bm25`` (paper),
``bm25-release`` (the released code's claim index + vote), ``rouge`` (the lexical baseline's linker),
``dense`` (MiniLM cosine). :func:`make_linker` builds one by name.
"""

from __future__ import annotations

from typing import Any

from textleak.linkers.base import Link, Linker, vote
from textleak.registry import linkers

__all__ = ["Link", "Linker", "make_linker", "vote"]


def make_linker(spec: "str | Linker | None" = "bm25", **options: Any) -> Linker:
    """A registered linker by name configured by ``options``; a Linker passes through."""
    return linkers.build(spec or "bm25", **options)
