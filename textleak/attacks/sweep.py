"""ASR of every attack and bound over an epsilon grid for one mechanism: the experiment of
seed 001 figure 4, as one function (the CLI's ``textleak attack`` and the benchmark call it)."""

from __future__ import annotations

import logging
import time
from typing import Any, Sequence

from textleak.attacks.asr import pii_flags, run_attacks, select_targets
from textleak.attacks.base import AttackData
from textleak.dp import build_mechanism, count_words
from textleak.text.seeds import record_seed

logger = logging.getLogger(__name__)


def asr_sweep(private_texts: Sequence[str], shadow_texts: Sequence[str], mechanism: str, epsilons: Sequence[float],
              embeddings, attacks: Sequence[str], bounds: Sequence[str] = ("context_free",),
              mechanism_options: dict | None = None, attack_options: dict | None = None,
              vocab_texts: Sequence[str] | None = None, max_targets: int | None = 1000, shadow_copies: int = 10,
              tokenizer: str = "regex", targets: str = "mechanism", seed: int = 0) -> list[dict[str, Any]]:
    """One row per epsilon: ASR per attack and bound (all targets and changed targets), counts, timings.

    The vocabulary (word counts) comes from ``vocab_texts`` (default: private + shadow texts, as
    SanText counts its task's train and dev files). Private texts are sanitized once per epsilon
    with per-record seeds; all attacks are scored on one seeded target sample per epsilon.
    ``targets="pii"`` attacks the tokens Presidio marks as PERSON instead of the mechanism's sensitive words.
    """
    if targets not in ("mechanism", "pii"):
        raise ValueError(f"targets must be 'mechanism' or 'pii', got {targets!r}")
    pii = None
    vocab = count_words(list(vocab_texts) if vocab_texts is not None else list(private_texts) + list(shadow_texts), tokenizer)
    rows = []
    base = None
    for eps in epsilons:
        start = time.perf_counter()
        if base is None:  # built once; other epsilons reuse vocabulary, sensitive set and output sets
            base = build_mechanism(mechanism, embeddings, vocab, eps, tokenizer=tokenizer, **(mechanism_options or {}))
        mech = base.with_epsilon(eps)
        sanitized = mech.sanitize_texts(list(private_texts), [record_seed(seed, i, t) for i, t in enumerate(private_texts)])
        flags = [s.sensitive for s in sanitized]
        if targets == "pii":
            if pii is None:
                pii = pii_flags(list(private_texts), [mech.tokenizer.spans(t) for t in private_texts])
            flags = pii
        data = AttackData(mech, [s.original_tokens for s in sanitized], [s.sanitized_tokens for s in sanitized],
                          select_targets(flags, max_targets, seed),
                          shadow_original=[mech.tokenizer.tokens(t) for t in shadow_texts], shadow_copies=shadow_copies,
                          seed=seed)
        setup = time.perf_counter() - start
        result = run_attacks(data, list(attacks) + [f"{b}_bound" for b in bounds], attack_options)
        rows.append({"mechanism": mechanism, "epsilon": eps, "setup_seconds": setup, **result,
                     "settings": mech.describe()})
        logger.info("%s eps=%s: %s %s", mechanism, eps, result["asr"], result["bounds"])
    return rows


def markdown_table(rows: Sequence[dict[str, Any]], key: str = "asr") -> str:
    """Attacks and bounds as rows, epsilons as columns; ``key`` is "asr", "asr_protected" or "asr_changed".
    Both bounds of the paper always have a row: a bound that was not run says how to ask for it."""
    bounds_key = {"asr": "bounds", "asr_protected": "bounds_protected", "asr_changed": "bounds_changed"}[key]
    names = list(dict.fromkeys(n for r in rows for n in r[key]))
    bound_names = list(dict.fromkeys([*(n for r in rows for n in r[bounds_key]), "context_free", "contextual_k"]))
    head = "| attack | " + " | ".join(f"eps={r['epsilon']:g}" for r in rows) + " |"
    lines = [head, "|---" * (len(rows) + 1) + "|"]

    def cell(r, n):
        if n in r[bounds_key]:
            return f"{r[bounds_key][n]:.3f}"
        return "not run" if n in r.get("bounds_not_run", {}) else "nan"

    for n in bound_names:
        lines.append(f"| {n} bound | " + " | ".join(cell(r, n) for r in rows) + " |")
    for n in names:
        lines.append(f"| {n} | " + " | ".join(f"{r[key].get(n, float('nan')):.3f}" for r in rows) + " |")
    lines.append("| targets (changed, passthrough) | " + " | ".join(
        f"{r['n_tokens']} ({r['n_changed']}, {r.get('n_passthrough', 0)})" for r in rows) + " |")
    notes = {n: msg for r in rows for n, msg in r.get("bounds_not_run", {}).items()}
    if notes:
        lines += [""] + [f"{n} bound: {msg}" for n, msg in notes.items()]
    return "\n".join(lines)
