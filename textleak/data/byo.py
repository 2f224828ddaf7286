"""Bring your own data: JSONL, JSON, CSV, TSV or parquet files with a column mapping into the
project's schema (``id``, ``text``, plus whatever other columns the file has).

>>> load("byo", data_files="notes.csv", columns={"text": "note_body", "id": "mrn"})
>>> load("notes.csv", columns={"text": "note_body"})     # same thing: a file path names the byo dataset

``columns`` maps schema names to the file's column names; unmapped columns keep their names. Files
are read by :mod:`textleak.io` (the reader ``textleak evaluate`` uses), so CSV/TSV cells are strings
(use JSONL or parquet for typed columns). A record without ``id`` gets ``<split>-<row index>``. A missing or non-string text is an error that
names the row; an empty string is kept (a sanitizer may legitimately produce one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import datasets

from textleak.data._builder import TextleakBuilder, TextleakConfig


@dataclass
class BYOConfig(TextleakConfig):
    columns: dict = field(default_factory=dict)
    format: str | None = None  # reserved: the format comes from the file extension


class BringYourOwn(TextleakBuilder):
    """Local files only (``data_files`` or ``data_dir`` with ``train.*``/``validation.*``/``test.*``)."""

    NAME = "byo"
    BUILDER_CONFIG_CLASS = BYOConfig
    VERSION = datasets.Version("1.0.0")
    DESCRIPTION = "User-supplied records mapped into the textleak schema."
    BUILDER_CONFIGS = [BYOConfig(name="default", version=VERSION, source="local")]
    SOURCE_MODULES = ("textleak.io",)
    LOCAL_PATTERNS = {split: [f"{split}.{ext}" for ext in ("jsonl", "json", "csv", "tsv", "parquet")]
                      for split in ("train", "validation", "test")}

    def _features(self):
        return None  # inferred from the file: byo keeps every column

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(description=self.DESCRIPTION)

    def read_file(self, path: str):
        # one reader for user files across textleak: the one `textleak evaluate` uses
        from textleak.io import _read_table

        if self.config.format:
            raise ValueError("byo reads the format from the file extension (.jsonl/.json/.csv/.tsv/.parquet)")
        return _read_table(str(path), None)

    def to_record(self, raw: dict[str, Any], index: int, split: str) -> dict[str, Any]:
        mapping = dict(self.config.columns or {})
        for target, source in mapping.items():
            if source not in raw:
                raise KeyError(f"column {source!r} (mapped to {target!r}) is not in the file; columns: {sorted(raw)}")
        renamed_sources = set(mapping.values())
        record = {k: v for k, v in raw.items() if k not in renamed_sources}
        record.update({target: raw[source] for target, source in mapping.items()})
        if "text" not in record:
            raise KeyError(f"no 'text' column; map one with columns={{'text': '<column>'}} (columns: {sorted(raw)})")
        if not isinstance(record["text"], str):
            raise TypeError(f"text is {type(record['text']).__name__}, expected a string")
        rid = record.get("id")
        record["id"] = f"{split}-{index}" if rid is None or rid == "" else str(rid)
        return {"id": record.pop("id"), "text": record.pop("text"), **record}
