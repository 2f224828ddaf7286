"""SST-2 (GLUE): movie-review sentences with binary sentiment, the main set of the word-level DP
sanitizers and their reconstruction attacks (seed 001). Schema: ``id``, ``text``, ``label``."""

from __future__ import annotations

from typing import Any

import datasets

from textleak.data._builder import ClassificationBuilder, TextleakConfig, label_index


class SST2(ClassificationBuilder):
    """Sources: Hub ``nyu-mll/glue`` config ``sst2`` (train 67,349 / validation 872 / test 1,821
    without labels); local GLUE files (``data_dir`` with ``train.tsv``, ``dev.tsv``, ``test.tsv``:
    ``sentence<TAB>label``, the test file ``index<TAB>sentence``); the bundled fixture."""

    NAME = "sst2"
    VERSION = datasets.Version("1.0.0")
    DESCRIPTION = "Stanford Sentiment Treebank, binary (GLUE SST-2)."
    HOMEPAGE = "https://nlp.stanford.edu/sentiment/"
    LICENSE = "GLUE terms (research use)"
    CITATION = "Socher et al. 2013; Wang et al. 2019 (GLUE)."
    LABELS = ("negative", "positive")
    BUILDER_CONFIGS = [
        TextleakConfig(name="default", version=VERSION, hub_repo="nyu-mll/glue", hub_name="sst2"),
        TextleakConfig(name="fixture", version=VERSION, source="fixture", description="invented sentences"),
    ]
    FIXTURES = {"train": "sst2_train.tsv", "validation": "sst2_validation.tsv"}
    LOCAL_PATTERNS = {"train": ["train.tsv"], "validation": ["dev.tsv"], "test": ["test.tsv"]}
    HUB_SPLITS = {"train": "train", "validation": "validation", "test": "test"}

    def to_record(self, raw: dict[str, Any], index: int, split: str) -> dict[str, Any]:
        rid = raw.get("idx", raw.get("index", index))
        return {"id": f"{split}-{rid}", "text": raw["sentence"].strip(),
                "label": label_index(raw.get("label"), self.LABELS)}
