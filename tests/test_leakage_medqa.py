"""Acceptance on real MedQA records with the offline defaults (rule atomizer, BM25, the NLI judge):
identity leaks nearly everything and links correctly, removing everything leaks nothing, a sanitizer
that perturbs every number and age lands in between, and a release made of other patients' records
(the person's own record absent) scores near 1. The embedding judge keeps its figures beside it."""

from __future__ import annotations

import pytest

from sanitizers.record import change_numbers
from textleak.data.medqa import read_medqa_jsonl
from textleak.leakage import evaluate_leakage


@pytest.fixture(scope="module")
def medqa(shared_data):
    records = list(read_medqa_jsonl(shared_data / "medqa" / "sampled_50.jsonl"))
    return [r["text"] for r in records], [r["id"] for r in records]


@pytest.fixture(scope="module", params=["nli", "embedding"])
def judge(request):
    from textleak.judges import make_judge

    return make_judge(request.param)


def _evaluate(medqa, sanitized, judge):
    texts, ids = medqa
    return evaluate_leakage(texts, sanitized, original_ids=ids, judge=judge, empty_originals="skip", bootstrap=200)


@pytest.fixture(scope="module")
def reports(medqa, judge):
    return {
        "identity": _evaluate(medqa, medqa[0], judge),
        "remove_all": _evaluate(medqa, ["" for _ in medqa[0]], judge),
        "perturbed": _evaluate(medqa, [change_numbers(t) for t in medqa[0]], judge),
    }


def test_identity_is_linked_and_leaks(reports):
    r = reports["identity"]
    assert r.n_skipped == 1  # one sampled item is a single sentence: an empty profile
    assert r.linkage_rate >= 0.95
    assert r.semantic_privacy <= 0.10
    assert r.lexical_privacy <= 0.05


def test_remove_all_leaks_nothing(reports):
    r = reports["remove_all"]
    assert r.semantic_privacy == 1.0
    assert r.n_unlinked == r.n_records - r.n_skipped


def test_number_perturbation_lands_in_between(reports):
    ident, perturbed, empty = reports["identity"], reports["perturbed"], reports["remove_all"]
    assert change_numbers("A 62-year-old has 8,900 cells and 38.4 C") == "A 131-year-old has 17807 cells and 55.6 C"
    from textleak.registry import sanitizers

    assert sanitizers.get("numbers_changed")()(["A 62-year-old"])["sanitized"] == ["A 131-year-old"]  # the registered baseline
    assert ident.semantic_privacy < perturbed.semantic_privacy < empty.semantic_privacy
    assert perturbed.semantic_privacy - ident.semantic_privacy >= 0.1
    assert perturbed.linkage_rate >= 0.9  # words still link the records


def test_other_patients_records_are_private_to_the_nli_judge(medqa, judge):
    """Each half of the sample released as the other half: every link goes to someone else. The NLI
    judge reads that another patient's vitals, drugs and history are not this patient's (>= 0.90);
    the embedding judge, which reads topic, does not (it measured 0.71-0.77), and is not held to it."""
    texts = [t for t in medqa[0] if t.strip()]
    half = len(texts) // 2
    for originals, released in ((texts[:half], texts[half:]), (texts[half:], texts[:half])):
        r = evaluate_leakage(originals, released, alignment="none", judge=judge, bootstrap=0)
        assert r.n_unlinked == 0
        if judge.name == "nli":
            assert r.semantic_privacy >= 0.90
        else:
            assert r.semantic_privacy < 0.90  # the failure the NLI judge fixes; if this starts to hold, update docs/judges.md


def test_demo_vignettes_identity_remove_all_and_numbers(judge):
    from textleak.data.medqa import read_medqa_jsonl
    from textleak.data.vignettes import DEMO_PATH

    texts = [r["text"] for r in read_medqa_jsonl(DEMO_PATH)]
    ident = evaluate_leakage(texts, texts, alignment="index", judge=judge, bootstrap=0)
    gone = evaluate_leakage(texts, [""] * len(texts), alignment="index", judge=judge, bootstrap=0)
    perturbed = evaluate_leakage(texts, [change_numbers(t) for t in texts], alignment="index", judge=judge, bootstrap=0)
    assert ident.semantic_privacy <= 0.10 and gone.semantic_privacy == 1.0
    assert ident.semantic_privacy + 0.1 <= perturbed.semantic_privacy < gone.semantic_privacy
