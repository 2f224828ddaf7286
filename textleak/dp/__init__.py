"""Word-level DP text sanitization mechanisms (SANTEXT, SANTEXT+, CUSTEXT, CUSTEXT+).

    from textleak.dp import build_mechanism, count_words
    mech = build_mechanism("santext+", embeddings=emb, vocab_counts=count_words(corpus), epsilon=2.0)
    mech.sanitize_texts(["a private sentence"], seeds=[0])[0].alignment()
    mech.prob("y", "x"); mech.likelihoods("y")   # closed forms the attacks use
"""

from __future__ import annotations

from typing import Any

from textleak.dp.base import Likelihoods, SanitizedText, WordMechanism, count_words
from textleak.dp.custext import CusTextMechanism
from textleak.dp.santext import SanTextMechanism

MECHANISMS = ("santext", "santext+", "custext", "custext+")


def build_mechanism(name: str, embeddings, vocab_counts, epsilon: float, **options: Any) -> WordMechanism:
    """Construct a mechanism by its paper name. ``santext`` forces ``sensitive_fraction=1``;
    ``custext`` forces ``keep_stopwords=False`` and ``custext+`` ``keep_stopwords=True``."""
    key = name.lower().replace("_plus", "+").replace("plus", "+")
    if key == "santext":
        options = {**options, "sensitive_fraction": 1.0}
        return SanTextMechanism(embeddings, vocab_counts, epsilon, **options)
    if key == "santext+":
        return SanTextMechanism(embeddings, vocab_counts, epsilon, **options)
    if key in ("custext", "custext+"):
        options = {**options, "keep_stopwords": key == "custext+"}
        return CusTextMechanism(embeddings, vocab_counts, epsilon, **options)
    raise ValueError(f"unknown mechanism {name!r}; choose one of {', '.join(MECHANISMS)}")


__all__ = ["Likelihoods", "SanitizedText", "WordMechanism", "SanTextMechanism", "CusTextMechanism",
           "build_mechanism", "count_words", "MECHANISMS"]
