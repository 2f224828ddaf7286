"""``textleak install-metrics``: put textleak's metric shims into evaluate's module cache, so
``evaluate.load("semantic_leakage")`` (and ``reconstruction_asr``, ``entity_leakage``) works by bare
name, offline. Idempotent; respects ``HF_HOME`` / ``HF_MODULES_CACHE``."""

from __future__ import annotations

import argparse

from textleak.metrics.install import METRICS, install_metrics, modules_cache


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("names", nargs="*", default=list(METRICS), help=f"metrics to install (default: all: {', '.join(METRICS)})")
    parser.add_argument("--cache-dir", default=None, help="HF modules cache (default: $HF_MODULES_CACHE or $HF_HOME/modules)")


def run(args: argparse.Namespace) -> int:
    unknown = [n for n in args.names if n not in METRICS]
    if unknown:
        raise ValueError(f"unknown metric(s) {', '.join(unknown)}; available: {', '.join(METRICS)}")
    paths = install_metrics(args.names, root=args.cache_dir)
    root = args.cache_dir or modules_cache()
    print(f"installed {len(args.names)} metric(s) into {root}:")
    for name in args.names:
        print(f'  evaluate.load("{name}")  /  evaluate.load("textleak/{name}")')
    print("Set HF_EVALUATE_OFFLINE=1 on hosts without network access, or evaluate waits for the Hub first.")
    return 0 if paths else 1
