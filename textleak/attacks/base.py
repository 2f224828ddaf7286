"""What every reconstruction attack sees: the mechanism (public, closed form), the attacked
sanitized records with their target positions, and the adversary's shadow data.

An attack returns one guess per target; :mod:`textleak.attacks.asr` scores them by exact match.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from textleak.dp.base import WordMechanism
from textleak.text.seeds import derive_seed

logger = logging.getLogger(__name__)


@dataclass
class AttackData:
    """Private records (original and sanitized tokens, aligned), the target positions to
    reconstruct, and the shadow originals the adversary holds (sanitized ``shadow_copies`` times
    each with seeds derived from ``seed``; the private records never enter the shadow side)."""

    mechanism: WordMechanism
    private_original: list[list[str]]
    private_sanitized: list[list[str]]
    targets: list[tuple[int, int]]
    shadow_original: list[list[str]] = field(default_factory=list)
    shadow_copies: int = 10
    seed: int = 0
    _shadow_sanitized: list | None = field(default=None, repr=False)

    def __post_init__(self):
        for r, (o, s) in enumerate(zip(self.private_original, self.private_sanitized)):
            if len(o) != len(s):
                raise ValueError(f"record {r}: {len(o)} original tokens but {len(s)} sanitized tokens")

    def target_outputs(self) -> list[str]:
        return [self.private_sanitized[r][i] for r, i in self.targets]

    def target_originals(self) -> list[str]:
        return [self.private_original[r][i] for r, i in self.targets]

    def shadow_sanitized(self) -> list[list[tuple[list[str], list[bool]]]]:
        """For each shadow record, ``shadow_copies`` independent sanitizations (tokens, sensitive flags)."""
        if self._shadow_sanitized is None:
            self._shadow_sanitized = sanitize_copies(self.mechanism, self.shadow_original, self.shadow_copies, self.seed)
        return self._shadow_sanitized


def sanitize_copies(mech: WordMechanism, records: Sequence[Sequence[str]], copies: int, seed: int, tag: str = "shadow"):
    flat = [toks for toks in records for _ in range(copies)]
    seeds = [derive_seed(seed, tag, i) for i in range(len(flat))]  # own stream per copy, disjoint from record seeds
    out = mech.sanitize_tokens(flat, seeds)
    return [out[r * copies:(r + 1) * copies] for r in range(len(records))]


def prior_counts(mech: WordMechanism, token_lists: Sequence[Sequence[str]]) -> np.ndarray:
    """Count(x') over the mechanism's vocabulary, from original token lists (all tokens count, as in
    Tong et al.; alpha, the total number of tokens, is ``sum`` over every token incl. out-of-vocabulary)."""
    counts = np.zeros(len(mech.words))
    ids = np.fromiter((mech.word_id(t) for toks in token_lists for t in toks), dtype=np.int64)
    ids = ids[ids >= 0]
    np.add.at(counts, ids, 1.0)
    return counts


def likelihood_matrix(mech: WordMechanism, y_ids: np.ndarray) -> np.ndarray:
    """Pr(y | x') for many in-vocabulary outputs: (len(y_ids), |V|). Dense: for small vocabularies
    and SANTEXT (whose V is the corpus vocabulary); the attacks use :func:`bayes_rank`, which is sparse."""
    if hasattr(mech, "likelihood_matrix"):
        return mech.likelihood_matrix(y_ids)
    out = np.zeros((len(y_ids), len(mech.words)))
    for row, lk in enumerate(mech.likelihood_lists(np.asarray(y_ids))):
        out[row, lk.ids] = lk.probs
    return out


def bayes_rank(mech: WordMechanism, outputs: Sequence[str], counts: np.ndarray, smoothing: float, k: int = 1, chunk: int = 256):
    """Top-k candidates per output y by Pr(y|x') (Count(x') + smoothing), ties broken by Pr(y|x')
    and then vocabulary order. ``smoothing=1`` is Tong et al.'s alpha^-1 term multiplied through by
    alpha; ``smoothing=0`` is the bounds' oracle rule. The smoothing goes to the words the mechanism
    was fitted on only (``mech.fitted_id``): a word outside that corpus (CUSTEXT outputs come from the
    whole embedding vocabulary) reaches the output only by being sampled, never as an input, which
    Tong et al.'s candidate sets R(y) encode by listing corpus words only. Returns (words, scores)
    lists per output; an out-of-vocabulary y (kept by the mechanism) has the single candidate y."""
    uniq = sorted(set(outputs))
    result: dict[str, tuple[list[str], list[float]]] = {}
    in_vocab = [y for y in uniq if mech.word_id(y) >= 0]
    for y in uniq:
        if mech.word_id(y) < 0:
            result[y] = ([y], [1.0])
    for start in range(0, len(in_vocab), chunk):
        ys = in_vocab[start:start + chunk]
        for y, lk in zip(ys, mech.likelihood_lists(np.asarray([mech.word_id(y) for y in ys]))):
            nz = lk.probs > 0
            cand, lik = lk.ids[nz], lk.probs[nz]
            sc = lik * (counts[cand] + smoothing * mech.fitted_id(cand))
            kk = min(k, len(cand))
            if kk < len(cand):
                kth = np.partition(sc, len(sc) - kk)[len(sc) - kk]
                keep = sc >= kth  # every candidate tied with the k-th, so tie-breaking stays exact
                cand, sc, lik = cand[keep], sc[keep], lik[keep]
            order = np.lexsort((cand, -lik, -sc))[:kk]
            result[y] = ([mech.words[i] for i in cand[order]], sc[order].tolist())
    return [result[y] for y in outputs]


class Attack:
    """A reconstruction attack (or an ASR bound, ``is_bound=True``). Configuration in ``__init__``;
    ``predict(data)`` returns one guessed original per target, in ``data.targets`` order."""

    name = "attack"
    is_bound = False

    def predict(self, data: AttackData) -> list[str]:
        raise NotImplementedError

    def describe(self) -> dict:
        return {"name": self.name, **{k: v for k, v in vars(self).items() if not k.startswith("_")}}
