"""Audit a synthesizer's privacy promise: canaries, membership from the synthetic text, an empirical epsilon.

The accountant's epsilon says what DP-SGD guarantees *if* the pipeline (tokenizer, LoRA, fused loss,
Poisson batches, clipping, noise, generation) does what the analysis assumes. The audit checks the
pipeline as run: it builds ``m`` canaries from the user's own records, puts each in the training set
with probability 1/2, trains and generates as the user would, and guesses from the synthetic text
alone which canaries were members (Meeus et al. 2025, *The Canary's Echo*). The guesses of this one
run give a lower bound on epsilon (Steinke, Nasr and Jagielski 2023, *Privacy auditing with one (1)
training run*): a bound above the accountant's epsilon means the pipeline is broken.

- **Canaries** (:func:`make_canaries`): a record's opening (``prefix_words`` words, in-distribution)
  plus a seeded random suffix of ``suffix_words`` words drawn uniformly from a pool of
  ``suffix_pool_size`` words of the records (``"rare"``: the rarest; ``"random"``: a seeded sample).
  Each suffix word then has perplexity ``suffix_pool_size`` under a model that knows only the pool,
  so the pool size is the perplexity knob; Meeus et al. find high-perplexity suffixes after an
  in-distribution prefix are the ones synthetic text echoes. A canary keeps its source record's
  other fields, so its control code is the source's.
- **Generation reads no canary**: the synthetic records are generated from the control codes of the
  user's records only, never from the canaries' (whose presence would tell membership without any
  model), so the synthetic text depends on membership only through the trained weights.
- **Scores** (higher = more likely a member): ``ngram_overlap`` (share of the suffix's word n-grams
  found in the synthetic corpus), ``ngram_lm`` (mean log-probability of the suffix words under an
  interpolated absolute-discounting word n-gram LM fitted on the synthetic corpus, the cheap form of
  the paper's strongest signal) and, white-box for reference, ``target_loss`` (minus the fine-tuned
  model's loss on the suffix) and ``target_loss_ref`` (the base model's loss minus the fine-tuned
  one's, with LoRA: the adapters switched off give the reference).
- **The bound** (:func:`epsilon_lower_bound`): guesses are the top-k scores ("member") and, in a
  second family, also the bottom k ("non-member"), over a fixed grid of k; the confidence is split
  over the grid (Bonferroni), so choosing the best k after the fact costs what it should.
  :func:`max_epsilon_lower_bound` is the most any audit of ``m`` canaries can show at that
  confidence (all guesses right): with 500 canaries at 95% it is 5.1 (4.4 after the split over the
  grid), so a claim of epsilon 8 cannot be refuted by such an audit, whatever the pipeline does. The
  report says so.

Repetitions: a canary inserted ``repetitions`` times is protected only by group privacy
(``repetitions * epsilon``, and a delta that grows as ``repetitions * exp((repetitions-1) * epsilon) *
delta``), so a bound above epsilon with repetitions > 1 does not contradict the guarantee; the report
states the claim the bound is compared with.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

logger = logging.getLogger(__name__)

SCORES = ("ngram_overlap", "ngram_lm", "target_loss", "target_loss_ref")
BLACK_BOX_SCORES = ("ngram_overlap", "ngram_lm")
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def words(text: str) -> list[str]:
    """Lower-cased alphabetic words (digits and punctuation dropped): the unit of canaries and n-grams."""
    return _WORD.findall(text.lower())


@dataclass
class AuditConfig:
    """Options of a canary audit (the synthesizer's own options are the ``SyntheticData`` ones)."""

    canaries: int = field(default=500, metadata={"help": "number of canaries m; each is a member with probability 1/2"})
    repetitions: int = field(default=1, metadata={
        "help": "copies of each member canary in the training set; above 1 the claim tested is group privacy"})
    prefix_words: int = field(default=8, metadata={"help": "words of the source record's opening that start a canary"})
    suffix_words: int = field(default=12, metadata={"help": "random words that end a canary (the secret part)"})
    suffix_pool: str = field(default="rare", metadata={
        "help": "where suffix words come from: rare (the rarest words of the records) or random (a seeded sample of their words)",
        "choices": ("rare", "random")})
    suffix_pool_size: int = field(default=2000, metadata={
        "help": "words in the suffix pool: the per-word perplexity of a suffix under a model that knows only the pool"})
    overlap_n: int = field(default=2, metadata={"help": "n of the word n-grams in the overlap score"})
    lm_order: int = field(default=2, metadata={"help": "order of the word n-gram LM fitted on the synthetic text"})
    synthetic_records: int | None = field(default=None, metadata={
        "help": "synthetic records to generate, cycling over the user's control codes (default: one per record)"})
    white_box: bool = field(default=True, metadata={"help": "also score with the target model's own loss (reference)"})
    confidence: float = field(default=0.95, metadata={"help": "confidence of the epsilon lower bound"})
    canary_seed: int = field(default=0, metadata={"help": "seed of canary construction and membership"})

    def __post_init__(self) -> None:
        if self.canaries < 2:
            raise ValueError(f"an audit needs at least 2 canaries, got {self.canaries}")
        if self.repetitions < 1 or self.prefix_words < 0 or self.suffix_words < 1:
            raise ValueError("repetitions and suffix_words must be at least 1, prefix_words at least 0")
        if self.suffix_pool not in ("rare", "random"):
            raise ValueError(f"suffix_pool must be rare or random, got {self.suffix_pool!r}")
        if self.suffix_pool_size < 2 or self.overlap_n < 1 or self.lm_order < 1:
            raise ValueError("suffix_pool_size must be at least 2, overlap_n and lm_order at least 1")
        if not 0 < self.confidence < 1:
            raise ValueError(f"confidence must be in (0, 1), got {self.confidence}")


# ---- canaries ------------------------------------------------------------------------------------
@dataclass
class Canary:
    index: int
    source_index: int
    prefix: str
    suffix: str
    member: bool

    @property
    def text(self) -> str:
        return f"{self.prefix} {self.suffix}" if self.prefix else self.suffix


def suffix_pool(texts: Sequence[str], size: int, kind: str, rng: np.random.Generator) -> list[str]:
    """The words suffixes are drawn from: the ``size`` rarest words of ``texts`` (ties in alphabetical
    order) or a seeded sample of ``size`` of their distinct words. Fewer when the records have fewer."""
    counts = Counter(w for t in texts for w in words(t) if len(w) > 2)
    vocab = sorted(counts, key=lambda w: (counts[w], w))
    if len(vocab) < size:
        logger.warning("the records have %d distinct words; the suffix pool has %d instead of %d", len(vocab), len(vocab), size)
    if kind == "rare":
        return vocab[:size]
    chosen = rng.choice(len(vocab), size=min(size, len(vocab)), replace=False)
    return [vocab[i] for i in sorted(chosen)]


def make_canaries(records: Sequence[dict[str, Any]], config: AuditConfig, text_field: str = "text") -> list[Canary]:
    """``config.canaries`` canaries from ``records`` (seeded by ``config.canary_seed`` only).

    Sources cycle through seeded permutations of the records, so every record serves about m / N
    canaries. Membership is an independent fair coin per canary, as the one-run bound requires.
    """
    if not records:
        raise ValueError("no records to build canaries from")
    texts = [str(r.get(text_field) or "") for r in records]
    seq_pool, seq_sources, seq_members, seq_suffix = np.random.SeedSequence([config.canary_seed, 30]).spawn(4)
    pool = suffix_pool(texts, config.suffix_pool_size, config.suffix_pool, np.random.default_rng(seq_pool))
    if len(pool) < 2:
        raise ValueError("the records have fewer than 2 distinct words: no canary suffix can be drawn")
    rng_sources = np.random.default_rng(seq_sources)
    m = config.canaries
    sources = np.concatenate([rng_sources.permutation(len(records)) for _ in range(-(-m // len(records)))])[:m]
    members = np.random.default_rng(seq_members).random(m) < 0.5
    draws = np.random.default_rng(seq_suffix).integers(0, len(pool), size=(m, config.suffix_words))
    canaries = []
    for i in range(m):
        j = int(sources[i])
        opening = texts[j].split()[: config.prefix_words]
        canaries.append(Canary(index=i, source_index=j, prefix=" ".join(opening),
                               suffix=" ".join(pool[k] for k in draws[i]), member=bool(members[i])))
    return canaries


def canary_records(records: Sequence[dict[str, Any]], canaries: Sequence[Canary], repetitions: int = 1,
                   text_field: str = "text") -> list[dict[str, Any]]:
    """The training records of the member canaries (each ``repetitions`` times): the source record's
    fields with the canary as text and an id ``canary-<i>``."""
    out = []
    for c in canaries:
        if c.member:
            row = {**records[c.source_index], text_field: c.text, "id": f"canary-{c.index}"}
            out.extend(dict(row) for _ in range(repetitions))
    return out


# ---- scores from the synthetic text --------------------------------------------------------------
def _ngrams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def ngram_overlap_scores(canaries: Sequence[Canary], synthetic_texts: Sequence[str], n: int = 2) -> np.ndarray:
    """Share of each canary suffix's word n-grams that occur anywhere in the synthetic corpus."""
    seen = set()
    for t in synthetic_texts:
        seen.update(_ngrams(words(t or ""), n))
    out = np.zeros(len(canaries))
    for i, c in enumerate(canaries):
        grams = _ngrams(words(c.suffix), n)
        out[i] = sum(g in seen for g in grams) / len(grams) if grams else 0.0
    return out


class NgramLM:
    """A word n-gram LM with interpolated absolute discounting (discount 0.75), down to an add-one
    unigram over the vocabulary plus one unknown word. Small and exact; fitted in one pass."""

    def __init__(self, order: int = 2, discount: float = 0.75):
        self.order = order
        self.discount = discount
        self.counts: list[Counter] = [Counter() for _ in range(order)]      # counts[k][(h..., w)] for k+1-grams
        self.context: list[Counter] = [Counter() for _ in range(order)]     # counts[k][h]: total after h
        self.followers: list[Counter] = [Counter() for _ in range(order)]   # distinct words after h

    def fit(self, texts: Sequence[str]) -> "NgramLM":
        for t in texts:
            toks = ["<s>"] * (self.order - 1) + words(t or "") + ["</s>"]
            for k in range(self.order):
                for g in _ngrams(toks, k + 1):
                    if g[-1] == "<s>":
                        continue
                    if self.counts[k][g] == 0:
                        self.followers[k][g[:-1]] += 1
                    self.counts[k][g] += 1
                    self.context[k][g[:-1]] += 1
        self.vocab_size = len(self.counts[0]) + 1
        return self

    def prob(self, history: Sequence[str], word: str) -> float:
        p = (self.counts[0][(word,)] + 1) / (self.context[0][()] + self.vocab_size)
        for k in range(1, self.order):
            h = tuple(history[-k:]) if k <= len(history) else None
            if h is None or self.context[k][h] == 0:
                break
            c = self.context[k][h]
            p = max(self.counts[k][h + (word,)] - self.discount, 0) / c + self.discount * self.followers[k][h] / c * p
        return p

    def mean_log_prob(self, history: Sequence[str], continuation: Sequence[str]) -> float:
        """Mean natural-log probability of ``continuation`` after ``history``."""
        toks = ["<s>"] * (self.order - 1) + list(history)
        total = 0.0
        for w in continuation:
            total += math.log(self.prob(toks, w))
            toks.append(w)
        return total / max(1, len(continuation))


def ngram_lm_scores(canaries: Sequence[Canary], synthetic_texts: Sequence[str], order: int = 2) -> np.ndarray:
    """Mean log-probability of each canary's suffix (after its prefix) under an n-gram LM of the synthetic text."""
    lm = NgramLM(order).fit(synthetic_texts)
    return np.array([lm.mean_log_prob(words(c.prefix), words(c.suffix)) for c in canaries])


def target_loss_scores(model, tokenizer, prompts: Sequence[str], canaries: Sequence[Canary],
                       batch_size: int = 8, loss_impl: str = "auto") -> dict[str, np.ndarray]:
    """White-box reference: minus the model's mean token loss on each canary's suffix, given its control
    code and prefix (``target_loss``); with a peft model also the base model's loss minus the fine-tuned
    one's (``target_loss_ref``), which removes how unlikely the random words are to begin with.

    ``loss_impl="auto"`` computes the logits only at the suffix positions when the model allows it (the
    training's fused loss, :mod:`textleak.synthesis.lm_loss`; with Gemma's 262k-word output layer the
    full logits were most of the scoring time), ``"full"`` always from the model's full logits."""
    import torch

    from textleak.synthesis.lm_loss import fused_per_record_loss, resolve_loss_impl
    from textleak.synthesis.training import IGNORE_INDEX, CausalLMCollator, per_record_loss, position_ids_for, prompt_token_ids

    examples = []
    for prompt, c in zip(prompts, canaries):
        head = prompt_token_ids(tokenizer, prompt)
        prefix = list(tokenizer(c.prefix, add_special_tokens=False)["input_ids"]) if c.prefix else []
        full = list(tokenizer(c.text, add_special_tokens=False)["input_ids"])
        cut = len(head) + len(prefix) if full[: len(prefix)] == prefix else len(head) + max(0, len(prefix) - 1)
        ids = head + full
        examples.append({"input_ids": ids, "labels": [IGNORE_INDEX] * cut + ids[cut:]})
    collate = CausalLMCollator(tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id)
    device = next(model.parameters()).device
    has_adapter = hasattr(model, "disable_adapter") and hasattr(model, "peft_config")
    target, base = [], []
    was_training = model.training
    model.eval()
    from tqdm.auto import tqdm

    parts = resolve_loss_impl(model, loss_impl, torch.tensor([examples[0]["input_ids"]], device=device)) if examples else None

    def loss(kwargs: dict, labels: torch.Tensor) -> torch.Tensor:
        if parts is not None:
            return fused_per_record_loss(parts, labels=labels, **kwargs)
        return per_record_loss(model(**kwargs).logits, labels)

    with torch.no_grad():
        for start in tqdm(range(0, len(examples), batch_size), desc="scoring canaries (white-box)", leave=False):
            batch = {k: v.to(device) for k, v in collate(examples[start : start + batch_size]).items()}
            kwargs = dict(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                          position_ids=position_ids_for(batch["attention_mask"]))
            target.append(loss(kwargs, batch["labels"]).cpu())
            if has_adapter:
                with model.disable_adapter():
                    base.append(loss(kwargs, batch["labels"]).cpu())
    model.train(was_training)
    out = {"target_loss": -torch.cat(target).numpy().astype(float)}
    if has_adapter:
        out["target_loss_ref"] = torch.cat(base).numpy().astype(float) + out["target_loss"]
    return out


# ---- membership metrics --------------------------------------------------------------------------
def membership_metrics(scores: np.ndarray, members: np.ndarray, fpr: float = 0.01, bootstrap: int = 1000,
                       seed: int = 0) -> dict[str, float]:
    """AUC with a 95% percentile-bootstrap interval (seeded) and the TPR at ``fpr`` false positives."""
    from scipy.stats import rankdata
    from sklearn.metrics import roc_auc_score, roc_curve

    members = np.asarray(members, bool)
    scores = np.asarray(scores, float)
    if members.all() or not members.any():
        return {"auc": float("nan"), "auc_low": float("nan"), "auc_high": float("nan"), "tpr_at_1pct_fpr": float("nan")}
    auc = float(roc_auc_score(members, scores))
    rng = np.random.default_rng(np.random.SeedSequence([seed, 31]))
    idx = rng.integers(0, len(scores), (bootstrap, len(scores)))
    lab, ranks = members[idx], rankdata(scores[idx], axis=1)      # Mann-Whitney form of the AUC, ties averaged
    n1 = lab.sum(axis=1)
    ok = (n1 > 0) & (n1 < len(scores))
    boots = ((ranks * lab).sum(axis=1)[ok] - n1[ok] * (n1[ok] + 1) / 2) / (n1[ok] * (len(scores) - n1[ok]))
    f, t, _ = roc_curve(members, scores)
    tpr = float(t[f <= fpr].max()) if (f <= fpr).any() else 0.0
    low, high = (np.percentile(boots, [2.5, 97.5]) if len(boots) else (float("nan"), float("nan")))
    return {"auc": auc, "auc_low": float(low), "auc_high": float(high), "tpr_at_1pct_fpr": tpr}


# ---- the one-run lower bound on epsilon (Steinke, Nasr and Jagielski 2023) ----------------------
def one_run_p_value(m: int, r: int, v: int, epsilon: float, delta: float = 0.0) -> float:
    """Probability, under (epsilon, delta)-DP, of at least ``v`` correct guesses among ``r`` guesses
    (the rest abstain) about ``m`` canaries each included independently with probability 1/2.

    Steinke, Nasr and Jagielski (2023), Theorem 3.1 with abstentions and its delta term: with
    ``q = e^eps / (1 + e^eps)`` and ``B ~ Binomial(r, q)``,

        P[W >= v] <= P[B >= v] + 2 m delta * max_{1 <= i <= v} (1/i) P[v - i <= B < v].

    With delta = 0 this is the binomial tail of eps-DP randomized response.
    """
    from scipy.stats import binom

    if not 0 <= v <= r <= m:
        raise ValueError(f"need 0 <= v <= r <= m, got v={v}, r={r}, m={m}")
    if epsilon < 0 or not 0 <= delta <= 1:
        raise ValueError(f"need epsilon >= 0 and delta in [0, 1], got {epsilon}, {delta}")
    q = 1.0 / (1.0 + math.exp(-epsilon))
    tail = float(binom.sf(v - 1, r, q))
    alpha = 0.0
    if delta > 0 and v > 0:
        below = binom.pmf(np.arange(v - 1, -1, -1), r, q)   # P[B = v-1], P[B = v-2], ..., P[B = 0]
        alpha = float(np.max(np.cumsum(below) / np.arange(1, v + 1)))
    return min(1.0, tail + 2 * m * delta * alpha)


@functools.lru_cache(maxsize=4096)
def epsilon_lower_bound(m: int, r: int, v: int, delta: float = 0.0, confidence: float = 0.95,
                        max_epsilon: float = 100.0, iterations: int = 45) -> float:
    """The largest epsilon that ``v`` correct guesses out of ``r`` (of ``m`` canaries) reject at
    ``confidence``: the sup of epsilon with ``one_run_p_value(m, r, v, epsilon, delta) < 1 - confidence``
    (the p-value grows with epsilon), found by bisection. 0 when even epsilon = 0 is not rejected."""
    level = 1.0 - confidence
    if r == 0 or one_run_p_value(m, r, v, 0.0, delta) >= level:
        return 0.0
    low, high = 0.0, max_epsilon
    if one_run_p_value(m, r, v, high, delta) < level:
        return high
    for _ in range(iterations):
        mid = (low + high) / 2
        if one_run_p_value(m, r, v, mid, delta) < level:
            low = mid
        else:
            high = mid
    return low


def max_epsilon_lower_bound(m: int, delta: float = 0.0, confidence: float = 0.95) -> float:
    """The most an audit of ``m`` canaries can ever show at ``confidence``: all ``m`` guesses right."""
    return epsilon_lower_bound(m, m, m, delta, confidence)


def guess_grid(m: int) -> list[tuple[int, int]]:
    """(k_plus, k_minus) guess counts tried, fixed before looking at the scores: the top k as members
    (k = m/100 ... m), and the top k/2 as members with the bottom k/2 as non-members."""
    ks = sorted({max(1, round(m * f)) for f in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)})
    grid = [(k, 0) for k in ks] + [(k // 2, k - k // 2) for k in ks if k >= 2]
    return list(dict.fromkeys(grid))


def audit_epsilon(scores: np.ndarray, members: np.ndarray, delta: float = 0.0, confidence: float = 0.95,
                  seed: int = 0) -> dict[str, Any]:
    """The one-run lower bound from membership scores: over :func:`guess_grid`, each test at level
    (1 - confidence) / len(grid) (Bonferroni), the best bound and its guesses. Ties in the scores are
    broken by a seeded random order, which does not depend on membership. ``max_possible`` is the
    best bound this grid could give if every guess were right."""
    scores = np.asarray(scores, float)
    members = np.asarray(members, bool)
    m = len(scores)
    tie_break = np.random.default_rng(np.random.SeedSequence([seed, 32])).random(m)
    order = np.lexsort((tie_break, -scores))          # highest score first
    grid = guess_grid(m)
    per_test = 1.0 - (1.0 - confidence) / len(grid)
    best = {"epsilon": 0.0, "k_plus": 0, "k_minus": 0, "guesses": 0, "correct": 0}
    max_possible = 0.0
    for k_plus, k_minus in grid:
        correct = int(members[order[:k_plus]].sum()) + (int((~members[order[m - k_minus:]]).sum()) if k_minus else 0)
        r = k_plus + k_minus
        eps = epsilon_lower_bound(m, r, correct, float(delta), per_test)
        max_possible = max(max_possible, epsilon_lower_bound(m, r, r, float(delta), per_test))
        if eps > best["epsilon"]:
            best = {"epsilon": eps, "k_plus": k_plus, "k_minus": k_minus, "guesses": r, "correct": correct}
    return {**best, "max_possible": max_possible, "tests": len(grid), "confidence": confidence, "delta": delta}


# ---- the audit -----------------------------------------------------------------------------------
@dataclass
class AuditResult:
    config: dict[str, Any]
    privacy: dict[str, Any]
    canaries: list[Canary]
    scores: dict[str, np.ndarray]
    metrics: dict[str, dict[str, float]]
    bounds: dict[str, dict[str, Any]]
    claimed_epsilon: float            # the claim the bounds are compared with (group epsilon with repetitions)
    delta: float
    notes: list[str] = field(default_factory=list)
    synthetic_texts: list[str] = field(default_factory=list, repr=False)
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def members(self) -> np.ndarray:
        return np.array([c.member for c in self.canaries])

    def to_dict(self) -> dict[str, Any]:
        return {"config": self.config, "privacy": self.privacy, "claimed_epsilon": _finite(self.claimed_epsilon),
                "delta": self.delta, "canaries": len(self.canaries), "members": int(self.members.sum()),
                "metrics": self.metrics, "bounds": self.bounds, "notes": self.notes, "seconds": self.seconds,
                "violation": self.violation}

    @property
    def violation(self) -> bool:
        """True when some score's lower bound exceeds the claimed epsilon: the pipeline breaks its promise."""
        return any(b["epsilon"] > self.claimed_epsilon for b in self.bounds.values())

    def to_markdown(self) -> str:
        eps = self.privacy.get("epsilon", float("inf"))
        claim = "none (no DP)" if math.isinf(self.claimed_epsilon) else f"{self.claimed_epsilon:.3g}"
        lines = [f"accountant epsilon {'inf' if math.isinf(eps) else f'{eps:.3g}'} at delta {self.delta:.3g}; "
                 f"claim tested {claim}; {len(self.canaries)} canaries, {int(self.members.sum())} members; "
                 f"at most {max((b['max_possible'] for b in self.bounds.values()), default=0):.2f} could be shown "
                 f"at {self.config['confidence']:.0%}",
                 "", "| score | AUC [95% CI] | TPR at 1% FPR | epsilon lower bound | correct / guesses (best test) |",
                 "|---|---|---|---|---|"]
        for name, met in self.metrics.items():
            b = self.bounds[name]
            guessed = f"{b['correct']} / {b['guesses']}" if b["guesses"] else "- (no test rejects epsilon = 0)"
            lines.append(f"| {name} | {met['auc']:.3f} [{met['auc_low']:.2f}, {met['auc_high']:.2f}] | "
                         f"{met['tpr_at_1pct_fpr']:.3f} | {b['epsilon']:.3f} | {guessed} |")
        lines += [f"- {n}" for n in self.notes]
        return "\n".join(lines)

    def plot(self, path: str | Path) -> Path:
        """Histograms of member and non-member scores, one panel per score (matplotlib PNG)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        names = list(self.scores)
        fig, axes = plt.subplots(1, len(names), figsize=(3.6 * len(names), 3.0), squeeze=False)
        members = self.members
        for ax, name in zip(axes[0], names):
            s = self.scores[name]
            bins = np.histogram_bin_edges(s, bins=25)
            ax.hist(s[~members], bins=bins, alpha=0.6, label="non-members")
            ax.hist(s[members], bins=bins, alpha=0.6, label="members")
            ax.set_title(f"{name}\nAUC {self.metrics[name]['auc']:.2f}, eps >= {self.bounds[name]['epsilon']:.2f}",
                         fontsize=9)
            ax.set_xlabel("score (higher: member)", fontsize=8)
        axes[0][0].legend(fontsize=8)
        eps = self.privacy.get("epsilon", float("inf"))
        fig.suptitle(f"canary audit, accountant epsilon {'inf' if math.isinf(eps) else f'{eps:.2f}'}", fontsize=10)
        fig.tight_layout()
        path = Path(path)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return path

    def save(self, output_dir: str | Path) -> Path:
        """``audit.json``, ``audit.md``, ``audit.png`` and ``scores.jsonl`` (per canary: index, source
        record, membership, scores; no text) under ``output_dir``."""
        out = Path(output_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "audit.json").write_text(json.dumps(self.to_dict(), indent=2, default=str), encoding="utf-8")
        (out / "audit.md").write_text(self.to_markdown() + "\n", encoding="utf-8")
        with open(out / "scores.jsonl", "w", encoding="utf-8") as f:
            for i, c in enumerate(self.canaries):
                row = {"canary": c.index, "source_index": c.source_index, "member": c.member,
                       **{k: float(v[i]) for k, v in self.scores.items()}}
                f.write(json.dumps(row) + "\n")
        self.plot(out / "audit.png")
        return out


def _finite(x: float) -> Any:
    return "inf" if math.isinf(x) else x


def run_audit(records: Sequence[dict[str, Any]], synthesizer: Any, config: AuditConfig | None = None,
              accelerator: Any = None, output_dir: str | Path | None = None) -> AuditResult | None:
    """Insert canaries, fit ``synthesizer`` (a :class:`~textleak.synthesis.synthesizer.SyntheticData`),
    generate from the user's control codes, score and bound. Returns None on non-main processes of
    ``accelerate launch`` (every process trains; one generates, scores and writes)."""
    import time

    from textleak.synthesis.templates import resolve_template

    config = config or AuditConfig()
    records = [dict(r) for r in records]
    text_field = synthesizer.text_field
    canaries = make_canaries(records, config, text_field)
    members = np.array([c.member for c in canaries])
    training = records + canary_records(records, canaries, config.repetitions, text_field)
    logger.info("audit: %d canaries (%d members, %d copies each) + %d records", len(canaries), members.sum(),
                config.repetitions, len(records))
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    synthesizer.fit(training, accelerator=accelerator)
    seconds["fit"] = time.perf_counter() - t0
    if accelerator is not None and not accelerator.is_main_process:
        return None
    code = resolve_template(synthesizer.control_code)
    user_prompts = [code.render(r, i) for i, r in enumerate(records)]
    n_synth = config.synthetic_records or len(records)
    t0 = time.perf_counter()
    synthetic = synthesizer.generate(control_codes=[user_prompts[i % len(records)] for i in range(n_synth)])
    seconds["generate"] = time.perf_counter() - t0
    texts = [t or "" for t in synthetic["text"]]

    t0 = time.perf_counter()
    scores = {"ngram_overlap": ngram_overlap_scores(canaries, texts, config.overlap_n),
              "ngram_lm": ngram_lm_scores(canaries, texts, config.lm_order)}
    if config.white_box:
        scores.update(target_loss_scores(synthesizer._model, synthesizer._tokenizer,
                                         [user_prompts[c.source_index] for c in canaries], canaries,
                                         batch_size=synthesizer.generation_batch_size))
    seconds["score"] = time.perf_counter() - t0

    privacy = synthesizer.privacy_report()
    notes = list(privacy.get("notes", []))
    if privacy.get("dp"):
        eps, delta = float(privacy["epsilon"]), float(privacy["delta"])
    else:
        eps, delta = float("inf"), float(synthesizer.delta or 0.0)
    claimed = eps
    if config.repetitions > 1 and math.isfinite(eps):
        claimed = config.repetitions * eps
        group_delta = config.repetitions * math.exp((config.repetitions - 1) * eps) * delta
        notes.append(f"each member canary appears {config.repetitions} times: the guarantee for it is group privacy, "
                     f"epsilon {claimed:.3g} with delta {group_delta:.3g}; the bounds are computed at the per-record "
                     "delta and compared with the group epsilon")
    bounds = {name: audit_epsilon(s, members, delta, config.confidence, config.canary_seed) for name, s in scores.items()}
    metrics = {name: membership_metrics(s, members, seed=config.canary_seed) for name, s in scores.items()}
    top = max(b["max_possible"] for b in bounds.values())
    if math.isfinite(claimed) and top <= claimed:
        notes.append(f"with {len(canaries)} canaries at {config.confidence:.0%} no audit can show more than epsilon "
                     f"{top:.2f}: a bound below the claimed {claimed:.3g} is expected whatever the pipeline does; "
                     "more canaries (or a smaller claim) are needed to test this claim")
    if n_synth and sum(1 for t in texts if not t) > n_synth // 2:
        notes.append(f"{sum(1 for t in texts if not t)} of {n_synth} synthetic records are empty: the black-box scores "
                     "see little text")
    result = AuditResult(config=asdict(config), privacy=privacy, canaries=canaries, scores=scores, metrics=metrics,
                         bounds=bounds, claimed_epsilon=claimed, delta=delta, notes=notes, synthetic_texts=texts,
                         seconds=seconds)
    if result.violation:
        logger.warning("audit: a lower bound (%.3g) exceeds the claimed epsilon %.3g: the pipeline does not keep its "
                       "promise", max(b["epsilon"] for b in bounds.values()), claimed)
    if output_dir is not None:
        result.save(output_dir)
    return result
