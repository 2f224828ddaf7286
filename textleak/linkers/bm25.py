"""BM25 linking with bm25s (pure Python + numpy, no JDK), Lucene settings as the paper's Pyserini."""

from __future__ import annotations

import logging
import re
from typing import Any, Sequence

import numpy as np

from textleak.linkers.base import Linker, top_hits_rows
from textleak.registry import linkers

# Lucene's default English stop words (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET), 33 words.
LUCENE_STOPWORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these "
    "they this to was will with".split()
)
assert len(LUCENE_STOPWORDS) == 33

_TOKEN = re.compile(r"[^\W_]+(?:[.,][^\W_]+)*")
# words the atomizers write into claims as their frame ("The user mentions X.", "The user asks the assistant
# to ...", "The writer ...", "The patient ..."): they say whose claim it is, not which record it came from, and
# a long text that talks about "users" (a jailbreak prompt, software documentation) would otherwise win
# every query of "The user mentions X." claims
CLAIM_FRAME_WORDS = frozenset("user users writer writers patient patients person persons mention mentions mentioned ask asks asked "
                              "assistant".split())


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
            # a possessive "'s" leaves "s", which stems to "": dropped, as Lucene's possessive filter drops it
            docs = [[self._stems[t] for t in d if self._stems[t]] for d in docs]
        return docs


