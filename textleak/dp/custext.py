"""CUSTEXT and CUSTEXT+ (Chen et al. 2023): the exponential mechanism over a small output set per word.

Each corpus word x gets an output set Y_x of K words (``top_k``, default 20) and

    Pr(y_j | x) = exp(eps u_j / 2) / sum_k exp(eps u_k / 2),
    u_j = -(d_j - min d) / (max d - min d)     (Euclidean; cosine: (s_j - min s)/(max s - min s))

so u spans a range of width 1 (sensitivity 1). ``strategy``:

- ``"conservative"`` (CusText's default): corpus words, most frequent first, each take their K
  nearest still-unassigned words as a cluster; every member maps onto that same cluster. Clusters
  are disjoint and closed, which gives eps-DP between any two members of a cluster:
  Pr(y|x) <= e^eps Pr(y|x'). Unlike the released code (pitfall 11), assigned words are removed from
  later searches outright, so they cannot re-enter a later, no longer closed, set.
- ``"aggressive"`` (what Tong et al.'s code attacked): each corpus word maps onto its own K nearest
  words. Output sets overlap without being equal, so an output reachable from x but not from x' has
  an unbounded likelihood ratio: **no DP guarantee between inputs** holds for this strategy.

CUSTEXT+ keeps stop words unchanged (``keep_stopwords=True``); CUSTEXT perturbs them too. Words
with no mapping are kept. The released code also adds U{0..999} to numbers, outside any DP
accounting (``number_policy="perturb"``, off by default), and Tong et al.'s sanitizer reuses the
first draw for repeated words within a sentence (``consistent_within_record=True``, off by default).

Stop words: spaCy's English list by default (installed offline, 326 words); ``"nltk"`` uses NLTK's
179-word list when its corpus is installed (the reference), or pass your own collection.
"""

from __future__ import annotations

import logging
import unicodedata
from typing import Iterable, Sequence

import numpy as np

from textleak.dp.base import Likelihoods, WordMechanism, merge_counts
from textleak.dp.santext import euclidean

logger = logging.getLogger(__name__)


def load_stopwords(spec: "str | Iterable[str]") -> frozenset[str]:
    if not isinstance(spec, str):
        return frozenset(w.lower() for w in spec)
    if spec == "spacy":
        from spacy.lang.en.stop_words import STOP_WORDS

        return frozenset(STOP_WORDS)
    if spec == "nltk":
        from nltk.corpus import stopwords

        return frozenset(stopwords.words("english"))
    if spec == "none":
        return frozenset()
    raise ValueError(f"unknown stop-word list {spec!r}: 'spacy', 'nltk', 'none' or a list of words")


def _as_number(token: str) -> float | None:
    try:
        return float(token)
    except ValueError:
        pass
    try:
        return float(unicodedata.numeric(token)) if len(token) == 1 else None
    except (TypeError, ValueError):
        return None


