"""The TAB/ECHR builder: wraps :mod:`textleak.data.tab` (the reader and schema live there) in a
``datasets`` builder with configs, a version and code-hash caching, like every other dataset.

Schema (from ``tab.tab_records``): ``id``, ``text``, ``entity_mentions`` (one annotator's mentions:
entity_type, start_offset, end_offset, span_text, identifier_type, entity_id, confidential_status),
``annotator``, ``task``, ``dataset_type``.
"""

from __future__ import annotations

from dataclasses import dataclass

import datasets

from textleak.data import tab
from textleak.data._builder import TextleakBuilder, TextleakConfig

# The canonical TAB release is on GitHub (the Hub copies are partial); pinned to the data commit.
TAB_COMMIT = "038b40fa59830956d8ee45c2b3791528f42a934d"
TAB_URL = "https://raw.githubusercontent.com/NorskRegnesentral/text-anonymization-benchmark/{commit}/echr_{split}.json"
TAB_SPLITS = {"train": "train", "validation": "dev", "test": "test"}


@dataclass
class TABConfig(TextleakConfig):
    """``annotator``: "first" (seed 004) or an annotator name; ``paragraph_first``/``paragraph_last``:
    keep paragraphs [first, last) (seed 004: 0-6, and 6-12 as the second segment); None keeps all."""

    annotator: str = "first"
    paragraph_first: int = 0
    paragraph_last: int | None = None


class TAB(TextleakBuilder):
    """TAB (ECHR court cases with entity annotations). Sources: the GitHub release
    (``NorskRegnesentral/text-anonymization-benchmark``, files ``echr_{train,dev,test}.json``) for
    config ``default``; local files (``data_dir`` with those names, or ``data_files``); the bundled
    fictional fixture (config ``fixture``, split by its ``dataset_type``)."""

    NAME = "tab"
    BUILDER_CONFIG_CLASS = TABConfig
    VERSION = datasets.Version("1.0.0")
    DESCRIPTION = "Text Anonymization Benchmark: ECHR cases with identifier annotations."
    HOMEPAGE = "https://github.com/NorskRegnesentral/text-anonymization-benchmark"
    LICENSE = "MIT"
    CITATION = "Pilán et al. 2022, The Text Anonymization Benchmark (TAB)."
    BUILDER_CONFIGS = [
        TABConfig(name="default", version=VERSION, hub_repo=TAB_URL.format(commit=TAB_COMMIT, split="{split}")),
        TABConfig(name="fixture", version=VERSION, source="fixture", description="14 fictional cases"),
    ]
    FIXTURES = {"train": tab.FIXTURE_PATH.name, "test": tab.FIXTURE_PATH.name}
    LOCAL_PATTERNS = {split: [f"echr_{name}.json"] for split, name in TAB_SPLITS.items()}
    SOURCE_MODULES = ("textleak.data.tab",)

    def _features(self) -> datasets.Features:
        mention = {k: datasets.Value("string") for k in tab.MENTION_FIELDS}
        mention["start_offset"] = datasets.Value("int64")
        mention["end_offset"] = datasets.Value("int64")
        return datasets.Features({
            "id": datasets.Value("string"),
            "text": datasets.Value("string"),
            "entity_mentions": datasets.List(mention),
            "annotator": datasets.Value("string"),
            "task": datasets.Value("string"),
            "dataset_type": datasets.Value("string"),
        })

    def _split_generators(self, dl_manager):
        if self.source == "hub":
            urls = {split: self.config.hub_repo.format(split=name) for split, name in TAB_SPLITS.items()}
            paths = dl_manager.download(urls)
            return [datasets.SplitGenerator(name=s, gen_kwargs={"files": [p], "split": s, "part": None})
                    for s, p in paths.items()]
        return super()._split_generators(dl_manager)

    def _generate_examples(self, split: str, part: str | None, files=None, hub_split=None):
        paragraphs = None
        if self.config.paragraph_first or self.config.paragraph_last is not None:
            paragraphs = (int(self.config.paragraph_first), self.config.paragraph_last)
        for f_idx, path in enumerate(files or []):
            # the fixture holds every split in one file, told apart by dataset_type
            only = split if self.source == "fixture" else None
            for rec in tab.tab_records(path, annotator=self.config.annotator, paragraphs=paragraphs, split=only):
                yield f"{f_idx}-{rec['id']}", rec
