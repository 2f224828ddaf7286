"""Start and stop a local llama.cpp OpenAI-compatible server (``python -m llama_cpp.server``).

``python -m textleak.llm.llamacpp_server <llama_cpp.server options>`` runs llama-cpp-python's server
with llama.cpp's extra CPU buffers off on AMX CPUs (they crash there, see
:func:`textleak.llm.llamacpp.resolve_extra_buffers`; ``TEXTLEAK_LLAMA_EXTRA_BUFFERS=1``/``0`` forces them).

Used by the tests and benchmarks to run the OpenAI backend against a real engine, and handy for
trying a model locally::

    with LlamaServer("embedded") as server:                    # the packaged Gemma 3 270M
        lm = load_llm(f"openai:gemma@{server.base_url}", **server.client_options())

The server binds to 127.0.0.1 only, on a free port, and gets a minimal environment (its settings are
pydantic settings that would also read variables such as ``HOST``, ``PORT``, ``API_KEY`` or ``MODEL``
from the environment). Chat messages are rendered server-side by a Jinja template equal to
:func:`textleak.llm.base.plain_chat` (the GGUF has no template; llama-cpp-python would otherwise fall
back to Llama-2 ``[INST]`` markers), so the server sees the prompts the in-process backends see.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

# the chat template of llama-cpp-python's "hf-tokenizer-config" handler, which appends an empty
# assistant message to open the answer; renders exactly textleak.llm.base.plain_chat
PLAIN_CHAT_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}"
    "{% if loop.last and m['role'] == 'assistant' and m['content'] == '' %}{{ '\\n\\nAssistant:' }}"
    "{% else %}{% if not loop.first %}{{ '\\n\\n' }}{% endif %}"
    "{{ {'system': 'System', 'user': 'User', 'assistant': 'Assistant'}[m['role']] }}: {{ m['content'] }}"
    "{% endif %}{% endfor %}"
)

# decoding equal to the other backends (the server's request defaults are top-k 40, min-p 0.05 and a
# repetition penalty of 1.1, even at temperature 0)
NEUTRAL_SAMPLING = {"top_k": 0, "min_p": 0.0, "repeat_penalty": 1.0}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LlamaServer:
    """A ``llama_cpp.server`` subprocess on 127.0.0.1; a context manager (``start``/``stop``).

    ``model``: "embedded" or a GGUF path. ``n_ctx``: context per request; ``logits_all``: needed for
    log-probs (it keeps an ``n_ctx x vocabulary`` float32 matrix: 2 GB for Gemma 3 at 2048);
    ``n_threads``; ``api_key`` (the server then requires it; checked as the OpenAI client checks its key:
    surrounding whitespace stripped, :class:`~textleak.llm.openai_compat.APIKeyError` for whitespace,
    control or non-ASCII characters inside); ``extra_args`` (more CLI flags);
    ``log_path`` (the server's stdout/stderr; a temporary file by default); ``extra_buffers``
    (see :func:`textleak.llm.llamacpp.resolve_extra_buffers`).
    """

    def __init__(self, model: str = "embedded", *, n_ctx: int = 2048, logits_all: bool = True, n_threads: int | None = None,
                 api_key: str | None = None, port: int | None = None, chat_template: str | None = PLAIN_CHAT_TEMPLATE,
                 bos_token: str = "<bos>", eos_token: str = "<eos>", extra_args: list[str] | None = None,
                 log_path: str | os.PathLike | None = None, startup_timeout: float = 180.0,
                 extra_buffers: bool | None = None):
        self.model = model
        self.n_ctx = int(n_ctx)
        self.logits_all = bool(logits_all)
        self.n_threads = n_threads
        if api_key is not None:  # malformed, it would fail the health check locally, retried until the timeout
            from textleak.llm.openai_compat import check_api_key

            api_key = check_api_key(api_key, source="LlamaServer(api_key=...)") or None
        self.api_key = api_key
        self.port = port
        self.chat_template = chat_template
        self.bos_token = bos_token
        self.eos_token = eos_token
        self.extra_args = list(extra_args or [])
        self.log_path = Path(log_path) if log_path else None
        self.startup_timeout = float(startup_timeout)
        self.extra_buffers = extra_buffers
        self.model_alias = "gemma-3-270m" if model == "embedded" else Path(model).stem
        self._proc: subprocess.Popen | None = None
        self._tmp: tempfile.TemporaryDirectory | None = None
        self.startup_seconds: float | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def client_options(self) -> dict[str, Any]:
        """Options for :class:`~textleak.llm.openai_compat.OpenAICompatibleLM` that make this server
        decode and score like the other backends."""
        return {"extra_body": dict(NEUTRAL_SAMPLING), "logprob_method": "greedy"}

    def command(self) -> list[str]:
        if self.model == "embedded":
            from textleak.llm.embedded_gguf import embedded_gguf_path

            path = str(embedded_gguf_path())
        else:
            path = str(Path(self.model).expanduser().resolve())
        cmd = [sys.executable, "-m", "textleak.llm.llamacpp_server", "--model", path, "--model_alias", self.model_alias,
               "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self.n_ctx),
               "--logits_all", str(self.logits_all), "--verbose", "False", "--use_mlock", "False"]
        if self.n_threads:
            cmd += ["--n_threads", str(self.n_threads), "--n_threads_batch", str(self.n_threads)]
        if self.chat_template is not None:
            assert self._tmp is not None
            config = Path(self._tmp.name) / "tokenizer_config.json"
            config.write_text(json.dumps({"chat_template": self.chat_template, "bos_token": self.bos_token,
                                          "eos_token": self.eos_token}))
            cmd += ["--chat_format", "hf-tokenizer-config", "--hf_tokenizer_config_path", str(config)]
        return cmd + self.extra_args

    def start(self) -> "LlamaServer":
        import httpx

        try:
            import llama_cpp.server  # noqa: F401
        except ImportError as e:
            raise ImportError("the llama.cpp server needs llama-cpp-python[server]: pip install 'textleak[llamacpp]'") from e
        if self.port is None:
            self.port = free_port()
        self._tmp = tempfile.TemporaryDirectory(prefix="textleak-llama-server-")
        log = self.log_path or Path(self._tmp.name) / "server.log"
        self.log_path = log
        env = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "LC_ALL", "PYTHONPATH", "TMPDIR", "OMP_NUM_THREADS")
               if k in os.environ}
        env.update(HOST="127.0.0.1", PORT=str(self.port))
        if self.extra_buffers is not None:
            env["TEXTLEAK_LLAMA_EXTRA_BUFFERS"] = "1" if self.extra_buffers else "0"
        if self.api_key:
            env["API_KEY"] = self.api_key  # read by the server's settings; never on the command line
        started = time.perf_counter()
        with open(log, "ab") as out:
            self._proc = subprocess.Popen(self.command(), stdout=out, stderr=subprocess.STDOUT, env=env,
                                          stdin=subprocess.DEVNULL)
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                tail = Path(log).read_text(errors="replace")[-3000:]
                raise RuntimeError(f"llama.cpp server exited with {self._proc.returncode}:\n{tail}")
            try:
                if httpx.get(f"{self.base_url}/models", headers=headers, timeout=2.0).status_code == 200:
                    self.startup_seconds = time.perf_counter() - started
                    logger.info("llama.cpp server ready at %s in %.1f s", self.base_url, self.startup_seconds)
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise TimeoutError(f"llama.cpp server not ready after {self.startup_timeout:.0f} s (log: {log})")

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=15)

    def __enter__(self) -> "LlamaServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


def main() -> None:
    """``llama_cpp.server``'s command line, with the extra-buffer policy applied."""
    from textleak.llm.llamacpp import model_params_patch, resolve_extra_buffers

    flag = os.environ.get("TEXTLEAK_LLAMA_EXTRA_BUFFERS")
    extra = resolve_extra_buffers(None if flag is None else flag not in ("0", "false", "False", ""))
    from llama_cpp.server.__main__ import main as server_main

    with model_params_patch(extra):  # the model is loaded inside: the patch must hold until it is
        server_main()


if __name__ == "__main__":
    main()
