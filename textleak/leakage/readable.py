"""Released text the judge cannot read is not evidence of privacy (issue 25, part 4).

A judge trained on English rates a claim "unsupported" against a released record it cannot read: the
record translated into Spanish scored 0.79 on MedQA while every fact was in it. Before judging, the
language of each released record that an original was linked to is guessed
(:func:`textleak.text.language.detect_language`, the test that counts non-English originals). Where it
is not a language the judge reads (a judge's ``languages`` attribute; the shipped judges read English
only, and a judge that declares ``languages = None`` reads any), ``LeakageConfig.unreadable`` decides
(for an original the BM25 adversary could not link, under ``unlinked="score_empty"``, its own released
record is looked at when the alignment names it: a translation defeats word-based linking as well):

- ``leak`` (default): those claims count as leaked (rating 1, score 0, ``detail.reason`` says why);
- ``exclude``: they are left out of the mean (status ``unreadable``; a record left with none is
  reported as ``unreadable``, not as a short record);
- ``judge``: they are rated anyway (for a judge that does read that language).

Either way the records are counted (``LeakageReport.n_unreadable``), each record carries the
language of the released text it was judged against (``RecordResult.released_language``) and a
warning names the languages. Text that is mostly code or logs is guessed English by the stop-word
test and is judged as before.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

from textleak.judges import ClaimRating
from textleak.judges.base import NOT_JUDGED, OK
from textleak.leakage.config import LeakageConfig
from textleak.leakage.inputs import Inputs
from textleak.linkers import Link
from textleak.text.language import detect_language

logger = logging.getLogger(__name__)

UNREADABLE = "unreadable"  # status of a claim left out under unreadable="exclude"
DEFAULT_JUDGE_LANGUAGES = ("en",)


def judge_languages(judge: Any) -> tuple[str, ...] | None:
    """The languages ``judge`` reads (its ``languages`` attribute; English when it declares none;
    None: any language)."""
    languages = getattr(judge, "languages", DEFAULT_JUDGE_LANGUAGES)
    return None if languages is None else tuple(languages)


@dataclass
class ReleasedLanguages:
    """For every linked original: the language guessed for its linked released record; the originals
    whose released text the judge does not read; and those to take away from the judge (all of
    them unless ``unreadable="judge"``)."""

    labels: dict[int, str] = field(default_factory=dict)
    unreadable: list[int] = field(default_factory=list)
    not_judged: set[int] = field(default_factory=set)
    unlinked: set[int] = field(default_factory=set)  # unreadable originals the linker did not link


def released_languages(links: dict[int, Link], inputs: Inputs, judge: Any, config: LeakageConfig) -> ReleasedLanguages:
    """Guess the language of each linked released record (once per pool record) and apply
    ``config.unreadable`` (see the module docstring); warns with the count and the languages.

    An original the linker could not link (``unlinked="score_empty"``: its claims would rate as
    unsupported against nothing) is judged by its own released record when the alignment says which
    that is: the BM25 adversary reads English words too, so a record it could not find because it was
    translated is not private either."""
    languages = judge_languages(judge)
    guessed: dict[int, str] = {}

    def language(p: int) -> str:
        if p not in guessed:
            guessed[p] = detect_language(inputs.pool[p]).language
        return guessed[p]

    own: dict[int, list[int]] = {}
    if inputs.alignment != "none":
        for p, src in enumerate(inputs.source_of):
            if src is not None:
                own.setdefault(src, []).append(p)
    out = ReleasedLanguages()
    for i, link in links.items():
        if link.index is not None:
            out.labels[i] = language(link.index)
        elif config.unlinked == "score_empty" and own.get(i):
            labels = [language(p) for p in own[i]]
            out.labels[i] = next((x for x in labels if languages is not None and x not in languages), labels[0])
        else:
            continue
        if languages is not None and out.labels[i] not in languages:
            out.unreadable.append(i)
            if link.index is None:
                out.unlinked.add(i)
    if out.unreadable:
        if config.unreadable != "judge":
            out.not_judged = set(out.unreadable)
        names = ", ".join(f"{lang} {n}" for lang, n in Counter(out.labels[i] for i in out.unreadable).most_common())
        effect = {"leak": "their claims count as leaked (unreadable='exclude' leaves them out of the mean)",
                  "exclude": "their claims are left out of the mean (unreadable='exclude')",
                  "judge": "they are rated anyway (unreadable='judge')"}[config.unreadable]
        unlinked = f"; {len(out.unlinked)} of them not linked, judged by their own released record" if out.unlinked else ""
        logger.warning("%d of %d records were judged against released text in a language the judge (%s, reads %s) does "
                       "not read (%s%s): %s", len(out.unreadable), len(links), getattr(judge, "name", "judge"),
                       ", ".join(languages or ()), names, unlinked, effect)
    return out


def unreadable_ratings(claims: Sequence[Sequence[str]], known_idx: Sequence[Sequence[int]], released: ReleasedLanguages,
                       judge: Any, config: LeakageConfig) -> dict[int, list[ClaimRating]]:
    """The ratings of the claims the judge was not asked about: leaked (rating 1) or left out."""
    reads = ", ".join(judge_languages(judge) or ())
    out: dict[int, list[ClaimRating]] = {}
    for i in sorted(released.not_judged):
        known = set(known_idx[i])
        where = "its own released record (not linked: the linker reads words)" if i in released.unlinked else "the released text"
        reason = (f"{where} is in {released.labels[i]}, which the judge does not read (it reads {reads}): "
                  f"unreadable={config.unreadable!r}")
        n = sum(1 for j in range(len(claims[i])) if j not in known)
        if config.unreadable == "leak":
            out[i] = [ClaimRating(1, 0.0, OK, {"reason": reason, NOT_JUDGED: True}) for _ in range(n)]
        else:
            out[i] = [ClaimRating(None, None, UNREADABLE, {"reason": reason}) for _ in range(n)]
    return out
