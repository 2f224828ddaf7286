"""Shared test set-up: offline Hugging Face, an isolated result cache per session, the shared data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_EVALUATE_OFFLINE"):
    os.environ.setdefault(var, "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("TEXTLEAK_SHARED", REPO.parent / "shared"))


@pytest.fixture(scope="session", autouse=True)
def _isolated_cache(tmp_path_factory):
    """Result caches (LLM answers, claims) start empty for each test session; converted models
    (``TEXTLEAK_MODEL_CACHE``) are kept so the embedded model is converted once per machine."""
    old = os.environ.get("TEXTLEAK_CACHE_DIR")
    os.environ["TEXTLEAK_CACHE_DIR"] = str(tmp_path_factory.mktemp("textleak_cache"))
    yield
    if old is None:
        os.environ.pop("TEXTLEAK_CACHE_DIR", None)
    else:
        os.environ["TEXTLEAK_CACHE_DIR"] = old


@pytest.fixture(scope="module")
def one_torch_thread():
    """torch on one thread for a module's tests (``pytestmark = pytest.mark.usefixtures(...)``): tiny
    models run fastest on one thread, and the CI machine's cores are shared."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data``: real samples read in place (never copied into the repo)."""
    path = SHARED / "data"
    if not path.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"shared data not found at {path}: CI must have ../shared beside the checkout")
        pytest.skip(f"shared data not found at {path} (set TEXTLEAK_SHARED)")
    return path


@pytest.fixture(scope="session")
def llama_server():
    """A real llama.cpp OpenAI-compatible server (llama-cpp-python) with the packaged Gemma 3 270M
    GGUF, on a free 127.0.0.1 port for the whole session; stopped at the end."""
    try:
        import llama_cpp.server  # noqa: F401
    except ImportError as e:
        pytest.skip(f"llama-cpp-python[server] is not importable ({e}); pip install 'textleak[llamacpp]'")
    from textleak.llm.llamacpp_server import LlamaServer

    with LlamaServer("embedded", n_ctx=2048, n_threads=1) as server:
        yield server


def copied_from_medqa_sample(rows: list[dict], shared_data: Path, width: int) -> list[tuple[str, str]]:
    """(id, run) for every row whose claim or document holds a ``width``-character run of a line of the
    shared MedQA sample's questions (labelled sets must be written, not copied); skips without the sample."""
    import json

    path = shared_data / "medqa" / "sampled_50.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    windows = set()
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            for text_line in json.loads(line)["question"].split("\n"):
                windows.update(text_line[i : i + width] for i in range(len(text_line) - width + 1))
    assert windows
    return [(row["id"], text[i : i + width]) for row in rows for text in (row["claim"], row["document"])
            for i in range(len(text) - width + 1) if text[i : i + width] in windows]
