"""The OpenAI-compatible backend against a real HTTP server on 127.0.0.1 (stdlib, started per test module).

The fake server speaks the chat/completions and completions formats: it answers deterministically
from the prompt, seed and sample index, returns 429 once for prompts containing "flaky", 500 always
for "broken", echoes token log-probs like vLLM, and records every request it saw.
"""

from __future__ import annotations

import json
import logging
import math
import pickle
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from textleak.cache import DiskCache
from textleak.llm import LLMError, load_llm
from textleak.llm.openai_compat import OpenAICompatibleLM

SECRET = "sk-test-Very-Secret-123"


class FakeOpenAI(BaseHTTPRequestHandler):
    seen: list[dict] = []
    flaky_done: set[str] = set()
    in_flight: dict[int, int] = {}
    peak: dict[int, int] = {}
    lock = threading.Lock()

    def log_message(self, *args):  # keep pytest output quiet
        pass

    def _send(self, status: int, body: dict, headers: dict | None = None):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.lock:
            self.seen.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body,
                              "port": self.server.server_address[1]})
        if self.headers.get("Authorization") != f"Bearer {SECRET}":
            return self._send(401, {"error": "bad key"})
        text = body["messages"][-1]["content"] if "messages" in body else body["prompt"]
        if "broken" in text:
            return self._send(500, {"error": "internal"})
        if "leak" in text:  # a server that echoes the key near the 300-character cut
            return self._send(500, {"error": "x" * 270 + " " + self.headers.get("Authorization")})
        if "slow" in text:
            port = self.server.server_address[1]
            with self.lock:
                self.in_flight[port] = self.in_flight.get(port, 0) + 1
                self.peak[port] = max(self.peak.get(port, 0), self.in_flight[port])
            __import__("time").sleep(0.05)
            with self.lock:
                self.in_flight[port] -= 1
        if "flaky" in text:
            with self.lock:
                first = text not in self.flaky_done
                self.flaky_done.add(text)
            if first:
                return self._send(429, {"error": "slow down"}, {"Retry-After": "0"})
        if self.path == "/v1/chat/completions":
            return self._chat(body, text)
        if self.path == "/v1/completions":
            return self._completions(body, text)
        return self._send(404, {"error": "no such route"})

    def _answer(self, text: str, seed, i: int, temperature: float) -> str:
        if "say paris" in text:
            return ["Paris is nice", "I like PARIS", "Lyon", "Rome"][(seed + i) % 4] if temperature else "Paris"
        return f"echo[{text}] seed={seed if temperature else '-'} i={i} END tail"

    def _chat(self, body, text):
        if body.get("logprobs") and "spell" in text:  # one character per token; honours max_tokens
            pieces = list("Rating:") + [" 3"]
            shown = pieces[: body["max_tokens"]]
            content = [{"token": t, "logprob": -0.1, "top_logprobs": [{"token": t, "logprob": -0.1}] + (
                [{"token": " 1", "logprob": -1.0}] if t == " 3" else [])} for t in shown]
            return self._send(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": "".join(shown)},
                                                  "logprobs": {"content": content},
                                                  "finish_reason": "length" if len(shown) < len(pieces) else "stop"}]})
        if body.get("logprobs") and "walk" in text:  # a greedy path of three tokens, top tokens at the last
            content = [{"token": "Rating", "logprob": -0.1, "top_logprobs": [{"token": "Rating", "logprob": -0.1}]},
                       {"token": ":", "logprob": -0.2, "top_logprobs": [{"token": ":", "logprob": -0.2}]},
                       {"token": " 3", "logprob": -0.5, "top_logprobs": [{"token": t, "logprob": lp} for t, lp in
                                                                          [(" 3", -0.5), (" 1", -1.5), (" 2", -2.0), (" ", -3.0)]]}]
            return self._send(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": "Rating: 3"},
                                                  "logprobs": {"content": content}}]})
        if body.get("logprobs"):
            top = [{"token": t, "logprob": lp} for t, lp in [("2", -0.2), (" 2", -2.0), ("1", -1.9), ("3", -3.0)]]
            return self._send(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": "2"},
                                                  "logprobs": {"content": [{"token": "2", "logprob": -0.2, "top_logprobs": top}]}}]})
        n = 1 if "single" in text else body.get("n", 1)  # a server that ignores n
        choices = [{"index": i, "message": {"role": "assistant", "content": self._answer(text, body.get("seed"), i, body.get("temperature", 1.0))}}
                   for i in range(n)]
        return self._send(200, {"choices": choices[::-1]})  # out of order on purpose

    def _completions(self, body, text):
        if body.get("echo"):
            pieces = re.findall(r"\s*\S+", text) + [" gen"]
            offsets, pos = [], 0
            for p in pieces:
                offsets.append(pos)
                pos += len(p)
            logprobs = [None] + [-0.5 * len(p.strip()) for p in pieces[1:]]
            return self._send(200, {"choices": [{"index": 0, "text": text + " gen", "logprobs": {
                "tokens": pieces, "text_offset": offsets, "token_logprobs": logprobs}}]})
        n = body.get("n", 1)
        return self._send(200, {"choices": [{"index": i, "text": self._answer(text, body.get("seed"), i, body.get("temperature", 1.0))}
                                            for i in range(n)]})


