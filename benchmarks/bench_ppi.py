"""ppi-python against textleak's PPI++ mean (textleak.leakage.ppi.ppi_mean): import time, time per
estimate and the largest difference in the figures, side by side in one run (issue 26 asks to check
ppi-python's dependencies and speed before using it).

    python benchmarks/bench_ppi.py                  # writes benchmarks/results/ppi_speed.{json,md}
    python benchmarks/bench_ppi.py --repeats 200 --imports 5

Needs ppi-python (a test-only dependency: ``pip install ppi-python``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"


def import_seconds(module: str, runs: int) -> float:
    """Median wall time of ``import module`` in a fresh interpreter (minus a bare interpreter's start)."""
    def once(code: str) -> float:
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
        return time.perf_counter() - t

    bare = statistics.median(once("pass") for _ in range(runs))
    return statistics.median(once(f"import {module}") for _ in range(runs)) - bare


def per_call(fn, repeats: int) -> float:
    fn()  # warm-up (numba compiles on the first call)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=100)
    ap.add_argument("--imports", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    import ppi_py

    from textleak.leakage.ppi import ppi_mean

    rows = []
    for n, N in ((100, 1_000), (100, 10_000), (400, 100_000)):
        rng = np.random.default_rng((args.seed, n, N))
        y = rng.choice([0.0, 0.5, 1.0], size=n)
        f_l = np.clip(0.6 * y + 0.3 + rng.normal(0, 0.15, n), 0, 1)
        f_u = np.clip(rng.choice([0.0, 0.5, 1.0], size=N) * 0.6 + 0.3 + rng.normal(0, 0.15, N), 0, 1)

        def theirs():
            return ppi_py.ppi_mean_pointestimate(y, f_l, f_u), ppi_py.ppi_mean_ci(y, f_l, f_u, alpha=0.05)

        def ours():
            return ppi_mean(f_u, f_l, y, alpha=0.05)

        (point, (lo, hi)), r = theirs(), ours()
        diff = max(abs(float(np.ravel(point)[0]) - r.estimate), abs(float(np.ravel(lo)[0]) - r.ci[0]), abs(float(np.ravel(hi)[0]) - r.ci[1]))
        rows.append({"labelled": n, "unlabelled": N, "ppi_python_ms": 1e3 * per_call(theirs, args.repeats),
                     "textleak_ms": 1e3 * per_call(ours, args.repeats), "max_abs_difference": diff})
    report = {"command": "python benchmarks/bench_ppi.py " + " ".join(f"--{k} {v}" for k, v in vars(args).items()),
              "date": time.strftime("%Y-%m-%d"), "ppi_python_version": getattr(ppi_py, "__version__", "?"),
              "import_s": {"ppi_py": import_seconds("ppi_py", args.imports), "textleak.leakage.ppi": import_seconds("textleak.leakage.ppi", args.imports)},
              "load_average": os.getloadavg()[0], "rows": rows}
    lines = [f"Command: `{report['command']}` ({report['date']}; load average {report['load_average']:.1f})", "",
             f"Import in a fresh interpreter: ppi_py {report['import_s']['ppi_py']:.2f} s (numba, statsmodels, scikit-learn), "
             f"textleak.leakage.ppi {report['import_s']['textleak.leakage.ppi']:.2f} s (numpy, scipy).", "",
             "| labelled | unlabelled | ppi-python ms (point + CI) | textleak ppi_mean ms | largest difference |", "|---|---|---|---|---|"]
    lines += [f"| {r['labelled']:,} | {r['unlabelled']:,} | {r['ppi_python_ms']:.2f} | {r['textleak_ms']:.2f} | {r['max_abs_difference']:.1e} |"
              for r in rows]
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "ppi_speed.json").write_text(json.dumps(report, indent=1) + "\n")
    (RESULTS / "ppi_speed.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
