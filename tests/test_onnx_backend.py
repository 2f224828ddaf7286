"""The benchmark's ONNX Runtime forward (benchmarks/_onnx_backend.py) computes what the torch forward
computes, so bench_judges_speed.py --backends compares speed at equal ratings. Skipped where
onnxruntime or onnx is not installed (neither is a textleak dependency)."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")
pytestmark = pytest.mark.usefixtures("one_torch_thread")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

PAIRS = [
    ("The patient has a fever of 38.5 C.", "She presents with a temperature of 38.5 C and a cough for 3 days."),
    ("The patient is 45 years old.", "A 45-year-old man comes to the emergency department."),
    ("The patient takes lisinopril.", "Her medications include metformin."),
    ("The patient does not smoke.", "He has smoked one pack a day for 20 years, and drinks alcohol on weekends with friends."),
]


def test_onnx_forward_rates_like_torch(tmp_path):
    """Probabilities of the NLI cross-encoder through ONNX Runtime equal torch's (fp32, 1e-4), in one
    padded batch and one pair at a time: the export keeps the attention mask (a graph that ignores it
    lets padded pairs read their padding: 2.4e-3 apart here)."""
    from _onnx_backend import OnnxForward, export_path

    from textleak.judges.nli import NLIModel

    model = NLIModel()
    torch_probs = model.predict(PAIRS, batch_size=8)
    onnx = OnnxForward(model.model, threads=1, folder=tmp_path)
    assert onnx.path == export_path(model.model, tmp_path) and onnx.path.is_file()
    model.model.forward = onnx
    try:
        batched = model.predict(PAIRS, batch_size=8)
        alone = np.vstack([model.predict([p]) for p in PAIRS])
    finally:
        del model.model.forward
    assert np.abs(batched - torch_probs).max() < 1e-4
    assert np.abs(alone - torch_probs).max() < 1e-4
    assert (batched.argmax(1) == torch_probs.argmax(1)).all()
