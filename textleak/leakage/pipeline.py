"""The semantic-leakage pipeline of seed 000 ("A False Sense of Privacy"), as its stages.

``evaluate_leakage(originals, sanitized)``:

0. :func:`~textleak.leakage.inputs.prepare_inputs`: check both sets, resolve the alignment, build the
   released pool;
1. :func:`~textleak.leakage.atomize.atomize_originals`: claims of every original (cached, shared
   across sanitizers);
2. :func:`~textleak.leakage.knowledge.choose_knowledge`: the k claims the adversary knows;
3. :func:`~textleak.leakage.link.link_records`: link each original to one released record;
4. :func:`~textleak.leakage.judge.judge_claims`: rate every other claim against the linked record;
5. :func:`~textleak.leakage.aggregate.aggregate`: per-record and set privacy, lexical baseline,
   linkage rates, bootstrap intervals.

Every option is a field of :class:`~textleak.leakage.config.LeakageConfig`; the policies for empty,
missing, unlinked and unparsed input are documented there and pinned by tests.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

from textleak.leakage.aggregate import aggregate
from textleak.leakage.atomize import atomize_originals, atomizer_for, record_languages
from textleak.leakage.config import LeakageConfig
from textleak.leakage.inputs import prepare_inputs
from textleak.leakage.judge import judge_claims, judge_for
from textleak.leakage.knowledge import choose_knowledge
from textleak.leakage.link import link_records, linker_for
from textleak.leakage.readable import released_languages, unreadable_ratings
from textleak.leakage.report import LeakageReport
from textleak.text.normalize import normalize_text


def evaluate_leakage(
    originals: Sequence[str],
    sanitized: Sequence[str | None],
    config: LeakageConfig | None = None,
    *,
    original_ids: Sequence[Any] | None = None,
    sanitized_ids: Sequence[Any] | None = None,
    original_claims: Sequence[Sequence[str]] | None = None,
    labels: Any = None,
    **options: Any,
) -> LeakageReport:
    """Semantic and lexical leakage of ``sanitized`` with respect to ``originals``.

    ``config`` (or its fields as keyword ``options``, which override it) sets every choice; see
    :class:`LeakageConfig`. ``original_ids`` name the originals; ``sanitized_ids`` name, for each
    sanitized record, the original it came from (missing or reordered records); ``original_claims``
    are precomputed claims of the originals. ``labels`` (a labels file written by ``textleak label``,
    or a dict claim key -> 1/2/3) adds ``report.labelled``: semantic privacy corrected by prediction-powered
    inference on those labels, with its interval and the judge's agreement on them
    (:func:`textleak.leakage.labels.corrected_privacy`).
    """
    config = (config or LeakageConfig()).replace(**options) if options else (config or LeakageConfig())
    if not isinstance(config.progress, bool):  # None: bars when a person is watching (textleak.progress)
        from textleak.progress import resolve_progress

        config = config.replace(progress=resolve_progress(config.progress))
    timings: dict[str, float] = {}
    t0 = t = time.perf_counter()
    inputs = prepare_inputs(originals, sanitized, original_ids, sanitized_ids, config)
    atomizer = atomizer_for(config)
    atomizer_refusals = getattr(atomizer, "refusals", 0)
    claims = atomize_originals(inputs.originals, inputs.active, atomizer, config, original_claims)
    if original_claims is not None and config.normalize:  # read as the normalised records they are judged against
        claims = [[normalize_text(c) for c in cs] for cs in claims]
    languages = record_languages(inputs.originals, inputs.active, atomizer if original_claims is None else None)
    timings["atomize_originals_s"] = time.perf_counter() - t
    known_idx, known, paraphraser = choose_knowledge(claims, inputs.active, config)
    t = time.perf_counter()
    linker = linker_for(config)
    links = link_records(inputs.pool, known, inputs.active, linker, atomizer, config)
    timings["link_s"] = time.perf_counter() - t
    t = time.perf_counter()
    judge = judge_for(config)
    # released text in a language the judge does not read is not rated by it (config.unreadable)
    released = released_languages(links, inputs, judge, config)
    ratings = judge_claims(claims, known_idx, {i: link for i, link in links.items() if i not in released.not_judged},
                           inputs.pool, judge, config)
    ratings.update(unreadable_ratings(claims, known_idx, released, judge, config))
    timings["judge_s"] = time.perf_counter() - t
    t = time.perf_counter()
    describe = {"judge": judge.describe(), "linker": linker.describe(),
                "atomizer": atomizer.describe() if original_claims is None else {"name": "precomputed"},
                "paraphraser": paraphraser.describe() if paraphraser else None}
    report = aggregate(inputs, claims, known_idx, known, links, ratings, config, describe)
    report.n_non_english, report.n_atomizer_fallback = languages.n_non_english, languages.n_fallback
    for record, language in zip(report.records, languages.labels):
        record.language = language
    report.n_unreadable = len(released.unreadable)
    for record in report.records:
        record.released_language = released.labels.get(record.index)
    report.llm_refusals = {
        "atomizer": getattr(atomizer, "refusals", 0) - atomizer_refusals,
        "judge": sum(1 for rs in ratings.values() for r in rs if (r.detail or {}).get("refusal")),
        "paraphraser": paraphraser.refusals if paraphraser else 0,
    }
    if labels is not None:
        from textleak.leakage.labels import corrected_privacy

        report.labelled = corrected_privacy(report.records, labels, unparsed=config.unparsed,
                                            judge_ci=report.ci95.get("semantic_privacy"))
    timings["aggregate_s"] = time.perf_counter() - t
    timings["total_s"] = time.perf_counter() - t0
    report.timings = timings
    return report
