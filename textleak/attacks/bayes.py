"""Context-free Bayesian attack and the context-free ASR bound (Tong et al., Eq. 10 and Def. 1).

    x_hat = argmax_{x'} Pr(y | x') (Pr(x') + alpha^-1)

Pr(y|x') is the mechanism's closed form; Pr(x') = Count(x')/alpha from the adversary's shadow
originals (alpha = number of shadow tokens). The bound replaces the shadow prior with the oracle
prior of the attacked originals themselves and drops the smoothing term.

Fixed against the released code: matching is exact (the code counts x="a" as recovered by "an"),
and the oracle prior counts each attacked sentence once (the code counts a sentence once per target
occurrence in it, after an unseeded shuffle).
"""

from __future__ import annotations

import numpy as np

from textleak.attacks.base import Attack, AttackData, bayes_rank, prior_counts
from textleak.registry import attacks


@attacks.register("context_free_bayes")
class ContextFreeBayes(Attack):
    """``smoothing`` is the constant added to Pr(x') in units of alpha^-1 (1.0 = the paper's alpha^-1)."""

    name = "context_free_bayes"

    def __init__(self, smoothing: float = 1.0):
        self.smoothing = smoothing

    def predict(self, data: AttackData) -> list[str]:
        counts = prior_counts(data.mechanism, data.shadow_original)
        ranked = bayes_rank(data.mechanism, data.target_outputs(), counts, self.smoothing, k=1)
        return [words[0] for words, _ in ranked]


@attacks.register("context_free_bound")
class ContextFreeBound(Attack):
    """The context-free ASR bound: the same rule with the oracle prior of the attacked originals."""

    name = "context_free_bound"
    is_bound = True

    def predict(self, data: AttackData) -> list[str]:
        counts = oracle_counts(data)
        ranked = bayes_rank(data.mechanism, data.target_outputs(), counts, 0.0, k=1)
        return [words[0] for words, _ in ranked]


def oracle_counts(data: AttackData) -> np.ndarray:
    """Token counts of the attacked original sentences (each sentence with a target, once)."""
    records = sorted({r for r, _ in data.targets})
    return prior_counts(data.mechanism, [data.private_original[r] for r in records])