def _serve():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/v1"


@pytest.fixture(scope="module")
def server():
    httpd, url = _serve()
    yield url
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def second_server():
    httpd, url = _serve()
    yield url
    httpd.shutdown()
    httpd.server_close()


def _dead_url() -> str:
    import socket

    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("TEXTLEAK_TEST_KEY", SECRET)
    FakeOpenAI.seen.clear()


def make(server, tmp_path, **options) -> OpenAICompatibleLM:
    lm = OpenAICompatibleLM("fake-model", server, api_key_env="TEXTLEAK_TEST_KEY", backoff=0.01, **options)
    lm.cache = DiskCache("llm", root=tmp_path)
    return lm


def test_generate_chat_and_completions_with_seeds_n_and_stop(server, tmp_path):
    lm = make(server, tmp_path)
    out = lm.generate(["hello", [{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}]],
                      temperature=0.7, n=2, seed=[5, 6], stop=[" END"], max_new_tokens=9)
    assert out == [["echo[hello] seed=5 i=0", "echo[hello] seed=5 i=1"], ["echo[hi] seed=6 i=0", "echo[hi] seed=6 i=1"]]
    bodies = sorted((r["body"] for r in FakeOpenAI.seen), key=lambda b: b["seed"])
    assert [r["path"] for r in FakeOpenAI.seen] == ["/v1/chat/completions"] * 2
    assert bodies[0]["messages"] == [{"role": "user", "content": "hello"}]
    assert (bodies[0]["n"], bodies[0]["max_tokens"], bodies[0]["stop"], bodies[0]["model"]) == (2, 9, [" END"], "fake-model")
    raw = make(server, tmp_path / "c", string_endpoint="completions").generate(["hello"], max_new_tokens=3)
    assert raw == [["echo[hello] seed=- i=0 END tail"]] and FakeOpenAI.seen[-1]["path"] == "/v1/completions"


def test_cached_rerun_sends_no_request(server, tmp_path):
    lm = make(server, tmp_path)
    first = lm.generate(["a", "b", "c"], temperature=0.5, seed=[0, 1, 2])
    assert len(FakeOpenAI.seen) == 3
    again = pickle.loads(pickle.dumps(lm))
    assert again.generate(["a", "b", "c"], temperature=0.5, seed=[0, 1, 2]) == first
    assert len(FakeOpenAI.seen) == 3 and again.requests_sent == 0
    again.generate(["a", "b", "c", "d"], temperature=0.5, seed=[0, 1, 2, 3])  # resumes: only "d" is new
    assert len(FakeOpenAI.seen) == 4


def test_429_is_retried_then_succeeds(server, tmp_path):
    lm = make(server, tmp_path)
    assert lm.generate(["flaky one"]) == [["echo[flaky one] seed=- i=0 END tail"]]
    assert [r["body"]["messages"][0]["content"] for r in FakeOpenAI.seen] == ["flaky one", "flaky one"]
    assert lm.requests_sent == 2


