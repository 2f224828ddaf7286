"""An encoder checkpoint stored in fp16 loads in float32 on a CPU and rates like the fp32 one (it used
to crash the NLI judge: 'mat1 and mat2 must have the same dtype'); float16 is refused on a CPU, and bfloat16
is the default only where the CPU multiplies it in hardware."""

from __future__ import annotations

import numpy as np
import pytest

from textleak.encoders import default_encoder_path, encoder_dtype, load_sentence_encoder

DOC = ("A 58-year-old man comes to the emergency room because of fever and a cough for 3 days. He has smoked a pack "
       "of cigarettes a day for 30 years. His temperature is 39.4°C and his pulse is 112/min.")
CLAIMS = ["He has smoked for 30 years.", "His pulse is 80/min.", "He is 58 years old.", "She works as a pilot."]


@pytest.fixture(scope="module")
def fp16_checkpoint(tmp_path_factory):
    """The packaged MiniLM saved as an fp16 checkpoint (weights and config say float16)."""
    import torch
    from sentence_transformers import SentenceTransformer

    path = tmp_path_factory.mktemp("minilm-fp16")
    model = SentenceTransformer(default_encoder_path(), device="cpu")
    model.half().save(str(path))
    from safetensors import safe_open

    with safe_open(str(path / "model.safetensors"), "pt") as f:
        assert {f.get_tensor(k).dtype for k in f.keys()} == {torch.float16}
    return str(path)


def test_fp16_checkpoint_loads_in_float32_for_the_bi_encoder(fp16_checkpoint):
    import torch

    model = load_sentence_encoder(fp16_checkpoint, "cpu")
    assert {p.dtype for p in model.parameters()} == {torch.float32}
    from textleak.judges.embedding import EmbeddingJudge

    half, full = EmbeddingJudge(encoder=fp16_checkpoint).match([CLAIMS], [DOC])[0], EmbeddingJudge().match([CLAIMS], [DOC])[0]
    assert np.allclose([r["similarity"] for r in half], [r["similarity"] for r in full], atol=2e-3)
    assert [r["span"] for r in half] == [r["span"] for r in full]


def test_fp16_checkpoint_rates_like_fp32_in_the_nli_model(fp16_checkpoint):
    import torch
    from textleak.judges.nli import NLIModel

    pairs = [(c, DOC.split(". ")[1]) for c in CLAIMS]
    half = NLIModel(encoder_path=fp16_checkpoint)
    assert {p.dtype for p in half.model.parameters()} == {torch.float32}
    p_half, p_full = half.predict(pairs), NLIModel().predict(pairs)
    assert np.allclose(p_half, p_full, atol=5e-3)  # the fp16 rounding of the stored weights only
    assert (p_half.argmax(1) == p_full.argmax(1)).all()


def test_float16_is_refused_on_a_cpu_and_half_precision_accepted_for_a_gpu():
    assert encoder_dtype(None, None) == "float32" and encoder_dtype("fp32", "cpu") == "float32"
    assert encoder_dtype("fp16", "cuda") == "float16" and encoder_dtype("bf16", "cuda:1") == "bfloat16"
    assert encoder_dtype("bf16", "cpu") == "bfloat16"  # fast where the CPU multiplies it in hardware (auto_dtype)
    with pytest.raises(ValueError, match="needs a GPU"):
        encoder_dtype("float16", "cpu")
    with pytest.raises(ValueError, match="must be one of"):
        encoder_dtype("int4", "cuda")


@pytest.mark.parametrize("amx, device, expected", [(True, None, "bfloat16"), (True, "cpu", "bfloat16"), (True, "CPU", "bfloat16"), (False, None, "float32"),
                                                   (True, "cuda", "float32"), (True, "cuda:0", "float32")])
def test_auto_dtype_is_bfloat16_only_on_a_cpu_that_multiplies_it(monkeypatch, amx, device, expected):
    import textleak.encoders as encoders

    monkeypatch.setattr(encoders, "cpu_multiplies_bf16", lambda: amx)
    assert encoders.auto_dtype(device) == expected


