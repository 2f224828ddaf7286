"""AG News: news articles in four topics (seed 001). Schema: ``id``, ``text`` (title and
description), ``label`` (World, Sports, Business, Sci/Tech)."""

from __future__ import annotations

from typing import Any

import datasets

from textleak.data._builder import ClassificationBuilder, TextleakConfig, label_index, read_rows


class AGNews(ClassificationBuilder):
    """Sources: Hub ``fancyzhx/ag_news`` (train 120,000 / test 7,600); local files of Zhang et al.
    (``train.csv``/``test.csv``, headerless ``class,title,description`` with classes 1-4) or JSONL with
    ``text``/``label``; the bundled fixture."""

    NAME = "ag_news"
    VERSION = datasets.Version("1.0.0")
    DESCRIPTION = "AG's news topic classification (Zhang et al. 2015)."
    HOMEPAGE = "http://groups.di.unipi.it/~gulli/AG_corpus_of_news_articles.html"
    LICENSE = "non-commercial research use"
    CITATION = "Zhang, Zhao and LeCun 2015, Character-level convolutional networks for text classification."
    LABELS = ("World", "Sports", "Business", "Sci/Tech")
    BUILDER_CONFIGS = [
        TextleakConfig(name="default", version=VERSION, hub_repo="fancyzhx/ag_news"),
        TextleakConfig(name="fixture", version=VERSION, source="fixture", description="invented headlines"),
    ]
    FIXTURES = {"train": "ag_news_train.csv", "test": "ag_news_test.csv"}
    LOCAL_PATTERNS = {"train": ["train.csv", "train.jsonl"], "test": ["test.csv", "test.jsonl"]}
    HUB_SPLITS = {"train": "train", "test": "test"}

    def read_file(self, path: str):
        if path.lower().endswith(".csv"):
            return read_rows(path, header=False, fieldnames=["class", "title", "description"])
        return read_rows(path)

    def to_record(self, raw: dict[str, Any], index: int, split: str) -> dict[str, Any]:
        if "class" in raw:  # Zhang et al. CSV: 1-based classes, backslash-escaped newlines
            text = f"{raw['title'].strip()} {raw['description'].strip()}".replace("\\n", " ").replace('\\"', '"')
            label = label_index(raw["class"], self.LABELS, one_based_digits=True)
        else:
            text, label = raw["text"].strip(), label_index(raw["label"], self.LABELS)
        return {"id": str(raw.get("id", f"{split}-{index}")), "text": text, "label": label}
