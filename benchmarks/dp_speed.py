"""Word-DP speed, side by side in one run with the original research code.

    python benchmarks/dp_speed.py --santext-repo /path/to/SanText --custext-repo /path/to/CusText
    python benchmarks/dp_speed.py ... --custext-setup        # also CusText's own mapping build (minutes)
    # writes benchmarks/results/dp_speed.{json,md}

The original sampling loops are imported from local checkouts of the public repositories
(github.com/xiangyue9607/SanText: ``SanText.py``; github.com/sai4july/CusText: ``CusText/sst2/utils.py``);
nothing of theirs is copied here. They run as their scripts run them, on the same GloVe 6B 50d vectors,
the same vocabulary (SST-2 dev word counts) and the same whitespace tokens (SST-2 is PTB-tokenised):

- SanText: ``cal_probability`` (its set-up: the |V| x |V_S| matrix) and ``SanText_plus`` over all
  documents in one ``Pool(min(12, cpu_count()))`` / ``imap(chunksize=32)`` call, as ``run_SanText.py``;
- CusText: ``generate_new_sents_s1`` over one DataFrame, with ``sim_word_dict``/``p_dict`` holding our
  mapping (the same output sets and probabilities), stop words kept (CUSTEXT+). Environment shims,
  not changes to their code: ``nltk.download`` is a no-op and NLTK's stop words come from textleak's
  package data (no network), and the DataFrame accepts the positional separator their ``to_csv``
  passes (pandas 3 made it keyword-only); it writes into a temporary directory.

Ours run at the batch sizes ``datasets.map`` (1000), ``textleak sanitize`` (64) and ``textleak
evaluate`` (16) use, one process, over the same token lists; set-up is timed apart. Also timed: the
context-free Bayesian attack on 1,000 target tokens (seed 001: under 5 minutes per 1,000 on a GPU).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import platform
import sys
import tempfile
import time
from multiprocessing import Pool, cpu_count
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data" / "sst2" / "dev.tsv"
RESULTS = REPO / "benchmarks" / "results"
BATCH_SIZES = {"datasets.map": 1000, "textleak sanitize": 64, "textleak evaluate": 16}


def load_module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def ours_in_batches(mech, token_lists, seeds, batch: int) -> float:
    start = time.perf_counter()
    for s in range(0, len(token_lists), batch):
        mech.sanitize_tokens(token_lists[s:s + batch], seeds[s:s + batch])
    return time.perf_counter() - start


# ---- SanText --------------------------------------------------------------------------------------
def santext_original(repo: Path, mech, docs, epsilon: float) -> dict:
    """Their set-up (the probability matrix) and their Pool loop, on our vocabulary and vectors."""
    san = load_module("SanText", repo / "SanText.py")
    all_embed = mech.vectors.astype("f")  # their GloVe reader keeps float32 rows
    sens_embed = mech.sensitive_vectors.astype("f")
    word2id = {w: i for i, w in enumerate(mech.words)}
    sword2id = {mech.words[j]: k for k, j in enumerate(mech.sensitive_ids)}
    start = time.perf_counter()
    prob_matrix = san.cal_probability(all_embed, sens_embed, epsilon)
    setup = time.perf_counter() - start
    threads = min(12, cpu_count())  # run_SanText.py: min(args.threads=12, cpu_count())
    start = time.perf_counter()
    with Pool(threads, initializer=san.SanText_plus_init,
              initargs=(prob_matrix, word2id, sword2id, mech.corpus_words, mech.p, None)) as pool:
        out = list(pool.imap(san.SanText_plus, docs, chunksize=32))
    return {"setup_seconds": setup, "seconds": time.perf_counter() - start, "processes": threads,
            "outputs": out}


# ---- CusText --------------------------------------------------------------------------------------
@contextlib.contextmanager
def custext_environment(repo: Path, workdir: Path, epsilon: float):
    """Import CusText/sst2/utils.py as its scripts do (argv parsed at import), offline."""
    import nltk
    import pandas as pd

    from textleak.dp.custext import nltk_english_stopwords

    stop_dir = workdir / "nltk_data" / "corpora" / "stopwords"
    stop_dir.mkdir(parents=True, exist_ok=True)
    (stop_dir / "english").write_text("\n".join(sorted(nltk_english_stopwords())) + "\n")
    nltk.data.path.insert(0, str(workdir / "nltk_data"))
    nltk.download = lambda *a, **k: True  # no network at run time
    (workdir / "privatized_dataset" / "glove_840B-300d" / "conservative").mkdir(parents=True, exist_ok=True)
    old_argv, old_cwd, old_path = sys.argv, os.getcwd(), list(sys.path)
    sys.argv = ["main.py", "--embedding_type", "glove_840B-300d", "--mapping_strategy", "conservative",
                "--eps", str(epsilon), "--top_k", "20", "--save_stop_words", "True"]
    sys.path.insert(0, str(repo / "CusText" / "sst2"))
    os.chdir(workdir)
    try:
        utils = load_module("utils", repo / "CusText" / "sst2" / "utils.py")

        class Frame(pd.DataFrame):  # pandas 3: to_csv's separator is keyword-only; theirs passes it by position
            @property
            def _constructor(self):
                return Frame

            def to_csv(self, path_or_buf=None, sep=",", **kwargs):
                return super().to_csv(path_or_buf, sep=sep, **kwargs)

        yield utils, Frame
    finally:
        sys.argv, sys.path[:] = old_argv, old_path
        os.chdir(old_cwd)


def custext_dicts(mech) -> tuple[dict, dict]:
    """Our mapping as CusText's sim_word_dict / p_dict (every word with an output set)."""
    sim, prob = {}, {}
    for x in np.nonzero(mech._row_of >= 0)[0]:
        r = mech._row_of[x]
        cols = mech.support[r] >= 0
        sim[mech.words[x]] = [mech.words[j] for j in mech.support[r][cols]]
        prob[mech.words[x]] = mech.support_probs[r][cols].tolist()
    return sim, prob


