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

CUSTEXT+ keeps stop words unchanged (``keep_stopwords=True``); CUSTEXT perturbs them too. Every
other token is sensitive; one with no vector (out of vocabulary) or no output set (a word the corpus
statistics never saw) cannot be protected and goes to the OOV policy (``"keep"``, as both released
codes do; it then counts as recovered in the ASR). The released code also adds U{0..999} to numbers,
outside any DP accounting (``number_policy="perturb"``, off by default), and Tong et al.'s sanitizer
reuses the first draw for repeated words within a sentence (``consistent_within_record=True``, off
by default).

Stop words: NLTK's English list (179 words, shipped with textleak as package data, so nothing is
downloaded; the list CusText and Tong et al. use), ``"spacy"`` (326 words, includes numerals such as
"fifteen"), ``"none"``, or your own collection. Matching is on the lower-cased word.

Output sets are searched over the whole embedding vocabulary (400,000 words for GloVe 6B), in
batches: one matrix product and a top-k per 256 query words, exact float64 distances for the few
candidates kept; in the conservative strategy the k nearest *free* words are read from each word's
precomputed neighbour list and only recomputed when too few of them are still free.
"""

from __future__ import annotations

import copy
import logging
import math
import unicodedata
from functools import lru_cache
from importlib import resources
from typing import Iterable, Sequence

import numpy as np

from textleak.dp.base import Likelihoods, WordMechanism, check_epsilon, merge_counts

logger = logging.getLogger(__name__)

_QUERY_CHUNK = 128


@lru_cache(maxsize=1)
def nltk_english_stopwords() -> frozenset[str]:
    """NLTK's English stop-word list (179 words; ``nltk.corpus.stopwords.words("english")`` of the
    long-standing nltk_data release), read from textleak's package data."""
    text = resources.files("textleak.dp").joinpath("data/nltk_english_stopwords.txt").read_text(encoding="utf-8")
    return frozenset(w.strip() for w in text.splitlines() if w.strip())


def load_stopwords(spec: "str | Iterable[str]") -> frozenset[str]:
    """``"nltk"`` (default: the reference list, offline), ``"spacy"``, ``"none"`` or your own words."""
    if not isinstance(spec, str):
        return frozenset(w.lower() for w in spec)
    if spec == "nltk":
        return nltk_english_stopwords()
    if spec == "spacy":
        from spacy.lang.en.stop_words import STOP_WORDS

        return frozenset(STOP_WORDS)
    if spec == "none":
        return frozenset()
    raise ValueError(f"unknown stop-word list {spec!r}: 'nltk', 'spacy', 'none' or a list of words")


def _as_number(token: str) -> float | None:
    """A finite number the token spells (CusText's ``is_number``), else None ("nan", "inf" are words)."""
    try:
        value = float(token)
    except ValueError:
        try:
            value = float(unicodedata.numeric(token)) if len(token) == 1 else None
        except (TypeError, ValueError):
            value = None
    return value if value is not None and math.isfinite(value) else None


