"""Stage 5: per-record privacy, the set's semantic and lexical privacy, linkage rates and intervals.

A record's privacy is the mean normalised rating of its claims the adversary did not know; the set's
semantic privacy is the mean over original records (seed 000 eq. 1). Unparsed claims follow
``config.unparsed`` and, above ``config.max_unparsed_share``, stop the run (:class:`UnparsedClaimsError`);
a record with no scorable claim is reported as unscored, and a warning names the share when it is
above 5%.
"""

from __future__ import annotations

import logging
from typing import Any, Sequence

import numpy as np

from textleak.judges import ClaimRating
from textleak.judges.base import OK
from textleak.leakage.config import LeakageConfig
from textleak.leakage.inputs import Inputs
from textleak.leakage.lexical import lexical_privacy
from textleak.leakage.readable import UNREADABLE
from textleak.leakage.report import LeakageReport, RecordResult, bootstrap_ci
from textleak.linkers import Link

logger = logging.getLogger(__name__)


class UnparsedClaimsError(RuntimeError):
    """Too many claims got no parsable rating: the number would measure the judge's failures."""


UNSCORED_WARNING_SHARE = 0.05


def _claim_rows(claims: Sequence[str], known: set[int], ratings: list[ClaimRating] | None, config: LeakageConfig
                ) -> tuple[list[dict[str, Any]], list[float], int]:
    """(claim rows for the report, the scores that count, the number of unparsed claims)."""
    rows, scores, unparsed, rated = [], [], 0, iter(ratings or [])
    for j, c in enumerate(claims):
        row: dict[str, Any] = {"text": c, "known": j in known}
        if j not in known and ratings is not None:
            r = next(rated)
            row.update(rating=r.rating, score=r.score, status=r.status)
            if r.detail:
                row["detail"] = r.detail
            if r.status == OK and r.score is not None:
                scores.append(float(r.score))
            elif r.status == UNREADABLE:
                pass  # left out under unreadable="exclude": counted in n_unreadable, not as unparsed
            else:
                unparsed += 1
                if config.unparsed == "leak":
                    scores.append(0.0)
        rows.append(row)
    return rows, scores, unparsed


def _true_rank(link: Link, true_positions: list[int], correct: bool) -> int | None:
    if correct:
        return 1
    ranks = [link.ranking.index(p) + 1 for p in true_positions if p in link.ranking]
    return min(ranks) if ranks else None


