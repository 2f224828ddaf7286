"""Generation honours control codes and seeds; failures are counted; SyntheticData end to end; the
LeakageCallback inside a Hugging Face Trainer; the CLI (tiny models)."""

from __future__ import annotations

import json
import pickle

import pytest
import torch

from textleak.synthesis.generation import GenerationConfig, generate_records
from textleak.synthesis.tiny import tiny_causal_lm
from textleak.synthesis.training import TrainingConfig, encode_example, train_causal_lm


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # small models: one thread is fastest and steady


RECORDS = [
    {"id": "a", "text": "apple apple apple", "question": "Which fruit?", "answer": "red"},
    {"id": "b", "text": "banana banana", "question": "Which fruit?", "answer": "yellow"},
]


@pytest.fixture(scope="module")
def memorised():
    """A tiny model trained (no DP) until each control code determines its record."""
    model, tok = tiny_causal_lm("gpt2", seed=2, hidden=64)
    from textleak.synthesis.templates import resolve_template

    code = resolve_template("paper")
    examples = [encode_example(tok, code.render(r), r["text"], 96) for r in RECORDS]
    result = train_causal_lm(model, tok, examples, TrainingConfig(max_steps=200, batch_size=2, learning_rate=3e-3, seed=0))
    return result.model, tok, [code.render(r) for r in RECORDS]


def test_generation_is_conditioned_on_the_control_code(memorised):
    model, tok, prompts = memorised
    cfg = GenerationConfig(max_new_tokens=40, temperature=0.3, batch_size=4)
    out = generate_records(model, tok, [prompts[1], prompts[0], prompts[1]], [1, 2, 3], cfg)
    assert [r.text for r in out] == ["banana banana", "apple apple apple", "banana banana"]
    assert all(r.finished and r.status == "ok" for r in out)
    assert "Question" not in out[0].text  # the control code is not part of the output


def test_same_seed_same_text_regardless_of_batch_and_other_records():
    model, tok = tiny_causal_lm("llama", seed=0)
    prompts = ["Question: x | Answer: y\n", "", "abc"]
    cfg = dict(max_new_tokens=12, top_p=0.9)
    batched = generate_records(model, tok, prompts, [10, 11, 12], GenerationConfig(batch_size=3, **cfg))
    single = [generate_records(model, tok, [p], [s], GenerationConfig(batch_size=1, **cfg))[0]
              for p, s in zip(prompts, [10, 11, 12])]
    assert [r.text for r in batched] == [r.text for r in single]
    other_seed = generate_records(model, tok, prompts, [20, 21, 22], GenerationConfig(batch_size=3, **cfg))
    assert [r.text for r in other_seed] != [r.text for r in batched]
    torch.manual_seed(123)  # global RNG state plays no part
    again = generate_records(model, tok, prompts, [10, 11, 12], GenerationConfig(batch_size=2, **cfg))
    assert [r.text for r in again] == [r.text for r in batched]
    assert all(r.num_tokens == 12 and not r.finished for r in batched)


def test_empty_generations_are_counted_not_dropped():
    model, tok = tiny_causal_lm("llama", seed=0)
    head = torch.nn.Linear(model.config.hidden_size, len(tok), bias=True)
    with torch.no_grad():
        head.weight.zero_()
        head.bias.fill_(-10.0)
        head.bias[tok.eos_token_id] = 10.0
    model.lm_head = head  # always says EOS first
    out = generate_records(model, tok, ["a", "b"], [0, 1], GenerationConfig(max_new_tokens=5, top_k=1))
    assert [(r.text, r.status, r.finished) for r in out] == [(None, "empty", True), (None, "empty", True)]


