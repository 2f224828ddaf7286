"""Granularity and speed of the rule atomizer, before (v1) and after (v2), side by side in one run.

For the MedQA sample (``../shared/data/medqa/sampled_50.jsonl``, patient profiles), the bundled demo
(``textleak/data/demo_medqa.jsonl``) and the PUPA/WildChat user queries
(``../shared/data/pupa/PUPA_TNB.csv``, column ``user_query``):

- mean and median claims per record, the share of records with at most k=3 claims (nothing left to
  score once the adversary knows 3) and with none, a histogram;
- time per record (best of ``--repeat`` passes over the whole set);
- the routes v2 took (English rules, sentence punctuation, 。！？； for scripts without spaces).

Texts are normalised first, as the pipeline does before atomizing (``LeakageConfig.normalize``).

And a sanity check against the paper's granularity: the documents of
``textleak/prompts/atomize_demos.json`` (claims written at the LLM atomizer's granularity), atomized
by the rules: claim counts, and how many demo claims the rule claims cover (a rule claim with ROUGE-L
recall >= 0.6 of the demo claim).

The v1 atomizer is read from git (``--baseline-ref``, default the last commit before v2) so the
numbers come from the code that shipped; without git the baseline is left out.

    OMP_NUM_THREADS=1 python benchmarks/atomizer_granularity.py [--repeat 5]

Writes ``benchmarks/results/atomizer_granularity.{json,md}``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import types
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "data"
RESULTS = REPO / "benchmarks" / "results"
BASELINE_REF = "948a945"  # main before the v2 rule atomizer
BINS = [(0, 0), (1, 1), (2, 2), (3, 3), (4, 5), (6, 9), (10, 14), (15, 19), (20, 29), (30, 10**9)]

sys.path.insert(0, str(REPO))

from textleak.atomizers.rules import RuleAtomizer  # noqa: E402
from textleak.data.medqa import read_medqa_jsonl  # noqa: E402
from textleak.text import rouge_l  # noqa: E402
from textleak.text.normalize import normalize_text  # noqa: E402


def load_baseline(ref: str):
    """The v1 RuleAtomizer class from git (its registration line removed, so the registry keeps v2)."""
    try:
        source = subprocess.run(["git", "-C", str(REPO), "show", f"{ref}:textleak/atomizers/rules.py"],
                                capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"baseline {ref} not available ({e}); v1 left out", file=sys.stderr)
        return None
    source = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("@atomizers.register"))
    module = types.ModuleType("rules_v1")
    exec(compile(source, f"{ref}:textleak/atomizers/rules.py", "exec"), module.__dict__)
    return module.RuleAtomizer


def datasets() -> dict[str, list[str]]:
    """The texts as the pipeline atomizes them: normalised (NFKC, ...; LeakageConfig.normalize)."""
    out = {}
    medqa = SHARED / "medqa" / "sampled_50.jsonl"
    if medqa.exists():
        out["medqa_sample"] = [r["text"] for r in read_medqa_jsonl(medqa)]
    out["demo"] = [r["text"] for r in read_medqa_jsonl(REPO / "textleak" / "data" / "demo_medqa.jsonl")]
    pupa = SHARED / "pupa" / "PUPA_TNB.csv"
    if pupa.exists():
        csv.field_size_limit(10**9)
        with open(pupa, encoding="utf-8", newline="") as f:
            out["pupa_user_queries"] = [row["user_query"] for row in csv.DictReader(f)]
    return {name: [normalize_text(t) for t in texts] for name, texts in out.items()}


def histogram(counts: list[int]) -> dict[str, int]:
    out = {}
    for lo, hi in BINS:
        label = str(lo) if lo == hi else (f"{lo}+" if hi >= 10**9 else f"{lo}-{hi}")
        out[label] = sum(lo <= n <= hi for n in counts)
    return out


def measure(atomizer, texts: list[str], repeat: int) -> dict:
    best = float("inf")
    claims = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        claims = atomizer.atomize(texts)
        best = min(best, time.perf_counter() - t0)
    counts = [len(c) for c in claims]
    return {
        "records": len(texts),
        "mean_claims": statistics.fmean(counts),
        "median_claims": statistics.median(counts),
        "share_le_3": sum(n <= 3 for n in counts) / len(counts),
        "share_le_3_nonempty": sum(n <= 3 for n, t in zip(counts, texts) if t.strip()) / max(1, sum(bool(t.strip()) for t in texts)),
        "records_without_claims": sum(n == 0 for n in counts),
        "empty_records": sum(not t.strip() for t in texts),
        "ms_per_record": 1000 * best / len(texts),
        "histogram": histogram(counts),
    }


def demo_check(atomizer) -> list[dict]:
    demos = json.loads((REPO / "textleak" / "prompts" / "atomize_demos.json").read_text(encoding="utf-8"))
    rows = []
    for kind, items in demos.items():
        for k, item in enumerate(items):
            ours = atomizer.atomize_one(item["document"])
            covered = [max((rouge_l(d, c).recall for c in ours), default=0.0) >= 0.6 for d in item["claims"]]
            matched = [max((rouge_l(d, c).recall for d in item["claims"]), default=0.0) >= 0.6 for c in ours]
            rows.append({"demo": f"{kind}[{k}]", "demo_claims": len(item["claims"]), "rule_claims": len(ours),
                         "demo_claims_covered": sum(covered), "rule_claims_matching_a_demo_claim": sum(matched),
                         "uncovered": [d for d, ok in zip(item["claims"], covered) if not ok]})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="passes over each set; the fastest is reported")
    parser.add_argument("--baseline-ref", default=BASELINE_REF, help="git ref of the v1 atomizer")
    args = parser.parse_args()

    atomizers = {"v2": RuleAtomizer()}
    v1 = load_baseline(args.baseline_ref)
    if v1 is not None:
        atomizers = {"v1": v1(), **atomizers}
    data = datasets()
    load_before = os.getloadavg()
    results: dict = {"datasets": {}, "demos": {}}
    for name, texts in data.items():
        results["datasets"][name] = {label: measure(a, texts, args.repeat) for label, a in atomizers.items()}
        routes = Counter(atomizers["v2"].route(t) for t in texts if t.strip())
        results["datasets"][name]["v2_routes"] = dict(routes)
    for label, a in atomizers.items():
        results["demos"][label] = demo_check(a)
    results["machine"] = {"load_avg_before": load_before, "load_avg_after": os.getloadavg(), "cpus": os.cpu_count(),
                          "python": platform.python_version(), "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
                          "date": time.strftime("%Y-%m-%d %H:%M")}
    results["command"] = "OMP_NUM_THREADS=1 python benchmarks/atomizer_granularity.py " + " ".join(sys.argv[1:])
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "atomizer_granularity.json").write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    md = render(results, list(atomizers))
    (RESULTS / "atomizer_granularity.md").write_text(md, encoding="utf-8")
    print(md)


def render(results: dict, labels: list[str]) -> str:
    m = results["machine"]
    lines = ["# Rule atomizer granularity, v1 and v2 side by side", "",
             f"`{results['command']}` on {m['date']}, {m['cpus']} CPUs, load average {m['load_avg_before'][0]:.1f} "
             f"before / {m['load_avg_after'][0]:.1f} after (a shared machine: times are indicative). "
             "The paper's LLM atomizer gives 15.6 claims per MedQA record (seed 000, appendix C.1).", "",
             "| set | atomizer | records | mean claims | median | <= 3 claims (unscored at k=3) | no claims | ms / record |",
             "|---|---|---|---|---|---|---|---|"]
    for name, by in results["datasets"].items():
        for label in labels:
            r = by[label]
            empty = f" ({r['empty_records']} empty)" if r["empty_records"] else ""
            lines.append(f"| {name} | {label} | {r['records']} | {r['mean_claims']:.2f} | {r['median_claims']:g} | "
                         f"{r['share_le_3']:.1%} ({r['share_le_3_nonempty']:.1%} of non-empty) | {r['records_without_claims']}{empty} | "
                         f"{r['ms_per_record']:.2f} |")
    lines += ["", "Routes of v2 (non-empty records): " + "; ".join(
        f"{name}: " + ", ".join(f"{k} {v}" for k, v in sorted(by["v2_routes"].items())) for name, by in results["datasets"].items()), ""]
    lines += ["## Histogram of claims per record", ""]
    bins = list(next(iter(results["datasets"].values()))[labels[0]]["histogram"])
    lines += ["| set | atomizer | " + " | ".join(bins) + " |", "|---|---|" + "---|" * len(bins)]
    for name, by in results["datasets"].items():
        for label in labels:
            lines.append(f"| {name} | {label} | " + " | ".join(str(v) for v in by[label]["histogram"].values()) + " |")
    lines += ["", "## The demos of `textleak/prompts/atomize_demos.json` (the LLM atomizer's granularity)", "",
              "A demo claim is covered when a rule claim has ROUGE-L recall >= 0.6 of it.", "",
              "| demo | atomizer | demo claims | rule claims | demo claims covered | rule claims matching a demo claim |",
              "|---|---|---|---|---|---|"]
    for label in labels:
        for row in results["demos"][label]:
            lines.append(f"| {row['demo']} | {label} | {row['demo_claims']} | {row['rule_claims']} | "
                         f"{row['demo_claims_covered']} / {row['demo_claims']} | {row['rule_claims_matching_a_demo_claim']} / {row['rule_claims']} |")
    last = labels[-1]
    uncovered = [c for row in results["demos"][last] for c in row["uncovered"]]
    if uncovered:
        lines += ["", f"Demo claims {last} does not cover: " + "; ".join(f"\"{c}\"" for c in uncovered)]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