def aggregate(inputs: Inputs, claims: Sequence[Sequence[str]], known_idx: Sequence[Sequence[int]], known: Sequence[Sequence[str]],
              links: dict[int, Link], ratings: dict[int, list[ClaimRating]], config: LeakageConfig,
              describe: dict[str, Any]) -> LeakageReport:
    """The report: one :class:`RecordResult` per original and the set-level figures. ``describe``
    holds the judge, atomizer, linker and paraphraser descriptions that go into it."""
    originals, pool, source_of = inputs.originals, inputs.pool, inputs.source_of
    aligned = inputs.alignment != "none"
    positions_by_text: dict[str, list[int]] = {}
    for p, src in enumerate(source_of):
        if src is not None:
            positions_by_text.setdefault(originals[src], []).append(p)

    records: list[RecordResult] = []
    missing = set(inputs.missing)
    n_unparsed = n_unscored = n_unlinked = n_scored_claims = n_judged = n_tied = 0
    rank_hits = {kk: 0 for kk in config.linkage_ks}
    correct_flags: list[float] = []
    from textleak.progress import progress_bar

    bar = progress_bar(len(originals), "lexical baseline and record scores", "rec", config.progress)
    for i in range(len(originals)):
        bar.update(1)
        if i not in links:
            records.append(RecordResult(i, inputs.ids[i], "skipped_empty", [], [], None, None, 0.0, None, None, None, None))
            continue
        link = links[i]
        rows, scores, unparsed_here = _claim_rows(claims[i], set(known_idx[i]), ratings.get(i), config)
        n_unparsed += unparsed_here
        n_judged += len(ratings.get(i) or [])
        n_tied += int(link.tied > 1)
        n_scored_claims += len(scores)
        correct: bool | None = None
        true_rank: int | None = None
        if aligned:
            linked_src = source_of[link.index] if link.index is not None else None
            correct = linked_src is not None and originals[linked_src] == originals[i]
            true_rank = _true_rank(link, positions_by_text.get(originals[i], []), correct)
            correct_flags.append(1.0 if correct else 0.0)
            for kk in config.linkage_ks:
                rank_hits[kk] += int(true_rank is not None and true_rank <= kk)
        status = "ok"
        if link.index is None:
            status = "unlinked"
            n_unlinked += 1
        privacy = float(np.mean(scores)) if scores else None
        if privacy is None and any(row.get("status") == UNREADABLE for row in rows):
            status = "unreadable"  # every claim left to score was left out (unreadable="exclude")
        elif privacy is None:
            n_unscored += 1
            if status == "ok":
                status = "unscored"
        lex = None
        if link.index is not None or config.unlinked == "score_empty":
            lex = lexical_privacy(originals[i], pool[link.index] if link.index is not None else None, known[i], config.lexical_variant)
        records.append(RecordResult(
            index=i, id=inputs.ids[i], status=status, claims=rows, known_claims=list(known[i]), linked_index=link.index,
            linked_id=inputs.pool_ids[link.index] if link.index is not None else None, link_score=link.score,
            correct_link=correct, true_rank=true_rank, privacy=privacy, lexical_privacy=lex, unparsed_claims=unparsed_here,
            sanitized_missing=i in missing, link_tied=link.tied, linked_text=pool[link.index] if link.index is not None else None,
        ))
    bar.close()
    if n_judged and n_unparsed > config.max_unparsed_share * n_judged:
        raise UnparsedClaimsError(
            f"{n_unparsed} of {n_judged} judged claims ({n_unparsed / n_judged:.0%}) got no parsable rating from the judge "
            f"({describe['judge'].get('name')}): above max_unparsed_share={config.max_unparsed_share}, the number would "
            "measure the judge's failures. Ratings that parsed are cached; fix the judge or its server and run again "
            "(unparsed answers are never cached), or raise max_unparsed_share")
    n_evaluated = len(inputs.active)
    if n_evaluated and n_unscored > UNSCORED_WARNING_SHARE * n_evaluated:
        logger.warning("%d of %d records (%.0f%%) have no claim left to score once the adversary knows k=%d of them; they "
                       "are left out of the mean (short_records='reduce_k' keeps one claim per record to score)",
                       n_unscored, n_evaluated, 100 * n_unscored / n_evaluated, config.k)

    privacies = [r.privacy for r in records if r.privacy is not None]
    lexicals = [r.lexical_privacy for r in records if r.lexical_privacy is not None]
    n_eval = len(inputs.active)
    settings = {k: v for k, v in config.settings().items() if k not in ("judge", "judge_options", "atomizer", "atomizer_options",
                                                                        "linker", "linker_options", "use_cache", "judge_batch_records",
                                                                        "batch_size", "device")}
    settings.update(alignment=inputs.alignment, paraphraser=describe.get("paraphraser"))
    return LeakageReport(
        semantic_privacy=float(np.mean(privacies)) if privacies else None,
        lexical_privacy=float(np.mean(lexicals)) if lexicals else None,
        linkage_rate=float(np.mean(correct_flags)) if correct_flags else None,
        linkage_at_k={str(kk): rank_hits[kk] / n_eval for kk in config.linkage_ks} if aligned and n_eval else None,
        n_records=len(originals),
        n_sanitized=len(pool),
        n_claims=sum(len(c) for c in claims),
        n_scored_claims=n_scored_claims,
        unparsed_claims=n_unparsed,
        n_unlinked=n_unlinked,
        n_unscored=n_unscored,
        n_skipped=inputs.n_skipped,
        n_missing=len(inputs.missing),
        n_tied_links=n_tied,
        ci95={
            "semantic_privacy": bootstrap_ci(privacies, config.bootstrap, config.seed),
            "lexical_privacy": bootstrap_ci(lexicals, config.bootstrap, config.seed),
            "linkage_rate": bootstrap_ci(correct_flags, config.bootstrap, config.seed) if correct_flags else None,
        },
        judge=describe["judge"],
        atomizer=describe["atomizer"],
        linker=describe["linker"],
        settings=settings,
        records=records,
    )
