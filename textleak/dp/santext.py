"""SANTEXT and SANTEXT+ (Yue et al. 2021): the exponential mechanism over Euclidean embedding distance.

    Pr(y | x) = exp(-(eps/2) d(x, y)) / sum_{y' in V_S} exp(-(eps/2) d(x, y'))        for y in V_S

SANTEXT+ (``p`` < 1 or ``sensitive_fraction`` < 1): sensitive words (the least frequent fraction w of
the corpus vocabulary) are always resampled over V_S; a non-sensitive word is resampled with
probability p and kept otherwise, so for x in V_N: Pr(y|x) = p Pr_em(y|x) for y in V_S and
Pr(x|x) = 1 - p. SANTEXT is ``sensitive_fraction=1``: every embedded word is sensitive, V_S = V.

Guarantee: for sensitive inputs x, x' and every output y, Pr(y|x) <= exp(eps d(x, x')) Pr(y|x')
(metric DP). A kept non-sensitive word has no such guarantee (it is released with probability 1-p).

Differences from the released code (``SanText:run_SanText.py``), all named options here:

- the sensitive set has ``int(w |vocab|)`` words; the code takes one more (``off_by_one=True``);
- out-of-vocabulary words are kept (``oov_policy="keep"``, Tong et al.'s fork); the original replaces
  them by a uniform draw from the corpus word list (``oov_policy="uniform"``);
- randomness comes from one generator per record, not from forked global RNGs;
- the |V| x |V_S| CDF matrix is not built at set-up (which is linear in the vocabulary) but on the
  first call, in large chunks, when it fits in ``cache_mb``; then every later call, at any batch
  size, costs one vectorised binary search per token. A larger vocabulary keeps the rows of the
  words it has seen (up to ``cache_mb``) and computes new ones in chunks. The attacks' likelihood
  columns come from the normalisers, computed once in chunks.
"""

from __future__ import annotations

import copy
import logging
from typing import Sequence

import numpy as np

from textleak.dp.base import Likelihoods, WordMechanism, check_epsilon, merge_counts

logger = logging.getLogger(__name__)

_CHUNK = 512


