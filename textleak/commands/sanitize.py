"""``textleak sanitize``: run a registered sanitizer over a data file.

    textleak sanitize --sanitizer presidio --input data.jsonl --output out.jsonl
    textleak sanitize --sanitizer llm_anonymizer --llm openai:gpt-4o@https://api.openai.com/v1 \\
        --input data.jsonl --output out.jsonl --option domain=wildchat --option rounds=3

Input and output formats follow the file suffix: .jsonl/.json, .csv, .parquet. Every input column is
kept; the sanitized text and its status are added (``--output-column``, ``sanitize_status``). The
names are the ``textleak.sanitizers`` registry's, the same ones ``textleak evaluate --sanitizer`` takes.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections import Counter
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


def parse_options(pairs: list[str] | None) -> dict[str, Any]:
    """``key=value`` pairs (``textleak.config.parse_key_values``); dashes in keys become underscores."""
    from textleak.config import parse_key_values

    return {k.replace("-", "_"): v for k, v in parse_key_values(pairs or [], "--option").items()}


def read_table(path: str | Path):
    """A ``datasets.Dataset`` from a .jsonl/.json/.csv/.parquet file."""
    import datasets

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"input file {path} does not exist")
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json"):
        return datasets.Dataset.from_json(str(path))
    if suffix == ".csv":
        return datasets.Dataset.from_csv(str(path))
    if suffix == ".parquet":
        return datasets.Dataset.from_parquet(str(path))
    raise ValueError(f"unsupported input format {suffix!r}: use .jsonl, .json, .csv or .parquet")


def write_table(ds: Any, path: str | Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json"):
        ds.to_json(str(path), lines=True, force_ascii=False)
    elif suffix == ".csv":
        ds.to_csv(str(path), index=False)
    elif suffix == ".parquet":
        ds.to_parquet(str(path))
    else:
        raise ValueError(f"unsupported output format {suffix!r}: use .jsonl, .csv or .parquet")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from textleak.registry import sanitizers

    parser.add_argument("--sanitizer", required=True, help=f"registered name: {', '.join(sanitizers.names())}")
    parser.add_argument("--input", required=True, help="records (.jsonl, .json, .csv, .parquet)")
    parser.add_argument("--output", required=True, help="where to write records plus the sanitized column")
    parser.add_argument("--text-column", default="text", help="the private text to sanitize (default: text)")
    parser.add_argument("--output-column", default="sanitized", help="column for the sanitized text (default: sanitized)")
    parser.add_argument("--llm", default=None, help="LLM spec for LLM sanitizers: embedded, hf:<id>, openai:<model>@<url>")
    parser.add_argument("--num-proc", type=int, default=None, help="worker processes for datasets.map")
    parser.add_argument("--batch-size", type=int, default=64, help="records per map batch (default 64)")
    parser.add_argument("--seed", type=int, default=0, help="base seed; each record's seed comes from its index")
    parser.add_argument("--option", action="append", metavar="KEY=VALUE",
                        help="sanitizer option, repeatable (e.g. operator=replace, rounds=3, domain=wildchat)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N records")


def run(args: argparse.Namespace) -> int:
    from textleak.sanitize import STATUS_OK, create_sanitizer, sanitize_dataset

    options = parse_options(args.option)
    options.setdefault("output_column", args.output_column)
    options.setdefault("seed", args.seed)
    sanitizer = create_sanitizer(args.sanitizer, llm=args.llm, **options)
    logger.info("sanitizer: %r", sanitizer)
    ds = read_table(args.input)
    if args.limit is not None:
        ds = ds.select(range(min(args.limit, len(ds))))
    if args.text_column not in ds.column_names:
        logger.error("no column %r in %s; columns: %s", args.text_column, args.input, ", ".join(ds.column_names))
        return 2
    bad = [i for i, t in enumerate(ds[args.text_column]) if not isinstance(t, str)]
    if bad:
        logger.error("records %s have no text in column %r (null or not a string)", bad[:10], args.text_column)
        return 2
    if sanitizer.requires_fit:  # SANTEXT's sensitive words come from the corpus: here, the records being sanitized
        logger.info("%s: fitting the corpus statistics on the %d records of %s (--option vocab=<counts.json> to use others)",
                    sanitizer.name, len(ds), args.input)
        sanitizer.fit(ds[args.text_column])
    out = sanitize_dataset(ds, sanitizer, text_column=args.text_column, num_proc=args.num_proc, batch_size=args.batch_size)
    write_table(out, args.output)
    counts = Counter(out[sanitizer.status_column])
    failed = sum(n for s, n in counts.items() if s != STATUS_OK)
    logger.info("wrote %d records to %s; status: %s", len(out), args.output, dict(counts))
    if failed:
        logger.warning("%d of %d records are not 'ok' (column %r): they carry no sanitized text to trust",
                       failed, len(out), sanitizer.status_column)
    if failed == len(out) and len(out):
        print(f"textleak sanitize: error: {sanitizer.name} failed on every record ({dict(counts)}); {args.output} "
              "holds no sanitized text", file=sys.stderr)
        return 1
    return 0
