"""benchmarks/soup_nli_adapters.py, which built the shipped NLI adapter (2026-11-27): the mix of two LoRA
adapters must be exactly (1 - alpha) dW_old + alpha dW_new on every target, and the judge must load it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

torch = pytest.importorskip("torch")


def _adapter(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    key = "base_model.model.encoder.layer.0.attention.self.query"
    return {f"{key}.lora_A.weight": torch.randn(4, 6, generator=g), f"{key}.lora_B.weight": torch.randn(6, 4, generator=g),
            "head.weight": torch.randn(3, 6, generator=g), "head.bias": torch.randn(3, generator=g)}


@pytest.mark.parametrize("alpha", [0.0, 0.5, 0.8, 1.0])
def test_the_mix_is_exactly_the_interpolated_update(alpha):
    from soup_nli_adapters import soup_state

    old, new = _adapter(0), _adapter(1)
    out = soup_state(old, new, alpha)
    a, b = (k for k in sorted(out) if ".lora_" in k)
    delta = lambda s: s[b] @ s[a]  # noqa: E731 - B A, the update up to the shared scale
    assert torch.allclose(delta(out), (1 - alpha) * delta(old) + alpha * delta(new), atol=1e-5)
    assert out[a].shape[0] == 8  # the rank doubles, so the scale alpha / r stays with lora_alpha doubled
    assert torch.allclose(out["head.weight"], (1 - alpha) * old["head.weight"] + alpha * new["head.weight"])


def test_adapters_of_other_shapes_are_refused():
    from soup_nli_adapters import soup_state

    new = _adapter(1)
    new.pop("head.bias")
    with pytest.raises(ValueError, match="same weights"):
        soup_state(_adapter(0), new, 0.5)


def test_a_soup_of_the_shipped_adapter_with_itself_rates_as_it_does(tmp_path):
    from soup_nli_adapters import soup

    from textleak.judges.nli import WEIGHTS_DIR, load_nli_model

    out = soup(WEIGHTS_DIR, WEIGHTS_DIR, tmp_path / "mix", 0.3)
    pairs = [("The patient is 54 years old.", "A 54-year-old man presents with chest pain."),
             ("The user lives in Leeds.", "I moved from Leeds to York last year.")]
    assert load_nli_model(out).predict(pairs) == pytest.approx(load_nli_model().predict(pairs), abs=2e-3)
