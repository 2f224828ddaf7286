"""Calibrate the embedding and lexical judges' thresholds on the train split of the shipped labelled
set, and measure them on the held-out test split.

    python benchmarks/calibrate_judges.py            # writes benchmarks/results/judge_calibration.{md,json}

Grid search (step 0.01) for t1 > t2 maximising linearly weighted Cohen's kappa on the train split
(ties: higher Spearman, then smaller thresholds, i.e. toward leakage). The number guard's cap is
applied inside the search, so thresholds are calibrated for the judge as it runs. Variants (spans
with or without 2-sentence windows, guard on or off) are reported side by side; the shipped
constants are the default variant's.
"""

from __future__ import annotations

import datetime
import json
import logging
from pathlib import Path

from textleak.judges.agreement import agreement, calibrate_thresholds, load_labelled_claims, group_by_document, ratings_from_thresholds
from textleak.judges.embedding import EmbeddingJudge
from textleak.judges.lexical import LexicalJudge

RESULTS = Path(__file__).resolve().parent / "results"


def flat_match(judge, items):
    documents, claims, positions = group_by_document(items)
    rows = [None] * len(items)
    for pos, matched in zip(positions, judge.match(claims, documents)):
        for i, row in zip(pos, matched):
            rows[i] = row
    return rows


def evaluate_variant(name, judge, train, test):
    tr, te = flat_match(judge, train), flat_match(judge, test)
    t1, t2, kappa = calibrate_thresholds([r["similarity"] for r in tr], [it.gold for it in train], caps=[r["cap"] for r in tr])

    def predict(rows):
        return [max(r, row["cap"]) for r, row in zip(ratings_from_thresholds([row["similarity"] for row in rows], t1, t2), rows)]

    rep_train = agreement([it.gold for it in train], predict(tr), domains=[it.domain for it in train])
    rep_test = agreement([it.gold for it in test], predict(te), domains=[it.domain for it in test])
    return {"variant": name, "t1": t1, "t2": t2, "train_kappa_linear": kappa, "train": rep_train.to_dict(), "test": rep_test.to_dict(), "test_md": rep_test.to_markdown()}


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    train, test = load_labelled_claims(split="train"), load_labelled_claims(split="test")
    variants = [
        ("embedding (default: sentences + 8-word windows, number guard)", EmbeddingJudge()),
        ("embedding (+ 2-sentence windows, number guard)", EmbeddingJudge(window=2)),
        ("embedding (sentences only, number guard)", EmbeddingJudge(word_window=0)),
        ("embedding (default spans, no guard)", EmbeddingJudge(number_guard=False)),
        ("lexical (windows=2, no guard)", LexicalJudge(window=2, number_guard=False)),
        ("lexical (windows=2, number guard)", LexicalJudge(window=2, number_guard=True)),
    ]
    results = [evaluate_variant(name, judge, train, test) for name, judge in variants]
    date = datetime.date.today().isoformat()
    lines = [
        f"# Judge threshold calibration ({date})",
        "",
        f"Labelled set: textleak/data/judge_calibration.jsonl, train {len(train)} claims, held-out test {len(test)} claims "
        "(split by scenario: no test document or claim is seen in calibration).",
        "",
        "| variant | t1 | t2 | train kappa (linear) | test Spearman | test Cohen's kappa | test kappa (linear) | test kappa (quadratic) | test accuracy |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        t = r["test"]
        lines.append(
            f"| {r['variant']} | {r['t1']:.2f} | {r['t2']:.2f} | {r['train_kappa_linear']:.3f} | {t['spearman']:.3f} | {t['cohen_kappa']:.3f} | "
            f"{t['cohen_kappa_linear']:.3f} | {t['cohen_kappa_quadratic']:.3f} | {t['accuracy']:.3f} |"
        )
    for r in results:
        lines += ["", f"## {r['variant']} on the held-out split", "", r["test_md"]]
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "judge_calibration.md").write_text("\n".join(lines) + "\n")
    (RESULTS / "judge_calibration.json").write_text(json.dumps({"date": date, "results": [{k: v for k, v in r.items() if k != "test_md"} for r in results]}, indent=1))
    print("\n".join(lines[:6 + len(results)]))


if __name__ == "__main__":
    main()
