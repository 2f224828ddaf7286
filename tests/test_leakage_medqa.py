"""Acceptance on real MedQA records with the offline defaults (rule atomizer, BM25, embedding judge):
identity leaks nearly everything and links correctly, removing everything leaks nothing, and a
sanitizer that perturbs every number and age lands in between."""

from __future__ import annotations

import re

import pytest

from textleak.data.medqa import read_medqa_jsonl
from textleak.leakage import evaluate_leakage


def perturb_numbers(text: str) -> str:
    """Change every number (ages, vitals, lab values) while keeping the rest of the record."""
    def shift(m: re.Match) -> str:
        value = m.group(0)
        if "." in value:
            return f"{float(value) * 1.37 + 3:.1f}"
        return str(int(value.replace(",", "")) * 2 + 7)

    return re.sub(r"\d+(?:,\d{3})*(?:\.\d+)?", shift, text)


@pytest.fixture(scope="module")
def medqa(shared_data):
    records = list(read_medqa_jsonl(shared_data / "medqa" / "sampled_50.jsonl"))
    return [r["text"] for r in records], [r["id"] for r in records]


@pytest.fixture(scope="module")
def judge():
    from textleak.judges import make_judge

    return make_judge("embedding")


def _evaluate(medqa, sanitized, judge):
    texts, ids = medqa
    return evaluate_leakage(texts, sanitized, original_ids=ids, judge=judge, empty_originals="skip", bootstrap=200)


@pytest.fixture(scope="module")
def reports(medqa, judge):
    return {
        "identity": _evaluate(medqa, medqa[0], judge),
        "remove_all": _evaluate(medqa, ["" for _ in medqa[0]], judge),
        "perturbed": _evaluate(medqa, [perturb_numbers(t) for t in medqa[0]], judge),
    }


def test_identity_is_linked_and_leaks(reports):
    r = reports["identity"]
    assert r.n_skipped == 1  # one sampled item is a single sentence: an empty profile
    assert r.linkage_rate >= 0.95
    assert r.semantic_privacy <= 0.15
    assert r.lexical_privacy <= 0.05


def test_remove_all_leaks_nothing(reports):
    r = reports["remove_all"]
    assert r.semantic_privacy >= 0.9
    assert r.n_unlinked == r.n_records - r.n_skipped


def test_number_perturbation_lands_in_between(reports):
    ident, perturbed, empty = reports["identity"], reports["perturbed"], reports["remove_all"]
    assert perturb_numbers("A 62-year-old has 8,900 cells and 38.4 C") == "A 131-year-old has 17807 cells and 55.6 C"
    assert ident.semantic_privacy < perturbed.semantic_privacy < empty.semantic_privacy
    assert perturbed.semantic_privacy - ident.semantic_privacy >= 0.1
    assert perturbed.linkage_rate >= 0.9  # words still link the records
