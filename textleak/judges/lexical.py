"""The lexical judge: ROUGE-L recall of a claim against its best span, thresholded.

Recall = LCS(claim tokens, span tokens) / len(claim tokens), tokens from ``rouge_score``'s default
tokenizer with the Porter stemmer (the tokenisation of seed 000's ROUGE-L baseline, claim as the
reference). Spans are sentences and adjacent-sentence windows; the best span is the one with the
highest recall. r >= t1 -> 1, r >= t2 -> 2, else 3, thresholds calibrated like the embedding judge's.
It is the baseline the paper shows to correlate worse with people (|Spearman| 0.81 vs 0.93); it has
no number guard unless asked (``number_guard=True``).
"""

from __future__ import annotations

from typing import Any, Sequence

from textleak.judges.base import ClaimRating, Judge, check_pairs, guarded_best_span, number_cap, threshold_rating
from textleak.judges.spans import document_spans
from textleak.registry import judges
from textleak.text import extract_numbers, lcs_length, rouge_tokens

# Calibrated like the embedding judge's (benchmarks/calibrate_judges.py; docs/judges.md).
LEXICAL_T1 = 0.46
LEXICAL_T2 = 0.23
CALIBRATION = {
    "date": "2026-11-21",
    "set": "textleak/data/judge_calibration.jsonl: train 184 claims, held-out test 80 claims",
    "test_spearman": 0.443,
    "test_cohen_kappa": 0.380,
    "test_cohen_kappa_linear": 0.388,
}


@judges.register("lexical")
class LexicalJudge(Judge):
    """ROUGE-L recall of the claim against its best span."""

    name = "lexical"

    def __init__(self, t1: float = LEXICAL_T1, t2: float = LEXICAL_T2, window: int = 2, number_guard: bool = False, number_guard_rating: int = 2):
        if not t1 > t2:
            raise ValueError(f"thresholds must satisfy t1 > t2, got t1={t1}, t2={t2}")
        self.t1 = float(t1)
        self.t2 = float(t2)
        self.window = int(window)
        self.number_guard = number_guard
        self.number_guard_rating = int(number_guard_rating)

    def describe(self) -> dict[str, Any]:
        return {
            "name": "lexical",
            "version": 2,  # 2: tokens of non-Latin scripts count (rouge_score drops them)
            "measure": "ROUGE-L recall (rouge-score tokenizer, Porter stemmer), claim as reference, best span",
            "t1": self.t1,
            "t2": self.t2,
            "number_guard": self.number_guard,
            "spans": f"sentences + {self.window}-sentence windows",
            "calibration": dict(CALIBRATION) if (self.t1, self.t2) == (LEXICAL_T1, LEXICAL_T2) else "user thresholds",
        }

    def match(self, claims: Sequence[Sequence[str]], documents: Sequence[str]) -> list[list[dict[str, Any]]]:
        """Best ROUGE-L recall, best span and number cap per claim (None similarity: empty document)."""
        check_pairs(claims, documents)
        out = []
        for cs, doc in zip(claims, documents):
            spans = document_spans(doc, self.window) if doc.strip() else []
            span_tokens = [rouge_tokens(s) for s, _ in spans]
            rows = []
            for claim in cs:
                if not spans:
                    rows.append({"similarity": None, "span": None, "cap": 1})
                    continue
                tokens = rouge_tokens(claim)
                recalls = [lcs_length(tokens, st) / len(tokens) if tokens else 0.0 for st in span_tokens]
                if self.number_guard:
                    wanted = extract_numbers(claim, count_word_one=False)
                    present = [number_cap(wanted, extract_numbers(context)) == 1 for _, context in spans]
                    best, cap = guarded_best_span(recalls, present, self.t1, self.t2, self.number_guard_rating)
                else:
                    best, cap = max(range(len(spans)), key=recalls.__getitem__), 1
                rows.append({"similarity": recalls[best], "span": spans[best][0], "cap": cap})
            out.append(rows)
        return out

    def _rate(self, claims: list[list[str]], documents: list[str], seeds: list[int]) -> list[list[ClaimRating]]:
        """Deterministic: ``seeds`` is accepted for the contract and unused."""
        return [[threshold_rating(row["similarity"], self.t1, self.t2, row["cap"], "rouge_l_recall", row["span"]) for row in rows]
                for rows in self.match(claims, documents)]

