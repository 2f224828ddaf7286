"""End-to-end wall time of ``textleak evaluate`` with the offline defaults on MedQA-sized data.

    python benchmarks/bench_evaluate_e2e.py [--n 1273] [--sanitizers identity] [--threads 2]

Generates ``--n`` synthetic MedQA-style records with the seeded template generator
(``textleak.data.vignettes``), then runs the real command in a subprocess, side by side in one run:

1. cold: empty result caches (claims, ratings, sanitized sets), the work done from scratch;
2. warm: the same command again: everything comes from the caches (what a resumed or repeated run costs).

The per-stage timings (atomize, link, judge, aggregate) come from ``report.json``. Aim: 1,273 records
in under 5 minutes on 2 CPU cores. ``--threads`` caps torch/BLAS threads (``OMP_NUM_THREADS``).
Writes ``benchmarks/results/evaluate_e2e.{json,md}``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from textleak.data.vignettes import write_jsonl

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"


def run_once(data: Path, out: Path, cache: Path, sanitizers: str, threads: int, device: str | None = None) -> dict:
    env = {**os.environ, "TEXTLEAK_CACHE_DIR": str(cache), "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads),
           "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1"}
    cmd = [sys.executable, "-m", "textleak", "evaluate", "--originals", str(data), "--sanitizer", sanitizers,
           "--output", str(out), "--no-progress"] + (["--device", device] if device else [])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"textleak evaluate failed:\n{proc.stderr[-4000:]}")
    report = json.loads((out / "report.json").read_text())
    return {"wall_s": wall, "cpu_s": cpu, "load_avg_1m": os.getloadavg()[0], "table": proc.stdout, "results": [
        {k: r[k] for k in ("sanitizer", "semantic_privacy", "lexical_privacy", "linkage_rate", "n_records", "n_claims",
                           "n_scored_claims", "timings")} for r in report["results"]]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1273)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sanitizers", default="identity")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        data = write_jsonl(tmp / "synthetic_medqa.jsonl", args.n, args.seed)
        cold = run_once(data, tmp / "out_cold", tmp / "cache", args.sanitizers, args.threads)
        warm = run_once(data, tmp / "out_warm", tmp / "cache", args.sanitizers, args.threads)
    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": f"python benchmarks/bench_evaluate_e2e.py --n {args.n} --sanitizers {args.sanitizers} --threads {args.threads}",
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs (shared with other jobs), torch threads {args.threads}",
        "n_records": args.n, "cold": cold, "warm": warm,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "evaluate_e2e.json").write_text(json.dumps(result, indent=2))
    lines = [f"# `textleak evaluate` end to end, offline defaults, {args.n} synthetic MedQA-style records", "",
             f"`{result['command']}` on {result['machine']}, {result['date']}.", "",
             "| run | wall (s) | CPU (s) | load avg | sanitizer | atomize (s) | link (s) | judge (s) | aggregate (s) | semantic privacy | linkage |",
             "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
    for name, run in (("cold caches", cold), ("warm caches (rerun)", warm)):
        for r in run["results"]:
            t = r["timings"]
            lines.append(f"| {name} | {run['wall_s']:.1f} | {run['cpu_s']:.1f} | {run['load_avg_1m']:.1f} | {r['sanitizer']} | {t['atomize_originals_s']:.1f} | {t['link_s']:.1f} | "
                         f"{t['judge_s']:.1f} | {t['aggregate_s']:.1f} | {r['semantic_privacy']:.3f} | {r['linkage_rate']:.3f} |")
    lines += ["", "Wall time includes interpreter start-up and loading the sentence encoder (once per run). CPU is the "
              "command's user+system time: on a machine shared with other jobs (see the load average) it is the better "
              "guide to the wall time on 2 dedicated cores (between CPU / 2 and CPU).", "",
              "Summary table printed by the cold run:", "", "```", cold["table"].rstrip(), "```"]
    (RESULTS / "evaluate_e2e.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
