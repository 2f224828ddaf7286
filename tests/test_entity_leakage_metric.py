"""The entity_leakage evaluate module: direct use, evaluate.load of the Space folder, doctests."""

import doctest
from pathlib import Path

import pytest

from textleak.metrics import entity_leakage as module
from textleak.metrics.entity_leakage import EntityLeakage

REPO = Path(__file__).resolve().parent.parent


def test_icl_setting_with_rouge():
    leak = EntityLeakage()
    r = leak.compute(
        predictions=["Ms Ann Lee paid $87,500.", "Nothing here."],
        references=[["Ann Lee paid $87,500.", "unrelated words"], "Nothing here."],
        private_entities=[["Ann Lee", "$87,500", "Oslo"], ["Bob"]],
    )
    assert r["setting"] == "icl"
    assert r["pipp"] == 0.5
    assert r["elp"] == pytest.approx((2 / 3 + 0) / 2)
    assert r["elp_released"] == pytest.approx((1 / 3 + 0) / 2)  # \b misses $87,500
    # prediction 1 vs its best reference: tokens [ms ann lee paid 87 500] vs [ann lee paid 87 500]
    # bigrams 5 vs 4, 4 shared -> F = 2*(4/5)(4/4)/(4/5+1) = 8/9; prediction 2 identical -> 1
    assert r["rouge2"] == pytest.approx((8 / 9 + 1) / 2)
    assert r["rougeL"] == pytest.approx(((2 * (5 / 6) * 1) / (5 / 6 + 1) + 1) / 2)


def test_fine_tuning_setting_uses_all_training_entities_and_max_over_training_texts():
    leak = EntityLeakage()
    train = ["Ann Lee lives in Oslo.", "Bob Stone works here."]
    r = leak.compute(
        predictions=["Bob Stone works here.", "A new text."],
        references=train,
        private_entities=[["Ann Lee", "Oslo"], ["Bob Stone"]],
        setting="fine_tuning",
    )
    assert r["pipp"] == 0.5 and r["elp"] == pytest.approx(1 / 3)
    assert r["leaked_entities"] == ["Bob Stone"]
    assert r["elp_unique_over_predictions"] == pytest.approx(1 / 2)
    # prediction 1 copies training text 2 exactly (1.0); prediction 2 shares nothing (0.0)
    assert r["rouge2"] == pytest.approx(0.5) and r["rougeL"] == pytest.approx(0.5)


def test_add_batch_then_compute_and_failed_generations_are_errors():
    leak = EntityLeakage()
    leak.add_batch(predictions=["Ann here"])
    leak.add_batch(predictions=["nobody"])
    assert leak.compute(private_entities=["Ann"])["pipp"] == 0.5
    with pytest.raises(TypeError, match="prediction 1"):
        EntityLeakage().compute(predictions=["a", None], private_entities=[["x"], ["y"]])
    with pytest.raises(ValueError, match="private_entities"):
        EntityLeakage().compute(predictions=["a"])


def test_evaluate_load_of_the_space_folder(tmp_path, monkeypatch):
    import evaluate

    monkeypatch.setenv("HF_MODULES_CACHE", str(tmp_path / "modules"))
    leak = evaluate.load(str(REPO / "metrics" / "entity_leakage"))
    assert leak.name == "entity_leakage"
    r = leak.compute(predictions=["Paid 45% to Ann."], private_entities=[["45%", "Ann", "Eve"]])
    assert r["elp"] == pytest.approx(2 / 3)


def test_docstring_examples_run():
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = finder.find(module.EntityLeakage, "EntityLeakage", globs={"EntityLeakage": EntityLeakage})
    assert tests
    for t in tests:
        runner.run(t)
    assert runner.failures == 0


def test_card_has_front_matter_and_documents_every_argument():
    card = (REPO / "metrics" / "entity_leakage" / "README.md").read_text()
    assert card.startswith("---\ntitle: Entity Leakage\n")
    for arg in ("private_entities", "setting", "boundary", "deduplicate", "use_stemmer", "perplexity_model", "mauve_references", "mauve_features"):
        assert f"**{arg}**" in card
