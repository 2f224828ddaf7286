"""``textleak study``: sanitize, link, judge and measure utility for several sanitizers, then report.

Flags come from :class:`textleak.study.StudyConfig` and :class:`textleak.leakage.LeakageConfig`; with
``--config study.yaml`` the flags given override the file.
"""

from __future__ import annotations

import argparse
import logging

logger = logging.getLogger(__name__)


def add_arguments(p: argparse.ArgumentParser) -> None:
    from textleak.config import add_arguments as add_config_arguments
    from textleak.leakage import LeakageConfig
    from textleak.study import StudyConfig

    # dest config_file: StudyConfig's own `config` field is the dataset config (--dataset-config)
    p.add_argument("--config", dest="config_file", help="a YAML file of study settings (command-line options override it)")
    p.add_argument("--sanitizers", help="comma-separated registry names (default: identity,presidio,remove_all)")
    p.add_argument("--dp-sweep", help="epsilon=path.jsonl,... synthetic sets to place on the DP sweep plot")
    p.add_argument("--fresh", action="store_true", help="recompute every stage instead of resuming")
    add_config_arguments(p, StudyConfig, suppress_defaults=True, flags={"output": "--output"})
    add_config_arguments(p.add_argument_group("leakage (textleak.leakage.LeakageConfig)"), LeakageConfig, suppress_defaults=True,
                         exclude=("alignment", "missing", "empty_originals"), flags={"llm": "--judge-llm"}, dest_prefix="leakage_")


def run(args: argparse.Namespace) -> int:
    from textleak.config import values_from_args
    from textleak.leakage import LeakageConfig
    from textleak.report import summary_text
    from textleak.study import StudyConfig, run_study

    overrides = values_from_args(StudyConfig, args)
    leakage = values_from_args(LeakageConfig, args, dest_prefix="leakage_")
    if args.sanitizers:
        overrides["sanitizers"] = [s.strip() for s in args.sanitizers.split(",") if s.strip()]
    if args.dp_sweep:
        overrides["dp_sweep"] = dict(kv.split("=", 1) for kv in args.dp_sweep.split(","))
    cfg = StudyConfig.from_yaml(args.config_file, **overrides, leakage=leakage) if args.config_file else StudyConfig(**overrides, leakage=LeakageConfig(**leakage))
    result = run_study(cfg, resume=not args.fresh)
    print(summary_text(result["rows"]))
    if any(r.get("linkage") for r in result["rows"]):
        print("\ncorrect-linkage rate with first / random / last known claims:")
        for r in result["rows"]:
            if r.get("linkage"):
                print(f"  {r['sanitizer']:<22} " + "  ".join(f"{s} {v:.3f}" for s, v in r["linkage"].items()))
    print(f"\nreport: {result['paths']['html']}")
    return 0
