"""The semantic-leakage done-means figures on MedQA, one judge or several side by side:

    python benchmarks/medqa_done_means.py                       # the default judge
    python benchmarks/medqa_done_means.py --judges nli,embedding --out done_means
    python benchmarks/medqa_done_means.py --judges "nli:weights=/tmp/nli;spans=2"

Originals: the MedQA profiles of ../shared/data/medqa/sampled_50.jsonl and the 48 bundled demo
vignettes; the other defaults unchanged (rule atomizer, BM25 linking, k = 3). Sanitized sets (the same
checks are tests in tests/test_leakage_medqa.py):

- identity (target <= 0.10), remove_all (target 1.0), every number and age changed (the perturbation
  of the tests; target strictly between);
- other records of the same kind, the person's own record absent from the pool (target >= 0.90):
  each half of a set against a pool made of the other half, and each set against the other set.
  These are evaluated unaligned (``alignment="none"``): every link goes to someone else.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from sanitizers.record import change_numbers

REPO = Path(__file__).resolve().parent.parent


def cases(medqa: list[str], demo: list[str]) -> list[tuple[str, str, list[str], list[str], str, str]]:
    """(originals name, case, originals, sanitized, alignment, target)."""
    out = []
    for name, texts in (("medqa", medqa), ("demo", demo)):
        out += [(name, "identity", texts, texts, "index", "<= 0.10"),
                (name, "remove_all", texts, [""] * len(texts), "index", "= 1.0"),
                (name, "numbers and ages changed", texts, [change_numbers(t) for t in texts], "index", "between")]
        half = len(texts) // 2
        out += [(name, "other records: first half vs pool of the second half", texts[:half], texts[half:], "none", ">= 0.90"),
                (name, "other records: second half vs pool of the first half", texts[half:], texts[:half], "none", ">= 0.90")]
    out += [("medqa", "other records: against the demo vignettes", medqa, demo, "none", ">= 0.90"),
            ("demo", "other records: against the MedQA sample", demo, medqa, "none", ">= 0.90")]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--judges", default="", help="comma-separated judge specs, options after ':' separated by ';' (default: the default judge)")
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default="", help="write benchmarks/results/<out>.{md,json}")
    args = ap.parse_args()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch

    torch.set_num_threads(args.threads)
    from textleak.config import parse_spec
    from textleak.data.medqa import read_medqa_jsonl
    from textleak.data.vignettes import DEMO_PATH
    from textleak.judges import make_judge
    from textleak.leakage import LeakageConfig, evaluate_leakage

    medqa = [r["text"] for r in read_medqa_jsonl(REPO.parent / "shared" / "data" / "medqa" / "sampled_50.jsonl") if r["text"].strip()]
    demo = [r["text"] for r in read_medqa_jsonl(DEMO_PATH)]
    rows = []
    for spec in [j for j in args.judges.split(",") if j] or [LeakageConfig().judge]:
        name, options = parse_spec(spec, "--judges")
        judge = make_judge(name, **options)
        for dataset, case, originals, sanitized, alignment, target in cases(medqa, demo):
            t = time.perf_counter()
            r = evaluate_leakage(originals, sanitized, alignment=alignment, judge=judge, bootstrap=args.bootstrap, use_cache=False)
            lo, hi = r.ci95["semantic_privacy"]
            rows.append({"judge": spec, "dataset": dataset, "case": case, "target": target, "semantic_privacy": r.semantic_privacy,
                         "ci95": [lo, hi], "lexical_privacy": r.lexical_privacy, "linkage_rate": r.linkage_rate,
                         "n_records": r.n_records, "seconds": time.perf_counter() - t})
            print(f"{spec:10s} {dataset:6s} {case:55s} {r.semantic_privacy:.3f} [{lo:.3f}, {hi:.3f}]  target {target}", flush=True)
    lines = [f"# Semantic-leakage done-means on MedQA ({time.strftime('%Y-%m-%d')})", "",
             f"Rule atomizer, BM25 linking, k = 3, bootstrap 95% intervals; `python benchmarks/medqa_done_means.py --judges {args.judges}`.", "",
             "| judge | originals | sanitized | semantic privacy [95% CI] | target | lexical privacy |", "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['judge']} | {r['dataset']} ({r['n_records']}) | {r['case']} | {r['semantic_privacy']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}] | "
                     f"{r['target']} | {r['lexical_privacy']:.3f} |")
    print("\n".join(lines))
    if args.out:
        out = REPO / "benchmarks" / "results"
        out.mkdir(parents=True, exist_ok=True)
        (out / f"{args.out}.md").write_text("\n".join(lines) + "\n")
        (out / f"{args.out}.json").write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), "load_average": os.getloadavg(), "rows": rows}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
