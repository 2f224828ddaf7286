"""The hand-written judge evaluation set (issue 13, docs/judge_eval_set.md): schema, labels, coverage,
no copying from the shared MedQA sample, and the per-category report of ``judge-agreement``."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from textleak.judges.agreement import EVAL_SET, agreement, load_labelled_claims, per_category_accuracy

FIELDS = {"id", "domain", "category", "claim", "document", "gold", "note"}
DOMAINS = {"medqa": "med", "wildchat": "wc", "pii": "pii"}
# category -> (id abbreviation, usual gold label)
CATEGORIES = {
    "verbatim": ("verb", 1),
    "paraphrase": ("para", 1),
    "generalised_number": ("gnum", 2),
    "generalised_term": ("gterm", 2),
    "small_number_change": ("small", 2),
    "contradicting_number": ("contra", 3),
    "negation": ("neg", 3),
    "antonym": ("ant", 3),
    "removed": ("rem", 3),
    "other_record": ("other", 3),
    "masked": ("mask", 3),
    "partial": ("part", 2),
    "unrelated": ("unrel", 3),
}
EXCEPTION = "Exception: "


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    with open(EVAL_SET, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def test_every_row_has_the_schema(rows):
    for row in rows:
        assert set(row) == FIELDS, row.get("id")
        assert row["domain"] in DOMAINS, row["id"]
        assert row["category"] in CATEGORIES, row["id"]
        assert row["gold"] in (1, 2, 3) and isinstance(row["gold"], int), row["id"]
        for key in ("id", "claim", "document", "note"):
            assert isinstance(row[key], str) and row[key].strip(), (row["id"], key)
        assert "\n" not in row["claim"] and "\n" not in row["note"], row["id"]
        assert len(row["note"]) <= 200, row["id"]
        assert len(row["document"]) > 2 * len(row["claim"]), row["id"]  # a record, not a restated claim


def test_ids_are_unique_and_name_domain_and_category(rows):
    ids = [row["id"] for row in rows]
    assert len(ids) == len(set(ids)), [i for i, k in Counter(ids).items() if k > 1]
    for row in rows:
        m = re.fullmatch(r"([a-z]+)-([a-z]+)-(\d{3})", row["id"])
        assert m, row["id"]
        assert m.group(1) == DOMAINS[row["domain"]] and m.group(2) == CATEGORIES[row["category"]][0], row["id"]


def test_gold_is_the_category_label_unless_the_note_explains(rows):
    exceptions: Counter = Counter()
    for row in rows:
        usual = CATEGORIES[row["category"]][1]
        if row["gold"] != usual:
            assert row["note"].startswith(EXCEPTION), f"{row['id']}: gold {row['gold']} for {row['category']} needs an '{EXCEPTION}...' note"
            exceptions[row["category"]] += 1
        else:
            assert not row["note"].startswith(EXCEPTION), f"{row['id']}: 'Exception' note on the usual label"
    by_category = Counter(row["category"] for row in rows)
    for category, k in exceptions.items():
        assert k <= by_category[category] // 3, f"{category}: {k} exceptions, the category no longer means its label"
    # the hard cases the issue names are present: clinically meaningful small changes, coincidental same values
    assert exceptions["small_number_change"] >= 3 and exceptions["other_record"] >= 2 and exceptions["masked"] >= 2


def test_coverage_per_category_domain_and_total(rows):
    assert len(rows) >= 300
    by_category = Counter(row["category"] for row in rows)
    assert set(by_category) == set(CATEGORIES)
    for category, k in by_category.items():
        assert k >= 20, f"{category}: only {k} pairs"
    share = {d: k / len(rows) for d, k in Counter(row["domain"] for row in rows).items()}
    assert share["medqa"] >= 0.5 and share["wildchat"] >= 0.2 and share["pii"] >= 0.1, share
    assert {row["gold"] for row in rows} == {1, 2, 3}


def test_no_document_serves_more_than_six_pairs(rows):
    uses = Counter(row["document"] for row in rows)
    worst = max(uses.values())
    assert worst <= 6, [d[:60] for d, k in uses.items() if k == worst]
    assert len(uses) >= len(rows) // 5  # many documents, not a few reused ones


def test_verbatim_numbers_are_in_the_document(rows):
    from textleak.text import extract_numbers

    for row in rows:
        if row["category"] == "verbatim":
            missing = extract_numbers(row["claim"], count_word_one=False) - extract_numbers(row["document"])
            assert not missing, (row["id"], missing)


def test_the_library_reader_loads_it_with_categories(rows):
    items = load_labelled_claims(EVAL_SET)
    assert len(items) == len(rows)
    assert [it.category for it in items] == [row["category"] for row in rows]
    assert [it.id for it in items] == [row["id"] for row in rows]
    assert {it.domain for it in items} == set(DOMAINS)


def test_nothing_copied_from_the_shared_medqa_sample(rows, shared_data):
    """No 40-character run of any line of the sample's questions appears in a claim or document."""
    from conftest import copied_from_medqa_sample

    copied = copied_from_medqa_sample(rows, shared_data, 40)
    assert not copied, copied[:10]


# ---- per-category accuracy in the agreement report ------------------------------------------------
def test_per_category_accuracy_hand_computed():
    gold = [1, 1, 3, 3, 3, 2]
    pred = [1, 2, 3, 1, None, 2]
    cats = ["verbatim", "verbatim", "negation", "negation", "negation", None]
    out = per_category_accuracy(gold, pred, cats)
    assert set(out) == {"verbatim", "negation"}  # uncategorised items are left out
    assert out["verbatim"] == {"n": 2, "n_unparsed": 0, "accuracy": 0.5, "judge_counts": [1, 1, 0], "gold_counts": [2, 0, 0]}
    assert out["negation"]["n"] == 2 and out["negation"]["n_unparsed"] == 1 and out["negation"]["accuracy"] == 0.5
    assert out["negation"]["judge_counts"] == [1, 0, 1]
    report = agreement(gold, pred, categories=cats)
    assert report.per_category == out
    assert "| negation | 2 | 0.5000 | 1/0/1 | 0/0/2 |" in report.to_markdown()
    assert agreement(gold, pred).per_category == {}  # no categories: no table
    with pytest.raises(ValueError):
        per_category_accuracy(gold, pred, cats[:-1])


def test_cli_reports_the_eval_set_by_category(tmp_path, capsys):
    from textleak.cli import main

    out = tmp_path / "report.json"
    assert main(["judge-agreement", "--judge", "lexical", "--labels", "eval", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["split"] == "all" and report["n"] >= 300
    assert set(report["per_category"]) == set(CATEGORIES)
    assert sum(c["n"] for c in report["per_category"].values()) == report["n"]
    printed = capsys.readouterr().out
    assert "| category | n | accuracy |" in printed and "| unrelated |" in printed
