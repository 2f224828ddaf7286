"""What every word-level DP mechanism shares: tokenisation with spans, per-record randomness, the
per-token alignment (original, sanitized, sensitive) and the closed-form interface the attacks use.

A mechanism works on *word ids* into ``self.words`` (its vocabulary: the words it can read or write).
Tokens whose normalised form is not in the vocabulary are *out of vocabulary* and handled by the
mechanism's OOV policy (kept, by default).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from textleak.dp.tokenize import WordTokenizer, render


@dataclass
class SanitizedText:
    """One record: the sanitized text and, position by position, what happened to each token."""

    text: str
    original_tokens: list[str]
    sanitized_tokens: list[str]
    sensitive: list[bool]

    def alignment(self) -> list[dict]:
        return [
            {"original": o, "sanitized": s, "sensitive": f}
            for o, s, f in zip(self.original_tokens, self.sanitized_tokens, self.sensitive)
        ]


@dataclass
class Likelihoods:
    """Pr(y | x') for one observed output y over the candidate originals ``ids`` (vocabulary ids)."""

    ids: np.ndarray
    probs: np.ndarray


def count_words(texts: Iterable[str], tokenizer: WordTokenizer | str = "regex") -> list[tuple[str, int]]:
    """Word frequencies of a corpus, most frequent first; ties keep first-seen order (``Counter.most_common``)."""
    tok = tokenizer if isinstance(tokenizer, WordTokenizer) else WordTokenizer(tokenizer)
    counts: Counter = Counter()
    for text in texts:
        counts.update(tok.tokens(text))
    return [(w, int(c)) for w, c in counts.most_common()]


def merge_counts(pairs: Sequence[tuple[str, int]], key) -> list[tuple[str, int]]:
    """Counts re-keyed by ``key`` (e.g. lower-casing for uncased vectors), re-sorted, first-seen ties."""
    merged: dict[str, int] = {}
    for w, c in pairs:
        k = key(w)
        merged[k] = merged.get(k, 0) + int(c)
    return sorted(merged.items(), key=lambda kv: -kv[1])  # sorted() is stable


class WordMechanism:
    """Base class. Subclasses build ``self.words``/``self.index`` and implement
    :meth:`_sample_ids` (vectorised over tokens), :meth:`likelihoods` and :meth:`is_sensitive_id`."""

    name = "word-dp"

    def __init__(self, embeddings, epsilon: float, tokenizer: str = "regex"):
        if not epsilon > 0:
            raise ValueError(f"epsilon must be positive, got {epsilon}")
        self.embeddings = embeddings
        self.epsilon = float(epsilon)
        self.tokenizer = WordTokenizer(tokenizer)
        self.words: list[str] = []
        self.index: dict[str, int] = {}

    # ---- vocabulary ---------------------------------------------------------------------------
    def key(self, token: str) -> str:
        return self.embeddings.key(token)

    def word_id(self, token: str) -> int:
        """Vocabulary id of a token, -1 when out of vocabulary."""
        return self.index.get(self.key(token), -1)

    def is_sensitive_id(self, ids: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def is_sensitive(self, token: str) -> bool:
        i = self.word_id(token)
        return bool(i >= 0 and self.is_sensitive_id(np.asarray([i]))[0]) or self._oov_sensitive(token, i)

    def _oov_sensitive(self, token: str, word_id: int) -> bool:
        return False

    # ---- closed form --------------------------------------------------------------------------
    def likelihoods(self, y: str) -> Likelihoods | None:
        """Pr(y | x') for every x' that can produce ``y``; None when y lies outside the vocabulary
        (an out-of-vocabulary token that the mechanism kept: the only candidate is y itself)."""
        raise NotImplementedError

    def prob(self, y: str, x: str) -> float:
        """Pr(output = y | input = x), closed form."""
        lk = self.likelihoods(y)
        if lk is None:
            return float(self.key(x) == self.key(y))
        xi = self.word_id(x)
        hit = np.nonzero(lk.ids == xi)[0]
        return float(lk.probs[hit[0]]) if len(hit) else 0.0

    def transition_matrix(self) -> np.ndarray:
        """Dense Pr(y | x) over the vocabulary (rows x, columns y). For small vocabularies and tests."""
        n = len(self.words)
        matrix = np.zeros((n, n))
        for j, y in enumerate(self.words):
            lk = self.likelihoods(y)
            if lk is not None:
                matrix[lk.ids, j] = lk.probs
        return matrix

    # ---- sampling -----------------------------------------------------------------------------
    def _sample_ids(self, ids: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
        """Output vocabulary ids for in-vocabulary input ``ids``; ``uniforms`` is (n, 2) in [0, 1)."""
        raise NotImplementedError

    def _sample_oov(self, tokens: list[str], uniforms: np.ndarray) -> list[str]:
        return list(tokens)  # default OOV policy: keep

    def _postprocess_record(self, originals: list[str], outputs: list[str], rng: np.random.Generator) -> list[str]:
        return outputs

    def sanitize_tokens(self, token_lists: Sequence[Sequence[str]], seeds: Sequence[int]) -> list[tuple[list[str], list[bool]]]:
        """Sanitize token lists, one seed per record. Record r's randomness comes only from
        ``default_rng(seeds[r])`` (two uniforms per token, always drawn), so outputs do not depend on
        batch size, batch composition or ``num_proc``."""
        if len(token_lists) != len(seeds):
            raise ValueError(f"{len(seeds)} seeds for {len(token_lists)} records")
        rngs = [np.random.default_rng(int(s)) for s in seeds]
        uniforms = [rng.random((len(toks), 2)) for rng, toks in zip(rngs, token_lists)]
        flat_tokens = [t for toks in token_lists for t in toks]
        flat_u = np.concatenate(uniforms) if flat_tokens else np.zeros((0, 2))
        ids = np.fromiter((self.word_id(t) for t in flat_tokens), dtype=np.int64, count=len(flat_tokens))
        out: list[str] = list(flat_tokens)
        sensitive = np.zeros(len(flat_tokens), dtype=bool)
        inv = ids >= 0
        if inv.any():
            sampled = self._sample_ids(ids[inv], flat_u[inv])
            sensitive[inv] = self.is_sensitive_id(ids[inv])
            for pos, sid in zip(np.nonzero(inv)[0], sampled):
                out[pos] = flat_tokens[pos] if sid == ids[pos] else self.words[sid]
        oov = np.nonzero(~inv)[0]
        if len(oov):
            oov_out = self._sample_oov([flat_tokens[i] for i in oov], flat_u[oov])
            for pos, tok in zip(oov, oov_out):
                out[pos] = tok
                sensitive[pos] = self._oov_sensitive(flat_tokens[pos], -1)
        results = []
        start = 0
        for rng, toks in zip(rngs, token_lists):
            end = start + len(toks)
            rec_out = self._postprocess_record(list(toks), out[start:end], rng)
            results.append((rec_out, sensitive[start:end].tolist()))
            start = end
        return results

    def sanitize_texts(self, texts: Sequence[str], seeds: Sequence[int]) -> list[SanitizedText]:
        tokenised = [self.tokenizer.tokens_and_spans(t) for t in texts]
        sanitized = self.sanitize_tokens([toks for toks, _ in tokenised], seeds)
        return [
            SanitizedText(render(text, spans, outs), list(toks), outs, flags)
            for text, (toks, spans), (outs, flags) in zip(texts, tokenised, sanitized)
        ]

    def describe(self) -> dict:
        return {"mechanism": self.name, "epsilon": self.epsilon, "vocabulary": len(self.words),
                "embeddings": getattr(self.embeddings, "source", "?")}


def searchsorted_rows(cdf: np.ndarray, rows: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse-CDF sampling for many tokens at once: token t draws from row ``rows[t]`` of ``cdf``
    (each row non-decreasing, ending at 1) with uniform ``u[t]``. One ``searchsorted`` on the
    flattened, row-offset CDF; no Python loop over tokens or vocabulary."""
    n_rows, width = cdf.shape
    flat = (cdf + np.arange(n_rows)[:, None]).ravel()
    pos = np.searchsorted(flat, rows + u, side="right") - rows * width
    return np.clip(pos, 0, width - 1)
