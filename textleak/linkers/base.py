"""Linking L: find the sanitized record an adversary would attach to an original, from its known claims.

Two axes, set in each linker's constructor:

- ``query``: ``"concat"`` (paper §2.3, default) joins the k known claims into one query and takes the
  top-ranked record; ``"vote"`` (released code) issues one query per claim, keeps for each the hits
  scoring at least ``vote_threshold`` (0.95) of its best hit (a list where even the last hit is that
  high is "flat" and only feeds a fallback pool), and links to the most common record, ties going to
  the first claim's record (``statistics.mode`` semantics).
- ``index`` (BM25 only): ``"document"`` (paper, default) indexes whole sanitized records;
  ``"claims"`` (released code) indexes the sanitized records' claims, each hit standing for its record.

Linkers (``textleak.linkers``, one file each, registered by name): :class:`BM25Linker` (bm25s, Lucene BM25 k1=0.9 b=0.4, Porter stemming, Lucene's 33 English stop
words: Anserini's defaults used by the paper's Pyserini), :class:`RougeLinker` (ROUGE-L recall, the
lexical baseline's linker) and :class:`DenseLinker` (all-MiniLM-L6-v2 cosine, from the PyPI package).

A query that matches nothing (every score zero, or an empty pool) is *unlinked*: ``Link.index`` is
None. Unlinked records count in the linkage-rate denominator and are reported, never dropped.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

logger = logging.getLogger(__name__)


@dataclass
class Link:
    """The adversary's pick for one original record."""

    index: int | None  # position in the sanitized set; None = unlinked (no evidence)
    score: float  # the linker's score of that pick (BM25, ROUGE-L recall, cosine, or votes)
    ranking: list[int] = field(default_factory=list)  # best candidates first (for linkage@k)
    tied: int = 1  # candidates sharing the pick's score (> 1: a tie, broken toward the lower id)

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "score": self.score, "ranking": self.ranking, "tied": self.tied}


