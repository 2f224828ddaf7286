"""``textleak data list|prepare|push``: the built-in datasets.

    textleak data list
    textleak data prepare medqa --config fixture --out prepared/medqa      # parquet in the Hub layout
    textleak data prepare sst2 --data-dir glue/SST-2 --out prepared/sst2
    textleak data push wildchat --data-files PUPA_TNB.csv --repo-id me/pupa-textleak
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

logger = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="data_command", metavar="ACTION", required=True)
    sub.add_parser("list", help="the dataset names, their configs and Hub sources")
    for action, help_text in (("prepare", "build a dataset (cached) and optionally write it as parquet"),
                              ("push", "build a dataset and push it to a Hub dataset repo as parquet")):
        p = sub.add_parser(action, help=help_text)
        p.add_argument("name", help="dataset name (see `textleak data list`) or a data file path (bring your own)")
        p.add_argument("--config", default=None, help="dataset config (every dataset has 'fixture')")
        p.add_argument("--data-dir", default=None, help="a folder with the dataset's local files")
        p.add_argument("--data-files", nargs="+", default=None,
                       help="local files; 'split=path' assigns a split (default split: train)")
        p.add_argument("--columns", default=None,
                       help="bring your own: JSON mapping of schema names to file columns, e.g. '{\"text\": \"note\"}'")
        p.add_argument("--test-size", type=float, default=None, help="carve a deterministic test split (0-1)")
        if action == "prepare":
            p.add_argument("--out", default=None, help="write parquet in the Hub layout: <out>/data/<split>-*.parquet (default config) or <out>/<config>/...")
        else:
            p.add_argument("--repo-id", required=True, help="the Hub dataset repo, e.g. user/medqa-textleak")
            p.add_argument("--public", action="store_true", help="create a public repo (default private)")
            p.add_argument("--card-dir", default=None, help="folder whose README.md is the dataset card (datasets/<name>)")


def _data_files(values: list[str] | None):
    if not values:
        return None
    if all("=" in v for v in values):
        out: dict[str, list[str]] = {}
        for v in values:
            split, path = v.split("=", 1)
            out.setdefault(split, []).append(path)
        return out
    if any("=" in v for v in values):
        raise ValueError("--data-files: use 'split=path' for all files or for none")
    return values


def _kwargs(args: argparse.Namespace) -> dict:
    kw: dict = {}
    if args.columns:
        kw["columns"] = json.loads(args.columns)
    if args.test_size is not None:
        kw["test_size"] = args.test_size
    return kw


def run(args: argparse.Namespace) -> int:
    from textleak import data

    if args.data_command == "list":
        print(f"{'demo':10s} bundled  48 synthetic MedQA-style records written for textleak (textleak study --dataset demo; "
              "textleak evaluate's default)")
        for name in data.list_datasets():
            cls = data.builder_class(name)
            configs = ", ".join(
                f"{c.name}" + (f" [hub: {c.hub_repo}{'/' + c.hub_name if c.hub_name else ''}]" if c.hub_repo else "")
                + (" [bundled]" if c.source == "fixture" else "")
                for c in cls.BUILDER_CONFIGS)
            print(f"{name:10s} v{cls.VERSION}  {configs}")
        return 0
    files = _data_files(args.data_files)
    if args.data_command == "prepare":
        ds = data.load(args.name, args.config, data_dir=args.data_dir, data_files=files, **_kwargs(args))
        for split, part in ds.items():
            print(f"{split}: {part.num_rows} records, columns {part.column_names}")
        if args.out:
            config = args.config or "default"
            out = data.export_parquet(ds, args.out, config=config)
            print(f"wrote parquet under {Path(out) / ('data' if config == 'default' else config)}")
        return 0
    if args.data_command == "push":
        repo = data.push_to_hub(args.name, args.repo_id, args.config, data_dir=args.data_dir, data_files=files,
                                private=not args.public, card_dir=args.card_dir, **_kwargs(args))
        print(f"pushed to https://huggingface.co/datasets/{repo}")
        return 0
    raise ValueError(f"unknown action {args.data_command!r}")
