"""The lexical privacy baseline of seed 000 §2.5: ``1 - ROUGE-L(original, linked record)``."""

from __future__ import annotations

from typing import Sequence

from textleak.text import rouge_l, rouge_tokens, split_sentences


def lexical_privacy(original: str, linked: str | None, known_claims: Sequence[str] = (), variant: str = "paper") -> float:
    """The lexical baseline for one record; higher is more private.

    ``variant="paper"`` (default, seed 000 §2.5): ``1 - ROUGE-L F`` between the original record and the
    linked sanitized record. ``variant="release"`` (the released code): drop from the original, for each
    known claim, the sentence with the highest ROUGE-L recall of that claim, then ``1 - ROUGE-L recall``
    with the remaining original as the target. An unlinked record (``linked=None``) or an empty one
    scores 1.0: nothing of the original is in it.
    """
    if variant not in ("paper", "release"):
        raise ValueError(f"lexical privacy variant must be 'paper' or 'release', got {variant!r}")
    if not linked or not linked.strip():
        return 1.0
    if variant == "paper":
        return 1.0 - rouge_l(original, linked).fmeasure
    sentences = split_sentences(original)
    for claim in known_claims:
        if not sentences:
            break
        claim_tokens = rouge_tokens(claim)
        best = max(range(len(sentences)), key=lambda j: rouge_l(claim_tokens, rouge_tokens(sentences[j])).recall)
        sentences.pop(best)
    remaining = " ".join(sentences)
    if not rouge_tokens(remaining):
        return 1.0
    return 1.0 - rouge_l(remaining, linked).recall
