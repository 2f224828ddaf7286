"""How many chat requests keep a scored claim at k=3 (issue 25.5), the rule atomizer now and at a git ref,
side by side in one run.

Loads the first ``--n`` PUPA records as the pipeline does (``textleak.data.load("wildchat",
data_dir=../shared/data/pupa)``, text normalised as ``LeakageConfig.normalize`` does), atomizes them
with the default atomizer and prints:

- records, and the share scored at k=3: a record is scored when a claim is left once the adversary
  knows k (``select_known_indices``, the pipeline's own rule) under ``short_records="exclude"`` (the
  default: more than k claims) and under ``"reduce_k"`` (at least 2 claims);
- claims per record (mean, median);
- the claims of ``--sample`` records drawn with ``--seed`` (with ``requests=True``, the chat rules,
  opt-in), so a reader can check they state something.

The baseline is the ``RuleAtomizer`` of ``--baseline-ref`` read from git (as in
``atomizer_granularity.py``); ``--baseline-ref ''`` leaves it out.

    OMP_NUM_THREADS=1 python benchmarks/atomizer_coverage.py [--n 200] [--baseline-ref HEAD]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "data"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from atomizer_granularity import load_baseline  # noqa: E402

from textleak.leakage.knowledge import select_known_indices  # noqa: E402
from textleak.registry import atomizers  # noqa: E402
from textleak.text.normalize import normalize_text  # noqa: E402

BASELINE_REF = "1dd80a3"  # main before issue 25.5 (chat requests)


def pupa_texts(n: int, data_dir: Path = SHARED / "pupa") -> list[str]:
    """The first ``n`` PUPA user queries, loaded and normalised as the leakage pipeline does."""
    from textleak.data import load

    ds = load("wildchat", data_dir=str(data_dir), split="train")
    return [normalize_text(t) for t in ds["text"][:n]]


def scored_share(counts: list[int], k: int = 3, short_records: str = "exclude") -> float:
    """The share of records with a claim left to score once the adversary knows k of them."""
    known = select_known_indices(counts, k=k, keep_one=short_records == "reduce_k")
    return sum(n - len(kn) >= 1 for n, kn in zip(counts, known)) / max(1, len(counts))


def coverage(claims: list[list[str]], k: int = 3) -> dict:
    counts = [len(c) for c in claims]
    return {"records": len(counts), "scored_exclude": scored_share(counts, k, "exclude"),
            "scored_reduce_k": scored_share(counts, k, "reduce_k"),
            "mean_claims": statistics.fmean(counts) if counts else 0.0,
            "median_claims": statistics.median(counts) if counts else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=200, help="first n PUPA records")
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--sample", type=int, default=10, help="records whose claims are printed")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline-ref", default=BASELINE_REF, help="git ref of the baseline atomizer ('' for none)")
    args = parser.parse_args()

    texts = pupa_texts(args.n)
    runs = {}
    if args.baseline_ref:
        old = load_baseline(args.baseline_ref)
        if old is not None:
            runs[f"rules@{args.baseline_ref}"] = old()
    runs["rules (now, default)"] = atomizers.build("rules")
    runs["rules requests=True"] = atomizers.build("rules", requests=True)
    results = {}
    print(f"{len(texts)} PUPA records (../shared/data/pupa/PUPA_TNB.csv), k={args.k}")
    print("| atomizer | records | scored (exclude) | scored (reduce_k) | mean claims | median | ms / record |")
    print("|---|---|---|---|---|---|---|")
    for label, atomizer in runs.items():
        t0 = time.perf_counter()
        claims = atomizer.atomize(texts)
        ms = 1000 * (time.perf_counter() - t0) / max(1, len(texts))
        r = results[label] = coverage(claims, args.k)
        results[label]["claims"] = claims
        print(f"| {label} | {r['records']} | {r['scored_exclude']:.1%} | {r['scored_reduce_k']:.1%} | "
              f"{r['mean_claims']:.2f} | {r['median_claims']:g} | {ms:.2f} |")
    now = results["rules requests=True"]["claims"]
    for i in sorted(random.Random(args.seed).sample(range(len(texts)), min(args.sample, len(texts)))):
        print(f"\n## record {i} ({len(now[i])} claims): {texts[i][:300]!r}")
        for c in now[i]:
            print(f"  - {c}")


if __name__ == "__main__":
    main()