def test_synthetic_data_end_to_end_with_dp_metadata_and_stable_hash(tmp_path):
    from datasets.fingerprint import Hasher

    from sanitizers import SyntheticData
    from textleak.synthesis.synthesizer import read_metadata

    model, tok = tiny_causal_lm("llama", seed=0)
    records = [dict(r, id=f"{r['id']}{i}") for i in range(4) for r in RECORDS]
    synth = SyntheticData(model=model, tokenizer=tok, epsilon=8.0, max_steps=3, batch_size=4, lora_r=2,
                          max_new_tokens=6, seed=1)
    config_hash = Hasher.hash(synth)
    assert config_hash == Hasher.hash(pickle.loads(pickle.dumps(synth)))
    assert config_hash != Hasher.hash(SyntheticData(model=model, tokenizer=tok, epsilon=3.0, max_steps=3, batch_size=4,
                                                    lora_r=2, max_new_tokens=6, seed=1))
    with pytest.raises(RuntimeError, match="fit"):
        synth.privacy_report()
    ds = synth.fit(records).generate(num_records=10, seed=0)
    assert len(ds) == 10 and ds["source_index"] == [i % 8 for i in range(10)]
    assert ds["control_code"][1] == "Question: Which fruit? | Answer: yellow\n"
    meta = read_metadata(ds)
    report = synth.privacy_report()
    assert report["dp"] is True and meta["privacy"] == report
    assert report["epsilon"] == pytest.approx(8.0, rel=0.05) and report["delta"] == pytest.approx(1 / 8)
    assert meta["generation"]["failed_records"] == sum(s != "ok" for s in ds["sanitize_status"])
    again = synth.generate(num_records=10, seed=0)
    assert again["text"] == ds["text"]
    out = synth.save(ds, tmp_path / "synth")
    assert json.loads((out / "synthesis.json").read_text())["privacy"]["accountant"] == "rdp"
    with pytest.raises(ValueError, match="record 0"):
        SyntheticData(model=model, tokenizer=tok).fit([{"text": "", "question": "q", "answer": "a"}])


def test_no_dp_report_says_infinity():
    from sanitizers import SyntheticData

    model, tok = tiny_causal_lm("gpt2", seed=0)
    synth = SyntheticData(model=model, tokenizer=tok, epsilon=None, control_code="none", max_steps=2, batch_size=2,
                          lora_r=None, max_new_tokens=4).fit(RECORDS)
    report = synth.privacy_report()
    assert report["dp"] is False and report["epsilon"] == float("inf")
    ds = synth.generate()
    assert ds["control_code"] == ["", ""]


def test_leakage_callback_logs_into_a_trainer(tmp_path):
    from transformers import Trainer, TrainingArguments

    from textleak.synthesis.callback import LeakageCallback
    from textleak.synthesis.training import CausalLMCollator

    model, tok = tiny_causal_lm("gpt2", seed=0)
    calls = []

    def fake_leakage(originals, synthetic):
        calls.append((list(originals), list(synthetic)))
        return {"semantic_privacy": 0.25}

    callback = LeakageCallback(RECORDS, tokenizer=tok, every_n_steps=2, num_records=2, leakage_fn=fake_leakage,
                               generation=GenerationConfig(max_new_tokens=4))
    train = [{k: v for k, v in encode_example(tok, "c\n", r["text"], 64).items() if k != "truncated"} for r in RECORDS]
    args = TrainingArguments(output_dir=str(tmp_path), max_steps=4, per_device_train_batch_size=2, logging_steps=100,
                             report_to=[], use_cpu=True, save_strategy="no", disable_tqdm=True)
    trainer = Trainer(model=model, args=args, train_dataset=train, data_collator=CausalLMCollator(tok.pad_token_id),
                      callbacks=[callback])
    trainer.train()
    logged = [h for h in trainer.state.log_history if "leakage/semantic_privacy" in h]
    assert [h["step"] for h in logged] == [2, 4]
    assert all(h["leakage/semantic_privacy"] == 0.25 and h["leakage/empty_generations"] >= 0 for h in logged)
    assert calls[0][0] == [r["text"] for r in RECORDS] and len(calls[0][1]) == 2