def custext_original(utils, frame_cls, mech, sentences: list[str]) -> dict:
    sim, prob = custext_dicts(mech)
    df = frame_cls({"sentence": sentences, "label": [0] * len(sentences)})
    start = time.perf_counter()
    out = utils.generate_new_sents_s1(df, sim, prob, True, type="test")
    return {"seconds": time.perf_counter() - start, "processes": 1, "outputs": list(out.sentence)}


def custext_original_setup(utils, emb, workdir: Path, sentences: list[str]) -> float:
    """Their get_customized_mapping on the same vectors (a JSON file of GloVe 6B 50d, as their
    glove_840B-300d branch reads) and the same corpus, in the aggressive strategy (Tong et al.'s; their
    conservative GloVe branch writes 300-wide rows of 1e9 into the matrix and fails on 50-d vectors)."""
    emb_dir = workdir / "embeddings"
    emb_dir.mkdir(exist_ok=True)
    with open(emb_dir / "glove_840B-300d.txt", "w") as f:
        json.dump({w: emb.vectors[i].tolist() for i, w in enumerate(emb.words)}, f)
    data_dir = workdir / "datasets" / "sst2"
    data_dir.mkdir(parents=True, exist_ok=True)
    for name in ("train.tsv", "dev.tsv"):
        (data_dir / name).write_text("sentence\tlabel\n" + "".join(f"{s}\t0\n" for s in (sentences if name == "train.tsv" else [])))
    for sub in ("p_dict", "sim_word_dict"):
        (workdir / sub / "glove_840B-300d" / "conservative").mkdir(parents=True, exist_ok=True)
    import pandas as pd

    read_csv = pd.read_csv
    pd.read_csv = lambda path, sep=",", *a, **k: read_csv(path, sep=sep, *a, **k)  # pandas 3: sep by keyword
    utils.args.mapping_strategy = "aggressive"
    (workdir / "p_dict" / "glove_840B-300d" / "aggressive").mkdir(parents=True, exist_ok=True)
    (workdir / "sim_word_dict" / "glove_840B-300d" / "aggressive").mkdir(parents=True, exist_ok=True)
    try:
        start = time.perf_counter()
        utils.get_customized_mapping(utils.args.eps, utils.args.top_k)
        return time.perf_counter() - start
    finally:
        pd.read_csv = read_csv


