"""Linking by ROUGE-L: the lexical baseline's linker."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from textleak.linkers.base import Linker, top_hits
from textleak.registry import linkers
from textleak.text import rouge_tokens
from textleak.text.lcs import LCSIndex


@linkers.register("rouge")
class RougeLinker(Linker):
    """Link by ROUGE-L between the query (target) and every sanitized record (prediction), exhaustively.

    ``measure="recall"`` (default) follows the released code (recall with the claim as reference);
    the paper says only "maximum ROUGE-L score" (``measure="fmeasure"`` is available).
    """

    name = "rouge"

    def __init__(self, query: str = "concat", measure: str = "recall", vote_threshold: float = 0.95,
                 hits_per_query: int = 100, top_k: int = 10):
        super().__init__(query, vote_threshold, hits_per_query, top_k)
        if measure not in ("recall", "fmeasure", "precision"):
            raise ValueError(f"measure must be recall, precision or fmeasure, got {measure!r}")
        self.measure = measure
        self._docs: list[LCSIndex] = []

    def fit(self, documents: Sequence[str], document_claims: Sequence[Sequence[str]] | None = None) -> "RougeLinker":
        self._docs = [LCSIndex(rouge_tokens(d)) for d in documents]
        self._n_docs = len(documents)
        return self

    def _search(self, queries: Sequence[str], k: int) -> list[list[tuple[int, float]]]:
        out = []
        for q in queries:
            qt = rouge_tokens(q)
            scores = np.zeros(len(self._docs))
            if qt:
                for r, doc in enumerate(self._docs):
                    lcs = doc.lcs(qt)
                    if lcs == 0:
                        continue
                    rec, prec = lcs / len(qt), lcs / doc.length
                    scores[r] = rec if self.measure == "recall" else prec if self.measure == "precision" else 2 * rec * prec / (rec + prec)
            out.append(top_hits(scores, k))
        return out

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "measure": self.measure, "library": "rouge-score tokenizer, bit-parallel LCS"}
