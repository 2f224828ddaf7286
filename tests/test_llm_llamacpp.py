"""The llama.cpp backend in process (``llamacpp:embedded``): the packaged Gemma 3 270M GGUF, run by
llama.cpp without dequantising; and its agreement with the transformers backend on the same file."""

from __future__ import annotations

import math

import pytest

from textleak.cache import DiskCache
from textleak.llm import PromptError, load_llm
from textleak.llm.llamacpp import LlamaCppLM

llama_cpp = pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (pip install 'textleak[llamacpp]')")

PROMPT = "The capital of France is"


@pytest.fixture(scope="module")
def lm(tmp_path_factory):
    model = load_llm("llamacpp:embedded", n_ctx=4096, n_threads=1, n_threads_batch=1)
    model.cache = DiskCache("llm", root=tmp_path_factory.mktemp("llamacpp_cache"))
    return model


def test_spec_and_fingerprint_need_no_model():
    a, b = LlamaCppLM("embedded"), LlamaCppLM("embedded", truncation="left")
    assert a.fingerprint() == LlamaCppLM("embedded", n_threads=1).fingerprint() != b.fingerprint()
    assert a._llm is None and a.describe()["backend"] == "llamacpp"
    with pytest.raises(FileNotFoundError, match="GGUF"):
        LlamaCppLM("/nonexistent/model.gguf")


@pytest.mark.slow
def test_scores_generates_and_caches(lm):
    [[paris, banana, london]] = lm.score([PROMPT], [" Paris", " banana", " London"])
    assert paris > london > banana and paris > -6 and banana < paris - 5
    assert lm.stats["load_seconds"] < 30  # memory-mapped GGUF, no conversion (typically about 1 s)

    greedy = lm.generate([PROMPT, "Once upon a time"], max_new_tokens=8)
    assert "Paris" in greedy[0][0] or "France" in greedy[0][0]
    chat = lm.generate([[{"role": "user", "content": "Name a fruit."}]], max_new_tokens=4)
    assert chat[0][0]

    # sampling: a sample depends on its seed only (not on the other prompts of the call)
    s1 = lm.generate([PROMPT, "Once upon a time"], max_new_tokens=6, temperature=1.0, n=3, seed=[7, 8])
    other = LlamaCppLM("embedded", n_ctx=4096, use_cache=False)  # its own context (loading is cheap)
    alone = other.generate(["Once upon a time"], max_new_tokens=6, temperature=1.0, n=3, seed=8)
    assert alone[0] == s1[1] and len(set(s1[0])) > 1
    del other

    stopped = lm.generate([PROMPT], max_new_tokens=12, stop=["France", "Paris"])[0][0]
    assert "Paris" not in stopped and "France" not in stopped
    blocked = lm.generate([PROMPT], max_new_tokens=8, banned_phrases=["paris", "France"])[0][0]
    assert blocked is not None and "paris" not in blocked.casefold() and "france" not in blocked.casefold()

    calls = lm.stats["decode_calls"]
    again = LlamaCppLM("embedded", n_ctx=4096)
    again.cache = lm.cache
    assert again.generate([PROMPT, "Once upon a time"], max_new_tokens=8) == greedy
    assert again.score([PROMPT], [" Paris", " banana", " London"]) == [[paris, banana, london]]
    assert again._llm is None and lm.stats["decode_calls"] == calls  # answered from the cache


@pytest.mark.slow
def test_context_policy_and_prefix_reuse(lm):
    long_prompt = "word " * 5000
    with pytest.raises(PromptError, match="prompt 1: .*context of 4096"):
        lm.generate(["short", long_prompt], max_new_tokens=4)
    left = LlamaCppLM("embedded", n_ctx=256, truncation="left", use_cache=False, n_threads=1, n_threads_batch=1)
    assert left.generate(["word " * 400], max_new_tokens=2)[0][0] is not None

    # a shared prefix is computed once: the second prompt decodes only its own tokens
    shared = "Instructions: rate every claim carefully. " * 20
    before = lm.stats["decoded_tokens"]
    lm.score([shared + "Claim A.", shared + "Claim B."], [" 1", " 2"])
    n_prefix = len(lm.encode(shared))
    assert lm.stats["decoded_tokens"] - before < 2 * n_prefix


@pytest.mark.slow
def test_agrees_with_the_transformers_backend(lm, tmp_path):
    """Same GGUF, same prompts. Transformers multiplies the weights dequantised to float32; llama.cpp's
    Q4_K kernels quantise the activations to 8 bits inside the dot products. So token ids must be
    equal and log-probs agree to kernel precision only, an error that grows with the number of
    tokens scored: measured here up to 0.37 nat on 1-3-token choices and 0.65 nat on the judge's
    13-token label answers; the judge's three labels move together (they share all but the digit):
    their differences agree within 0.1 nat and the label probabilities within 0.011. Tolerances:
    1.0 nat absolute, 0.25 nat on label differences, 0.05 on label probabilities."""
    from textleak.judges.llm import LABEL_CHOICES, build_logprob_prompt, label_probabilities

    hf = load_llm("embedded")
    hf.cache = DiskCache("llm", root=tmp_path)
    chat = [{"role": "user", "content": "Name a fruit."}]
    for prompt in (PROMPT, chat, "Once upon a time"):
        assert lm.encode(prompt) == hf.encode(prompt)
    prompts = [PROMPT, "2 + 2 =", chat]
    choices = [" Paris", " banana", " 4", " London is big"]
    a = lm.score(prompts, choices)
    b = hf.score(prompts, choices)
    assert max(abs(x - y) for ra, rb in zip(a, b) for x, y in zip(ra, rb)) < 1.0, (a, b)

    doc = "A 45-year-old man has had a fever of 38.5 C for three days and takes ibuprofen."
    claims = ["The patient is 45 years old.", "The patient has a fever.", "The patient lives in Paris."]
    judge_prompts = [build_logprob_prompt(c, doc) for c in claims]
    la = lm.score(judge_prompts, list(LABEL_CHOICES))
    lb = hf.score(judge_prompts, list(LABEL_CHOICES))
    assert all(math.isfinite(x) for row in la for x in row)
    for ra, rb in zip(la, lb):
        assert max(abs(x - y) for x, y in zip(ra, rb)) < 1.0, (ra, rb)
        assert max(abs((x - ra[0]) - (y - rb[0])) for x, y in zip(ra, rb)) < 0.25, (ra, rb)
        pa, pb = label_probabilities(ra), label_probabilities(rb)
        assert max(abs(x - y) for x, y in zip(pa, pb)) < 0.05, (pa, pb)

    # the sampled judge decoding greedily: the same answers, so the same parsed ratings (the
    # benchmark's 9 claims agree too: [1, 2, unparsed] for each record with both backends)
    from textleak.judges.llm import LLMJudge

    ratings = [[(r.rating, r.status) for r in LLMJudge(m, mode="sample", n=1, temperature=0.0, max_new_tokens=48,
                                                       max_retries=0).rate([claims], [doc])[0]] for m in (lm, hf)]
    assert ratings[0] == ratings[1] and any(r is not None for r, _ in ratings[0]), ratings
