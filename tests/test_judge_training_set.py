"""The hand-labelled training set of the NLI judge (textleak/judges/training/handwritten.jsonl,
docs/judges.md): schema, a split by case, and independence from the evaluation set and the shared
MedQA sample, so that training on it cannot inflate the figures measured on the evaluation set."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from textleak.judges.agreement import EVAL_SET, HANDWRITTEN_SET as HANDWRITTEN, LABELS, load_labelled_claims
CATEGORIES = {"verbatim", "paraphrase", "generalised_number", "generalised_term", "small_number_change", "contradicting_number",
              "negation", "antonym", "removed", "other_record", "masked", "partial", "unrelated"}
# round six (chat, logs, code, e-mails, forms, mixed language) adds the held-out chat set's categories
CATEGORIES_ROUND_SIX = {"value_verbatim", "unit_or_format", "typos", "translated"}


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    with open(HANDWRITTEN, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@pytest.fixture(scope="module")
def eval_rows() -> list[dict]:
    with open(EVAL_SET, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def test_schema_and_every_category(rows):
    assert len(rows) >= 600
    for r in rows:
        assert r["gold"] in LABELS and r["category"] in CATEGORIES | CATEGORIES_ROUND_SIX and r["split"] in ("train", "test"), r["id"]
        assert r["claim"].strip() and r["document"].strip() and r["note"].strip(), r["id"]
    assert len({r["id"] for r in rows}) == len(rows)
    assert set(Counter(r["category"] for r in rows)) == CATEGORIES | CATEGORIES_ROUND_SIX


def test_split_is_by_case_and_holds_every_writer(rows):
    split_of: dict[str, set[str]] = {}
    for r in rows:
        split_of.setdefault(r["case"], set()).add(r["split"])
    assert all(len(s) == 1 for s in split_of.values()), "a case in both splits"
    writers_in_test = {r["case"].split("-")[0] for r in rows if r["split"] == "test"}
    assert writers_in_test == {r["case"].split("-")[0] for r in rows}
    assert sum(r["split"] == "test" for r in rows) / len(rows) >= 0.1
    assert len(load_labelled_claims(HANDWRITTEN, split="train")) + len(load_labelled_claims(HANDWRITTEN, split="test")) == len(rows)


def test_the_shipped_adapter_was_trained_on_this_train_split():
    """Rows added after the shipped adapter was trained (round five, docs/judges.md) are appended to
    the test split whole: the file the manifest hashes is this file's first lines, byte for byte, so
    benchmarks/train_nli_judge.py on this file still trains on what the manifest records, and every
    later writer is held out from the shipped adapter."""
    import hashlib

    from textleak.judges.nli import WEIGHTS_DIR

    target = json.loads((WEIGHTS_DIR / "manifest.json").read_text(encoding="utf-8"))["handwritten_sha256"]
    lines = HANDWRITTEN.read_bytes().splitlines(keepends=True)
    running, trained = hashlib.sha256(), None
    for n, line in enumerate(lines, 1):
        running.update(line)
        if running.hexdigest() == target:
            trained = n
    assert trained is not None, "no prefix of the file is the one the shipped adapter was trained on"
    assert all(json.loads(line)["split"] == "test" for line in lines[trained:] if line.strip())


def test_independent_of_the_evaluation_set(rows, eval_rows):
    """No document of the evaluation set, and no 60-character run of one, appears in the training set."""
    eval_docs = {r["document"] for r in eval_rows}
    assert not [r["id"] for r in rows if r["document"] in eval_docs]
    windows = {d[i : i + 60] for d in eval_docs for i in range(0, max(1, len(d) - 59))}
    copied = [(r["id"], r["document"][i : i + 60]) for r in rows for i in range(0, max(1, len(r["document"]) - 59))
              if r["document"][i : i + 60] in windows]
    assert not copied, copied[:5]


def test_nothing_copied_from_the_shared_medqa_sample(rows, shared_data):
    """60-character runs: at 40, USMLE stock phrases ("brought to the emergency department by") match."""
    from conftest import copied_from_medqa_sample

    copied = copied_from_medqa_sample(rows, shared_data, 60)
    assert not copied, copied[:5]


def test_cli_measures_a_judge_on_the_held_out_split(rows, tmp_path):
    from textleak.cli import main

    out = tmp_path / "report.json"
    assert main(["judge-agreement", "--judge", "lexical", "--labels", "handwritten", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["split"] == "test" and report["n"] == sum(r["split"] == "test" for r in rows)
