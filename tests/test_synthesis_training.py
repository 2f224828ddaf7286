"""Control codes, tokenization with masked codes, and the non-DP training path (tiny models)."""

from __future__ import annotations

import math

import pytest
import torch

from textleak.synthesis.templates import ConditioningTemplate, resolve_template
from textleak.synthesis.tiny import tiny_causal_lm
from textleak.synthesis.training import (
    IGNORE_INDEX, CausalLMCollator, EncodedRecords, TrainingConfig, encode_example, per_record_loss,
    planned_steps, prompt_token_ids, train_causal_lm,
)



pytestmark = pytest.mark.usefixtures("one_torch_thread")  # small models: one thread is fastest and steady


RECORD = {"id": "r1", "text": "She has a fever.", "question": "What is the diagnosis?", "answer": "Flu"}


def test_paper_release_and_none_control_codes_render_exactly():
    assert resolve_template("paper").render(RECORD) == "Question: What is the diagnosis? | Answer: Flu\n"
    assert resolve_template("release").render(RECORD) == "question: What is the diagnosis?\tanswer: Flu\n"
    assert resolve_template("none").render(RECORD) == ""
    assert resolve_template(None).render(RECORD) == ""
    custom = resolve_template("Answer: {answer}")
    assert custom.fields == ["answer"] and custom.render(RECORD) == "Answer: Flu\n"


def test_control_code_whitespace_is_normalised_so_tabs_and_newlines_stay_delimiters():
    record = dict(RECORD, question="What is\n the\tdiagnosis?")
    assert resolve_template("release").render(record) == "question: What is the diagnosis?\tanswer: Flu\n"


def test_missing_or_empty_field_names_the_record():
    with pytest.raises(KeyError, match="record 7 has no field 'answer'"):
        ConditioningTemplate("A: {answer}").render({"text": "x"}, 7)
    with pytest.raises(ValueError, match="record 3 has an empty 'answer'"):
        ConditioningTemplate("A: {answer}").render({"answer": "  "}, 3)
    with pytest.raises(ValueError, match="neither a known name"):
        resolve_template("papr")


@pytest.fixture(scope="module")
def tiny():
    return tiny_causal_lm("gpt2", seed=0)


def test_encoding_masks_the_control_code_and_ends_with_eos(tiny):
    _, tok = tiny
    prompt = "Question: q | Answer: a\n"
    ex = encode_example(tok, prompt, "private text", max_length=64)
    head = prompt_token_ids(tok, prompt)
    body = tok("private text", add_special_tokens=False)["input_ids"]
    assert ex["input_ids"] == head + body + [tok.eos_token_id]
    assert ex["labels"] == [IGNORE_INDEX] * len(head) + body + [tok.eos_token_id]
    assert ex["truncated"] is False


def test_uncontrolled_prompt_starts_from_bos_and_truncation_drops_eos(tiny):
    _, tok = tiny
    assert prompt_token_ids(tok, "") == [tok.bos_token_id]
    ex = encode_example(tok, "", "abcdefghij", max_length=5)
    assert ex["input_ids"] == [tok.bos_token_id] + tok("abcd", add_special_tokens=False)["input_ids"]
    assert ex["truncated"] is True and tok.eos_token_id not in ex["input_ids"]
    with pytest.raises(ValueError, match="leaving no room"):
        encode_example(tok, "a long control code", "x", max_length=4)


def test_collator_right_pads_with_masked_labels(tiny):
    _, tok = tiny
    exs = EncodedRecords([encode_example(tok, "c\n", "ab", 32), encode_example(tok, "c\n", "abcdef", 32)])
    batch = CausalLMCollator(tok.pad_token_id)([exs[0], exs[1]])
    n0 = len(exs[0]["input_ids"])
    assert batch["input_ids"].shape == (2, len(exs[1]["input_ids"]))
    assert batch["attention_mask"][0].tolist() == [1] * n0 + [0] * (batch["input_ids"].shape[1] - n0)
    assert (batch["labels"][0, n0:] == IGNORE_INDEX).all()
    assert (batch["input_ids"][0, n0:] == tok.pad_token_id).all()


def test_per_record_loss_is_independent_of_the_other_records_in_the_batch(tiny):
    model, tok = tiny
    a = encode_example(tok, "c\n", "short", 64)
    b = encode_example(tok, "c\n", "a much longer private record here", 64)
    collate = CausalLMCollator(tok.pad_token_id)
    with torch.no_grad():
        alone = collate([a])
        loss_alone = per_record_loss(model(input_ids=alone["input_ids"], attention_mask=alone["attention_mask"]).logits, alone["labels"])
        both = collate([a, b])
        loss_both = per_record_loss(model(input_ids=both["input_ids"], attention_mask=both["attention_mask"]).logits, both["labels"])
    assert torch.allclose(loss_alone[0], loss_both[0], atol=1e-5)


def test_planned_steps():
    assert planned_steps(50, TrainingConfig(epochs=3, batch_size=8)) == math.ceil(3 * 50 / 8)
    assert planned_steps(50, TrainingConfig(epochs=3, batch_size=8, max_steps=5)) == 5


def test_without_dp_training_uses_no_opacus_and_memorises(monkeypatch):
    import textleak.synthesis.dp as dp

    def refuse(*args, **kwargs):
        raise AssertionError("opacus must not be used when epsilon is None")

    monkeypatch.setattr(dp.DPTrainingSession, "__init__", refuse)
    model, tok = tiny_causal_lm("gpt2", seed=1)
    examples = [encode_example(tok, f"code {i}\n", text, 64) for i, text in enumerate(["alpha beta", "gamma delta"])]
    result = train_causal_lm(model, tok, examples, TrainingConfig(max_steps=60, batch_size=2, learning_rate=3e-3), dp=None)
    assert result.privacy is None and result.steps == 60
    assert type(result.model).__name__ == "GPT2LMHeadModel"
    assert not any(hasattr(p, "grad_sample") for p in result.model.parameters())
    assert result.losses[-1] < 0.5 * result.losses[0]
