"""MedQA records: the private patient profile is the vignette without its final question sentence."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator

_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])|\n+")
_QUESTION_END = re.compile(r"\?[\"']?(?=\s|$)")


def split_vignette(question: str) -> tuple[str, str]:
    """Split a MedQA ``question`` field into (profile, final question sentence).

    The question is the last sentence ending in "?" (a few MedQA items put a lab table after it; the
    table stays in the profile). Without a "?", it is the text after the last sentence boundary. A
    field with a single sentence has an empty profile.
    """
    text = question.strip()
    bounds = [0] + [m.end() for m in _BOUNDARY.finditer(text)]
    for start in reversed(bounds):
        end = _QUESTION_END.search(text, start)
        if end and not _BOUNDARY.search(text[start : end.start()]):
            before, after = text[:start].rstrip(), text[end.end():].strip()
            return (before + ("\n" + after if after else "")).strip(), text[start : end.end()].strip()
    last = None
    for m in _BOUNDARY.finditer(text):
        last = m
    if last is None:
        return "", text
    return text[: last.start()].rstrip(), text[last.end():].strip()


def medqa_record(raw: dict[str, Any], index: int) -> dict[str, Any]:
    """One MedQA line in the project's schema: id, text (the profile), question, options, answer."""
    if "question" not in raw or "options" not in raw:
        raise ValueError(f"MedQA record {index} lacks 'question' or 'options'")
    profile, question = split_vignette(raw["question"])
    options = raw["options"]
    if isinstance(options, list):  # [{key, value}, ...]
        options = {o["key"]: o["value"] for o in options}
    return {
        "id": str(raw.get("id", raw.get("realidx", index))),
        "text": profile,
        "question": question,
        "options": {k: options[k] for k in sorted(options)},
        "answer_idx": raw.get("answer_idx"),
        "answer": raw.get("answer"),
    }


def read_medqa_jsonl(path: str | Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(l for l in f if l.strip()):
            yield medqa_record(json.loads(line), i)


# ---- the dataset builder (additive: the functions above stay the contract) -------------------------
import datasets as _hf_datasets  # noqa: E402

from textleak.data._builder import TextleakBuilder, TextleakConfig, read_rows  # noqa: E402

MEDQA_OPTION_KEYS = ("A", "B", "C", "D")


class MedQA(TextleakBuilder):
    """MedQA (USMLE, 4 options) in the project's schema: ``id``, ``text`` (the patient profile, i.e.
    the vignette without its final question sentence), ``question``, ``options`` {A..D},
    ``answer_idx``, ``answer``.

    Sources: Hub ``GBaker/MedQA-USMLE-4-options`` (train 10,178 / test 1,273); local MedQA JSONL
    (``data_dir`` with ``train.jsonl``/``dev.jsonl``/``test.jsonl``, or ``data_files``); the bundled
    fixture (config ``fixture``). Records with other than the four options A-D are an error naming the
    record: seed 000 uses the 4-option set.
    """

    NAME = "medqa"
    VERSION = _hf_datasets.Version("1.0.0")
    DESCRIPTION = "MedQA USMLE 4-option questions; text = the patient profile (vignette without the question sentence)."
    HOMEPAGE = "https://github.com/jind11/MedQA"
    LICENSE = "MIT (MedQA)"
    CITATION = "Jin et al. 2021, What disease does this patient have? A large-scale open domain question answering dataset from medical exams."
    BUILDER_CONFIGS = [
        TextleakConfig(name="default", version=VERSION, hub_repo="GBaker/MedQA-USMLE-4-options",
                       description="the 4-option MedQA set"),
        TextleakConfig(name="fixture", version=VERSION, source="fixture",
                       description="8 invented vignettes bundled with textleak, for tests and demos"),
    ]
    FIXTURES = {"train": "medqa_train.jsonl", "test": "medqa_test.jsonl"}
    LOCAL_PATTERNS = {"train": ["train.jsonl", "*train*.jsonl"], "validation": ["dev.jsonl", "*dev*.jsonl"],
                      "test": ["test.jsonl", "*test*.jsonl"]}
    HUB_SPLITS = {"train": "train", "test": "test"}

    def _features(self) -> _hf_datasets.Features:
        return _hf_datasets.Features({
            "id": _hf_datasets.Value("string"),
            "text": _hf_datasets.Value("string"),
            "question": _hf_datasets.Value("string"),
            "options": {k: _hf_datasets.Value("string") for k in MEDQA_OPTION_KEYS},
            "answer_idx": _hf_datasets.Value("string"),
            "answer": _hf_datasets.Value("string"),
        })

    def read_file(self, path: str):
        return read_rows(path)

    def to_record(self, raw: dict[str, Any], index: int, split: str) -> dict[str, Any]:
        rec = medqa_record(raw, index)
        if "id" not in raw and "realidx" not in raw:
            rec["id"] = f"{split}-{index}"
        if tuple(rec["options"]) != MEDQA_OPTION_KEYS:
            raise ValueError(f"MedQA record {rec['id']} has options {sorted(rec['options'])}, expected A-D")
        if rec["answer_idx"] not in MEDQA_OPTION_KEYS:
            raise ValueError(f"MedQA record {rec['id']} has answer_idx {rec['answer_idx']!r}, expected one of A-D")
        return rec