@linkers.register("bm25")
class BM25Linker(Linker):
    """BM25 linking with bm25s (pure Python + numpy, no JDK).

    Defaults reproduce the paper: whole-document index, the k known claims concatenated into one query,
    Lucene BM25 with k1=0.9, b=0.4, Porter stemming and Lucene's 33 stop words.
    ``BM25Linker.release()`` gives the released code's variant: claim-level index, one query per known
    claim, top-1 hit each, 0.95 vote.

    One departure from the paper, ``drop_frame=True``: the words the atomizers frame every claim with
    (:data:`CLAIM_FRAME_WORDS`: "The user mentions ...", "The patient ...") are left out of the queries, so
    that records that talk about "users" do not win every "The user mentions X." query.
    """

    name = "bm25"

    def __init__(self, index: str = "document", query: str = "concat", k1: float = 0.9, b: float = 0.4,
                 method: str = "lucene", stemmer: str | None = "porter", stopwords: "str | Sequence[str] | None" = "lucene",
                 vote_threshold: float = 0.95, hits_per_query: int = 1, top_k: int = 10, drop_frame: bool = True):
        super().__init__(query, vote_threshold, hits_per_query, top_k)
        self.drop_frame = bool(drop_frame)
        if index not in ("document", "claims"):
            raise ValueError(f"index must be 'document' (paper) or 'claims' (released code), got {index!r}")
        self.index = index
        self.k1 = k1
        self.b = b
        self.method = method
        self.stemmer = stemmer
        self.stopwords = stopwords
        self._tokenizer = LuceneLikeTokenizer(stemmer, stopwords)
        # the frame words as the queries' tokens are (stemmed), left out of every query
        self._frame = frozenset(self._tokenizer([" ".join(sorted(CLAIM_FRAME_WORDS))])[0]) if self.drop_frame else frozenset()
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
            self._dense_rows()
        return self

    dense_share = 0.5  # terms in at least this share of the passages get a dense score row (see _dense_rows)

    def _dense_rows(self) -> None:
        """Copy the postings of the terms found in at least ``dense_share`` of the passages into dense
        rows (zeros where a term is absent), so that :meth:`_add_scores` adds such a term to a query's scores
        with one contiguous vector add instead of bm25s's scatter ``np.add.at``. Adding a row's 0.0 leaves
        a float unchanged, so the sums are bit for bit bm25s's. On 10k MedQA-style records such terms hold
        most postings and scoring takes 0.4x bm25s's time; at a share of 0.5 the rows take no more memory
        than the postings they copy."""
        index = self._retriever.scores
        data, indices, indptr = index["data"], index["indices"], index["indptr"]
        self._indptr = indptr.tolist()
        df = np.diff(indptr)
        dense = np.flatnonzero(df >= max(self.dense_share * self._n_passages, 1))
        self._dense = np.zeros((len(dense), self._n_passages), dtype=data.dtype)
        self._dense_of = [-1] * len(df)  # term id -> its row in self._dense, -1 for the sparse ones
        for j, term in enumerate(dense.tolist()):
            self._dense[j, indices[indptr[term] : indptr[term + 1]]] = data[indptr[term] : indptr[term + 1]]
            self._dense_of[term] = j

    def _add_scores(self, scores: np.ndarray, term_ids: Sequence[int]) -> None:
        """Add the BM25 scores of a query's terms (ids in the index's vocabulary) to ``scores`` (zeros, one
        per passage), term by term in the query's order, as bm25s ``get_scores_from_ids`` does."""
        if self._retriever.nonoccurrence_array is not None:  # bm25l, bm25+: bm25s adds a score for absent terms too
            scores += self._retriever.get_scores_from_ids(term_ids)
            return
        index = self._retriever.scores
        data, indices, indptr = index["data"], index["indices"], self._indptr
        for term in term_ids:
            j = self._dense_of[term]
            if j >= 0:
                scores += self._dense[j]
            else:
                np.add.at(scores, indices[indptr[term] : indptr[term + 1]], data[indptr[term] : indptr[term + 1]])

    def query_tokens(self, queries: Sequence[str]) -> list[list[str]]:
        """The tokens each query is searched with: the index's tokenizer, the claims' frame words left out
        (``drop_frame``); a query made only of frame words keeps them, since dropping them would leave it unlinked."""
        tokens = self._tokenizer(queries)
        if self._frame:
            tokens = [[t for t in q if t not in self._frame] or q for q in tokens]
        return tokens

    def _search(self, queries: Sequence[str], k: int) -> list[list[tuple[int, float]]]:
        """Exact BM25 scores of every passage (bm25s's index and sums, :meth:`_add_scores`; query terms
        the index has never seen are left out, as Lucene does), best first, equal scores toward the lower
        record id as Lucene breaks them; every record tied with the k-th is kept so ties can be counted.

        A block of queries is scored into one matrix (a scipy sparse product was 2x slower on 10k records,
        whose common terms touch nearly every record, and sums in another order), and its hits are taken in
        one pass over the block (:func:`top_hits_rows`), not one Python call per query."""
        tokens = self.query_tokens(queries)
        out: list[list[tuple[int, float]]] = [[] for _ in queries]
        if self._retriever is None:
            return out
        vocab = self._retriever.vocab_dict
        ids = [[vocab[t] for t in query if t in vocab] for query in tokens]
        todo = [i for i, q in enumerate(ids) if q]
        for start in range(0, len(todo), self.block):
            rows = todo[start : start + self.block]
            scores = np.zeros((len(rows), self._n_passages), dtype=np.dtype(self._retriever.dtype))
            for row, i in zip(scores, rows):
                self._add_scores(row, ids[i])
            for i, hits in zip(rows, top_hits_rows(self._record_scores(scores), k)):
                out[i] = hits
        return out

    block = 256  # queries whose hits are taken together (a block x passages float32 matrix)

    def _record_scores(self, scores: np.ndarray) -> np.ndarray:
        """Per-record scores from per-passage ones: unchanged for a document index; each record's best
        passage for a claim index."""
        if self.index != "claims":
            return scores
        best = np.zeros((scores.shape[0], self._n_docs), dtype=scores.dtype)
        for row, passage_scores in zip(best, scores):
            np.maximum.at(row, self._owner, passage_scores)
        return best

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "index": self.index, "k1": self.k1, "b": self.b, "method": self.method,
                "stemmer": self.stemmer, "stopwords": self.stopwords if isinstance(self.stopwords, (str, type(None))) else sorted(self.stopwords),
                "drop_frame": self.drop_frame,
                "library": "bm25s"}


@linkers.register("bm25-release", aliases=("bm25_release",))
class ReleaseBM25Linker(BM25Linker):
    """The released code's BM25 variant: claim-level index, one query per known claim, top-1 hit
    each, 0.95 vote (:meth:`BM25Linker.release` with its defaults)."""

    name = "bm25-release"
    needs_claims = True

    def __init__(self, index: str = "claims", query: str = "vote", hits_per_query: int = 1, **options: Any):
        super().__init__(index=index, query=query, hits_per_query=hits_per_query, **options)
