"""Prefix tuning on a tiny config-built Llama with an in-memory byte tokenizer (seconds, offline)."""

import pytest
import torch

from textleak.controlled.prefix import PrefixTuner, collate_right_padded, encode_prefix_example
from textleak.synthesis.tiny import byte_tokenizer, tiny_causal_lm

CODES = ["PERSON: Ann Lee", "PERSON: Bob Stone\nLOC: Oslo", "PERSON: Cy Park", "CODE: 12/34"]
TEXTS = ["Ann Lee met the judge.", "Bob Stone lives in Oslo now.", "The court heard Cy Park.", "Application 12/34 was lodged."]
SPANS = [[(0, 7)], [(0, 9), (19, 23)], [(16, 23)], [(12, 17)]]


def test_example_layout_labels_and_private_mask_from_offsets():
    tok = byte_tokenizer()
    ex = encode_prefix_example(tok, "PERSON: Ann Lee", "Hi Ann Lee.", [(3, 10)], max_length=64)
    head = len(tok("PERSON: Ann Lee\n", add_special_tokens=False)["input_ids"]) + 1  # + BOS
    assert ex["input_ids"][0] == tok.bos_token_id
    assert ex["input_ids"][-1] == tok.eos_token_id
    assert ex["labels"][:head] == [-100] * head
    assert ex["labels"][head:] == ex["input_ids"][head:]
    private_ids = [i for i, m in zip(ex["input_ids"], ex["private_mask"]) if m]
    assert tok.decode(private_ids) == "Ann Lee"
    assert not any(ex["private_mask"][:head])


def test_truncation_drops_eos_and_a_code_too_long_is_an_error():
    tok = byte_tokenizer()
    ex = encode_prefix_example(tok, "X: y", "a" * 50, [], max_length=20)
    assert ex["truncated"] and len(ex["input_ids"]) == 20 and ex["input_ids"][-1] != tok.eos_token_id
    with pytest.raises(ValueError, match="no room"):
        encode_prefix_example(tok, "X: " + "y" * 30, "text", [], max_length=20)


def test_right_padding_masks_pads():
    batch = collate_right_padded(
        [{"input_ids": [1, 2, 3], "labels": [-100, 2, 3], "private_mask": [False, True, False]},
         {"input_ids": [4], "labels": [4], "private_mask": [True]}], pad_id=0)
    assert batch["input_ids"].tolist() == [[1, 2, 3], [4, 0, 0]]
    assert batch["attention_mask"].tolist() == [[1, 1, 1], [1, 0, 0]]
    assert batch["labels"].tolist() == [[-100, 2, 3], [4, -100, -100]]
    assert batch["private_mask"].tolist() == [[False, True, False], [True, False, False]]


@pytest.fixture(scope="module")
def tuned():
    model, tok = tiny_causal_lm("llama", seed=0, hidden=32, layers=2)
    base_state = {k: v.clone() for k, v in model.state_dict().items()}
    tuner = PrefixTuner(model, tok, num_virtual_tokens=4, masking=True, epochs=3, learning_rate=5e-3,
                        batch_size=2, gradient_accumulation_steps=1, max_length=96, seed=0, cpu=True)
    result = tuner.fit(CODES, TEXTS, SPANS)
    return tuner, result, base_state


def test_training_updates_only_the_prefix(tuned):
    tuner, result, base_state = tuned
    assert result.steps == 6  # 4 records / batch 2 * 3 epochs
    base = tuner.peft_model.get_base_model()
    for name, value in base.state_dict().items():
        assert torch.equal(value, base_state[name]), name
    assert result.trainable_parameters > 0
    assert all(h["contrastive"] > 0 for h in result.history)  # every batch has private tokens
    assert result.history[-1]["lm"] < result.history[0]["lm"]


def test_prefix_generation_differs_from_base_model_generation(tuned):
    tuner = tuned[0]
    codes = ["PERSON: Dr Kai Hayes", "LOC: Springfield"]
    with_prefix = tuner.generate(codes, max_new_tokens=24, temperature=0.0)
    without = tuner.generate(codes, max_new_tokens=24, temperature=0.0, use_prefix=False)
    assert with_prefix != without
    # the no-prefix path is exactly the raw base model (the released inference bug)
    tok = tuner.hf_tokenizer
    base = tuner.peft_model.get_base_model()
    ids = torch.tensor([[tok.bos_token_id] + tok("PERSON: Dr Kai Hayes\n", add_special_tokens=False)["input_ids"]])
    raw = base.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=24, do_sample=False,
                        pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id)
    assert without[0] == tok.decode(raw[0, ids.shape[1]:], skip_special_tokens=True).strip()


def test_sampling_is_seeded_per_record(tuned):
    tuner = tuned[0]
    a = tuner.generate(["PERSON: X", "PERSON: X"], max_new_tokens=12, temperature=1.0, seed=3)
    b = tuner.generate(["PERSON: X", "PERSON: X"], max_new_tokens=12, temperature=1.0, seed=3)
    assert a == b
    assert a[0] != a[1]  # same code, different record index -> different seed


def test_batched_sampling_equals_one_record_at_a_time_and_uses_the_prefix(tuned):
    """Left-padded batches of different-length codes give each record the text it gets alone (its
    own seeded generator), and the prefix changes what is sampled."""
    tuner = tuned[0]
    codes = ["PERSON: X", "LOC: Springfield, Riverton", "CODE: 41872/03", "PERSON: Dr Kai Hayes"]
    batched = tuner.generate(codes, max_new_tokens=16, temperature=1.0, seed=4, batch_size=4)
    single = tuner.generate(codes, max_new_tokens=16, temperature=1.0, seed=4, batch_size=1)
    assert batched == single
    assert batched != tuner.generate(codes, max_new_tokens=16, temperature=1.0, seed=4, use_prefix=False)


def test_plain_prefix_tuning_has_no_masked_terms():
    model, tok = tiny_causal_lm("gpt2", seed=1)
    tuner = PrefixTuner(model, tok, num_virtual_tokens=4, masking=False, epochs=1, batch_size=4,
                        gradient_accumulation_steps=1, max_length=96, cpu=True)
    result = tuner.fit(CODES, TEXTS, SPANS)
    assert result.history[0]["contrastive"] == 0.0 and result.history[0]["kl"] == 0.0
