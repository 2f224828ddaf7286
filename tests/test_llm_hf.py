"""The transformers backend on a tiny random Gemma-3-architecture model and a locally trained tokenizer.

Fast: no downloads, no real weights. The tiny model has a sliding-window layer (window 4) so the KV
reuse in scoring is exercised across the sliding/full cache kinds the real Gemma uses.
"""

from __future__ import annotations

import logging
import pickle

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from textleak.cache import DiskCache  # noqa: E402
from textleak.llm import PromptError, load_llm  # noqa: E402
from textleak.llm.hf import TransformersLM, plain_chat  # noqa: E402

CORPUS = [
    "The capital of France is Paris. The capital of Spain is Madrid.",
    "Alice Smith was admitted to the hospital on Monday with chest pain.",
    "Bob Jones lives in Boston and works as a nurse at the clinic.",
    "Once upon a time there was a little girl who lived in a small town.",
    "The patient reports headaches, nausea and fatigue over the past week.",
] * 4

PROMPTS = [
    "The capital of France is",
    "Alice Smith was admitted",
    "Once upon a time there was a little girl who lived",
    "Bob",
]


def _build_tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400, special_tokens=["<pad>", "<eos>", "<bos>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(CORPUS, trainer)
    tok.post_processor = processors.TemplateProcessing(single="<bos> $A", special_tokens=[("<bos>", 2)])
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<bos>", eos_token="<eos>", pad_token="<pad>")


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # tiny models gain nothing from threads


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory):
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig

    tokenizer = _build_tokenizer()
    config = Gemma3TextConfig(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=1, head_dim=16, sliding_window=4,
        layer_types=["sliding_attention", "full_attention"], max_position_embeddings=256,
        initializer_range=0.3, pad_token_id=0, eos_token_id=1, bos_token_id=2,
    )
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = Gemma3ForCausalLM(config)
    path = tmp_path_factory.mktemp("tiny_gemma")
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def tiny_llama_dir(tmp_path_factory):
    """A tiny Llama: no sliding window, so different prompts can share a cached prefix in one batch."""
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer = _build_tokenizer()
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=256, initializer_range=0.3,
        pad_token_id=0, eos_token_id=1, bos_token_id=2,
    )
    with torch.random.fork_rng():
        torch.manual_seed(1)
        model = LlamaForCausalLM(config)
    path = tmp_path_factory.mktemp("tiny_llama")
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def make_lm(path, **options) -> TransformersLM:
    options.setdefault("use_cache", False)
    return TransformersLM(str(path), **options)


def manual_logprob(lm: TransformersLM, prompt: str, choice: str) -> float:
    """Reference: one full forward over the joint tokens, summing the choice tokens' log-probs."""
    tok = lm.tokenizer
    p_ids = tok(prompt)["input_ids"]
    joint = tok(prompt + choice)["input_ids"]
    start = 0
    while start < len(p_ids) and p_ids[start] == joint[start]:
        start += 1
    with torch.no_grad():
        logits = lm.model(input_ids=torch.tensor([joint])).logits[0].float()
    lp = torch.log_softmax(logits, dim=-1)
    return float(sum(lp[t - 1, joint[t]] for t in range(start, len(joint))))


# ---- generation -------------------------------------------------------------------------------------
def test_greedy_batched_with_left_padding_equals_one_by_one(tiny_model_dir):
    batched = make_lm(tiny_model_dir, batch_size=4).generate(PROMPTS, max_new_tokens=8)
    single = make_lm(tiny_model_dir, batch_size=1).generate(PROMPTS, max_new_tokens=8)
    assert batched == single
    assert len({o[0] for o in batched}) == len(PROMPTS)  # a random model still answers differently
    assert all(o[0] for o in batched)


def test_sampling_depends_on_seed_not_on_batch(tiny_model_dir):
    kw = dict(max_new_tokens=10, temperature=1.0, top_p=0.95, n=3)
    alone = make_lm(tiny_model_dir, batch_size=1).generate(PROMPTS[:1], seed=[7], **kw)
    crowd = make_lm(tiny_model_dir, batch_size=5).generate(PROMPTS[::-1], seed=[1, 2, 3, 7], **kw)
    assert crowd[-1] == alone[0]
    # rows of different prompts mixed in one left-padded batch (no per-prompt grouping)
    mixed = make_lm(tiny_model_dir, batch_size=5, prefix_cache=False).generate(PROMPTS[::-1], seed=[1, 2, 3, 7], **kw)
    assert mixed == crowd
    assert len(set(alone[0])) == 3  # n samples differ from each other
    other_seed = make_lm(tiny_model_dir).generate(PROMPTS[:1], seed=[8], **kw)
    assert other_seed[0] != alone[0]


