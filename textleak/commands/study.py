"""``textleak study``: sanitize, link, judge and measure utility for several sanitizers, then report."""

from __future__ import annotations

import argparse
import logging

logger = logging.getLogger(__name__)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", help="a YAML file of study settings (command-line options override it)")
    p.add_argument("--dataset", help="'demo' (bundled), a dataset name (medqa, wildchat, ...) or a data file")
    p.add_argument("--data-files", help="local file(s) for the dataset, e.g. ../shared/data/medqa/sampled_50.jsonl")
    p.add_argument("--dataset-config", dest="config_name", help="dataset config (e.g. fixture, pupa_tnb)")
    p.add_argument("--split")
    p.add_argument("--limit", type=int, help="use only the first N records")
    p.add_argument("--sanitizers", help="comma-separated registry names (default: identity,presidio,remove_all)")
    p.add_argument("--llm", help="LLM spec for LLM sanitizers and utility (default: embedded)")
    p.add_argument("--judge", help="embedding (default), lexical or llm")
    p.add_argument("--judge-llm", help="LLM spec for --judge llm (default: --llm)")
    p.add_argument("--linker", help="bm25 (default), bm25-release, rouge or dense")
    p.add_argument("--k", type=int, help="claims the adversary knows (default 3)")
    p.add_argument("--coherence", action="store_true", default=None, help="also rate coherence 1-5 with --llm")
    p.add_argument("--no-utility", dest="utility", action="store_false", default=None)
    p.add_argument("--no-linkage-ablation", dest="linkage_ablation", action="store_false", default=None)
    p.add_argument("--dp-sweep", help="epsilon=path.jsonl,... synthetic sets to place on the DP sweep plot")
    p.add_argument("--seed", type=int)
    p.add_argument("--output", "-o", help="output folder (default textleak-study)")
    p.add_argument("--fresh", action="store_true", help="recompute every stage instead of resuming")


def run(args: argparse.Namespace) -> int:
    from textleak.report import summary_text
    from textleak.study import StudyConfig, run_study

    overrides = {
        "dataset": args.dataset, "data_files": args.data_files, "config": args.config_name, "split": args.split,
        "limit": args.limit, "llm": args.llm, "judge": args.judge, "judge_llm": args.judge_llm, "linker": args.linker,
        "k": args.k, "coherence": args.coherence, "utility": args.utility, "linkage_ablation": args.linkage_ablation,
        "seed": args.seed, "output": args.output,
        "sanitizers": [s.strip() for s in args.sanitizers.split(",") if s.strip()] if args.sanitizers else None,
        "dp_sweep": dict(kv.split("=", 1) for kv in args.dp_sweep.split(",")) if args.dp_sweep else None,
    }
    if args.config:
        cfg = StudyConfig.from_yaml(args.config, **overrides)
    else:
        cfg = StudyConfig(**{k: v for k, v in overrides.items() if v is not None})
    result = run_study(cfg, resume=not args.fresh)
    print(summary_text(result["rows"]))
    if any(r.get("linkage") for r in result["rows"]):
        print("\ncorrect-linkage rate with first / random / last known claims:")
        for r in result["rows"]:
            if r.get("linkage"):
                print(f"  {r['sanitizer']:<22} " + "  ".join(f"{s} {v:.3f}" for s, v in r["linkage"].items()))
    print(f"\nreport: {result['paths']['html']}")
    return 0