# ---- the run --------------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--santext-repo", type=Path, required=True, help="local checkout of github.com/xiangyue9607/SanText")
    parser.add_argument("--custext-repo", type=Path, required=True, help="local checkout of github.com/sai4july/CusText")
    parser.add_argument("--copies", type=int, default=10, help="SST-2 dev repeated this many times (default 10: 8,720 records)")
    parser.add_argument("--epsilon", type=float, default=3.0)
    parser.add_argument("--custext-setup", action="store_true", help="also time CusText's get_customized_mapping "
                        "(one distance row and full argsort over 400k words per corpus word: several minutes)")
    parser.add_argument("--out", type=Path, default=RESULTS / "dp_speed")
    args = parser.parse_args()

    from textleak.commands.attack import read_texts
    from textleak.dp import build_mechanism, count_words
    from textleak.text.seeds import record_seed
    from textleak.word_embeddings import WordEmbeddings

    sentences = read_texts(str(DATA), "sentence")
    docs = [s.split() for s in sentences] * args.copies
    seeds = [record_seed(0, i, "") for i in range(len(docs))]
    n_tokens = sum(map(len, docs))
    emb = WordEmbeddings.load("default")
    vocab = count_words(sentences, "whitespace")
    results: dict = {"machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs",
                     "load_before": os.getloadavg(), "records": len(docs), "tokens": n_tokens,
                     "embeddings": emb.source, "epsilon": args.epsilon}
    print(f"{len(docs)} records, {n_tokens} whitespace tokens, load {os.getloadavg()}")

    # SANTEXT+ (SanText's README settings p = 0.3, w = 0.9; SanText's uniform OOV replacement, as theirs)
    start = time.perf_counter()
    mech = build_mechanism("santext+", emb, vocab, args.epsilon, p=0.3, sensitive_fraction=0.9, tokenizer="whitespace",
                           oov_policy="uniform")
    setup = time.perf_counter() - start
    theirs = santext_original(args.santext_repo, mech, docs, args.epsilon)
    row = {"vocabulary": len(mech.words), "sensitive": len(mech.sensitive_ids), "ours_setup_seconds": setup,
           "theirs_setup_seconds": theirs["setup_seconds"], "theirs_seconds": theirs["seconds"],
           "theirs_processes": theirs["processes"], "batches": {}}
    for label, batch in BATCH_SIZES.items():
        fresh = mech.with_epsilon(args.epsilon)  # cold row cache: the first batch computes its words' rows
        row["batches"][label] = {"batch_size": batch, "ours_seconds": ours_in_batches(fresh, docs, seeds, batch)}
    results["santext+"] = row
    print(json.dumps(row, indent=1))

    # CUSTEXT+ (conservative, K = 20, Euclidean, NLTK stop words kept; numbers perturbed as theirs)
    start = time.perf_counter()
    mech = build_mechanism("custext+", emb, vocab, args.epsilon, tokenizer="whitespace", number_policy="perturb")
    setup = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp, custext_environment(args.custext_repo, Path(tmp), args.epsilon) as (utils, frame):
        theirs = custext_original(utils, frame, mech, [" ".join(d) for d in docs])
        their_setup = custext_original_setup(utils, emb, Path(tmp), sentences) if args.custext_setup else None
    start = time.perf_counter()
    build_mechanism("custext+", emb, vocab, args.epsilon, tokenizer="whitespace", strategy="aggressive")
    aggressive_setup = time.perf_counter() - start
    row = {"vocabulary": int(len(mech._pool.ids)), "mapped": int(mech.perturbed_mask.sum()), "ours_setup_seconds": setup,
           "ours_aggressive_setup_seconds": aggressive_setup, "theirs_aggressive_setup_seconds": their_setup,
           "theirs_seconds": theirs["seconds"], "theirs_processes": 1, "batches": {}}
    for label, batch in BATCH_SIZES.items():
        row["batches"][label] = {"batch_size": batch, "ours_seconds": ours_in_batches(mech, docs, seeds, batch)}
    results["custext+"] = row
    print(json.dumps(row, indent=1))

    results["context_free_attack_1000_tokens"] = context_free_attack(emb, sentences)
    results["load_after"] = os.getloadavg()
    write(results, args.out)


