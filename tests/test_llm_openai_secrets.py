"""Issue 27, item 7: API keys with surrounding or inner whitespace and control characters never reach a
log or an exception, and errors raised on this side are not retried. The HTTP layer is an
``httpx.MockTransport`` (what the fake server would see), so every attempt is counted exactly."""

from __future__ import annotations

import json
import logging
from urllib.parse import quote

import httpx
import pytest

from textleak.cache import DiskCache
from textleak.llm import LLMError
from textleak.llm.openai_compat import APIKeyError, OpenAICompatibleLM

VAR = "TEXTLEAK_SECRET_TEST_KEY"
CORE = "sk-proj-Zq8Very-Secret-Key-4711"


def _forms(raw: str) -> list[str]:
    """What a leak of ``raw`` could look like in a message (written here independently of the scrubber)."""
    pieces = [p for p in raw.replace("\x07", " ").replace("\x7f", " ").replace("\x1b", " ").split() if len(p) >= 6]
    out = {raw.strip(), quote(raw.strip(), safe=""), repr(raw.strip().encode("utf-8", "replace"))[2:-1],
           json.dumps(raw.strip())[1:-1], repr(raw.strip())[1:-1]}
    return sorted(f for f in out | set(pieces) if len(f) >= 6)


def _assert_clean(raw: str, *texts: str) -> None:
    for text in texts:
        for form in _forms(raw):
            assert form not in text, f"{form!r} leaked into {text[:200]!r}"


class Transport:
    """Counts attempts; answers with ``respond(request)``."""

    def __init__(self, respond):
        self.respond = respond
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.respond(request)


def _lm(tmp_path, transport, **options) -> OpenAICompatibleLM:
    options = {"backoff": 0.0, "max_backoff": 0.0, **options}
    lm = OpenAICompatibleLM("m", "http://127.0.0.1:9/v1", api_key_env=VAR, **options)
    lm.cache = DiskCache("llm", root=tmp_path)
    lm._client = httpx.Client(transport=httpx.MockTransport(transport))
    return lm


def _ok(request):
    return httpx.Response(200, json={"choices": [{"index": 0, "message": {"content": "fine"}}]})


@pytest.mark.parametrize("raw", [CORE + "\n", " " + CORE, "\t" + CORE + "  \r\n"])
def test_surrounding_whitespace_is_stripped_and_echoes_are_scrubbed(raw, tmp_path, monkeypatch, caplog):
    monkeypatch.setenv(VAR, raw)

    def echo_key(request):  # a server that prints the header back in every form
        auth = request.headers["authorization"]
        if "fail" in request.content.decode():
            return httpx.Response(401, text=f"bad {auth} {quote(auth)} {auth.encode()!r} {json.dumps(auth)}")
        return _ok(request)

    t = Transport(echo_key)
    lm = _lm(tmp_path, t, max_retries=2)
    with caplog.at_level(logging.DEBUG):
        assert lm.generate(["hello"]) == [["fine"]]
        assert lm.generate(["please fail"], on_error="none") == [[None]]
        with pytest.raises(LLMError) as err:
            lm.generate(["fail again"])
    assert t.requests[0].headers["authorization"] == f"Bearer {CORE}"
    assert len(t.requests) == 3  # 401 is the request's fault: not retried
    _assert_clean(raw, caplog.text, str(err.value), repr(err.value))
    _assert_clean(raw, *(p.read_bytes().decode("utf-8", "replace") for p in tmp_path.iterdir()))


@pytest.mark.parametrize("raw", [
    "sk-proj-Zq8Very\nSecret-Key-4711",           # $(cat keyfile) of a two-line file
    "sk-proj-Zq8Very\r\nSecret-Key-4711\n",
    "sk-proj-Zq8Very Secret-Key-4711",
    "sk-proj-Zq8Very\x07Secret-Key-4711\x7f",
    "sk-proj-Zq8Very\x1b[0mSecret-Key-4711",
    "sk-proj-Zq8Very\u00e4Secret-Key-4711",
])
def test_malformed_keys_are_refused_in_one_line_without_the_key(raw, tmp_path, monkeypatch, caplog):
    monkeypatch.setenv(VAR, raw)
    with caplog.at_level(logging.DEBUG), pytest.raises(APIKeyError) as err:
        OpenAICompatibleLM("m", "http://127.0.0.1:9/v1", api_key_env=VAR)
    message = str(err.value)
    assert VAR in message and "\n" not in message
    _assert_clean(raw, message, repr(err.value), caplog.text)

    # a key that turns bad after construction: refused before any request, never retried
    monkeypatch.setenv(VAR, CORE)
    t = Transport(_ok)
    lm = _lm(tmp_path, t, max_retries=5)
    monkeypatch.setenv(VAR, raw)
    with caplog.at_level(logging.DEBUG), pytest.raises(APIKeyError) as err:
        lm.generate(["hello", "world"])
    assert t.requests == []
    _assert_clean(raw, str(err.value), caplog.text)


@pytest.mark.parametrize("error", [httpx.LocalProtocolError, httpx.UnsupportedProtocol, UnicodeEncodeError])
def test_local_errors_are_not_retried_and_are_scrubbed(error, tmp_path, monkeypatch, caplog):
    monkeypatch.setenv(VAR, CORE)

    def local(request):  # as h11 does: the header's bytes repr in the message
        value = request.headers.raw[-1][1] if request.headers.raw else b""
        message = f"Illegal header value {request.headers['authorization'].encode()!r} {value!r}"
        if error is UnicodeEncodeError:
            raise UnicodeEncodeError("ascii", request.headers["authorization"], 0, 1, message)
        raise error(message)

    t = Transport(local)
    lm = _lm(tmp_path, t, max_retries=5, backoff=5.0)
    with caplog.at_level(logging.DEBUG):
        assert lm.generate(["hello"], on_error="none") == [[None]]
    assert len(t.requests) == 1  # no retry, no backoff
    assert "local error, not retried" in caplog.text
    _assert_clean(CORE, caplog.text)


def test_network_errors_and_5xx_are_still_retried(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv(VAR, CORE)
    calls = {"n": 0}

    def flaky(request):
        calls["n"] += 1
        if calls["n"] == 1:
            raise httpx.ConnectError(f"connection refused for {request.headers['authorization']}")
        if calls["n"] == 2:
            return httpx.Response(503, text=f"busy {request.headers['authorization']}")
        return _ok(request)

    t = Transport(flaky)
    lm = _lm(tmp_path, t, max_retries=3)
    with caplog.at_level(logging.DEBUG):
        assert lm.generate(["hello"]) == [["fine"]]
    assert len(t.requests) == 3
    _assert_clean(CORE, caplog.text)