def test_samples_of_one_prompt_share_its_prefill(tiny_model_dir):
    kw = dict(max_new_tokens=6, temperature=1.0, n=4, seed=[3, 4])
    shared = make_lm(tiny_model_dir, batch_size=8, prefix_cache="always")
    plain = make_lm(tiny_model_dir, batch_size=8, prefix_cache=False)
    assert shared.generate(PROMPTS[2:], **kw) == plain.generate(PROMPTS[2:], **kw)
    assert shared.forward_stats["forward_tokens"] < plain.forward_stats["forward_tokens"]


def test_prompts_sharing_a_long_prefix_reuse_its_kv_cache(tiny_model_dir):
    instruction = "The patient reports headaches, nausea and fatigue over the past week. " * 3
    prompts = [instruction + f"Record {i}: Bob lives in Boston." for i in range(5)]
    shared = make_lm(tiny_model_dir, batch_size=8, prefix_cache="always")
    plain = make_lm(tiny_model_dir, batch_size=8, prefix_cache=False)
    for kw in (dict(max_new_tokens=5), dict(max_new_tokens=5, temperature=1.0, n=2, seed=[0, 1, 2, 3, 4])):
        assert shared.generate(prompts, **kw) == plain.generate(prompts, **kw)
    n_instr = len(shared.tokenizer(instruction)["input_ids"])
    saved = plain.forward_stats["forward_tokens"] - shared.forward_stats["forward_tokens"]
    assert saved >= (5 + 10 - 2) * (n_instr - 2)  # the instruction ran twice (once per call), not 15 times
    # the default plans by cost: for short answers, batching different prompts wins (fewer decode steps)
    auto = make_lm(tiny_model_dir, batch_size=8)
    assert not auto._prefix_mode([auto.encode(p) for p in prompts], 1, 5)
    long_shared = [[2] + [7] * 2000 + [i] for i in range(4)]
    assert auto._prefix_mode(long_shared, 1, 5)


def test_different_prompts_share_a_cached_prefix_inside_one_batch(tiny_llama_dir, tiny_model_dir):
    instruction = "The patient reports headaches, nausea and fatigue over the past week. " * 2
    prompts = [instruction + f"Record {i}: " + "Bob lives in Boston. " * (i % 3) for i in range(6)]
    shared = make_lm(tiny_llama_dir, batch_size=6)
    plain = make_lm(tiny_llama_dir, batch_size=6, prefix_cache=False)
    for kw in (dict(max_new_tokens=6), dict(max_new_tokens=6, temperature=1.0, seed=list(range(6)))):
        assert shared.generate(prompts, **kw) == plain.generate(prompts, **kw)
    assert shared.forward_stats["forward_calls"] == plain.forward_stats["forward_calls"] + 2  # + the prefix, once per call
    n_instr = len(shared.tokenizer(instruction)["input_ids"])
    assert plain.forward_stats["forward_tokens"] - shared.forward_stats["forward_tokens"] >= 2 * 5 * (n_instr - 2)
    # with a sliding window the sequence overflows, padding inside it would not be exact: plain batches
    gemma = make_lm(tiny_model_dir, batch_size=6)
    assert gemma._batch_head([gemma.encode(p) for p in prompts], 6) == []
    assert shared._batch_head([shared.encode(p) for p in prompts], 6) != []


def test_greedy_n_replicates_and_temperature_zero_ignores_seed(tiny_model_dir):
    lm = make_lm(tiny_model_dir)
    a = lm.generate(PROMPTS[:2], max_new_tokens=6, n=2, seed=1)
    b = lm.generate(PROMPTS[:2], max_new_tokens=6, n=2, seed=99)
    assert a == b and all(x[0] == x[1] for x in a)


