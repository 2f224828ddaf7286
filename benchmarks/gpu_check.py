"""Issue 29's GPU checks as one short script, for a session that is lent a GPU (and runnable on a CPU to test it).

    python benchmarks/gpu_check.py                                   # cuda if present: judge + 1,223-record evaluate
    python benchmarks/gpu_check.py --device cpu --records 4 --evaluate-records 20   # a smoke run anywhere

1. **The default NLI judge on the device**, in float32 and (on a GPU) float16, on ``--records`` synthetic
   MedQA-style records x three sanitized versions (``bench_judges_speed.workload``: about 10,500 claims at
   130 records, the issue's 10,480 pairs), after a warm-up: claims/s, the time inside the two MiniLM
   encoders' forward passes (CUDA synchronised at each hook) and the time outside them per claim, and
   whether float16 rates as float32 does (share of equal ratings, largest score difference).
   Targets (issue 29): at least 10,000 claims/s; outside the forward at most 0.1 ms per claim.
2. **``textleak evaluate`` end to end on ``--evaluate-records`` records** (default 1,223) with ``--device``,
   cold caches then warm (``bench_evaluate_e2e.run_once``). Target: the cold run under 8 s on the GPU.

Writes ``gpu_check.{json,md}`` to ``$OUT`` when that is set (the device machine's output folder), else to
``benchmarks/results/``. Quote the device line it prints with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_evaluate_e2e import run_once  # noqa: E402
from bench_judges_speed import workload  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


class SyncedForwardClock:
    """Wall time inside the forward passes of BERT models, synchronising CUDA at each hook so that
    asynchronous kernels are counted where they run (:class:`bench_judges_speed.ForwardClock` without
    the synchronisation would time only the launches on a GPU)."""

    def __init__(self, models, device: str):
        import torch

        self._sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
        self.seconds = 0.0
        self._started: list[float] = []
        for m in [part for model in models for part in (model.embeddings, model.encoder)]:
            m.register_forward_pre_hook(lambda *_: self._start())
            m.register_forward_hook(lambda *_: self._stop())

    def _start(self) -> None:
        self._sync()
        self._started.append(time.perf_counter())

    def _stop(self) -> None:
        self._sync()
        self.seconds += time.perf_counter() - self._started.pop()


def judge_run(dtype: str | None, device: str, claims, docs, chunk: int) -> dict:
    """One timed pass of the default NLI judge over the workload (after a warm-up on its first records)."""
    from textleak.encoders import load_sentence_encoder
    from textleak.judges import embedding
    from textleak.judges.nli import NLIJudge, load_nli_model

    judge = NLIJudge(device=device, dtype=dtype)
    judge.rate(claims[:4], docs[:4])  # loads both encoders on the device
    bert = [load_sentence_encoder(None, device, dtype)[0].auto_model, load_nli_model(None, False, device, dtype).model]
    clock = SyncedForwardClock(bert, device)
    embedding._SPANS.clear()  # the span finder's document cache: the timed pass encodes its documents itself
    n = sum(len(c) for c in claims)
    clock.seconds, out = 0.0, []
    started = time.perf_counter()
    for s in range(0, len(docs), chunk):
        out += judge.rate(claims[s : s + chunk], docs[s : s + chunk])
    wall = time.perf_counter() - started
    return {"dtype": dtype or "float32", "claims": n, "wall_s": wall, "claims_per_s": n / wall, "forward_s": clock.seconds,
            "outside_forward_ms_per_claim": 1e3 * (wall - clock.seconds) / n, "ratings": [(r.rating, r.score) for rs in out for r in rs]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None, help="cuda when available, else cpu")
    ap.add_argument("--records", type=int, default=130, help="workload records (x3 sanitized versions)")
    ap.add_argument("--chunk", type=int, default=64, help="records per judge call, as evaluate_leakage batches them")
    ap.add_argument("--evaluate-records", type=int, default=1223)
    ap.add_argument("--skip-evaluate", action="store_true")
    args = ap.parse_args()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    name = torch.cuda.get_device_name(0) if device.startswith("cuda") else f"CPU ({os.cpu_count()} cores, torch threads {torch.get_num_threads()})"
    print(f"device: {device}: {name}; torch {torch.__version__}", flush=True)
    claims, docs = workload(args.records)
    runs = [judge_run(None, device, claims, docs, args.chunk)]
    if device.startswith("cuda"):
        runs.append(judge_run("float16", device, claims, docs, args.chunk))
    base = runs[0]["ratings"]
    for r in runs:
        r["equal_ratings_share"] = sum(a[0] == b[0] for a, b in zip(r["ratings"], base)) / max(len(base), 1)
        r["largest_score_difference"] = max((abs((a[1] or 0) - (b[1] or 0)) for a, b in zip(r["ratings"], base)), default=0.0)
        print(f"judge {r['dtype']}: {r['claims']} claims in {r['wall_s']:.2f} s = {r['claims_per_s']:.0f} claims/s; forward {r['forward_s']:.2f} s; "
              f"outside the forward {r['outside_forward_ms_per_claim']:.3f} ms/claim; equal ratings {r['equal_ratings_share']:.4f}", flush=True)
        del r["ratings"]
    evaluate = {}
    if not args.skip_evaluate:
        from textleak.data.vignettes import write_jsonl

        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            data = write_jsonl(tmp / "synthetic_medqa.jsonl", args.evaluate_records, 0)
            threads = torch.get_num_threads()
            for label, out in (("cold", "out_cold"), ("warm", "out_warm")):
                evaluate[label] = run_once(data, tmp / out, tmp / "cache", "identity", threads, device=device)
                res = evaluate[label]["results"][0]
                print(f"evaluate {label}: {args.evaluate_records} records in {evaluate[label]['wall_s']:.1f} s wall "
                      f"(judge {res['timings']['judge_s']:.1f} s); semantic privacy {res['semantic_privacy']:.3f}", flush=True)
    result = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "device": f"{device}: {name}", "platform": platform.platform(),
              "command": " ".join(["python benchmarks/gpu_check.py"] + sys.argv[1:]), "judge": runs, "evaluate": evaluate,
              "targets": {"claims_per_s": 10000, "outside_forward_ms_per_claim": 0.1, "evaluate_1223_cold_s": 8}}
    lines = [f"# Issue 29's GPU checks ({result['date']})", "", f"`{result['command']}` on {result['device']}", "",
             "| judge | claims | claims/s | forward s | outside forward ms/claim | ratings equal to float32 | largest score diff |", "|---|---|---|---|---|---|---|"]
    lines += [f"| NLI {r['dtype']} | {r['claims']} | {r['claims_per_s']:.0f} | {r['forward_s']:.2f} | {r['outside_forward_ms_per_claim']:.3f} | "
              f"{r['equal_ratings_share']:.4f} | {r['largest_score_difference']:.1e} |" for r in runs]
    if evaluate:
        lines += ["", "| evaluate | records | wall s | judge s | semantic privacy |", "|---|---|---|---|---|"]
        lines += [f"| {k} | {args.evaluate_records} | {v['wall_s']:.1f} | {v['results'][0]['timings']['judge_s']:.1f} | {v['results'][0]['semantic_privacy']:.3f} |"
                  for k, v in evaluate.items()]
    target = Path(os.environ["OUT"]) if os.environ.get("OUT") else REPO / "benchmarks" / "results"
    target.mkdir(parents=True, exist_ok=True)
    (target / "gpu_check.json").write_text(json.dumps(result, indent=1))
    (target / "gpu_check.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
