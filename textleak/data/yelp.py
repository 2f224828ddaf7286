"""Yelp reviews (Zhang et al. 2015), used by seed 001 for reconstructing personal names. Schema:
``id``, ``text``, ``label``. Configs ``polarity`` (negative/positive) and ``full`` (1-5 stars)."""

from __future__ import annotations

from typing import Any

import datasets

from textleak.data._builder import ClassificationBuilder, TextleakConfig, label_index, read_rows

POLARITY_LABELS = ("negative", "positive")
FULL_LABELS = ("1 star", "2 stars", "3 stars", "4 stars", "5 stars")


class Yelp(ClassificationBuilder):
    """Sources: Hub ``fancyzhx/yelp_polarity`` (config ``polarity``) and ``Yelp/yelp_review_full``
    (config ``full``); local Zhang et al. files (``train.csv``/``test.csv``, headerless
    ``class,text`` with 1-based classes) or JSONL with ``text``/``label``; the bundled fixture
    (polarity labels)."""

    NAME = "yelp"
    VERSION = datasets.Version("1.0.0")
    DESCRIPTION = "Yelp review sentiment (Zhang et al. 2015)."
    HOMEPAGE = "https://www.yelp.com/dataset"
    LICENSE = "Yelp Dataset terms (research use)"
    CITATION = "Zhang, Zhao and LeCun 2015, Character-level convolutional networks for text classification."
    BUILDER_CONFIGS = [
        TextleakConfig(name="polarity", version=VERSION, hub_repo="fancyzhx/yelp_polarity"),
        TextleakConfig(name="full", version=VERSION, hub_repo="Yelp/yelp_review_full"),
        TextleakConfig(name="fixture", version=VERSION, source="fixture", description="invented reviews, polarity labels"),
    ]
    DEFAULT_CONFIG_NAME = "polarity"
    FIXTURES = {"train": "yelp_train.csv", "test": "yelp_test.csv"}
    LOCAL_PATTERNS = {"train": ["train.csv", "train.jsonl"], "test": ["test.csv", "test.jsonl"]}
    HUB_SPLITS = {"train": "train", "test": "test"}

    def labels(self) -> tuple[str, ...]:
        return FULL_LABELS if self.config.name == "full" else POLARITY_LABELS

    def read_file(self, path: str):
        if path.lower().endswith(".csv"):
            return read_rows(path, header=False, fieldnames=["class", "text"])
        return read_rows(path)

    def to_record(self, raw: dict[str, Any], index: int, split: str) -> dict[str, Any]:
        text = raw["text"].replace("\\n", "\n").replace('\\"', '"').strip()
        if "class" in raw:
            label = label_index(raw["class"], self.labels(), one_based_digits=True)
        else:
            label = label_index(raw["label"], self.labels())
        return {"id": str(raw.get("id", f"{split}-{index}")), "text": text, "label": label}
