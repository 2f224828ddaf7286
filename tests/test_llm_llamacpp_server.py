"""The OpenAI-compatible backend against a real engine: llama-cpp-python's server with the packaged
Gemma 3 270M on 127.0.0.1 (the ``llama_server`` fixture in conftest.py). End to end: the LLM judge
(sampled and log-prob), the C.1 atomizer, an LLM sanitizer, ``textleak study``, two replicas, and
agreement with the in-process backends on the same GGUF and prompts.

The model is a tiny base model: the point is the plumbing (requests, parsing, caching, failure
accounting), not the quality of its answers; token budgets stay small so the module runs in a few
minutes on two shared cores.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from textleak.cache import DiskCache
from textleak.judges.base import OK, UNPARSED
from textleak.judges.llm import LABEL_CHOICES, LLMJudge, build_logprob_prompt, label_probabilities
from textleak.llm.openai_compat import OpenAICompatibleLM

REPO = Path(__file__).resolve().parent.parent
DOC = "A 45-year-old man has had a fever of 38.5 C for three days. He takes ibuprofen and lives in Lyon."
CLAIMS = ["The patient is 45 years old.", "The patient has a fever.", "The patient lives in Paris."]
TOLERANCE = 0.25  # nat; see tests/test_llm_llamacpp.py::test_agrees_with_the_transformers_backend


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory):
    """One answer cache for the server tests of this module: the agreement test reuses the judge
    test's log-prob requests (the same prompts), which are the slow ones on this server."""
    return tmp_path_factory.mktemp("server_llm_cache")


def client(server, tmp_path, **options) -> OpenAICompatibleLM:
    lm = OpenAICompatibleLM(server.model_alias, server.base_url, **{**server.client_options(), "max_concurrency": 2,
                                                                     "timeout": 600, **options})
    lm.cache = DiskCache("llm", root=tmp_path)
    return lm


@pytest.mark.slow
def test_judge_in_both_modes_through_the_server(llama_server, shared_cache):
    lm = client(llama_server, shared_cache)
    sampled = LLMJudge(lm, mode="sample", n=3, claims_per_prompt=3, max_new_tokens=32, max_retries=0)
    [ratings] = sampled.rate([CLAIMS], [DOC], seeds=[0])
    assert len(ratings) == 3
    for r in ratings:  # parsed votes give a rating, anything else is unparsed: never a silent score
        assert (r.status == OK and r.rating in (1, 2, 3) and r.detail["votes"]) or (r.status == UNPARSED and r.score is None)
    sent = lm.requests_sent
    assert sent >= 3  # the server ignores n: one request per sample
    again = sampled.rate([CLAIMS], [DOC], seeds=[0])
    if all(r.status == OK for r in ratings):
        assert again == [ratings] and lm.requests_sent == sent  # cached
    else:
        assert lm.requests_sent > sent  # an unparsable answer is never cached: the rerun asks again

    by_logprob = LLMJudge(lm, mode="logprob", n=3).rate([CLAIMS[:2]], [DOC])[0]
    assert all(r.status == OK and 0.0 <= r.score <= 1.0 for r in by_logprob), by_logprob
    for r in by_logprob:
        assert math.isclose(sum(r.detail["label_p"].values()), 1.0, abs_tol=1e-9)


@pytest.mark.slow
def test_server_agrees_with_the_in_process_backends(llama_server, shared_cache, tmp_path):
    """The judge's label log-probs: the server (llama.cpp kernels, walked along its greedy path)
    against llama.cpp in process (teacher forcing) and transformers (dequantised float32).

    Compared after subtracting the first label's value: the labels share everything up to the digit,
    and the server ignores leading whitespace at the start of a chat answer (" **Output**" and
    "**Output**" are one answer there) while the in-process backends score the choice text exactly
    after "Assistant:", which shifts all three labels by the same amount. The judge only uses the
    normalised label distribution."""
    from textleak.llm import load_llm

    server_lm = client(llama_server, shared_cache)
    local = load_llm("llamacpp:embedded", n_ctx=4096, n_threads=1, n_threads_batch=1)
    local.cache = DiskCache("llm", root=tmp_path / "l")
    prompts = [build_logprob_prompt(c, DOC) for c in CLAIMS[:2]]
    remote = server_lm.score(prompts, list(LABEL_CHOICES))
    assert all(math.isfinite(x) for row in remote for x in row), remote  # the model follows the demos' format

    def relative(row):
        return [x - row[0] for x in row]

    inproc = local.score(prompts, list(LABEL_CHOICES))
    for r, l in zip(remote, inproc):
        # the one-token difference in context (the leading space) moves the labels apart by up to ~0.11 nat
        # with llama-cpp-python 0.3.36 (3 for the fever claim: 0.107); what the judge uses differs by < 0.01
        assert max(abs(x - y) for x, y in zip(relative(r), relative(l))) < TOLERANCE, (r, l)
        pr, pl = label_probabilities(r), label_probabilities(l)
        assert max(abs(x - y) for x, y in zip(pr, pl)) < 0.05, (pr, pl)
    hf = load_llm("embedded")
    hf.cache = DiskCache("llm", root=tmp_path / "h")
    for r, h in zip(remote, hf.score(prompts, list(LABEL_CHOICES))):
        assert max(abs(x - y) for x, y in zip(relative(r), relative(h))) < TOLERANCE, (r, h)
        pr, ph = label_probabilities(r), label_probabilities(h)
        assert max(abs(x - y) for x, y in zip(pr, ph)) < 0.1, (pr, ph)

    # greedy generation: the same prompt handling (chat template equal to plain_chat) and decoding
    chat = [[{"role": "user", "content": "Name a fruit."}], [{"role": "user", "content": "What is 2 + 2?"}]]
    assert server_lm.generate(chat, max_new_tokens=6) == local.generate(chat, max_new_tokens=6)


