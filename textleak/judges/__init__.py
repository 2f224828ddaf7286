"""Judges of claim support: nli (the offline default, a small cross-encoder), embedding (fast), lexical
(ROUGE-L baseline), LLM (seed 000).

Each judge is one file in this package registered by name in :data:`textleak.registry.judges`;
:func:`make_judge` builds one by name. Measure any judge against labelled claims with
:func:`textleak.judges.agreement.evaluate_judge` or ``textleak judge-agreement``.
"""

from __future__ import annotations

from typing import Any

from textleak.judges.base import OK, UNPARSED, ClaimRating, Judge, normalise
from textleak.registry import judges

__all__ = ["ClaimRating", "Judge", "OK", "UNPARSED", "make_judge", "normalise"]


def make_judge(spec: "str | Judge" = "nli", llm: Any = None, **options: Any) -> Judge:
    """A registered judge by name (``textleak.registry.judges.names()``) configured by ``options``;
    ``llm`` goes to judges that use one (default ``"embedded"``); a Judge passes through."""
    return judges.build(spec or "nli", llm=llm, **options)