class CusTextMechanism(WordMechanism):
    name = "custext+"

    def __init__(
        self,
        embeddings,
        vocab_counts: Sequence[tuple[str, int]],
        epsilon: float,
        top_k: int = 20,
        strategy: str = "conservative",
        similarity: str = "euclidean",
        keep_stopwords: bool = True,
        stopwords: "str | Iterable[str]" = "spacy",
        number_policy: str = "keep",
        consistent_within_record: bool = False,
        tokenizer: str = "regex",
    ):
        super().__init__(embeddings, epsilon, tokenizer)
        if strategy not in ("conservative", "aggressive"):
            raise ValueError(f"strategy must be 'conservative' or 'aggressive', got {strategy!r}")
        if similarity not in ("euclidean", "cosine"):
            raise ValueError(f"similarity must be 'euclidean' or 'cosine', got {similarity!r}")
        if number_policy not in ("keep", "perturb"):
            raise ValueError(f"number_policy must be 'keep' or 'perturb', got {number_policy!r}")
        if top_k < 1:
            raise ValueError("top_k must be at least 1")
        self.top_k = int(top_k)
        self.strategy = strategy
        self.similarity = similarity
        self.keep_stopwords = keep_stopwords
        self.stopwords = load_stopwords(stopwords)
        self.number_policy = number_policy
        self.consistent_within_record = consistent_within_record
        self.name = "custext+" if keep_stopwords else "custext"
        # candidate outputs: every embedded word that re-tokenises to itself
        self.words = [w for w in embeddings.words if self.tokenizer.is_single_token(w)]
        self.index = {w: i for i, w in enumerate(self.words)}
        rows = np.asarray([embeddings.index[w] for w in self.words], dtype=np.int64)
        vectors = embeddings.vectors[rows].astype(np.float64)
        if similarity == "cosine":
            vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        self.vectors = vectors
        counts = merge_counts(vocab_counts, self.key)
        corpus_ids = [self.index[w] for w, _ in counts if w in self.index]
        if not corpus_ids:
            raise ValueError("no corpus word has an embedding: check the vocabulary and the embeddings")
        self.support = np.full((len(self.words), self.top_k), -1, dtype=np.int64)
        self.support_utility = np.zeros((len(self.words), self.top_k))
        self._build_mapping(np.asarray(corpus_ids))
        self.support_probs = self._probabilities()
        self.stop_mask = np.asarray([w.lower() in self.stopwords for w in self.words], dtype=bool)
        mapped = self.support[:, 0] >= 0
        self.perturbed_mask = mapped & ~(self.stop_mask if keep_stopwords else np.zeros_like(mapped))
        self._inverse: dict[int, tuple[np.ndarray, np.ndarray]] | None = None

    # ---- mapping --------------------------------------------------------------------------------
    def _utility(self, x: int, members: np.ndarray) -> np.ndarray:
        if self.similarity == "cosine":
            s = self.vectors[members] @ self.vectors[x]
            span = s.max() - s.min()
            return (s - s.min()) / span if span > 0 else np.zeros_like(s)
        d = euclidean(self.vectors[[x]], self.vectors[members])[0]
        span = d.max() - d.min()
        return -(d - d.min()) / span if span > 0 else np.zeros_like(d)  # guard: equal distances -> uniform

    def _set_row(self, x: int, members: np.ndarray) -> None:
        self.support[x, : len(members)] = members
        self.support_utility[x, : len(members)] = self._utility(x, members)

    def _probabilities(self) -> np.ndarray:
        """exp(eps u / 2), normalised per row over the row's output set (padding gets 0)."""
        logits = np.where(self.support >= 0, 0.5 * self.epsilon * self.support_utility, -np.inf)
        mapped = self.support[:, 0] >= 0
        probs = np.zeros_like(logits)
        e = np.exp(logits[mapped] - logits[mapped].max(axis=1, keepdims=True))
        probs[mapped] = e / e.sum(axis=1, keepdims=True)
        return probs

    def with_epsilon(self, epsilon: float) -> "CusTextMechanism":
        """The same output sets at another epsilon (the sets do not depend on it): no re-clustering."""
        import copy

        if not epsilon > 0:
            raise ValueError(f"epsilon must be positive, got {epsilon}")
        other = copy.copy(self)
        other.epsilon = float(epsilon)
        other.support_probs = other._probabilities()
        other._inverse = None
        return other

    def _nearest(self, x: int, allowed: np.ndarray | None, k: int) -> np.ndarray:
        if self.similarity == "cosine":
            score = self.vectors @ self.vectors[x]
        else:
            score = -euclidean(self.vectors[[x]], self.vectors)[0]
        score[x] = np.inf  # x itself first, whatever duplicate vectors exist
        if allowed is not None:
            score = np.where(allowed, score, -np.inf)
        k = min(k, int((score > -np.inf).sum()))
        top = np.argpartition(-score, k - 1)[:k]
        return top[np.lexsort((top, -score[top]))]  # by score, ties by id: deterministic

    def _build_mapping(self, corpus_ids: np.ndarray) -> None:
        if self.strategy == "conservative":
            free = np.ones(len(self.words), dtype=bool)
            for x in corpus_ids:
                if not free[x]:
                    continue
                members = self._nearest(int(x), free, self.top_k)
                free[members] = False
                for m in members:
                    self._set_row(int(m), members)
        else:
            for x in corpus_ids:
                if self.support[x, 0] < 0:
                    self._set_row(int(x), self._nearest(int(x), None, self.top_k))

    def output_set(self, x: str) -> list[str]:
        i = self.word_id(x)
        if i < 0 or not self.perturbed_mask[i]:
            return [x]
        return [self.words[j] for j in self.support[i] if j >= 0]

    def clusters(self) -> list[list[int]]:
        """Conservative strategy: the disjoint output sets (each a list of word ids)."""
        seen, out = set(), []
        for x in np.nonzero(self.support[:, 0] >= 0)[0]:
            key = tuple(sorted(int(j) for j in self.support[x] if j >= 0))
            if key not in seen:
                seen.add(key)
                out.append(list(key))
        return out

    # ---- closed form ----------------------------------------------------------------------------
    def is_sensitive_id(self, ids: np.ndarray) -> np.ndarray:
        return self.perturbed_mask[ids]

    def _inverse_index(self) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        if self._inverse is None:
            xs = np.nonzero(self.perturbed_mask)[0]
            sup = self.support[xs]
            rows = np.repeat(xs, sup.shape[1])
            flat_y, flat_p = sup.ravel(), self.support_probs[xs].ravel()
            keep = flat_y >= 0
            rows, flat_y, flat_p = rows[keep], flat_y[keep], flat_p[keep]
            order = np.lexsort((rows, flat_y))
            rows, flat_y, flat_p = rows[order], flat_y[order], flat_p[order]
            bounds = np.nonzero(np.diff(flat_y))[0] + 1
            self._inverse = {int(g[0]): (r, p) for g, r, p in zip(np.split(flat_y, bounds), np.split(rows, bounds), np.split(flat_p, bounds)) if len(g)}
        return self._inverse

    def inverse_support(self, y: str) -> list[str]:
        """R(y): the words whose output set contains y (plus y itself when y is always kept)."""
        lk = self.likelihoods(y)
        return [y] if lk is None else [self.words[i] for i in lk.ids]

    def likelihoods(self, y: str) -> Likelihoods | None:
        yi = self.word_id(y)
        if yi < 0:
            return None
        ids, probs = self._inverse_index().get(yi, (np.zeros(0, dtype=np.int64), np.zeros(0)))
        if not self.perturbed_mask[yi]:  # y is kept whenever it is the input (stop word or unmapped)
            ids, probs = np.append(ids, yi), np.append(probs, 1.0)
        return Likelihoods(ids, probs)

    # ---- sampling -------------------------------------------------------------------------------
    def _sample_ids(self, ids: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
        out = ids.copy()
        move = self.perturbed_mask[ids]
        if move.any():
            cdf = np.cumsum(self.support_probs[ids[move]], axis=1)
            cdf /= cdf[:, -1:]
            col = (cdf <= uniforms[move, 1:2]).sum(axis=1)
            col = np.minimum(col, self.top_k - 1)
            out[move] = self.support[ids[move], col]
        return out

    def _oov_sensitive(self, token: str, word_id: int) -> bool:
        return False

    def _postprocess_record(self, originals: list[str], outputs: list[str], rng: np.random.Generator) -> list[str]:
        if self.consistent_within_record:
            first: dict[str, str] = {}
            outputs = [first.setdefault(o, s) if self.word_id(o) >= 0 and self.perturbed_mask[self.word_id(o)] else s
                       for o, s in zip(originals, outputs)]
        if self.number_policy == "perturb":
            offsets = rng.integers(0, 1000, size=len(outputs))
            outputs = [
                str(round(_as_number(o)) + int(off)) if s == o and _as_number(o) is not None else s
                for o, s, off in zip(originals, outputs, offsets)
            ]
        return outputs

    def describe(self) -> dict:
        d = super().describe()
        d.update(top_k=self.top_k, strategy=self.strategy, similarity=self.similarity,
                 keep_stopwords=self.keep_stopwords, n_mapped=int(self.perturbed_mask.sum()))
        return d