def context_free_attack(emb, sentences: list[str]) -> dict:
    """Context-free Bayesian attack on 1,000 targets, SANTEXT+ at Tong et al.'s setting (p = 0, w = 0.999)."""
    from textleak.attacks.asr import private_shadow_split, select_targets
    from textleak.attacks.base import AttackData
    from textleak.attacks.bayes import ContextFreeBayes
    from textleak.dp import build_mechanism, count_words
    from textleak.text.seeds import record_seed

    p_idx, s_idx = private_shadow_split(len(sentences), 0.5, 0)
    private, shadow = [sentences[i] for i in p_idx], [sentences[i] for i in s_idx]
    mech = build_mechanism("santext+", emb, count_words(sentences, "whitespace"), 3.0, p=0.0, sensitive_fraction=0.999,
                           tokenizer="whitespace")
    san = mech.sanitize_texts(private, [record_seed(0, i, t) for i, t in enumerate(private)])
    data = AttackData(mech, [s.original_tokens for s in san], [s.sanitized_tokens for s in san],
                      select_targets([s.sensitive for s in san], 1000, 0), shadow_original=[t.split() for t in shadow])
    cpu0, start = time.process_time(), time.perf_counter()
    ContextFreeBayes().predict(data)  # includes the one-off normalisers of the likelihood columns
    return {"targets": len(data.targets), "vocabulary": len(mech.words), "seconds": time.perf_counter() - start,
            "cpu_seconds": time.process_time() - cpu0, "paper_reported": "< 5 minutes per 1,000 tokens (GPU)"}


def write(results: dict, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(results, indent=1))
    n = results["tokens"]
    md = ["# Word-DP speed against the original research code", "",
          f"Command: `python benchmarks/dp_speed.py --santext-repo <SanText checkout> --custext-repo <CusText checkout>`. "
          f"Machine: {results['machine']}; load average before {', '.join(f'{x:.1f}' for x in results['load_before'])}, "
          f"after {', '.join(f'{x:.1f}' for x in results['load_after'])} (shared machine: indicative). "
          f"{results['records']:,} SST-2 dev records ({n:,} whitespace tokens), {results['embeddings']}, "
          f"epsilon {results['epsilon']:g}. Throughput in tokens per second; speed-up = ours / theirs.", "",
          "| mechanism | theirs (one call) | ours, batch 1000 (datasets.map) | ours, batch 64 (textleak sanitize) | "
          "ours, batch 16 (textleak evaluate) | set-up theirs | set-up ours |",
          "|---|---|---|---|---|---|---|"]
    for name in ("santext+", "custext+"):
        r = results[name]
        theirs = n / r["theirs_seconds"]
        cells = [f"{n / b['ours_seconds']:,.0f} ({n / b['ours_seconds'] / theirs:.1f}x)" for b in r["batches"].values()]
        if name == "santext+":
            setups = f"{r['theirs_setup_seconds']:.2f} s | {r['ours_setup_seconds']:.2f} s"
        else:
            theirs_agg = r["theirs_aggressive_setup_seconds"]
            setups = ("aggressive: " + ("not run (--custext-setup)" if theirs_agg is None else f"{theirs_agg:.1f} s")
                      + f" | aggressive {r['ours_aggressive_setup_seconds']:.1f} s, conservative {r['ours_setup_seconds']:.1f} s")
        md.append(f"| {name} (V = {r['vocabulary']:,} words) | {theirs:,.0f} (Pool({r['theirs_processes']})) | " + " | ".join(cells)
                  + f" | {setups} |")
    cf = results["context_free_attack_1000_tokens"]
    md += ["", "SanText's set-up is its |V| x |V_S| probability matrix (``cal_probability``); ours builds the vocabulary and "
           "computes the same matrix on the first call (inside the timed batches above: each batch-size run starts cold). "
           "CusText's set-up is ``get_customized_mapping`` (one distance row and a full argsort over all 400,000 words "
           "per corpus word); ours is a batched top-k search over the same words.", "",
           f"Context-free Bayesian attack on {cf['targets']} target tokens (SANTEXT+, p = 0, w = 0.999, V = {cf['vocabulary']:,} words): "
           f"{cf['seconds']:.2f} s wall, {cf['cpu_seconds']:.2f} CPU-s, including the one-off likelihood normalisers. "
           "Seed 001 reports under 5 minutes per 1,000 tokens."]
    out.with_suffix(".md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
