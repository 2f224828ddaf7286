"""Attack success rate (ASR): the share of target tokens whose original an attack recovers exactly.

Targets are the sensitive positions (as the mechanism defines them, from the sanitizer's alignment,
or as a PII detector marks them). ASR is reported over all targets, as in the paper's Eq. 3/7,
whether or not the mechanism changed the token, and over the targets the mechanism changed.
Matching is exact on the mechanism's normal form (lower case for uncased vectors), never substring.

Every token is accounted for: a sensitive target the mechanism could not protect (no vector or no
output set) and released verbatim under the ``"keep"`` OOV policy is a *passthrough*. It counts as
recovered by every attack and bound in ``asr``/``bounds`` (the word is in the release), and the
same numbers over the other targets, the paper's population (Tong et al. attack in-vocabulary
sensitive words only), are ``asr_protected``/``bounds_protected``; ``n_passthrough`` says how many.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Sequence

import numpy as np

from textleak.attacks.base import Attack, AttackData
from textleak.registry import attacks as attack_registry

logger = logging.getLogger(__name__)

BOUND_KEYS = {"context_free_bound": "context_free", "contextual_k_bound": "contextual_k"}
ALL_BOUNDS = ("context_free", "contextual_k")
EXPENSIVE_BOUNDS = ("contextual_k",)


def skipped_bounds(data: AttackData, asked: Sequence[str]) -> dict[str, str]:
    """For each bound of the paper not asked for, how to ask for it and roughly what it would cost."""
    from textleak.attacks.contextual import estimate_lm_minutes

    out = {}
    for b in ALL_BOUNDS:
        if b in asked or f"{b}_bound" in asked:
            continue
        minutes = estimate_lm_minutes(data)
        cost = f"about {minutes:.0f} min with the embedded Gemma on this CPU" if minutes is not None else "a language-model pass"
        out[b] = f"not run (opt-in: add '{b}' to the bounds; {cost})"
    return out


def private_shadow_split(n: int, shadow_fraction: float = 0.5, seed: int = 0) -> tuple[list[int], list[int]]:
    """A seeded, disjoint split of record indices into (private, shadow)."""
    if not 0.0 < shadow_fraction < 1.0:
        raise ValueError(f"shadow_fraction must be in (0, 1), got {shadow_fraction}")
    order = np.random.default_rng(seed).permutation(n)
    n_shadow = int(round(n * shadow_fraction))
    return sorted(order[n_shadow:].tolist()), sorted(order[:n_shadow].tolist())


def select_targets(flags: Sequence[Sequence[bool]], max_targets: int | None = None, seed: int = 0) -> list[tuple[int, int]]:
    """(record, position) of every flagged token; a seeded sample of ``max_targets`` of them if given.
    Every attack is scored on this one list (the released code scored each on its own shuffle)."""
    targets = [(r, i) for r, fl in enumerate(flags) for i, f in enumerate(fl) if f]
    if max_targets is not None and len(targets) > max_targets:
        pick = np.random.default_rng(seed).choice(len(targets), size=max_targets, replace=False)
        targets = [targets[i] for i in sorted(pick)]
    return targets


def pii_flags(texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]], entities: Sequence[str] = ("PERSON",),
              language: str = "en") -> list[list[bool]]:
    """Token flags from Presidio (textleak's shared offline engine): a token is a target when it
    overlaps a detected entity of ``entities`` (seed 001 section 5.3 reconstructs person names)."""
    from textleak.sanitize.presidio import shared_engine

    found = shared_engine(entities=list(entities), language=language).analyze(list(texts))
    return [[any(a < f.end and f.start < b for f in ents) for a, b in sp] for ents, sp in zip(found, spans)]


def exact_match(guesses: Sequence[str], originals: Sequence[str], key=lambda t: t) -> np.ndarray:
    if len(guesses) != len(originals):
        raise ValueError(f"{len(guesses)} guesses for {len(originals)} targets")
    return np.asarray([key(g) == key(o) for g, o in zip(guesses, originals)], dtype=bool)


def resolve_attack(spec: "str | Attack", options: dict[str, Any] | None = None) -> Attack:
    if isinstance(spec, Attack):
        return spec
    import textleak.attacks  # noqa: F401  (registers the built-ins)

    return attack_registry.create(spec, **(options or {}))


def run_attacks(data: AttackData, attack_specs: Sequence["str | Attack"], options: dict[str, dict] | None = None) -> dict[str, Any]:
    """Run attacks and bounds on one shared target list; ASR over all targets and over changed ones."""
    options = options or {}
    mech = data.mechanism
    originals = data.target_originals()
    outputs = data.target_outputs()
    changed = np.asarray([mech.key(o) != mech.key(y) for o, y in zip(originals, outputs)], dtype=bool)
    passthrough = np.asarray([mech.is_passthrough(o, y) for o, y in zip(originals, outputs)], dtype=bool)
    result: dict[str, Any] = {"asr": {}, "asr_protected": {}, "asr_changed": {}, "bounds": {}, "bounds_protected": {},
                              "bounds_changed": {}, "seconds": {}, "n_tokens": len(originals),
                              "n_changed": int(changed.sum()), "n_passthrough": int(passthrough.sum()), "details": {}}
    if not originals:
        raise ValueError("no target tokens: nothing is sensitive under this mechanism and target definition")
    for spec in attack_specs:
        attack = resolve_attack(spec, options.get(spec if isinstance(spec, str) else spec.name))
        start = time.perf_counter()
        guesses = list(attack.predict(data))
        seconds = time.perf_counter() - start
        if len(guesses) != len(originals):
            raise ValueError(f"{attack.name}: {len(guesses)} guesses for {len(originals)} targets")
        for t in np.nonzero(passthrough)[0]:  # released verbatim: in the adversary's hands
            guesses[t] = outputs[t]
        hits = exact_match(guesses, originals, mech.key)
        asr = float(hits.mean())
        asr_protected = float(hits[~passthrough].mean()) if (~passthrough).any() else float("nan")
        asr_changed = float(hits[changed].mean()) if changed.any() else float("nan")
        if attack.is_bound:
            key = BOUND_KEYS.get(attack.name, attack.name)
            result["bounds"][key], result["bounds_protected"][key], result["bounds_changed"][key] = asr, asr_protected, asr_changed
        else:
            result["asr"][attack.name], result["asr_protected"][attack.name] = asr, asr_protected
            result["asr_changed"][attack.name] = asr_changed
        result["seconds"][attack.name] = seconds
        if getattr(attack, "unrepresentable", 0):
            result["details"][attack.name] = {"unrepresentable": attack.unrepresentable}
        if getattr(attack, "calibration", None):
            result["details"].setdefault(attack.name, {})["calibration"] = attack.calibration
        logger.info("%s: ASR %.4f (protected %.4f, changed %.4f) in %.2fs", attack.name, asr, asr_protected, asr_changed, seconds)
    asked = [getattr(a, "name", a) for a in attack_specs]
    result["bounds_not_run"] = skipped_bounds(data, [BOUND_KEYS.get(n, n) for n in asked])
    return result
