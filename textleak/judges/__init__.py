"""Judges of claim support: LLM (sampled or log-probability), embedding, lexical.

``make_judge("embedding")`` is the offline default; ``make_judge("llm", llm="hf:meta-llama/...")``
is seed 000's judge; ``make_judge("lexical")`` the ROUGE-L baseline. Measure any judge against
labelled claims with :func:`textleak.agreement.evaluate_judge` or ``textleak judge-agreement``.
"""

from __future__ import annotations

from typing import Any

from textleak.judges.base import OK, UNPARSED, ClaimRating, Judge, normalise
from textleak.judges.embedding import EmbeddingJudge
from textleak.judges.lexical import LexicalJudge
from textleak.judges.llm import LLMJudge, majority_vote, majority_vote_distribution, parse_ratings

JUDGES = ("embedding", "lexical", "llm")

__all__ = [
    "ClaimRating", "EmbeddingJudge", "JUDGES", "Judge", "LLMJudge", "LexicalJudge", "OK", "UNPARSED",
    "make_judge", "majority_vote", "majority_vote_distribution", "normalise", "parse_ratings",
]


def make_judge(spec: str = "embedding", llm: Any = None, **options: Any) -> Judge:
    """Build a judge by name.

    - ``"embedding"`` (default): options of :class:`EmbeddingJudge` (``encoder``, ``t1``, ``t2``, ...).
    - ``"lexical"``: options of :class:`LexicalJudge`.
    - ``"llm"``: ``llm`` is a spec string or a LanguageModel (default ``"embedded"``); options
      ``mode="sample"|"logprob"``, ``n=3``, ``temperature=0.6``, ``top_p=0.9``,
      ``claims_per_prompt=10``, ``domain="medqa"|"wildchat"``, ``max_retries=2``.
    """
    if isinstance(spec, Judge):
        return spec
    name = (spec or "embedding").strip().lower()
    if name == "embedding":
        if llm is not None:
            raise ValueError("the embedding judge takes no llm (did you mean make_judge('llm', llm=...)?)")
        return EmbeddingJudge(**options)
    if name == "lexical":
        if llm is not None:
            raise ValueError("the lexical judge takes no llm")
        return LexicalJudge(**options)
    if name == "llm":
        return LLMJudge(llm=llm if llm is not None else "embedded", **options)
    raise ValueError(f"unknown judge {spec!r}: use one of {JUDGES}")