def test_leakage_callback_runs_the_semantic_pipeline_with_entities():
    """Real pipeline (rule atomizer, embedding judge, BM25): a model that copies the records leaks."""
    from textleak.synthesis.callback import LeakageCallback

    records = [{"id": "1", "text": "The patient is a 45-year-old man. He has diabetes. He smokes daily. He works as a pilot.",
                "answer": "x"},
               {"id": "2", "text": "The patient is a 30-year-old woman. She has asthma. She runs marathons. She lives in Oslo.",
                "answer": "y"}]
    callback = LeakageCallback(records, control_code="none", num_records=2, entities=["Oslo", "pilot"])
    import textleak.synthesis.callback as cb

    original = cb.generate_records
    try:
        cb.generate_records = lambda model, tok, prompts, seeds, cfg: [
            type("G", (), {"text": r["text"], "status": "ok"})() for r in records[: len(prompts)]]
        metrics = callback.measure(model=None, tokenizer=object(), step=1)
    finally:
        cb.generate_records = original
    assert metrics["leakage/semantic_privacy"] < 0.2  # copies leak almost every claim
    assert metrics["leakage/lexical_privacy"] < 0.2
    assert metrics["leakage/pipp"] == 1.0 and metrics["leakage/elp"] == 1.0
    assert metrics["leakage/empty_generations"] == 0


def test_cli_synthesize_writes_dataset_and_report(tmp_path):
    import datasets

    from textleak.cli import main

    model, tok = tiny_causal_lm("llama", seed=0)
    model.save_pretrained(tmp_path / "tiny")
    tok.save_pretrained(tmp_path / "tiny")
    data = tmp_path / "records.jsonl"
    data.write_text("".join(json.dumps(dict(r, id=f"{r['id']}{i}")) + "\n" for i in range(3) for r in RECORDS))
    out = tmp_path / "out"
    code = main(["synthesize", "--input", str(data), "--model", str(tmp_path / "tiny"), "--epsilon", "16",
                 "--max-steps", "2", "--batch-size", "2", "--lora-r", "2", "--max-new-tokens", "5", "--num-records", "4",
                 "--output", str(out)])
    assert code == 0
    ds = datasets.load_from_disk(str(out))
    meta = json.loads((out / "synthesis.json").read_text())
    assert len(ds) == 4 and meta["privacy"]["target_epsilon"] == 16.0
    assert meta["privacy"]["epsilon"] == pytest.approx(16.0, rel=0.05) and meta["privacy"]["steps"] == 2
    assert meta["privacy"]["delta"] == pytest.approx(1 / 6)


@pytest.mark.parametrize("top_k,top_p,temperature", [(50, 1.0, 1.0), (50, 0.9, 0.7), (0, 0.9, 1.0)])
def test_seeded_sampler_samples_the_filtered_softmax(top_k, top_p, temperature):
    """The sampler draws among the top-k candidates only (for speed); its empirical distribution
    over 4,000 draws matches softmax(logits / T) restricted to top-k and top-p, and it never draws
    outside that support."""
    from textleak.synthesis.generation import GenerationConfig, SeededSampler

    gen = torch.Generator().manual_seed(0)
    logits = torch.randn(2, 400, generator=gen) * 3
    config = GenerationConfig(top_k=top_k, top_p=top_p, temperature=temperature)
    sampler = SeededSampler([11, 12], config, torch.device("cpu"))
    counts = torch.zeros_like(logits)
    for _ in range(4000):
        counts += (sampler(None, logits) == 0).float()
    ref = logits / temperature
    if top_k:
        ref = ref.masked_fill(ref < torch.topk(ref, top_k).values[:, -1:], float("-inf"))
    if top_p < 1:
        ordered, order = torch.sort(ref, descending=True)
        p = torch.softmax(ordered, -1)
        ordered = ordered.masked_fill(p.cumsum(-1) - p >= top_p, float("-inf"))
        ref = torch.full_like(ref, float("-inf")).scatter(-1, order, ordered)
    expected = torch.softmax(ref, -1)
    assert not ((counts > 0) & (expected == 0)).any()
    assert (counts / 4000 - expected).abs().max() < 0.03