def _sq_norms(m: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", m, m)


def euclidean(a: np.ndarray, b: np.ndarray, b_sq: np.ndarray | None = None) -> np.ndarray:
    """Pairwise Euclidean distances in float64 (clipped at 0 against rounding)."""
    b_sq = _sq_norms(b) if b_sq is None else b_sq
    d2 = _sq_norms(a)[:, None] + b_sq[None, :] - 2.0 * (a @ b.T)
    return np.sqrt(np.maximum(d2, 0.0))


class SanTextMechanism(WordMechanism):
    name = "santext+"

    def __init__(
        self,
        embeddings,
        vocab_counts: Sequence[tuple[str, int]],
        epsilon: float,
        p: float = 0.3,
        sensitive_fraction: float = 0.9,
        oov_policy: str = "keep",
        off_by_one: bool = False,
        tokenizer: str = "regex",
        cache_mb: float = 512.0,
    ):
        super().__init__(embeddings, epsilon, tokenizer, oov_policy)
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p must be in [0, 1], got {p}")
        if not 0.0 <= sensitive_fraction <= 1.0:
            raise ValueError(f"sensitive_fraction must be in [0, 1], got {sensitive_fraction}")
        self.p = float(p)
        self.sensitive_fraction = float(sensitive_fraction)
        self.name = "santext" if sensitive_fraction >= 1.0 else "santext+"
        counts = merge_counts(vocab_counts, self.key)
        if not counts:
            raise ValueError("SANTEXT needs corpus word counts (fit the sanitizer on a corpus first)")
        self.corpus_words = [w for w, _ in counts]
        n_sensitive = int(self.sensitive_fraction * len(counts)) + (1 if off_by_one else 0)
        n_sensitive = min(n_sensitive, len(counts))
        # the frequent words (not sensitive); every other word, seen or unseen, is sensitive
        self._frequent = frozenset(self.corpus_words[: len(counts) - n_sensitive])
        # V: corpus words with a vector (and that re-tokenise to themselves, so outputs can be re-read)
        emb_index = embeddings.index
        keep = [i for i, w in enumerate(self.corpus_words) if w in emb_index and self.tokenizer.is_single_token(w)]
        self.words = [self.corpus_words[i] for i in keep]
        self.index = {w: i for i, w in enumerate(self.words)}
        self.counts = np.asarray([counts[i][1] for i in keep], dtype=np.int64)
        self.sensitive_mask = np.asarray([w not in self._frequent for w in self.words], dtype=bool)
        self.sensitive_ids = np.nonzero(self.sensitive_mask)[0]
        if len(self.sensitive_ids) == 0:
            raise ValueError("no sensitive word has an embedding: raise sensitive_fraction or check the vocabulary")
        rows = np.fromiter((emb_index[w] for w in self.words), dtype=np.int64, count=len(self.words))
        self.vectors = np.asarray(embeddings.vectors[rows], dtype=np.float64)
        self.sensitive_vectors = self.vectors[self.sensitive_ids]
        self._sensitive_sq = _sq_norms(self.sensitive_vectors)
        self._col_of = np.full(len(self.words), -1, dtype=np.int64)
        self._col_of[self.sensitive_ids] = np.arange(len(self.sensitive_ids))
        self.cache_mb = float(cache_mb)
        self._reset_caches()

    def _reset_caches(self) -> None:
        self._log_norm: np.ndarray | None = None
        self._cdf_rows: dict[int, np.ndarray] = {}
        self._max_rows = max(1, int(self.cache_mb * 2**20 // (8 * len(self.sensitive_ids))))
        self._dense: np.ndarray | None = None

    def with_epsilon(self, epsilon: float) -> "SanTextMechanism":
        """The same vocabulary and sensitive set at another epsilon."""
        other = copy.copy(self)
        other.epsilon = check_epsilon(epsilon)
        other._reset_caches()
        return other

    # ---- exponential mechanism ----------------------------------------------------------------
    def _scores(self, x_ids: np.ndarray) -> np.ndarray:
        """-(eps/2) d(x, y) for the rows x_ids and every sensitive y."""
        return -0.5 * self.epsilon * euclidean(self.vectors[x_ids], self.sensitive_vectors, self._sensitive_sq)

    @property
    def log_normalizers(self) -> np.ndarray:
        """log sum_{y in V_S} exp(-(eps/2) d(x, y)) for every x in V, computed once in chunks."""
        if self._log_norm is None:
            out = np.empty(len(self.words))
            for start in range(0, len(self.words), _CHUNK):
                ids = np.arange(start, min(start + _CHUNK, len(self.words)))
                s = self._scores(ids)
                m = s.max(axis=1)
                out[ids] = m + np.log(np.exp(s - m[:, None]).sum(axis=1))
            self._log_norm = out
        return self._log_norm

    def em_rows(self, x_ids: np.ndarray) -> np.ndarray:
        """The exponential-mechanism rows Pr_em(. | x) over V_S (columns in ``sensitive_ids`` order)."""
        s = self._scores(np.asarray(x_ids))
        m = s.max(axis=1, keepdims=True)
        e = np.exp(s - m)
        return e / e.sum(axis=1, keepdims=True)

    def _compute_cdf(self, x_ids: np.ndarray) -> np.ndarray:
        """Rows of the sampling CDF, in place: distances, exp(-(eps/2) d - max), cumulative sum, / total."""
        a = self.vectors[np.asarray(x_ids, dtype=np.int64)]
        work = a @ self.sensitive_vectors.T
        work *= -2.0
        work += _sq_norms(a)[:, None]
        work += self._sensitive_sq[None, :]
        np.maximum(work, 0.0, out=work)
        np.sqrt(work, out=work)
        work *= -0.5 * self.epsilon
        work -= work.max(axis=1, keepdims=True)
        np.exp(work, out=work)
        np.cumsum(work, axis=1, out=work)
        work /= work[:, -1:]
        return work

    def dense_cdf(self) -> np.ndarray | None:
        """The whole |V| x |V_S| sampling CDF (float64), computed once in chunks, or None when it
        would exceed ``cache_mb``."""
        if self._dense is None and len(self.words) <= self._max_rows:
            dense = np.empty((len(self.words), len(self.sensitive_ids)))
            for start in range(0, len(self.words), _CHUNK):
                ids = np.arange(start, min(start + _CHUNK, len(self.words)))
                dense[ids] = self._compute_cdf(ids)
            self._dense = dense
        return self._dense

    def cdf_rows(self, x_ids: np.ndarray) -> list[np.ndarray]:
        """The sampling CDF over V_S of each word in ``x_ids`` (float64, ending at exactly 1). Rows are
        kept while they fit in ``cache_mb``; missing ones are computed together with the next
        uncached words in frequency order, so the work comes in large chunks."""
        dense = self.dense_cdf()
        if dense is not None:
            return list(dense[np.asarray(x_ids, dtype=np.int64)])
        rows = self._cdf_rows
        missing = [int(x) for x in dict.fromkeys(np.asarray(x_ids).tolist()) if int(x) not in rows]
        if missing:
            chunk = min(_CHUNK, self._max_rows)
            if len(missing) < chunk:  # prefetch the most frequent words not cached yet
                extra = (i for i in range(len(self.words)) if i not in rows and i not in set(missing))
                missing = list(dict.fromkeys(missing + [i for _, i in zip(range(chunk - len(missing)), extra)]))
            fresh: dict[int, np.ndarray] = {}
            for start in range(0, len(missing), _CHUNK):
                ids = np.asarray(missing[start:start + _CHUNK], dtype=np.int64)
                fresh.update(zip(ids.tolist(), self._compute_cdf(ids)))
            out = [fresh[int(x)] if int(x) in fresh else rows[int(x)] for x in x_ids]
            if len(rows) + len(fresh) > self._max_rows:  # over budget: start again with the fresh rows
                self._cdf_rows = {}
            self._cdf_rows.update(fresh)
            return out
        return [rows[int(x)] for x in x_ids]

    def is_sensitive_id(self, ids: np.ndarray) -> np.ndarray:
        return self.sensitive_mask[ids]

    def vectors_of(self, ids: np.ndarray) -> np.ndarray:
        return self.vectors[np.asarray(ids, dtype=np.int64)]

    def _oov_sensitive(self, token: str, word_id: int) -> bool:
        """A word without a vector is sensitive unless it is one of the frequent corpus words (SanText
        draws the sensitive set from the corpus counts before it looks at the vectors)."""
        return self.key(token) not in self._frequent

    def _oov_replacements(self) -> list[str]:
        return self.corpus_words  # SanText: a uniform draw from the whole corpus word list

    def likelihood_matrix(self, y_ids: np.ndarray) -> np.ndarray:
        """Pr(y | x') for many outputs at once: shape (len(y_ids), |V|). Used by the attacks."""
        y_ids = np.asarray(y_ids, dtype=np.int64)
        out = np.zeros((len(y_ids), len(self.words)))
        sens = self.sensitive_mask[y_ids]
        if sens.any():
            ys = y_ids[sens]
            d = euclidean(self.vectors[ys], self.vectors)  # (n_y, |V|), symmetric distance
            em = np.exp(-0.5 * self.epsilon * d - self.log_normalizers[None, :])
            em[:, ~self.sensitive_mask] *= self.p
            out[sens] = em
        # a kept non-sensitive word: only itself produced it (probability 1 - p)
        rows = np.nonzero(~sens)[0]
        out[rows, y_ids[~sens]] = 1.0 - self.p
        # a sensitive input y can also be "kept" only by being redrawn (already in em); nothing else
        return out

    def likelihood_lists(self, y_ids: np.ndarray) -> list[Likelihoods]:
        out: list[Likelihoods] = []
        for start in range(0, len(y_ids), 256):
            for col in self.likelihood_matrix(np.asarray(y_ids[start:start + 256])):
                ids = np.nonzero(col > 0)[0]
                out.append(Likelihoods(ids, col[ids]))
        return out

    def likelihoods(self, y: str) -> Likelihoods | None:
        yi = self.word_id(y)
        if yi < 0:
            return None
        return self.likelihood_lists(np.asarray([yi]))[0]

    # ---- sampling -----------------------------------------------------------------------------
    def _sample_ids(self, ids: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
        out = ids.copy()
        redraw = self.sensitive_mask[ids] | (uniforms[:, 0] < self.p)
        xs = ids[redraw]
        if len(xs) == 0:
            return out
        u = uniforms[redraw, 1]
        dense = self.dense_cdf()
        if dense is not None:
            drawn = _row_searchsorted(dense, xs, u)
        else:
            order = np.argsort(xs, kind="stable")
            uniq, first = np.unique(xs[order], return_index=True)
            bounds = np.append(first, len(xs))
            drawn = np.empty(len(xs), dtype=np.int64)
            for k, row in enumerate(self.cdf_rows(uniq)):  # one binary search per token, grouped by word
                pos = order[bounds[k]:bounds[k + 1]]
                drawn[pos] = np.searchsorted(row, u[pos], side="right")
        np.minimum(drawn, len(self.sensitive_ids) - 1, out=drawn)
        out[redraw] = self.sensitive_ids[drawn]
        return out

    def describe(self) -> dict:
        d = super().describe()
        d.update(p=self.p, sensitive_fraction=self.sensitive_fraction, n_sensitive=int(len(self.sensitive_ids)))
        return d


def _row_searchsorted(cdf: np.ndarray, rows: np.ndarray, u: np.ndarray) -> np.ndarray:
    """For each token t, the number of entries of ``cdf[rows[t]]`` that are <= ``u[t]`` (numpy's
    ``searchsorted(side="right")`` on that row): a binary search run for all tokens at once."""
    lo = np.zeros(len(rows), dtype=np.int64)
    hi = np.full(len(rows), cdf.shape[1], dtype=np.int64)
    while True:
        active = np.nonzero(lo < hi)[0]
        if not len(active):
            return lo
        mid = (lo[active] + hi[active]) // 2
        right = cdf[rows[active], mid] <= u[active]
        lo[active[right]] = mid[right] + 1
        hi[active[~right]] = mid[~right]


def santext_loop_reference(mech: SanTextMechanism, tokens: list[str], rng: np.random.Generator) -> list[str]:
    """A straightforward per-token implementation (one probability row per token, ``rng.choice``),
    kept only as the speed baseline in ``benchmarks/dp_speed.py`` and as a cross-check in tests."""
    out = []
    for t in tokens:
        i = mech.word_id(t)
        if i < 0:
            out.append(t)
            continue
        if mech.sensitive_mask[i] or rng.random() < mech.p:
            d = np.sqrt(((mech.sensitive_vectors - mech.vectors[i]) ** 2).sum(axis=1))
            w = np.exp(-0.5 * mech.epsilon * (d - d.min()))
            out.append(mech.words[mech.sensitive_ids[rng.choice(len(w), p=w / w.sum())]])
        else:
            out.append(t)
    return out