def top_hits(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The ``k`` best (record, score) pairs with a positive score, best first, equal scores toward the
    lower record id (Lucene's rule); records tied with the k-th are kept too, so ties can be counted."""
    return top_hits_rows(np.asarray(scores)[None, :], k)[0]


def top_hits_rows(scores: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
    """:func:`top_hits` of every row of a (queries x records) score matrix, in a few array operations
    (one partition, one comparison and one sort for the whole block, not a Python loop of them)."""
    scores = np.asarray(scores)
    if not np.issubdtype(scores.dtype, np.floating):
        scores = scores.astype(np.float64)
    n_rows, n = scores.shape
    if n == 0:
        return [[] for _ in range(n_rows)]
    tiny = np.finfo(scores.dtype).smallest_subnormal  # s >= tiny is s > 0
    threshold = np.full(n_rows, tiny, dtype=scores.dtype)
    if 0 < k < n:  # each row's k-th largest score, when positive
        threshold = np.maximum(np.partition(scores, n - k, axis=1)[:, n - k], tiny)
    flat = np.flatnonzero(scores >= threshold[:, None])
    rows, cols = np.divmod(flat, n)
    values = scores.ravel()[flat]
    order = np.lexsort((cols, -values, rows))
    bounds = np.searchsorted(rows[order], np.arange(n_rows + 1)).tolist()
    cols_l, values_l = cols[order].tolist(), values[order].tolist()
    return [list(zip(cols_l[a:b], values_l[a:b])) for a, b in zip(bounds[:-1], bounds[1:])]


def count_tied(hits: Sequence[tuple[int, float]]) -> int:
    """How many hits share the best score (1 when the best is alone)."""
    return sum(1 for _, s in hits if s == hits[0][1]) if hits else 0


def vote(hit_lists: Sequence[Sequence[tuple[int, float]]], threshold: float = 0.95) -> int | None:
    """The released code's vote over per-claim hit lists of (record, score), best first."""
    kept: list[int] = []
    fallback: list[int] = []
    for hits in hit_lists:
        hits = [(r, s) for r, s in hits if s > 0]
        if not hits:
            continue
        top = hits[0][1]
        if hits[-1][1] >= threshold * top:
            fallback.extend(r for r, _ in hits)
        else:
            kept.extend(r for r, s in hits if s >= threshold * top)
    pool = kept or fallback
    if not pool:
        return None
    counts: dict[int, int] = {}
    for r in pool:
        counts[r] = counts.get(r, 0) + 1
    best = max(counts.values())
    return next(r for r in pool if counts[r] == best)  # first mode encountered


def _vote_ranking(hit_lists: Sequence[Sequence[tuple[int, float]]], winner: int | None, top_k: int) -> list[int]:
    """Candidates ordered by number of claim lists they appear in, then best score (winner first)."""
    count: dict[int, int] = {}
    best: dict[int, float] = {}
    for hits in hit_lists:
        for r in {r for r, s in hits if s > 0}:
            count[r] = count.get(r, 0) + 1
        for r, s in hits:
            if s > 0:
                best[r] = max(best.get(r, 0.0), s)
    order = sorted(count, key=lambda r: (-count[r], -best[r], r))
    if winner is not None:
        order = [winner] + [r for r in order if r != winner]
    return order[:top_k]


class Linker(ABC):
    """``fit(documents, document_claims=None)`` then ``link(known_claims)``."""

    name = "linker"
    needs_claims = False  # True when the index is built from the sanitized records' claims

    def __init__(self, query: str = "concat", vote_threshold: float = 0.95, hits_per_query: int = 1, top_k: int = 10):
        if query not in ("concat", "vote"):
            raise ValueError(f"query must be 'concat' (paper) or 'vote' (released code), got {query!r}")
        self.query = query
        self.vote_threshold = vote_threshold
        self.hits_per_query = hits_per_query
        self.top_k = top_k
        self._n_docs = 0

    @abstractmethod
    def fit(self, documents: Sequence[str], document_claims: Sequence[Sequence[str]] | None = None) -> "Linker":
        ...

    @abstractmethod
    def _search(self, queries: Sequence[str], k: int) -> list[list[tuple[int, float]]]:
        """For each query, up to k (record, score) hits, best first, scores > 0 only."""

    def link(self, known_claims: Sequence[Sequence[str]], progress: bool = False) -> list[Link]:
        if self._n_docs == 0:
            return [Link(None, 0.0, [], 0) for _ in known_claims]
        if self.query == "concat":
            queries = [" ".join(c) for c in known_claims]
            hits = self._search(queries, self.top_k)
            return [Link(h[0][0], float(h[0][1]), [r for r, _ in h][: self.top_k], count_tied(h)) if h else Link(None, 0.0, [], 0)
                    for h in hits]
        flat = [c for claims in known_claims for c in claims]
        per_claim = self._search(flat, max(self.hits_per_query, 1)) if flat else []
        ranked = self._search([" ".join(c) for c in known_claims], self.top_k)
        out, pos = [], 0
        for claims, concat_hits in zip(known_claims, ranked):
            lists = per_claim[pos : pos + len(claims)]
            pos += len(claims)
            winner = vote(lists, self.vote_threshold)
            ranking = _vote_ranking(lists, winner, self.top_k)
            ranking += [r for r, _ in concat_hits if r not in ranking][: max(0, self.top_k - len(ranking))]
            votes = sum(1 for hits in lists if any(r == winner for r, s in hits if s > 0)) if winner is not None else 0
            tied = sum(1 for r in ranking if sum(1 for hits in lists if any(x == r for x, s in hits if s > 0)) == votes) if winner is not None else 0
            out.append(Link(winner, float(votes), ranking, max(tied, 1) if winner is not None else 0))
        return out

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "query": self.query, "vote_threshold": self.vote_threshold,
                "hits_per_query": self.hits_per_query}
