"""Stage 2, the adversary's knowledge: which k claims of each original record the attacker knows
(seed 000 §2.1, A.3), optionally paraphrased.

Strategies:

- ``"random"`` (paper default): k claims drawn without replacement, seeded per record from
  ``(seed, record index)``, so the choice never depends on other records, batching or ``num_proc``.
- ``"first"`` / ``"last"``: the first or last k claims (paper Table 3 ablation).
- ``"release_shuffle"``: the released code's behaviour: ``random.seed(seed)`` once (42 in the release),
  then for each record in dataset order shuffle ``range(n_claims)`` and keep the first k (in shuffled
  order). The choice for record i depends on every record before it.

A record with at most k claims gives all of them to the adversary (and then has no claim left to
score).

Paraphrased knowledge (:class:`KnowledgeParaphraser`) rewrites each known claim with the appendix C.2.2
prompt, so linking cannot rely on verbatim overlap.
"""

from __future__ import annotations

import logging
import random
import re
from typing import Any, Sequence

import numpy as np

from textleak.leakage.config import KNOWLEDGE_STRATEGIES, LeakageConfig
from textleak.llm.base import UsesLLM
from textleak.llm.refusals import is_refusal
from textleak.prompts import fill, load_prompt
from textleak.text.seeds import derive_seed

logger = logging.getLogger(__name__)


def select_known_indices(claim_counts: Sequence[int], k: int = 3, strategy: str = "random", seed: int = 0,
                         record_indices: Sequence[int] | None = None, keep_one: bool = False) -> list[list[int]]:
    """Indices of the known claims of every record. ``record_indices`` (default 0..N-1) are the
    records' positions in the original dataset: they seed the per-record draw."""
    if k < 1:
        raise ValueError(f"k (known claims per record) must be >= 1, got {k}")
    if strategy not in KNOWLEDGE_STRATEGIES:
        raise ValueError(f"unknown knowledge strategy {strategy!r}; use one of {', '.join(KNOWLEDGE_STRATEGIES)}")
    idx = list(record_indices) if record_indices is not None else list(range(len(claim_counts)))
    out: list[list[int]] = []
    if strategy == "release_shuffle":
        rng = random.Random(seed)
        for n in claim_counts:
            order = list(range(n))
            rng.shuffle(order)
            out.append(order[:k])
        return out
    for n, i in zip(claim_counts, idx):
        if keep_one and 1 < n <= k:
            out.extend(select_known_indices([n], n - 1, strategy, seed, [i]))
        elif n <= k:
            out.append(list(range(n)))
        elif strategy == "first":
            out.append(list(range(k)))
        elif strategy == "last":
            out.append(list(range(n - k, n)))
        else:
            rng = np.random.default_rng(derive_seed(seed, "knowledge", i))
            out.append([int(j) for j in rng.choice(n, size=k, replace=False)])
    return out


def parse_paraphrase(reply: str | None) -> str:
    """The paraphrase in a reply: the text after a '#' line when there is one (the release's format),
    else the reply without a leading label line ("Paraphrased text:", "Here is ...")."""
    if not reply:
        return ""
    text = reply.strip()
    if "#" in text:
        after = text.split("#", 1)[1].strip()
        if after:
            return after
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    if len(lines) > 1 and (lines[0].endswith(":") or re.match(r"^(here|sure|paraphrase)", lines[0], re.I)):
        lines = lines[1:]
    text = " ".join(lines)
    return re.sub(r"^(?:paraphrased text|text)\s*:\s*", "", text, flags=re.I).strip()


class KnowledgeParaphraser(UsesLLM):
    """Paraphrase known claims with the C.2.2 prompt (one call per claim, cached by the LLM layer).

    A reply that parses to nothing, or a refusal (:mod:`textleak.llm.refusals`: "I'm sorry, I can't
    paraphrase that" must not become what the adversary knows), leaves the claim verbatim, logged and
    counted (``failures``, ``refusals``): the adversary then knows more, never less (fail toward
    leakage). Such replies are never cached.
    """

    def __init__(self, llm: Any = "embedded", max_new_tokens: int = 128, temperature: float = 0.0):
        self.llm = llm
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.failures = 0
        self.refusals = 0

    def prompt(self, claim: str) -> str:
        return fill(load_prompt("paraphrase_aux"), document=claim)

    def paraphrase(self, claims: Sequence[str], seeds: Sequence[int]) -> list[str]:
        if not claims:
            return []
        replies = self.lm.generate([[{"role": "user", "content": self.prompt(c)}] for c in claims],
                                   max_new_tokens=self.max_new_tokens, temperature=self.temperature,
                                   seed=list(seeds), on_error="none",
                                   accept=lambda _i, s: not is_refusal(s[0]) and bool(parse_paraphrase(s[0])))
        out = []
        for claim, reply in zip(claims, replies):
            refused = is_refusal(reply[0])
            text = "" if refused else parse_paraphrase(reply[0])
            if not text:
                self.failures += 1
                self.refusals += int(refused)
                logger.warning("paraphrase of a known claim %s; the adversary keeps it verbatim: %r",
                               "was refused" if refused else "failed", claim[:80])
                text = claim
            out.append(text)
        return out

    def describe(self) -> dict[str, Any]:
        model = self.llm if isinstance(self.llm, str) else getattr(self.llm, "describe", lambda: repr(self.llm))()
        return {"llm": model, "max_new_tokens": self.max_new_tokens, "temperature": self.temperature}


def choose_knowledge(claims: Sequence[Sequence[str]], active: Sequence[int], config: LeakageConfig
                     ) -> tuple[list[list[int]], list[list[str]], "KnowledgeParaphraser | None"]:
    """(indices of the known claims, the known claims as the adversary holds them, the paraphraser
    when paraphrasing) for every original record."""
    known_idx = select_known_indices([len(c) for c in claims], k=config.k, strategy=config.knowledge, seed=config.seed,
                                     keep_one=config.short_records == "reduce_k")
    known = [[claims[i][j] for j in known_idx[i]] for i in range(len(claims))]
    paraphraser = None
    if config.paraphrase_knowledge:
        paraphraser = KnowledgeParaphraser(llm=config.llm if config.llm is not None else "embedded")
        flat = [(i, n) for i in active for n in range(len(known[i]))]
        para = paraphraser.paraphrase([known[i][n] for i, n in flat], [derive_seed(config.seed, "paraphrase", i, n) for i, n in flat])
        for (i, n), p in zip(flat, para):
            known[i][n] = p
    return known_idx, known, paraphraser
