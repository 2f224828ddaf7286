"""Entity leakage of synthetic text: PIPP and ELP (seed 004, section 3.4), plus ROUGE against references.

Definitions (paper; fractions in [0, 1], the paper prints them as percentages):

- **PIPP** (private information presence): the share of generations that contain at least one private
  entity. ICL setting: the entities of that generation's own context; fine-tuning setting: any entity of
  the whole training set.
- **ELP** (entity leakage), ICL setting: per generation, (context entities found) / (context entities),
  averaged over generations. Fine-tuning setting: |distinct training entities found in any generation|
  / |distinct training entities|.

Matching is case-insensitive, and an entity's internal whitespace matches any run of whitespace. The
boundary rule (``boundary="edge"``, the default) requires "no word character next to it" only at an
edge of the value that is itself a word character. The released code (``boundary="word"``) wraps every
value in ``\\b...\\b``: a ``\\b`` before ``$87,500`` needs a *word* character before the ``$``, so
"paid $87,500" is never found, and "45%" is never found before a space or full stop. That
under-counts leakage; ``"word"`` exists only to reproduce the released numbers.

Released-code variants are kept as named extras (see :func:`icl_leakage` and :func:`corpus_leakage`):
the ICL entity list is not de-duplicated across the three contexts, and the fine-tuning "unique leaked
entities percentage" divides by the number of generations instead of the number of entities.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable, Sequence


BOUNDARIES = ("edge", "word")


def entity_key(value: str) -> str:
    """The identity of an entity for de-duplication: whitespace-normalised and case-folded."""
    return " ".join(value.split()).casefold()


def _clean(value: str) -> str:
    # the released code strips quotes around values; so do we (a quoted value is the same entity)
    return value.strip().strip("\"'\u201c\u201d\u2018\u2019").strip()


@lru_cache(maxsize=200_000)
def entity_pattern(value: str, boundary: str = "edge") -> "re.Pattern[str] | None":
    """The compiled pattern that finds ``value`` in a text (None for an empty value)."""
    if boundary not in BOUNDARIES:
        raise ValueError(f"boundary must be one of {BOUNDARIES}, got {boundary!r}")
    value = _clean(value)
    if not value:
        return None
    if boundary == "word":
        return re.compile(r"\b" + re.escape(value) + r"\b", re.IGNORECASE)
    body = r"\s+".join(re.escape(part) for part in value.split())
    left = r"(?<!\w)" if re.match(r"\w", value[0]) else ""
    right = r"(?!\w)" if re.match(r"\w", value[-1]) else ""
    return re.compile(left + body + right, re.IGNORECASE)


def contains_entity(text: str, value: str, boundary: str = "edge") -> bool:
    """Whether ``value`` occurs in ``text`` under the matching rule (module docstring)."""
    pattern = entity_pattern(value, boundary)
    if pattern is None:
        return False
    # cheap prefilter: the first word must occur as a substring, case-folded
    first = _clean(value).split()[0].casefold()
    if first not in text.casefold():
        return False
    return pattern.search(text) is not None


def find_leaked(text: str, entities: Iterable[str], boundary: str = "edge") -> list[str]:
    """The entities (as given, in order, duplicates kept) that occur in ``text``."""
    return [e for e in entities if contains_entity(text, e, boundary)]


def find_spans(text: str, value: str, boundary: str = "edge") -> list[tuple[int, int]]:
    """Character spans of every occurrence of ``value`` in ``text`` (for private-token masks)."""
    pattern = entity_pattern(value, boundary)
    return [] if pattern is None else [m.span() for m in pattern.finditer(text)]


def unique_entities(entities: Iterable[str]) -> list[str]:
    """Entities de-duplicated by :func:`entity_key`, first spelling kept, empty values dropped."""
    seen: dict[str, str] = {}
    for e in entities:
        if not isinstance(e, str):
            raise TypeError(f"an entity is a string, got {type(e).__name__}: {e!r}")
        if _clean(e) and entity_key(_clean(e)) not in seen:
            seen[entity_key(_clean(e))] = _clean(e)
    return list(seen.values())


@dataclass
class LeakageResult:
    """PIPP and ELP of a set of generations, with the counts behind them."""

    pipp: float
    elp: float | None
    num_predictions: int
    num_entities: int
    num_leaked_entities: int
    extras: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {
            "pipp": self.pipp,
            "elp": self.elp,
            "num_predictions": self.num_predictions,
            "num_entities": self.num_entities,
            "num_leaked_entities": self.num_leaked_entities,
            **self.extras,
        }


def icl_leakage(
    predictions: Sequence[str],
    entities_per_prediction: Sequence[Sequence[str]],
    boundary: str = "edge",
    deduplicate: bool = True,
) -> LeakageResult:
    """PIPP and ELP in the ICL setting: each generation against the entities of its own context.

    ``deduplicate=True`` (paper: "the private entities in the context") counts each distinct entity
    once; ``False`` is the released code, where a value present in two of the three contexts counts
    twice in numerator and denominator. A generation whose context has no entities cannot leak: it
    counts as clean for PIPP and is left out of the ELP mean (``num_without_entities`` says how many);
    ELP is None when no generation has entities. The extra ``elp_released`` is the released
    computation (``\\b`` matching, no de-duplication).
    """
    if len(predictions) != len(entities_per_prediction):
        raise ValueError(
            f"got {len(predictions)} predictions but {len(entities_per_prediction)} entity lists: "
            "the ICL setting needs one list of context entities per prediction"
        )
    leaked_any, ratios, released_ratios = 0, [], []
    total_entities = total_leaked = 0
    for i, (text, entities) in enumerate(zip(predictions, entities_per_prediction)):
        if not isinstance(text, str):
            raise TypeError(f"prediction {i} is {type(text).__name__}, expected a string")
        if isinstance(entities, str):
            raise TypeError(f"entities of prediction {i} must be a list of strings, got one string {entities!r}")
        listed = unique_entities(entities) if deduplicate else [e for e in map(_clean, entities) if e]
        found = find_leaked(text, listed, boundary)
        leaked_any += bool(found)
        total_entities += len(listed)
        total_leaked += len(found)
        if listed:
            ratios.append(len(found) / len(listed))
        raw = [e for e in map(_clean, entities) if e]
        if raw:
            released_ratios.append(len(find_leaked(text, raw, "word")) / len(raw))
    n = len(predictions)
    return LeakageResult(
        pipp=leaked_any / n if n else 0.0,
        elp=sum(ratios) / len(ratios) if ratios else None,
        num_predictions=n,
        num_entities=total_entities,
        num_leaked_entities=total_leaked,
        extras={
            "num_without_entities": n - len(ratios),
            "elp_released": sum(released_ratios) / len(released_ratios) if released_ratios else None,
        },
    )


def corpus_leakage(predictions: Sequence[str], entities: Iterable[str], boundary: str = "edge") -> LeakageResult:
    """PIPP and ELP in the fine-tuning setting: every generation against all training entities.

    ELP = distinct entities found in any generation / distinct training entities (paper). Extras:
    ``elp_unique_over_predictions`` is the released script's "unique leaked entities percentage"
    (distinct leaked / number of generations, a wrong denominator); ``elp_per_prediction`` is its
    per-generation leaked share averaged over generations; ``leaked_entities`` lists what leaked.
    """
    pool = unique_entities(entities)
    leaked: dict[str, str] = {}
    leaked_any, per_prediction = 0, []
    for i, text in enumerate(predictions):
        if not isinstance(text, str):
            raise TypeError(f"prediction {i} is {type(text).__name__}, expected a string")
        found = find_leaked(text, pool, boundary)
        leaked_any += bool(found)
        per_prediction.append(len(found) / len(pool) if pool else 0.0)
        for e in found:
            leaked.setdefault(entity_key(e), e)
    n = len(predictions)
    return LeakageResult(
        pipp=leaked_any / n if n else 0.0,
        elp=len(leaked) / len(pool) if pool else None,
        num_predictions=n,
        num_entities=len(pool),
        num_leaked_entities=len(leaked),
        extras={
            "elp_unique_over_predictions": len(leaked) / n if n else None,
            "elp_per_prediction": sum(per_prediction) / n if n else None,
            "leaked_entities": sorted(leaked.values()),
        },
    )


_SCORER: dict[bool, Any] = {}


def max_rouge(predictions: Sequence[str], references: Sequence["str | Sequence[str]"], use_stemmer: bool = True) -> dict:
    """Mean over predictions of the best ROUGE-2 and ROUGE-L F1 against each prediction's references.

    ``references[i]`` is one string or a list (the paper takes the maximum over the fine-tuning set,
    and we take it over the three contexts in ICL). Each type is maximised on its own. rouge-score
    lower-cases and keeps only ``[a-z0-9]`` tokens, as HF ``evaluate``'s rouge does.
    """
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} reference entries")
    if use_stemmer not in _SCORER:
        from rouge_score import rouge_scorer

        _SCORER[use_stemmer] = rouge_scorer.RougeScorer(["rouge2", "rougeL"], use_stemmer=use_stemmer)
    scorer = _SCORER[use_stemmer]
    best2, bestl = [], []
    for i, (pred, refs) in enumerate(zip(predictions, references)):
        refs = [refs] if isinstance(refs, str) else list(refs)
        if not refs:
            raise ValueError(f"prediction {i} has no reference text")
        scores = [scorer.score(r, pred) for r in refs]
        best2.append(max(s["rouge2"].fmeasure for s in scores))
        bestl.append(max(s["rougeL"].fmeasure for s in scores))
    n = len(predictions)
    return {"rouge2": sum(best2) / n if n else 0.0, "rougeL": sum(bestl) / n if n else 0.0}
