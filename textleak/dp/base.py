"""What every word-level DP mechanism shares: tokenisation with spans, per-record randomness, the
per-token alignment (original, sanitized, sensitive) and the closed-form interface the attacks use.

A mechanism works on *word ids* into ``self.words`` (its vocabulary: the words it can read or write).
Tokens whose normalised form is not in the vocabulary are *out of vocabulary* (OOV: no vector) and
handled by the mechanism's OOV policy, chosen by name (``OOV_POLICIES``):

- ``"keep"``: released verbatim. What Tong et al.'s SANTEXT+ fork and both CusText codes do, and
  therefore what seed 001's numbers assume; the default. No DP protection: a sensitive OOV word is
  leaked, and the ASR counts it as recovered (``textleak.attacks.asr``).
- ``"uniform"``: replaced by a word drawn uniformly from the corpus word list (SanText's released
  code). Not part of any DP accounting either, but the word is not released.
"""

from __future__ import annotations

import math
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
    passthrough: list[bool] = field(default_factory=list)

    def alignment(self) -> list[dict]:
        """One dict per token: original, sanitized, sensitive (a word the mechanism means to protect)
        and passthrough (sensitive, but released verbatim outside the DP mechanism: no vector or no
        output set, under the ``"keep"`` OOV policy)."""
        passthrough = self.passthrough or [False] * len(self.original_tokens)
        return [
            {"original": o, "sanitized": s, "sensitive": f, "passthrough": v}
            for o, s, f, v in zip(self.original_tokens, self.sanitized_tokens, self.sensitive, passthrough)
        ]


@dataclass
class Likelihoods:
    """Pr(y | x') for one observed output y over the candidate originals ``ids`` (vocabulary ids)."""

    ids: np.ndarray
    probs: np.ndarray


OOV_POLICIES = ("keep", "uniform")


def check_epsilon(epsilon: float) -> float:
    """epsilon as a float; it must be finite and positive (eps = inf would release every word)."""
    if isinstance(epsilon, bool):  # True is not 1.0: a flag passed where a number belongs
        raise ValueError(f"epsilon must be a finite positive number, got {epsilon!r}")
    try:
        value = float(epsilon)
    except (TypeError, ValueError):
        raise ValueError(f"epsilon must be a finite positive number, got {epsilon!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"epsilon must be a finite positive number, got {epsilon!r}: "
                         "eps = inf releases every word unchanged and eps <= 0 is no mechanism")
    return value


def check_oov_policy(policy: str) -> str:
    if policy not in OOV_POLICIES:
        raise ValueError(f"oov_policy must be one of {', '.join(map(repr, OOV_POLICIES))}, got {policy!r}")
    return policy


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

    def __init__(self, embeddings, epsilon: float, tokenizer: str = "regex", oov_policy: str = "keep"):
        self.embeddings = embeddings
        self.epsilon = check_epsilon(epsilon)
        self.oov_policy = check_oov_policy(oov_policy)
        self.tokenizer = WordTokenizer(tokenizer)
        self.words: list[str] = []
        self.index: dict[str, int] = {}
        self._token_ids: dict[str, int] = {}  # token -> word id, memoised (bounded)

    # ---- vocabulary ---------------------------------------------------------------------------
    def key(self, token: str) -> str:
        return self.embeddings.key(token)

    def word_id(self, token: str) -> int:
        """Vocabulary id of a token, -1 when out of vocabulary."""
        i = self._token_ids.get(token)
        if i is None:
            i = self.index.get(self.key(token), -1)
            if len(self._token_ids) < 2_000_000:
                self._token_ids[token] = i
        return i

    def word_ids(self, tokens: Sequence[str]) -> np.ndarray:
        """:meth:`word_id` of many tokens (int64 array)."""
        get, slow = self._token_ids.get, self.word_id
        return np.fromiter((i if (i := get(t)) is not None else slow(t) for t in tokens), dtype=np.int64, count=len(tokens))

    def is_sensitive_id(self, ids: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def is_sensitive(self, token: str) -> bool:
        i = self.word_id(token)
        return bool(self.is_sensitive_id(np.asarray([i]))[0]) if i >= 0 else self._oov_sensitive(token, i)

    def _oov_sensitive(self, token: str, word_id: int) -> bool:
        return False

    def fitted_id(self, ids: np.ndarray) -> np.ndarray:
        """Whether these vocabulary words were in the corpus the mechanism was fitted on (the attacks
        smooth the prior over these words only: any other word reaches the output only by sampling)."""
        return np.ones(len(np.asarray(ids)), dtype=bool)

    def covers_id(self, ids: np.ndarray) -> np.ndarray:
        """Whether the DP mechanism samples the output of these in-vocabulary words (when sensitive)."""
        return np.ones(len(np.asarray(ids)), dtype=bool)

    def is_passthrough(self, token: str, output: str) -> bool:
        """A sensitive token the mechanism could not protect (no vector, no output set) and released as is."""
        if output != token or not self.is_sensitive(token):
            return False
        i = self.word_id(token)
        return i < 0 or not bool(self.covers_id(np.asarray([i]))[0])

    # ---- closed form --------------------------------------------------------------------------
    def likelihoods(self, y: str) -> Likelihoods | None:
        """Pr(y | x') for every x' that can produce ``y``; None when y lies outside the vocabulary
        (an out-of-vocabulary token that the mechanism kept: the only candidate is y itself)."""
        raise NotImplementedError

    def vectors_of(self, ids: np.ndarray) -> np.ndarray:
        """The word vectors (float64) of vocabulary ids."""
        emb = self.embeddings
        rows = np.fromiter((emb.index[self.words[int(i)]] for i in np.asarray(ids)), dtype=np.int64)
        return np.asarray(emb.vectors[rows], dtype=np.float64)

    def likelihood_lists(self, y_ids: np.ndarray) -> list[Likelihoods]:
        """:meth:`likelihoods` for many in-vocabulary outputs (vocabulary ids); sparse, one list each."""
        return [self.likelihoods(self.words[int(y)]) for y in y_ids]

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
        if self.oov_policy == "keep":
            return list(tokens)
        words = self._oov_replacements()
        picks = np.minimum((uniforms[:, 1] * len(words)).astype(np.int64), len(words) - 1)
        return [words[i] for i in picks]

    def _oov_replacements(self) -> list[str]:
        """The word list the ``"uniform"`` OOV policy draws from (SanText: the corpus word list)."""
        return self.words

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
        ids = self.word_ids(flat_tokens)
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
        """Sanitize texts; each output re-tokenises (with ``self.tokenizer``) to one token per input token."""
        tokenised = [self.tokenizer.tokens_and_spans(t) for t in texts]
        sanitized = self.sanitize_tokens([toks for toks, _ in tokenised], seeds)
        return [
            SanitizedText(render(text, spans, outs, self.tokenizer), list(toks), outs, flags,
                          [f and o == t and self.is_passthrough(t, o) for t, o, f in zip(toks, outs, flags)])
            for text, (toks, spans), (outs, flags) in zip(texts, tokenised, sanitized)
        ]

    def describe(self) -> dict:
        return {"mechanism": self.name, "epsilon": self.epsilon, "vocabulary": len(self.words),
                "oov_policy": self.oov_policy, "embeddings": getattr(self.embeddings, "source", "?")}