def test_the_nli_judge_resolves_its_dtype_and_says_it(monkeypatch):
    import textleak.encoders as encoders
    from textleak.judges.nli import NLIJudge

    for amx, expected in ((True, "bfloat16"), (False, "float32")):
        monkeypatch.setattr(encoders, "cpu_multiplies_bf16", lambda amx=amx: amx)
        judge = NLIJudge()
        assert judge.dtype == expected and judge.matcher.dtype == expected and judge._default_settings()
        assert judge.describe().get("dtype", "float32") == expected  # part of every rating cache key
        assert NLIJudge(dtype="float32").dtype == "float32" and NLIJudge(int8=True).dtype == "float32"
    with pytest.raises(ValueError, match="needs a GPU"):
        NLIJudge(dtype="float16")


def test_bfloat16_rates_like_float32_on_easy_pairs():
    """The cross-encoder in bfloat16 on a CPU: probabilities within bf16 rounding, the same ratings."""
    from textleak.judges.nli import NLIModel

    pairs = [(c, DOC.split(". ")[1]) for c in CLAIMS] + [(c, DOC) for c in CLAIMS]
    p_bf16, p_fp32 = NLIModel(dtype="bfloat16").predict(pairs), NLIModel(dtype="float32").predict(pairs)
    assert np.allclose(p_bf16, p_fp32, atol=0.05)
    assert (p_bf16.argmax(1) == p_fp32.argmax(1)).all()


def test_a_misspelt_dtype_is_refused_with_int8_too():
    """int8 runs float32, but a dtype it cannot be is still an error, not ignored (it was refused before
    bfloat16 became the CPU default)."""
    from textleak.judges.nli import NLIJudge, load_nli_model

    with pytest.raises(ValueError, match="must be one of"):
        NLIJudge(int8=True, dtype="int4")
    with pytest.raises(ValueError, match="must be one of"):
        load_nli_model(int8=True, dtype="int4")
    with pytest.raises(ValueError, match="needs a GPU"):
        NLIJudge(int8=True, dtype="float16")
    assert NLIJudge(int8=True, dtype="bfloat16").dtype == "float32"


def test_auto_dtype_reads_a_torch_device(monkeypatch):
    import torch

    import textleak.encoders as encoders

    monkeypatch.setattr(encoders, "cpu_multiplies_bf16", lambda: True)
    assert encoders.auto_dtype(torch.device("cpu")) == "bfloat16" and encoders.auto_dtype(torch.device("cuda", 0)) == "float32"


def test_batch_sizes_follow_the_dtype_unless_given(monkeypatch):
    """In bfloat16 on a CPU the judge batches 128 cross-encoder pairs and 64 bi-encoder texts (AMX tiles
    want full batches), 32 and 16 in float32; given sizes are kept, and in bfloat16, where a pair's
    probabilities depend slightly on its batch, the sizes are part of the cache key."""
    import textleak.encoders as encoders
    from textleak.judges.nli import NLIJudge

    assert encoders.auto_batch_sizes("bfloat16", "cpu") == (128, 64) and encoders.auto_batch_sizes("bfloat16", "cuda") == (32, 16)
    assert encoders.auto_batch_sizes("float32", None) == (32, 16)
    monkeypatch.setattr(encoders, "cpu_multiplies_bf16", lambda: True)
    judge = NLIJudge()
    assert (judge.batch_size, judge.matcher.batch_size) == (128, 64) and judge.describe()["batch_sizes"] == [128, 64]
    given = NLIJudge(batch_size=8, encoder_batch_size=4)
    assert (given.batch_size, given.matcher.batch_size) == (8, 4) and given.describe()["batch_sizes"] == [8, 4]
    full = NLIJudge(dtype="float32")
    assert (full.batch_size, full.matcher.batch_size) == (32, 16) and "batch_sizes" not in full.describe()
