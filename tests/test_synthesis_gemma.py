"""Smoke test on the real embedded model: Gemma 3 270M, LoRA, DP-SGD, a few steps on CPU."""

from __future__ import annotations

import pytest
import torch


@pytest.mark.slow
def test_gemma_lora_dp_fine_tuning_and_generation(shared_data):
    from textleak.data.medqa import read_medqa_jsonl
    from textleak.synthesis.synthesizer import SyntheticData

    records = list(read_medqa_jsonl(shared_data / "medqa" / "sampled_50.jsonl"))[:8]
    before = torch.get_num_threads()
    torch.set_num_threads(min(2, before))
    try:
        synth = SyntheticData(model="embedded", epsilon=8.0, lora_r=4, max_steps=2, batch_size=2, max_length=48,
                              max_new_tokens=8, seed=0)
        synthetic = synth.fit(records).generate(num_records=2)
    finally:
        torch.set_num_threads(before)
    report = synth.privacy_report()
    assert report["dp"] is True and report["steps"] == 2 and report["accountant"] == "rdp"
    assert report["epsilon"] == pytest.approx(8.0, rel=0.05) and report["delta"] == pytest.approx(1 / 8)
    assert report["sample_rate"] == pytest.approx(2 / 8)
    trainable = [n for n, p in synth._model.named_parameters() if p.requires_grad]
    assert trainable and all("lora_" in n for n in trainable)  # only the adapters were trained
    assert not any(hasattr(p, "grad_sample") for p in synth._model.parameters())  # opacus hooks removed
    assert len(synthetic) == 2
    assert synthetic["control_code"][0].startswith("Question: ") and " | Answer: " in synthetic["control_code"][0]
    assert all(n <= 8 for n in synthetic["num_tokens"])
    assert all((t is None) == (s == "empty") for t, s in zip(synthetic["text"], synthetic["sanitize_status"]))