class _Pool:
    """The candidate output words of an embedding set for one tokenizer and similarity: word ids,
    their vectors (float32 for the search, float64 rows on demand) and squared norms. Built once per
    (embeddings, tokenizer, similarity) and shared by every mechanism and epsilon."""

    def __init__(self, embeddings, tokenizer, similarity: str):
        index = embeddings.index
        words = embeddings.words
        ok = [i for i, w in enumerate(words) if index.get(w) == i and tokenizer.is_single_token(w)]
        self.ids = np.asarray(ok, dtype=np.int64)
        self.pos_of = np.full(len(words), -1, dtype=np.int64)
        self.pos_of[self.ids] = np.arange(len(self.ids))
        vecs = np.asarray(embeddings.vectors[self.ids], dtype=np.float32)
        if similarity == "cosine":
            vecs = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
        self.vectors = vecs
        self.sq = np.einsum("ij,ij->i", vecs.astype(np.float64), vecs.astype(np.float64))
        self.similarity = similarity
        self._neg_sq = None

    @classmethod
    def of(cls, embeddings, tokenizer, similarity: str) -> "_Pool":
        memo = embeddings.__dict__.setdefault("_derived", {})
        key = ("custext_pool", tokenizer.kind, similarity)
        if key not in memo:
            memo[key] = cls(embeddings, tokenizer, similarity)
        return memo[key]

    def distance(self, a_pos: np.ndarray, b_pos: np.ndarray) -> np.ndarray:
        """Exact float64 dissimilarity (Euclidean distance, or minus cosine) between pool rows."""
        a = self.vectors[a_pos].astype(np.float64)
        b = self.vectors[b_pos].astype(np.float64)
        if self.similarity == "cosine":
            return -(a @ b.T)
        d2 = self.sq[a_pos][:, None] + self.sq[b_pos][None, :] - 2.0 * (a @ b.T)
        return np.sqrt(np.maximum(d2, 0.0))

    def nearest(self, query_pos: np.ndarray, m: int, allowed: np.ndarray | None = None) -> list[np.ndarray]:
        """For each query, its ``m`` nearest pool rows (itself first, then by exact distance, ties by
        position), among ``allowed`` rows when given. One matrix product and top-k per chunk."""
        import torch

        m = min(m, len(self.ids) if allowed is None else int(allowed.sum()))
        pool_t = torch.from_numpy(self.vectors).T
        if self._neg_sq is None:  # score = 2 q.p - |p|^2 ranks like -|q - p|^2
            self._neg_sq = torch.from_numpy(-self.sq.astype(np.float32))[None, :]
        out: list[np.ndarray] = []
        for start in range(0, len(query_pos), _QUERY_CHUNK):
            q = query_pos[start:start + _QUERY_CHUNK]
            queries = torch.from_numpy(self.vectors[q])
            if self.similarity == "cosine":
                score = queries @ pool_t
            else:
                score = torch.addmm(self._neg_sq, queries, pool_t, alpha=2.0)
            if allowed is not None:
                score[:, torch.from_numpy(~allowed)] = -torch.inf
            score[torch.arange(len(q)), torch.from_numpy(q)] = torch.inf  # the query itself comes first
            top = torch.topk(score, m, dim=1).indices.numpy()
            for row, cand in zip(q, top):
                exact = self.distance(np.asarray([row]), cand)[0]
                exact[cand == row] = -np.inf
                out.append(cand[np.lexsort((cand, exact))])
        return out


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
        stopwords: "str | Iterable[str]" = "nltk",
        number_policy: str = "keep",
        consistent_within_record: bool = False,
        tokenizer: str = "regex",
        oov_policy: str = "keep",
    ):
        super().__init__(embeddings, epsilon, tokenizer, oov_policy)
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
        # word ids are embedding rows; outputs are the rows that re-tokenise to themselves (the pool)
        self.words = embeddings.words
        self.index = embeddings.index
        self._pool = _Pool.of(embeddings, self.tokenizer, similarity)
        counts = merge_counts(vocab_counts, self.key)
        self.corpus_words = [w for w, _ in counts]
        corpus_ids = [self.index[w] for w in self.corpus_words if w in self.index and self._pool.pos_of[self.index[w]] >= 0]
        if not corpus_ids:
            raise ValueError("no corpus word has an embedding: check the vocabulary and the embeddings")
        self._row_of = np.full(len(self.words), -1, dtype=np.int64)
        rows: list[np.ndarray] = []  # output set of each mapped word (word ids), in mapping order
        owners: list[int] = []
        self._build_mapping(np.asarray(list(dict.fromkeys(corpus_ids)), dtype=np.int64), rows, owners)
        self.support = np.full((len(rows), self.top_k), -1, dtype=np.int64)
        self.support_utility = np.zeros((len(rows), self.top_k))
        for r, (x, members) in enumerate(zip(owners, rows)):
            self._row_of[x] = r
            self.support[r, : len(members)] = members
        self._utilities(owners, rows)
        stop = np.zeros(len(self.words), dtype=bool)
        for w in self.stopwords:
            i = self.index.get(self.key(w), -1)
            if i >= 0:
                stop[i] = True
        self.stop_mask = stop
        self._corpus_mask = np.zeros(len(self.words), dtype=bool)
        self._corpus_mask[[self.index[w] for w in self.corpus_words if w in self.index]] = True
        mapped = self._row_of >= 0
        self.perturbed_mask = mapped & ~(stop if keep_stopwords else np.zeros_like(mapped))
        self._set_epsilon(self.epsilon)

    # ---- mapping --------------------------------------------------------------------------------
    def _build_mapping(self, corpus_ids: np.ndarray, rows: list, owners: list) -> None:
        pool, k = self._pool, self.top_k
        q_pos = pool.pos_of[corpus_ids]
        if self.strategy == "aggressive":  # each corpus word onto its own k nearest words
            for x, near in zip(corpus_ids, pool.nearest(q_pos, k)):
                owners.append(int(x))
                rows.append(pool.ids[near])
            return
        free = np.ones(len(pool.ids), dtype=bool)
        margin = 4 * k
        recomputed = 0
        for start in range(0, len(q_pos), _QUERY_CHUNK):
            chunk = q_pos[start:start + _QUERY_CHUNK]
            chunk = chunk[free[chunk]]
            if not len(chunk):
                continue
            for qp, near in zip(chunk, pool.nearest(chunk, margin)):
                if not free[qp]:
                    continue  # taken by an earlier cluster in this chunk
                members = near[free[near]][:k]
                if len(members) < k and len(near) == margin:  # too few free in the list: search the free words
                    members = pool.nearest(np.asarray([qp]), k, allowed=free)[0]
                    recomputed += 1
                free[members] = False
                ids = pool.ids[members]
                for m in ids:  # every member maps onto the same, closed output set
                    owners.append(int(m))
                    rows.append(ids)
        logger.debug("custext conservative mapping: %d clusters re-searched among free words", recomputed)

    def _utilities(self, owners: list[int], rows: list[np.ndarray]) -> None:
        """u_j = -(d_j - min d)/(max d - min d) (Euclidean) or (s_j - min s)/(max s - min s) (cosine)
        for each mapped word over its output set; x itself gets the best utility."""
        pool = self._pool
        for r, (x, members) in enumerate(zip(owners, rows)):
            d = pool.distance(pool.pos_of[[x]], pool.pos_of[members])[0]  # cosine: minus the similarity
            span = d.max() - d.min()
            self.support_utility[r, : len(members)] = -(d - d.min()) / span if span > 0 else 0.0  # equal: uniform

    def _set_epsilon(self, epsilon: float) -> None:
        """exp(eps u / 2), normalised per row over the row's output set (padding gets 0), and its CDF."""
        self.epsilon = check_epsilon(epsilon)
        logits = np.where(self.support >= 0, 0.5 * self.epsilon * self.support_utility, -np.inf)
        probs = np.zeros_like(logits)
        if len(logits):
            e = np.exp(logits - logits.max(axis=1, keepdims=True))
            probs = e / e.sum(axis=1, keepdims=True)
        self.support_probs = probs
        cdf = np.cumsum(probs, axis=1)
        if len(cdf):
            cdf /= cdf[:, -1:]
        self._cdf = cdf
        self._inverse: dict[int, tuple[np.ndarray, np.ndarray]] | None = None

    def with_epsilon(self, epsilon: float) -> "CusTextMechanism":
        """The same output sets at another epsilon (the sets do not depend on it): no re-clustering."""
        other = copy.copy(self)
        other._set_epsilon(epsilon)
        return other

    def output_set(self, x: str) -> list[str]:
        i = self.word_id(x)
        if i < 0 or not self.perturbed_mask[i]:
            return [x]
        return [self.words[j] for j in self.support[self._row_of[i]] if j >= 0]

    def clusters(self) -> list[list[int]]:
        """The distinct output sets (each a sorted list of word ids); disjoint for the conservative strategy."""
        seen: dict[tuple, None] = {}
        for row in self.support:
            seen.setdefault(tuple(sorted(int(j) for j in row if j >= 0)), None)
        return [list(k) for k in seen]

    def vectors_of(self, ids: np.ndarray) -> np.ndarray:
        return np.asarray(self.embeddings.vectors[np.asarray(ids, dtype=np.int64)], dtype=np.float64)  # ids are rows

    # ---- closed form ----------------------------------------------------------------------------
    def is_sensitive_id(self, ids: np.ndarray) -> np.ndarray:
        ids = np.asarray(ids)
        return ~self.stop_mask[ids] if self.keep_stopwords else np.ones(len(ids), dtype=bool)

    def covers_id(self, ids: np.ndarray) -> np.ndarray:
        return self.perturbed_mask[np.asarray(ids)]

    def fitted_id(self, ids: np.ndarray) -> np.ndarray:
        return self._corpus_mask[np.asarray(ids)]

    def _oov_sensitive(self, token: str, word_id: int) -> bool:
        return not (self.keep_stopwords and self.key(token).lower() in self.stopwords)

    def _oov_replacements(self) -> list[str]:
        return self.corpus_words or self.words

    def _inverse_index(self) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        if self._inverse is None:
            owners = np.full(len(self.support), -1, dtype=np.int64)
            mapped = np.nonzero(self._row_of >= 0)[0]
            owners[self._row_of[mapped]] = mapped
            keep_rows = self.perturbed_mask[owners]
            sup, prob, own = self.support[keep_rows], self.support_probs[keep_rows], owners[keep_rows]
            rows = np.repeat(own, sup.shape[1])
            flat_y, flat_p = sup.ravel(), prob.ravel()
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
        return self.likelihood_lists(np.asarray([yi]))[0]

    def likelihood_lists(self, y_ids: np.ndarray) -> list[Likelihoods]:
        inverse = self._inverse_index()
        empty = (np.zeros(0, dtype=np.int64), np.zeros(0))
        out = []
        for yi in np.asarray(y_ids).tolist():
            ids, probs = inverse.get(int(yi), empty)
            if not self.perturbed_mask[yi]:  # y is kept whenever it is the input (stop word or unmapped)
                ids, probs = np.append(ids, yi), np.append(probs, 1.0)
            out.append(Likelihoods(ids, probs))
        return out

    # ---- sampling -------------------------------------------------------------------------------
    def _sample_ids(self, ids: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
        out = ids.copy()
        move = self.perturbed_mask[ids]
        if move.any():
            rows = self._row_of[ids[move]]
            col = (self._cdf[rows] <= uniforms[move, 1:2]).sum(axis=1)
            np.minimum(col, (self.support[rows] >= 0).sum(axis=1) - 1, out=col)
            out[move] = self.support[rows, col]
        return out

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
        d.update(vocabulary=int(len(self._pool.ids)), top_k=self.top_k, strategy=self.strategy,
                 similarity=self.similarity, keep_stopwords=self.keep_stopwords, n_mapped=int(self.perturbed_mask.sum()))
        return d
