"""Time of one leakage evaluation against the length of one sanitized record (issue 27, item 10).

    python benchmarks/bench_record_size.py                          # 20 kB, 200 kB, 2 MB, default judge (nli)
    python benchmarks/bench_record_size.py --sizes 20000 200000 --judge lexical --time-limit 300
    python benchmarks/bench_record_size.py --old-rev 24461d6^      # adds the pipeline as it was at that revision
    python benchmarks/bench_record_size.py --rev HEAD --old-rev 24461d6^   # both sides from git (no uncommitted work)

Workload: the eight demo MedQA profiles (``textleak/data/demo_medqa.jsonl``) as originals, released as
they are except record 1, which is its profile repeated up to the size (what a sanitizer that looped
writes; the issue's case was a profile repeated 4,000 times, 1.7 MB). Each size runs in its own
process, after a warm-up run on the eight plain records (models loaded, not timed), with
``max_record_chars=0`` (no limit) and no cache; a size that has not finished within ``--time-limit``
seconds is killed and reported as such. A last row times the default configuration on the largest
size: the record-size limit refuses it before any work. With ``--old-rev`` every size also runs on
that revision's ``textleak`` (``git archive``, first on ``PYTHONPATH``), side by side.

Rows: size, wall seconds, each stage's seconds (``report.timings``), and the seconds the long record
adds (wall seconds minus a timed run on the eight plain records) per 100 kB of it: flat when the cost
is linear in the record. Writes ``benchmarks/results/record_size.{json,md}``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"

CHILD = r"""
import json, os, sys, time
from textleak.data.medqa import read_medqa_jsonl
from textleak.leakage import evaluate_leakage
size, judge, limit = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
texts = [r["text"] for r in read_medqa_jsonl(os.path.join("textleak", "data", "demo_medqa.jsonl"))][:8]
big = ((texts[1] + " ") * (size // (len(texts[1]) + 1) + 1))[:size]
sanitized = list(texts)
sanitized[1] = big
options = dict(judge=judge, bootstrap=0, use_cache=False)
from textleak.leakage import LeakageConfig
if limit >= 0 and "max_record_chars" in LeakageConfig.__dataclass_fields__:  # an old revision has no limit
    options["max_record_chars"] = limit
evaluate_leakage(texts, texts, **options)  # warm-up: models loaded once, not timed
t = time.perf_counter()
evaluate_leakage(texts, texts, **options)  # the eight plain records alone: the cost without the long one
plain = time.perf_counter() - t
t = time.perf_counter()
try:
    report = evaluate_leakage(texts, sanitized, **options)
    out = {"status": "ok", "timings": report.timings, "semantic_privacy": report.semantic_privacy}
except ValueError as e:
    out = {"status": "refused", "message": str(e)}
out["seconds"] = time.perf_counter() - t
out["plain_seconds"] = plain
print("RESULT " + json.dumps(out))
"""


def old_tree(rev: str) -> Path:
    """The repository at ``rev`` (``git archive``) in a temporary folder."""
    folder = Path(tempfile.mkdtemp(prefix="textleak-old-"))
    archive = subprocess.run(["git", "archive", rev], cwd=REPO, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def run_size(size: int, judge: str, limit: int, time_limit: float, tree: Path | None = None) -> dict:
    env = {**os.environ, "TEXTLEAK_CACHE_DIR": tempfile.mkdtemp(prefix="textleak-bench-"),
           "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"), "TOKENIZERS_PARALLELISM": "false"}
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(tree)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-c", CHILD, str(size), judge, str(limit)], cwd=tree or REPO, env=env,
                              capture_output=True, text=True, timeout=time_limit)
    except subprocess.TimeoutExpired:
        return {"size": size, "status": f"not finished in {time_limit:.0f} s (killed)", "seconds": None}
    line = next((l for l in proc.stdout.splitlines() if l.startswith("RESULT ")), None)
    if line is None:
        return {"size": size, "status": f"failed (exit {proc.returncode}): {proc.stderr.strip().splitlines()[-1:]}",
                "seconds": None, "process_seconds": time.perf_counter() - start}
    return {"size": size, **json.loads(line[7:])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[20_000, 200_000, 2_000_000])
    ap.add_argument("--judge", default="nli")
    ap.add_argument("--time-limit", type=float, default=600.0, help="seconds per size (the process is killed after)")
    ap.add_argument("--old-rev", default=None, help="also run every size on textleak at this git revision")
    ap.add_argument("--rev", default=None, help="run the new side from this git revision instead of the working tree")
    ap.add_argument("--out", default=str(RESULTS / "record_size"))
    args = ap.parse_args()

    tree = old_tree(args.old_rev) if args.old_rev else None
    new_tree = old_tree(args.rev) if args.rev else None
    current = f"at {args.rev}" if args.rev else "this tree"
    rows = []
    for size in args.sizes:
        for version in ([current] + ([f"at {args.old_rev}"] if tree else [])):
            row = run_size(size, args.judge, 0, args.time_limit, new_tree if version == current else tree)
            row["limit"] = "none (max_record_chars=0)"
            row["version"] = version
            rows.append(row)
            print(json.dumps(row), flush=True)
    row = run_size(max(args.sizes), args.judge, -1, args.time_limit, new_tree)  # -1: the default limit
    row["limit"] = "default max_record_chars"
    row["version"] = current
    rows.append(row)
    print(json.dumps(row), flush=True)

    meta = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "judge": args.judge,
            "python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
            "omp_threads": os.environ.get("OMP_NUM_THREADS", "1"), "command": " ".join(["python"] + sys.argv)}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out + ".json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    lines = [f"# Time against the length of one sanitized record (judge {args.judge})", "",
             f"{meta['date']}, {meta['cpus']} CPUs (shared with other jobs), OMP threads {meta['omp_threads']}; "
             f"`{meta['command']}`", "",
             "| record size | code | limit | status | seconds | atomize | link | judge | aggregate | added s per 100 kB |",
             "|---:|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        t = r.get("timings") or {}
        sec = r.get("seconds")
        per = (f"{(sec - r['plain_seconds']) / (r['size'] / 100_000):.2f}"
               if sec is not None and r.get("status") == "ok" and "plain_seconds" in r else "")
        cell = lambda k: f"{t[k]:.1f}" if k in t else ""  # noqa: E731
        lines.append(f"| {r['size']:,} | {r['version']} | {r['limit']} | {r['status']} | {'' if sec is None else f'{sec:.2f}'} | "
                     f"{cell('atomize_originals_s')} | {cell('link_s')} | {cell('judge_s')} | {cell('aggregate_s')} | {per} |")
    Path(args.out + ".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
