"""``textleak judge-agreement``: measure a judge against labelled claims.

    textleak judge-agreement --judge embedding                       # shipped set, held-out split
    textleak judge-agreement --judge llm --judge-llm hf:meta-llama/Meta-Llama-3-8B-Instruct --mode logprob
    textleak judge-agreement --judge lexical --labels my_claims.jsonl --json report.json
    textleak judge-agreement --judge embedding --labels eval          # hand-written evaluation set (issue 13)

Prints Spearman, Cohen's kappa (plain, linear, quadratic), Fleiss' kappa, accuracy and the confusion
matrix (seed 000, table 4), and accuracy per category when the rows have one. Labels are JSONL rows
``{"claim", "document", "gold": 1|2|3, "domain"?, "category"?}``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys

logger = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from textleak.leakage.config import LeakageConfig
    from textleak.registry import judges

    parser.add_argument("--judge", default=LeakageConfig.judge, choices=judges.names(), help=f"judge to measure (default: {LeakageConfig.judge})")
    parser.add_argument("--judge-option", action="append", default=[], metavar="KEY=VALUE", help="judge option, repeatable (JSON values)")
    parser.add_argument("--judge-llm", dest="llm", default=None, metavar="SPEC",
                        help="LLM spec for --judge llm: embedded, hf:<id|path>, openai:<model>@<url> (default: embedded)")
    parser.add_argument("--llm", dest="llm", default=argparse.SUPPRESS, help=argparse.SUPPRESS)  # the former name, still accepted
    parser.add_argument("--mode", default="sample", choices=["sample", "logprob"], help="LLM judge mode (default: sample, as the paper)")
    parser.add_argument("--n", type=int, default=3, help="LLM judge samples per prompt / votes (default 3)")
    parser.add_argument("--temperature", type=float, default=0.6)
    parser.add_argument("--top-p", type=float, default=0.9)
    parser.add_argument("--claims-per-prompt", type=int, default=10)
    parser.add_argument("--max-retries", type=int, default=2)
    parser.add_argument("--domain", default=None, choices=["medqa", "wildchat"], help="LLM judge demos (default: each item's domain, medqa when unknown)")
    parser.add_argument("--labels", default=None, help="JSONL of labelled claims; 'eval' = the shipped hand-written evaluation set; 'handwritten' = the NLI judge's hand-labelled "
                        "training set (its test split by default) (default: the shipped calibration set)")
    parser.add_argument("--split", default=None, choices=["all", "train", "test"], help="keep items of this split (default: test for the shipped calibration and hand-labelled sets, all otherwise)")
    parser.add_argument("--limit", type=int, default=None, help="use only the first N items (after the split filter)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", dest="json_out", default=None, help="also write the report as JSON to this file")


def _judge_options(args: argparse.Namespace, domain: str) -> dict:
    from textleak.config import parse_key_values
    from textleak.registry import judges

    options = {}
    if judges.get(args.judge).needs_llm:
        options = {"mode": args.mode, "n": args.n, "temperature": args.temperature, "top_p": args.top_p,
                   "claims_per_prompt": args.claims_per_prompt, "max_retries": args.max_retries, "domain": domain}
    return {**options, **parse_key_values(args.judge_option, "--judge-option")}


def run(args: argparse.Namespace) -> int:
    from textleak.judges.agreement import EVAL_SET, HANDWRITTEN_SET, agreement, load_labelled_claims, rate_labelled_with_scores
    from textleak.judges import make_judge

    from textleak.registry import judges

    needs_llm = judges.get(args.judge).needs_llm
    if args.llm is not None and not needs_llm:
        print(f"--judge-llm does not apply to the {args.judge} judge", file=sys.stderr)
        return 2
    split = args.split or ("test" if args.labels in (None, "handwritten") else "all")
    labels_path = {"eval": EVAL_SET, "handwritten": HANDWRITTEN_SET}.get(args.labels, args.labels)
    try:
        items = load_labelled_claims(labels_path, split=split)
    except (OSError, ValueError) as err:
        print(f"cannot read labels: {err}", file=sys.stderr)
        return 2
    if args.limit is not None:
        items = items[: args.limit]
    if not items:
        print("no labelled claims to measure", file=sys.stderr)
        return 2
    # the LLM judge's demos depend on the domain: rate each domain with its own demos
    if needs_llm and args.domain is None:
        groups: dict[str, list[int]] = {}
        for i, it in enumerate(items):
            groups.setdefault(it.domain if it.domain in ("medqa", "wildchat") else "medqa", []).append(i)
    else:
        groups = {args.domain or "medqa": list(range(len(items)))}
    predicted: list[int | None] = [None] * len(items)
    scores: list[float | None] = [None] * len(items)
    descriptions = {}
    for domain, idx in groups.items():
        judge = make_judge(args.judge, llm=(args.llm or "embedded") if needs_llm else None, **_judge_options(args, domain))
        ratings, values = rate_labelled_with_scores(judge, [items[i] for i in idx], seed=args.seed)
        for i, p, v in zip(idx, ratings, values):
            predicted[i], scores[i] = p, v
        descriptions[domain] = judge.describe()
    report = agreement(
        [it.gold for it in items], predicted, judge=next(iter(descriptions.values())) if len(descriptions) == 1 else descriptions,
        domains=[it.domain for it in items], categories=[it.category for it in items], scores=scores,
    )
    labels_name = {None: "shipped calibration set", "eval": "shipped evaluation set (judge_eval.jsonl)"}.get(args.labels, args.labels)
    print(f"judge: {json.dumps(report.judge, default=str)}")
    print(f"labels: {labels_name} (split: {split})")
    print(report.to_markdown())
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as fh:
            json.dump({"labels": labels_name, "split": split, **report.to_dict()}, fh, indent=1, default=str)
    return 0