def test_persistent_failure_raises_or_yields_none_and_is_not_cached(server, tmp_path):
    lm = make(server, tmp_path, max_retries=2)
    with pytest.raises(LLMError, match="failed on prompt 1"):
        lm.generate(["fine", "broken"])
    assert lm.generate(["fine", "broken"], on_error="none") == [["echo[fine] seed=- i=0 END tail"], [None]]
    before = len(FakeOpenAI.seen)
    lm.generate(["broken"], on_error="none")
    assert len(FakeOpenAI.seen) - before == 3  # retried again: failures are never cached


def test_banned_phrases_are_resampled_away(server, tmp_path):
    lm = make(server, tmp_path)
    out = lm.generate(["say paris"], temperature=1.0, n=2, seed=0, banned_phrases=["Paris"])
    assert out == [["Rome", "Lyon"]]  # seeds 0 (both banned), 1000003 (Rome, banned), 2000006 (Lyon)
    greedy = lm.generate(["say paris"], banned_phrases=["paris"], on_error="none")
    assert greedy == [[None]]  # the greedy answer always contains it: failure, never a leak


def test_score_with_echo_and_with_chat_top_logprobs(server, tmp_path):
    lm = make(server, tmp_path)
    [[a, b]] = lm.score(["The capital is"], [" Paris", " Rome city"])
    assert a == pytest.approx(-2.5) and b == pytest.approx(-2.0 - 2.0)
    assert FakeOpenAI.seen[0]["body"]["echo"] is True and FakeOpenAI.seen[0]["path"] == "/v1/completions"
    chat = [{"role": "user", "content": "Rate it"}]
    [[r1, r2, r3, r4]] = lm.score([chat], ["1", "2", "3", "4"])
    assert r1 == pytest.approx(-1.9) and r3 == pytest.approx(-3.0) and r4 == float("-inf")
    assert r2 == pytest.approx(-0.2 + __import__("math").log1p(__import__("math").exp(-1.8)))
    # a longer choice is walked along the greedy path: here its first piece is not among the top tokens
    assert lm.score([chat], ["very long"]) == [[float("-inf")]]


def test_api_key_never_leaks(server, tmp_path, caplog):
    lm = make(server, tmp_path, max_retries=1)
    with caplog.at_level(logging.DEBUG):
        lm.generate(["hello", "broken"], on_error="none")
        lm.score(["x y"], [" z"])
    assert FakeOpenAI.seen[0]["auth"] == f"Bearer {SECRET}"
    pickled = pickle.dumps(lm)
    for text in (repr(lm), str(lm.describe()), caplog.text, str(lm.__getstate__()), lm.fingerprint()):
        assert SECRET not in text
    assert SECRET.encode() not in pickled
    assert SECRET.encode() not in (tmp_path / "llm.sqlite").read_bytes()


def test_spec_and_missing_key(server, tmp_path, monkeypatch):
    lm = load_llm(f"openai:fake-model@{server}", api_key_env="TEXTLEAK_TEST_KEY")
    assert (lm.model_name, lm.base_url) == ("fake-model", server)
    monkeypatch.delenv("TEXTLEAK_TEST_KEY")
    lm = make(server, tmp_path, max_retries=0)
    with pytest.raises(LLMError):
        lm.generate(["hello"])  # 401 without the key: not retried, surfaced
    assert len(FakeOpenAI.seen) == 1
    with pytest.raises(ValueError, match="base_url"):
        OpenAICompatibleLM("m", "localhost:8000")


def test_server_ignoring_n_is_asked_again_and_token_field_is_configurable(server, tmp_path):
    lm = make(server, tmp_path, max_tokens_param="max_completion_tokens")
    out = lm.generate(["single"], temperature=1.0, n=3, seed=0)
    assert out == [[f"echo[single] seed={s} i=0 END tail" for s in (0, 1000003, 2000006)]]
    assert all("max_completion_tokens" in r["body"] and "max_tokens" not in r["body"] for r in FakeOpenAI.seen)


