"""ICL with blocking on the fixture with the real embedded Gemma 3 270M (slow: a real model)."""

import pytest

from textleak.controlled.generator import ControlledGenerator
from textleak.data.tab import tab_records
from textleak.metrics.entity_leakage import EntityLeakage

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def gemma():
    from textleak.llm import load_llm

    return load_llm("embedded")


def test_banned_phrase_is_never_produced_even_when_the_model_would_copy_it(gemma):
    prompt = "Mr Arvid Kellerman. Mr Arvid Kellerman. Mr Arvid Kellerman. Mr Arvid"
    free = gemma.generate([prompt], max_new_tokens=6, temperature=0.0)[0][0]
    assert "kellerman" in free.lower()  # greedy Gemma copies the name
    blocked = gemma.generate([prompt], max_new_tokens=6, temperature=0.0, banned_phrases=["Kellerman"])[0][0]
    assert "kellerman" not in blocked.lower()


def test_icl_with_blocking_leaks_no_context_entity(gemma):
    gen = ControlledGenerator(model=gemma, mode="icl", block_private_tokens=True, max_new_tokens=24, seed=0)
    synthetic = gen.fit(tab_records(split="train")).generate(num_records=2, seed=0)
    assert synthetic["generation_status"] == ["ok", "ok"]
    assert all(len(t.split()) >= 5 for t in synthetic["text"])  # real text, not an empty pass
    result = EntityLeakage().compute(
        predictions=synthetic["text"], references=synthetic["references"], private_entities=synthetic["private_entities"]
    )
    assert result["num_entities"] > 10
    assert result["pipp"] == 0.0 and result["elp"] == 0.0