@pytest.mark.slow
def test_atomizer_and_sanitizer_through_the_server(llama_server, tmp_path):
    from sanitizers.llm import SanitizeParaphrase
    from textleak.atomizers.llm import LLMAtomizer

    lm = client(llama_server, tmp_path)
    atomizer = LLMAtomizer(llm=lm, max_new_tokens=48)
    claims = atomizer.atomize([DOC, "The weather was cold. She wore a red coat."])
    assert all(isinstance(c, list) and c and all(isinstance(x, str) and x for x in c) for c in claims)

    sanitizer = SanitizeParaphrase(llm=lm, max_new_tokens=32)
    results = sanitizer.sanitize_batch([DOC, "Anna Berg (born 1961) lives at 4 Elm Street."], [0, 1])
    assert len(results) == 2
    for res in results:  # a base model seldom writes the '#' answer: that is a failure, never privacy
        assert (res.status == "ok" and res.text) or (res.status != "ok" and res.text is None), res


@pytest.mark.slow
def test_study_cli_with_the_server(llama_server, tmp_path):
    config = tmp_path / "study.yaml"
    config.write_text(json.dumps({
        "sanitizers": ["identity"],  # the LLM sanitizers through the server: the test above
        "leakage": {"judge_options": {"n": 1, "max_new_tokens": 24, "max_retries": 0, "claims_per_prompt": 10},
                    "bootstrap": 0, "max_unparsed_share": 1.0},  # the base model parses few ratings
    }))
    spec = f"openai:{llama_server.model_alias}@{llama_server.base_url}"
    cmd = [sys.executable, "-m", "textleak", "study", "--config", str(config), "--dataset", "demo", "--limit", "2",
           "--llm", spec, "--judge", "llm", "--no-utility", "--no-linkage-ablation", "--k", "1", "--output", str(tmp_path / "out")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=REPO,
                          env={**__import__("os").environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    study = json.loads((tmp_path / "out" / "study.json").read_text())
    assert study["settings"]["leakage"]["judge"] == "llm" and study["settings"]["llm"] == spec
    [row] = study["rows"]
    assert row["sanitizer"] == "identity" and row["n_records"] == 2


@pytest.mark.slow
def test_two_replicas_and_a_dead_one(llama_server, tmp_path):
    """Two real servers share the work; with one of them dead the run still completes."""
    from textleak.llm.llamacpp_server import LlamaServer, free_port

    prompts = [[{"role": "user", "content": f"Say a word about the number {i}."}] for i in range(8)]
    with LlamaServer("embedded", n_ctx=1024, logits_all=False) as second:
        both = OpenAICompatibleLM(llama_server.model_alias, [llama_server.base_url, second.base_url],
                                  **second.client_options(), max_concurrency=1, timeout=300)
        both.cache = DiskCache("llm", root=tmp_path / "both")
        out = both.generate(prompts, max_new_tokens=4)
        stats = both.endpoint_stats
        # both serve (how many each takes depends on their speed: a slow first answer leaves the other busier)
        assert all(s["requests"] >= 1 and s["failures"] == 0 for s in stats) and sum(s["requests"] for s in stats) == len(prompts), stats
    dead = f"http://127.0.0.1:{free_port()}/v1"
    one_dead = OpenAICompatibleLM(llama_server.model_alias, [dead, llama_server.base_url],
                                  **llama_server.client_options(), max_concurrency=2, timeout=300, max_retries=3)
    one_dead.cache = DiskCache("llm", root=tmp_path / "dead")
    answers = one_dead.generate(prompts, max_new_tokens=4)
    # every prompt answered by the live server (not compared with ``out`` word for word: each server's
    # prompt cache decides how llama.cpp splits a prompt into batches, which changes the last bits of
    # the logits and can flip a greedy token of this 270M model)
    assert len(answers) == len(out) == len(prompts) and all(a and a[0] for a in answers)
    stats = {s["url"]: s for s in one_dead.endpoint_stats}
    assert stats[dead]["failures"] >= 1 and stats[dead]["requests"] == stats[dead]["failures"]
    assert stats[llama_server.base_url]["failures"] == 0 and stats[llama_server.base_url]["requests"] >= len(prompts)


@pytest.mark.slow
def test_server_api_key_is_required_and_never_logged(tmp_path, monkeypatch, caplog):
    """A real server started with a key: without it the request fails at once (401 is not retried),
    with it (even with a trailing newline) it works, and the key appears in no log line."""
    import logging

    pytest.importorskip("llama_cpp.server", reason="llama-cpp-python[server] is not installed")
    from textleak.llm import LLMError
    from textleak.llm.llamacpp_server import LlamaServer

    secret = "sk-local-Server-Key-987"
    with LlamaServer("embedded", n_ctx=512, logits_all=False, n_threads=1, api_key=secret) as server:
        lm = OpenAICompatibleLM(server.model_alias, server.base_url, **server.client_options(), api_key_env="TL_TEST_KEY",
                                max_retries=2, timeout=300)
        lm.cache = DiskCache("llm", root=tmp_path)
        monkeypatch.delenv("TL_TEST_KEY", raising=False)
        with caplog.at_level(logging.DEBUG), pytest.raises(LLMError):
            lm.generate(["Hello"], max_new_tokens=2)
        assert lm.requests_sent == 1
        monkeypatch.setenv("TL_TEST_KEY", secret + "\n")
        with caplog.at_level(logging.DEBUG):
            assert lm.generate(["Hello"], max_new_tokens=2)[0][0] is not None
        assert secret not in caplog.text and secret not in Path(server.log_path).read_text(errors="replace")
