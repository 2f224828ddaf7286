"""QNLI (GLUE): question-sentence pairs, "does the sentence answer the question". Schema: ``id``,
``text`` (the sentence), ``question``, ``label``. Word-level DP sanitizers in seed 001 sanitize both
parts: map a sanitizer over ``text`` and over ``question`` (``input_columns=...``)."""

from __future__ import annotations

from typing import Any

import datasets

from textleak.data._builder import ClassificationBuilder, TextleakConfig, label_index


class QNLI(ClassificationBuilder):
    """Sources: Hub ``nyu-mll/glue`` config ``qnli``; local GLUE files (``train.tsv``, ``dev.tsv``,
    ``test.tsv``: ``index<TAB>question<TAB>sentence<TAB>label``); the bundled fixture."""

    NAME = "qnli"
    VERSION = datasets.Version("1.0.0")
    DESCRIPTION = "Question-answering NLI derived from SQuAD (GLUE QNLI)."
    HOMEPAGE = "https://gluebenchmark.com/"
    LICENSE = "CC BY-SA 4.0 (SQuAD); GLUE terms"
    CITATION = "Rajpurkar et al. 2016; Wang et al. 2019 (GLUE)."
    LABELS = ("entailment", "not_entailment")
    EXTRA_FIELDS = ("question",)
    BUILDER_CONFIGS = [
        TextleakConfig(name="default", version=VERSION, hub_repo="nyu-mll/glue", hub_name="qnli"),
        TextleakConfig(name="fixture", version=VERSION, source="fixture", description="invented pairs"),
    ]
    FIXTURES = {"train": "qnli_train.tsv", "validation": "qnli_validation.tsv"}
    LOCAL_PATTERNS = {"train": ["train.tsv"], "validation": ["dev.tsv"], "test": ["test.tsv"]}
    HUB_SPLITS = {"train": "train", "validation": "validation", "test": "test"}

    def to_record(self, raw: dict[str, Any], index: int, split: str) -> dict[str, Any]:
        rid = raw.get("idx", raw.get("index", index))
        return {"id": f"{split}-{rid}", "text": raw["sentence"].strip(), "question": raw["question"].strip(),
                "label": label_index(raw.get("label"), self.LABELS)}