def test_greedy_walk_scores_multi_token_chat_choices(server, tmp_path):
    lm = make(server, tmp_path)
    chat = [{"role": "user", "content": "walk it"}]
    [[one, three, other, beyond, outside]] = lm.score([chat], ["Rating: 1", "Rating: 3", "Score: 1", "Rating: 1 more", "Rating: 9"])
    assert one == pytest.approx(-0.1 - 0.2 - 1.5) and three == pytest.approx(-0.1 - 0.2 - 0.5)
    assert other == float("-inf")  # leaves the path at its first piece, which is not among the top tokens
    # " 1 more" and " 9" go on past a top token (" 1", " ") the model did not pick: not scorable from the path
    assert math.isnan(beyond) and math.isnan(outside)
    sent = len(FakeOpenAI.seen)
    again = lm.score([chat], ["Rating: 1", "Rating: 3", "Score: 1", "Rating: 1 more", "Rating: 9"])
    # one request per prompt (its choices share the greedy path); NaN rows are never cached
    assert again[0][:3] == [one, three, other] and sent == 1 and len(FakeOpenAI.seen) == 2
    body = FakeOpenAI.seen[0]["body"]
    assert body["top_logprobs"] == 20 and body["temperature"] == 0.0 and body["max_tokens"] == len("Rating: 1 more") // 3 + 2


def test_unscorable_labels_make_the_logprob_judge_unparsed(server, tmp_path):
    from textleak.judges.llm import label_probabilities

    assert label_probabilities([-1.0, float("nan"), -2.0]) is None  # never "label 2 is impossible"
    assert label_probabilities([-1.0, float("-inf"), -1.0]) == pytest.approx([0.5, 0.0, 0.5])


def test_replicas_share_the_work_and_a_dead_one_does_not_fail_the_run(server, second_server, tmp_path):
    lm = make(f"{server},{second_server}", tmp_path, max_concurrency=2)
    assert lm.base_urls == [server, second_server]
    prompts = [f"slow record {i}" for i in range(16)]
    out = lm.generate(prompts, temperature=0.5, seed=list(range(16)))
    assert [o[0] for o in out] == [f"echo[slow record {i}] seed={i} i=0 END tail" for i in range(16)]
    ports = [r["port"] for r in FakeOpenAI.seen]
    assert len(set(ports)) == 2 and min(ports.count(p) for p in set(ports)) >= 4  # both replicas worked
    assert max(FakeOpenAI.peak.values()) <= 2  # max_concurrency holds per endpoint
    assert sum(FakeOpenAI.peak.values()) >= 3  # and the replicas add up (4 slots in all)

    dead = _dead_url()
    lm = make([dead, server], tmp_path / "dead", max_retries=2)
    out = lm.generate([f"record {i}" for i in range(12)], on_error="raise")
    assert all(o[0].startswith("echo[record") for o in out)
    stats = {s["url"]: s for s in lm.endpoint_stats}
    assert stats[dead]["failures"] >= 1 and stats[dead]["failures"] == stats[dead]["requests"]
    assert stats[server]["requests"] - stats[server]["failures"] == 12
    assert OpenAICompatibleLM("m", f"{server}, {dead}").fingerprint() == OpenAICompatibleLM("m", [dead, server]).fingerprint()
    with pytest.raises(ValueError, match="twice"):
        OpenAICompatibleLM("m", [server, server + "/"])


def test_api_key_is_stripped_and_scrubbed_before_the_cut(server, tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("TEXTLEAK_TEST_KEY", SECRET + "\n")
    lm = make(server, tmp_path, max_retries=1)
    with caplog.at_level(logging.DEBUG):
        assert lm.generate(["hello"]) == [["echo[hello] seed=- i=0 END tail"]]  # the key was accepted
        assert lm.generate(["leak it"], on_error="none") == [[None]]
    assert FakeOpenAI.seen[0]["auth"] == f"Bearer {SECRET}"
    assert "leak" in caplog.text and SECRET[:8] not in caplog.text


def test_greedy_walk_extends_a_path_cut_by_its_budget(server, tmp_path):
    lm = make(server, tmp_path)
    [[three, one]] = lm.score([[{"role": "user", "content": "spell it"}]], ["Rating: 3", "Rating: 1"])
    assert three == pytest.approx(-0.8) and one == pytest.approx(-0.7 - 1.0)
    assert [r["body"]["max_tokens"] for r in FakeOpenAI.seen] == [len("Rating: 3") // 3 + 2, len("Rating: 3") + 1]
