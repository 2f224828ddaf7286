"""Judges side by side, in one run: the log-probability LLM judge against the paper's sampled LLM
judge (n=3) on the same claims, and the embedding and lexical judges' agreement and throughput.

    python benchmarks/bench_judge.py --claims 60           # writes benchmarks/results/judge.{md,json}
    python benchmarks/bench_judge.py --llm hf:<id> --claims 60 --domain-demos

For the LLM judges: wall time, forward tokens (every token fed through the model: prompt prefill,
shared prefixes once, generated tokens; read from the transformers backend's ``forward_stats``),
agreement of the two with each other and with gold, unparsed claims. The result cache is disabled
for this run so both judges do their full work. Claims are the first ``--claims`` of the held-out
split of the shipped labelled set, in file order (whole scenarios).

Throughput: the embedding and lexical judges rate ``--throughput-claims`` claims (the shipped set
repeated with a per-copy suffix, so no text is deduplicated away) and report claims/s.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import time
from pathlib import Path

from textleak.judges.agreement import agreement, cohen_kappa, group_by_document, load_labelled_claims, rate_labelled, spearman
from textleak.cache import DiskCache
from textleak.judges.embedding import EmbeddingJudge
from textleak.judges.lexical import LexicalJudge
from textleak.judges.llm import LLMJudge

RESULTS = Path(__file__).resolve().parent / "results"
logger = logging.getLogger("bench_judge")


def forward_tokens(lm) -> int:
    stats = getattr(lm, "forward_stats", None)
    return int(stats["forward_tokens"]) if isinstance(stats, dict) else -1


def run_llm_judge(judge: LLMJudge, items, by_domain: bool) -> dict:
    lm = judge.lm
    before = forward_tokens(lm)
    started = time.perf_counter()
    if by_domain:
        predicted: list = [None] * len(items)
        for domain in ("medqa", "wildchat"):
            idx = [i for i, it in enumerate(items) if it.domain == domain]
            if idx:
                judge.domain = domain
                for i, p in zip(idx, rate_labelled(judge, [items[i] for i in idx])):
                    predicted[i] = p
    else:
        predicted = rate_labelled(judge, items)
    seconds = time.perf_counter() - started
    after = forward_tokens(lm)
    report = agreement([it.gold for it in items], predicted)
    return {"predicted": predicted, "seconds": seconds, "forward_tokens": after - before if before >= 0 else None, "report": report.to_dict()}


def throughput(judge, items, n_claims: int) -> dict:
    copies = max(1, -(-n_claims // len(items)))
    docs, claims = [], []
    for c in range(copies):
        d, cl, _ = group_by_document(items)
        docs += [f"{doc} (copy {c})" for doc in d]
        claims += [[f"{x} (copy {c})" for x in cs] for cs in cl]
    total = sum(len(cs) for cs in claims)
    judge.rate(claims[:2], docs[:2])  # load the model outside the timing
    started, cpu_started = time.perf_counter(), time.process_time()
    judge.rate(claims, docs)
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    # CPU time (all threads of this process) does not grow when other jobs share the machine
    return {"claims": total, "documents": len(docs), "seconds": seconds, "claims_per_s": total / seconds,
            "cpu_seconds": cpu_seconds, "claims_per_cpu_s": total / cpu_seconds if cpu_seconds else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", default="embedded")
    parser.add_argument("--claims", type=int, default=60)
    parser.add_argument("--n", type=int, default=3)
    parser.add_argument("--claims-per-prompt", type=int, default=10)
    parser.add_argument("--max-new-tokens", type=int, default=None, help="sampled judge's budget per prompt (default 64 + 96 per claim)")
    parser.add_argument("--domain-demos", action="store_true", help="use each item's domain demos (default: medqa demos for all)")
    parser.add_argument("--throughput-claims", type=int, default=2000)
    parser.add_argument("--skip-llm", action="store_true")
    parser.add_argument("--out", default=str(RESULTS / "judge"))
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")

    held_out = load_labelled_claims(split="test")
    items = held_out[: args.claims]
    gold = [it.gold for it in items]
    result: dict = {
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "torch_threads": None},
        "claims": len(items), "gold_distribution": {r: gold.count(r) for r in (1, 2, 3)},
    }
    try:
        import torch

        result["machine"]["torch_threads"] = torch.get_num_threads()
    except ImportError:
        pass

    # ---- fast judges: agreement on the same claims and throughput -------------------------------------
    for name, judge in (("embedding", EmbeddingJudge()), ("lexical", LexicalJudge())):
        predicted = rate_labelled(judge, items)
        result[name] = {"report": agreement(gold, predicted).to_dict(), "predicted": predicted,
                        "throughput": throughput(judge, load_labelled_claims(), args.throughput_claims)}
        logger.info("%s: %.1f claims/s", name, result[name]["throughput"]["claims_per_s"])

    # ---- LLM judges: log-prob vs sampled, same claims, same model -----------------------------------
    if not args.skip_llm:
        from textleak.llm import load_llm

        lm = load_llm(args.llm)
        lm.cache = DiskCache("llm", enabled=False)  # both judges do their full work
        result["llm"] = lm.describe()
        sampled = LLMJudge(lm, mode="sample", n=args.n, claims_per_prompt=args.claims_per_prompt, max_new_tokens=args.max_new_tokens)
        logprob = LLMJudge(lm, mode="logprob", n=args.n)
        logger.info("log-prob judge on %d claims", len(items))
        result["logprob"] = run_llm_judge(logprob, items, args.domain_demos)
        logger.info("sampled judge on %d claims", len(items))
        result["sampled"] = run_llm_judge(sampled, items, args.domain_demos)
        a, b = result["logprob"]["predicted"], result["sampled"]["predicted"]
        both = [(x, y) for x, y in zip(a, b) if x is not None and y is not None]
        result["logprob_vs_sampled"] = {
            "claims_both_parsed": len(both),
            "exact_agreement": sum(x == y for x, y in both) / len(both) if both else None,
            "cohen_kappa": cohen_kappa([x for x, _ in both], [y for _, y in both]) if both else None,
            "spearman": spearman([x for x, _ in both], [y for _, y in both])[0] if both else None,
        }
        result["judge_settings"] = {"sampled": sampled.describe(), "logprob": logprob.describe()}

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if args.skip_llm and out.with_suffix(".json").is_file():  # keep the last LLM comparison
        previous = json.loads(out.with_suffix(".json").read_text())
        for key in ("llm", "logprob", "sampled", "logprob_vs_sampled", "judge_settings"):
            if key in previous:
                result[key] = previous[key]
        args.claims = previous.get("claims", args.claims)
    out.with_suffix(".json").write_text(json.dumps(result, indent=1, default=str))
    out.with_suffix(".md").write_text(to_markdown(result, args))
    print(out.with_suffix(".md").read_text())


def _fmt(x, digits=3):
    return "n/a" if x is None or x != x else f"{x:.{digits}f}"


def to_markdown(r: dict, args) -> str:
    lines = [
        "# Judges side by side",
        "",
        f"`python benchmarks/bench_judge.py --claims {args.claims} --llm {args.llm}` on {r['machine']['platform']}, "
        f"{r['machine']['cpus']} CPUs (torch threads: {r['machine']['torch_threads']}; the machine was shared with other jobs, "
        "so wall times are comparable within this run only).",
        "",
        f"Claims: the first {r['claims']} of the held-out split of textleak/data/judge_calibration.jsonl "
        f"(gold 1/2/3: {r['gold_distribution']}).",
        "",
        "| judge | wall time (s) | forward tokens | unparsed | Spearman vs gold | Cohen's kappa vs gold | kappa (linear) | accuracy |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in ("logprob", "sampled"):
        if name in r:
            rep = r[name]["report"]
            lines.append(
                f"| LLM {name} (n={args.n}) | {r[name]['seconds']:.1f} | {r[name]['forward_tokens']} | {rep['n_unparsed']} | "
                f"{_fmt(rep['spearman'])} | {_fmt(rep['cohen_kappa'])} | {_fmt(rep['cohen_kappa_linear'])} | {_fmt(rep['accuracy'])} |"
            )
    for name in ("embedding", "lexical"):
        rep = r[name]["report"]
        lines.append(f"| {name} | - | 0 | 0 | {_fmt(rep['spearman'])} | {_fmt(rep['cohen_kappa'])} | {_fmt(rep['cohen_kappa_linear'])} | {_fmt(rep['accuracy'])} |")
    if "logprob_vs_sampled" in r:
        v = r["logprob_vs_sampled"]
        lines += ["", f"LLM model: `{r['llm'].get('backend')}:{r['llm'].get('model')}`.",
                  f"Log-prob vs sampled on the {v['claims_both_parsed']} claims both rated: exact agreement {_fmt(v['exact_agreement'])}, "
                  f"Cohen's kappa {_fmt(v['cohen_kappa'])}, Spearman {_fmt(v['spearman'])}."]
        for name in ("logprob", "sampled"):
            lines += ["", f"Confusion, LLM {name} (rows gold 1/2/3, columns judge 1/2/3): {r[name]['report']['confusion']}"]
    lines += ["", "Throughput (one `rate` call, model already loaded; CPU seconds count all threads of the process, "
              "so claims per CPU-second does not depend on other jobs sharing the machine):", "",
              "| judge | claims | documents | wall s | claims/s (wall) | CPU s | claims per CPU-second |", "|---|---|---|---|---|---|---|"]
    for name in ("embedding", "lexical"):
        t = r[name]["throughput"]
        lines.append(f"| {name} | {t['claims']} | {t['documents']} | {t['seconds']:.1f} | {t['claims_per_s']:.1f} | "
                     f"{_fmt(t.get('cpu_seconds'), 1)} | {_fmt(t.get('claims_per_cpu_s'), 1)} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