def test_stop_string_cuts_the_output(tiny_model_dir):
    lm = make_lm(tiny_model_dir)
    full = lm.generate(PROMPTS[:1], max_new_tokens=16)[0][0]
    stop = full[len(full) // 2 : len(full) // 2 + 2]
    assert stop and len(full) > 4
    cut = lm.generate(PROMPTS[:1], max_new_tokens=16, stop=[stop])[0][0]
    assert cut == full[: full.find(stop)]


def test_stop_strings_count_only_in_the_generated_text(tiny_model_dir):
    lm = make_lm(tiny_model_dir)
    prompt = PROMPTS[0]
    full = lm.generate([prompt], max_new_tokens=8)[0][0]
    straddling = prompt[-2:] + full[:1]  # would start in the prompt and end in the answer
    assert full and straddling not in full
    assert lm.generate([prompt], max_new_tokens=8, stop=[straddling])[0][0] == full


def test_banned_phrases_never_appear_in_any_case(tiny_model_dir):
    lm = make_lm(tiny_model_dir)
    kw = dict(max_new_tokens=16, temperature=1.0, n=4, seed=list(range(len(PROMPTS))))
    free = [s for samples in lm.generate(PROMPTS, **kw) for s in samples]
    # ban frequent short strings of the unconstrained outputs, in odd casings
    text = " ".join(free)
    words = sorted({w for w in text.split() if len(w) >= 2}, key=lambda w: -text.count(w))[:4]
    bigram = text.strip()[:2]
    banned = [w.upper() for w in words] + [bigram.swapcase()]
    blocked = [s for samples in lm.generate(PROMPTS, banned_phrases=banned, **kw) for s in samples]
    assert blocked != free
    for out in blocked:
        assert out is not None
        for phrase in banned:
            assert phrase.casefold() not in out.casefold(), (phrase, out)
    greedy = lm.generate(PROMPTS, max_new_tokens=16, banned_phrases=banned)
    for [out] in greedy:
        assert all(p.casefold() not in out.casefold() for p in banned)


# ---- scoring ----------------------------------------------------------------------------------------
def test_score_matches_a_full_forward_with_and_without_prefix_reuse(tiny_model_dir):
    choices = [[" Paris", " Madrid", "ly", " the capital of Spain"], [" to the hospital", " on", "x"]]
    prompts = ["The capital of France is", "Alice Smith was admitted"]
    reused = make_lm(tiny_model_dir, batch_size=3)
    plain = make_lm(tiny_model_dir, batch_size=3, prefix_cache=False)
    got = reused.score(prompts, choices)
    ref = plain.score(prompts, choices)
    for row_got, row_ref, p, cs in zip(got, ref, prompts, choices):
        for g, r, c in zip(row_got, row_ref, cs):
            expected = manual_logprob(plain, p, c)
            assert g == pytest.approx(expected, abs=1e-3)
            assert r == pytest.approx(expected, abs=1e-3)
            assert g < 0
    assert reused.forward_stats["forward_tokens"] < plain.forward_stats["forward_tokens"]


def test_shared_instruction_prefix_is_computed_once(tiny_model_dir):
    instruction = "The patient reports headaches, nausea and fatigue over the past week. " * 3
    prompts = [instruction + f"Record {i}: Bob lives in Boston. Answer:" for i in range(6)]
    reused = make_lm(tiny_model_dir, batch_size=18)
    plain = make_lm(tiny_model_dir, batch_size=18, prefix_cache=False)
    a = reused.score(prompts, [" 1", " 2", " 3"])
    b = plain.score(prompts, [" 1", " 2", " 3"])
    assert sum(a, []) == pytest.approx(sum(b, []), abs=1e-3)
    n_instr = len(reused.tokenizer(instruction)["input_ids"])
    saved = plain.forward_stats["forward_tokens"] - reused.forward_stats["forward_tokens"]
    assert saved >= 17 * (n_instr - 2)  # the instruction ran once instead of 18 times
    # one prompt per batch: the instruction is still computed once and extended per record
    per_prompt = make_lm(tiny_model_dir, batch_size=3)
    assert sum(per_prompt.score(prompts, [" 1", " 2", " 3"]), []) == pytest.approx(sum(b, []), abs=1e-3)
    assert plain.forward_stats["forward_tokens"] - per_prompt.forward_stats["forward_tokens"] >= 17 * (n_instr - 2)


def test_choices_of_different_prompts_are_batched_per_prompt(tiny_model_dir):
    prompts = ["The capital of France is", "Alice Smith was admitted to the", "Once upon a time there was a"]
    choices = [[" Paris", " Madrid", " the capital of Spain"], [" hospital", " clinic on Monday"], [" little girl", " nurse"]]
    reused = make_lm(tiny_model_dir, batch_size=16)
    plain = make_lm(tiny_model_dir, batch_size=16, prefix_cache=False)
    assert sum(reused.score(prompts, choices), []) == pytest.approx(sum(plain.score(prompts, choices), []), abs=1e-3)
    assert reused.forward_stats["forward_tokens"] < 0.6 * plain.forward_stats["forward_tokens"]


def test_score_rejects_empty_choice_naming_the_prompt(tiny_model_dir):
    with pytest.raises(PromptError, match="prompt 1: choice 0"):
        make_lm(tiny_model_dir).score(["a", "b"], [["x"], [""]])


# ---- context policy ---------------------------------------------------------------------------------
def test_too_long_prompt_errors_naming_the_callers_index(tiny_model_dir):
    lm = make_lm(tiny_model_dir, max_context=24, use_cache=True)
    lm.cache = DiskCache("llm-context-test")
    lm.generate(PROMPTS[:1], max_new_tokens=4)  # cached: the failing call below only sends 2 prompts on
    long_prompt = "Alice Smith was admitted to the hospital on Monday with chest pain. " * 3
    with pytest.raises(PromptError, match=r"prompt 2: \d+ tokens \+ max_new_tokens=4 exceed the model's context of 24"):
        lm.generate([PROMPTS[0], PROMPTS[1], long_prompt], max_new_tokens=4)
    with pytest.raises(PromptError, match="prompt 0: .*exceed the model's context"):
        lm.score([long_prompt], [" yes"])


def test_left_truncation_keeps_bos_and_the_last_tokens(tiny_model_dir, caplog):
    lm = make_lm(tiny_model_dir, max_context=24, truncation="left")
    long_prompt = "Alice Smith was admitted to the hospital on Monday with chest pain. " * 3
    with caplog.at_level(logging.WARNING, logger="textleak.llm.hf"):
        out = lm.generate([long_prompt], max_new_tokens=4)[0][0]
    assert "prompt 0: dropping its first" in caplog.text
    ids = lm.tokenizer(long_prompt)["input_ids"]
    kept = [ids[0]] + ids[len(ids) - 19:]  # 24 - 4 new tokens - BOS
    with torch.no_grad():
        ref = lm.model.generate(torch.tensor([kept]), max_new_tokens=4, do_sample=False, eos_token_id=None, pad_token_id=0)
    assert out == lm.tokenizer.decode(ref[0, len(kept):], skip_special_tokens=True)


# ---- prompts, identity, caching -----------------------------------------------------------------------
def test_chat_messages_use_the_template_when_there_is_one(tiny_model_dir):
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
    lm = make_lm(tiny_model_dir)
    assert lm.tokenizer.chat_template is None
    text, add_special = lm.render(messages)
    assert text == plain_chat(messages) == "System: Be brief.\n\nUser: Hi\n\nAssistant:" and add_special
    template = "{{ bos_token }}{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}{% endfor %}{% if add_generation_prompt %}<assistant>{% endif %}"
    templated = make_lm(tiny_model_dir, chat_template=template)
    text, add_special = templated.render(messages)
    assert text == "<bos><system>Be brief.<user>Hi<assistant>" and not add_special
    assert templated.encode(messages).count(templated.tokenizer.bos_token_id) == 1
    assert templated.fingerprint() != lm.fingerprint()
    assert lm.render("raw text")[0] == "raw text"


def test_second_call_is_served_from_the_cache_without_a_forward(tiny_model_dir, tmp_path):
    lm = make_lm(tiny_model_dir, use_cache=True)
    lm.cache = DiskCache("llm", root=tmp_path)
    first = lm.generate(PROMPTS[:2], max_new_tokens=5, temperature=0.7, seed=[0, 1])
    scores = lm.score(PROMPTS[:2], [" a", " b"])
    calls = lm.forward_stats["forward_calls"]
    assert calls > 0
    # a new process: same configuration, fresh object, nothing loaded
    again = pickle.loads(pickle.dumps(lm))
    assert again._model is None
    assert again.generate(PROMPTS[:2], max_new_tokens=5, temperature=0.7, seed=[0, 1]) == first
    assert again.score(PROMPTS[:2], [" a", " b"]) == scores
    assert again._model is None and again.forward_stats["forward_calls"] == 0
    # an interrupted run resumes: only the new prompt is computed
    more = again.generate(PROMPTS[:3], max_new_tokens=5, temperature=0.7, seed=[0, 1, 2])
    assert more[:2] == first
    assert again.forward_stats["forward_tokens"] == len(again.encode(PROMPTS[2])) + 4  # prefill + 4 decode steps


def test_fingerprint_follows_the_weights(tiny_model_dir, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(tiny_model_dir, copy)
    a, b = make_lm(tiny_model_dir), make_lm(copy)
    assert a.fingerprint() == b.fingerprint()
    config = (copy / "config.json").read_text()
    (copy / "config.json").write_text(config.replace('"initializer_range": 0.3', '"initializer_range": 0.31'))
    assert make_lm(copy).fingerprint() != a.fingerprint()
    assert make_lm(tiny_model_dir, dtype="bfloat16").fingerprint() != a.fingerprint()


def test_fingerprint_and_describe_use_the_resolved_dtype(tiny_model_dir, tmp_path, monkeypatch):
    import json
    import shutil

    auto = make_lm(tiny_model_dir, device="cpu")  # "auto" on a CPU is float32
    f32 = make_lm(tiny_model_dir, device="cpu", dtype="float32")
    assert auto.fingerprint() == f32.fingerprint() == make_lm(tiny_model_dir, device="cpu", dtype="torch.float32").fingerprint()
    assert make_lm(tiny_model_dir, device="cpu", dtype="bfloat16").fingerprint() != auto.fingerprint()
    assert auto.describe()["dtype"] == "float32" and auto.dtype == "auto"
    assert auto._model is None  # resolved without loading the weights
    # on a GPU "auto" is the checkpoint's dtype, read from its config (still without loading)
    bf16 = tmp_path / "bf16"
    shutil.copytree(tiny_model_dir, bf16)
    config = json.loads((bf16 / "config.json").read_text())
    config.pop("torch_dtype", None)
    (bf16 / "config.json").write_text(json.dumps(dict(config, dtype="bfloat16")))
    import textleak.distributed

    monkeypatch.setattr(textleak.distributed, "local_device", lambda: "cuda:0")  # a machine with a GPU
    gpu_auto = make_lm(bf16)  # no device given: the model goes to the GPU
    assert gpu_auto.resolved_dtype() == "bfloat16" and gpu_auto._model is None
    assert gpu_auto.fingerprint() == make_lm(bf16, dtype="bfloat16").fingerprint() != make_lm(bf16, dtype="float32").fingerprint()
    assert make_lm(bf16, device="cpu").resolved_dtype() == "float32"
    assert make_lm(tiny_model_dir).resolved_dtype() == "float32"  # the tiny model was saved in float32
    with pytest.raises(ValueError, match="unknown dtype"):
        make_lm(tiny_model_dir, dtype="fp13").fingerprint()


def test_spec_strings(tmp_path):
    gguf = tmp_path / "model.Q4.gguf"
    gguf.write_bytes(b"GGUF")
    lm = load_llm(f"hf:{gguf}")
    assert (lm.source, lm.gguf_file) == (str(tmp_path.resolve()), "model.Q4.gguf")
    hub = load_llm("hf:org/repo::model.Q8_0.gguf", dtype="bfloat16")
    assert (hub.source, hub.gguf_file, hub.dtype) == ("org/repo", "model.Q8_0.gguf", "bfloat16")
    assert load_llm("hf:org/repo::model.Q8_0.gguf", dtype="bfloat16") is hub
    with pytest.raises(ValueError, match="truncation"):
        TransformersLM("x", truncation="middle")
    with pytest.raises(ValueError, match="unknown LLM spec"):
        load_llm("gpt-4o")
