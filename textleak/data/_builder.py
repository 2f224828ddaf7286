"""The machinery every textleak dataset builder shares.

Each dataset is an importable :class:`datasets.GeneratorBasedBuilder` subclass (loading scripts are
gone from ``datasets`` 4+; see ``../shared/specs/hf-evaluate-datasets-conventions.md`` section 3).
A builder reads one of three sources and writes records in the project's one schema (``id``,
``text`` = the private part, plus task fields):

- ``fixture``: the small files bundled in ``textleak/data/fixtures/`` (written for this project);
- ``local``: files the user points at with ``data_dir`` or ``data_files``;
- ``hub``: the dataset's public Hub repository, read with ``datasets.load_dataset`` (online users).

Builders are instantiated with ``hash=`` a digest of their module source, the shared machinery's
source, their version and the stamps of their input files, so an edited generator or an edited input
file never serves stale cache (the ``datasets`` cache only keys on name, config and version).
"""

from __future__ import annotations

import csv
import hashlib
import inspect
import json
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

import datasets

from textleak._version import __version__
from textleak.cache import content_hash

logger = logging.getLogger(__name__)

FIXTURES_DIR = Path(__file__).resolve().parent / "fixtures"
SOURCES = ("fixture", "local", "hub")


@dataclass
class TextleakConfig(datasets.BuilderConfig):
    """A builder config. ``source`` is "fixture", "local" or "hub"; None picks "local" when
    ``data_dir``/``data_files`` are given, else "hub". ``test_size`` > 0 carves a deterministic test
    split (by a hash of each record id and ``split_seed``) out of a source that has one split only."""

    source: str | None = None
    test_size: float = 0.0
    split_seed: int = 0
    hub_repo: str | None = None
    hub_name: str | None = None
    hub_data_files: Any = None

    def __post_init__(self):
        super().__post_init__()
        if self.source is not None and self.source not in SOURCES:
            raise ValueError(f"source must be one of {SOURCES}, got {self.source!r}")
        if not 0.0 <= float(self.test_size) < 1.0:
            raise ValueError(f"test_size must be in [0, 1), got {self.test_size!r}")


def in_test_split(record_id: str, test_size: float, seed: int) -> bool:
    """Deterministic membership of a record in the carved-out test split: independent of record
    order, batch size and process count."""
    digest = hashlib.sha256(f"{seed}:{record_id}".encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < test_size


# ---- readers --------------------------------------------------------------------------------------
def read_rows(path: str | os.PathLike, fmt: str | None = None, header: bool = True,
              fieldnames: list[str] | None = None) -> Iterator[dict[str, Any]]:
    """Rows of a JSONL/JSON/CSV/TSV/parquet file as dicts. ``fmt`` overrides the extension.
    ``header=False`` with ``fieldnames`` reads headerless CSV/TSV (the Zhang et al. AG News and Yelp files)."""
    path = str(path)
    fmt = (fmt or _format_of(path)).lower()
    if fmt in ("jsonl", "json"):
        with open(path, encoding="utf-8") as f:
            first = f.read(1)
            while first and first.isspace():
                first = f.read(1)
            f.seek(0)
            if first == "[":
                rows = json.load(f)
                if not all(isinstance(r, dict) for r in rows):
                    raise ValueError(f"{path}: a JSON array of objects is expected")
                yield from rows
                return
            for n, line in enumerate(f, 1):
                if line.strip():
                    try:
                        yield json.loads(line)
                    except json.JSONDecodeError as e:
                        raise ValueError(f"{path}: line {n} is not valid JSON ({e.msg})") from None
    elif fmt in ("csv", "tsv"):
        csv.field_size_limit(sys.maxsize)
        delimiter = "\t" if fmt == "tsv" else ","
        # GLUE TSVs carry unbalanced quotes inside sentences: read them without quote handling
        quoting = csv.QUOTE_NONE if fmt == "tsv" else csv.QUOTE_MINIMAL
        with open(path, encoding="utf-8", newline="") as f:
            reader = csv.DictReader(f, delimiter=delimiter, quoting=quoting,
                                    fieldnames=None if header else fieldnames)
            yield from reader
    elif fmt == "parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        for batch in table.to_batches(1024):
            yield from batch.to_pylist()
    else:
        raise ValueError(f"{path}: unknown file format {fmt!r} (use jsonl, json, csv, tsv or parquet)")


def _format_of(path: str) -> str:
    name = path.lower()
    for ext in ("jsonl", "json", "csv", "tsv", "parquet"):
        if name.endswith("." + ext):
            return ext
    raise ValueError(f"{path}: cannot tell the format from the extension (.jsonl, .json, .csv, .tsv, .parquet)")


def file_stamp(path: str | os.PathLike) -> list:
    """What identifies an input file's version cheaply: path, size and modification time."""
    st = os.stat(path)
    return [str(Path(path).resolve()), st.st_size, st.st_mtime_ns]


# ---- the base builder -----------------------------------------------------------------------------
class TextleakBuilder(datasets.GeneratorBasedBuilder):
    """Base of textleak's builders. Subclasses set ``NAME``, ``BUILDER_CONFIGS``, ``FIXTURES``
    ({split: filename}), ``LOCAL_PATTERNS`` ({split: [glob, ...]} inside ``data_dir``), ``HUB_SPLITS``
    ({our split: hub split}), and implement :meth:`_features` and :meth:`to_record`."""

    NAME = "base"
    BUILDER_CONFIG_CLASS = TextleakConfig
    VERSION = datasets.Version("1.0.0")
    DEFAULT_CONFIG_NAME = "default"
    DESCRIPTION = ""
    HOMEPAGE = ""
    LICENSE = ""
    CITATION = ""
    FIXTURES: dict[str, str] = {}
    LOCAL_PATTERNS: dict[str, list[str]] = {}
    HUB_SPLITS: dict[str, str] = {}
    # modules whose code shapes the records besides the builder's own (part of the cache hash)
    SOURCE_MODULES: tuple[str, ...] = ()
    # "error": a repeated id is an error naming both rows; "suffix": later rows get "<id>#<k>" (k = 1, 2, ...)
    DUPLICATE_ID_POLICY = "error"

    # ---- to implement ---------------------------------------------------------------------------
    def _features(self) -> datasets.Features:
        raise NotImplementedError

    def to_record(self, raw: dict[str, Any], index: int, split: str) -> dict[str, Any] | None:
        """One raw row in the project's schema (None skips the row, which subclasses must document)."""
        raise NotImplementedError

    def read_file(self, path: str) -> Iterable[dict[str, Any]]:
        """Raw rows of one local or fixture file (override for headerless formats)."""
        return read_rows(path)

    # ---- datasets plumbing ----------------------------------------------------------------------
    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(description=self.DESCRIPTION, features=self._features(),
                                    homepage=self.HOMEPAGE, license=self.LICENSE, citation=self.CITATION)

    @property
    def source(self) -> str:
        if self.config.source:
            return self.config.source
        return "local" if (self.config.data_files or self.config.data_dir) else "hub"

    def input_files(self) -> dict[str, list[str]]:
        """{split: [paths]} for the fixture and local sources (empty for the Hub)."""
        src = self.source
        if src == "fixture":
            if not self.FIXTURES:
                raise ValueError(f"dataset {self.NAME!r} has no bundled fixture")
            return {split: [str(FIXTURES_DIR / fname)] for split, fname in self.FIXTURES.items()}
        if src == "hub":
            return {}
        if self.config.data_files:
            return {str(split): [str(p) for p in paths] for split, paths in self.config.data_files.items()}
        if self.config.data_dir:
            root = Path(self.config.data_dir)
            if not root.is_dir():
                raise FileNotFoundError(f"data_dir {root} is not a folder")
            found = {}
            for split, patterns in self.LOCAL_PATTERNS.items():
                paths = sorted({str(p) for pat in patterns for p in root.glob(pat)})
                if paths:
                    found[split] = paths
            if not found:
                wanted = "; ".join(f"{s}: {', '.join(p)}" for s, p in self.LOCAL_PATTERNS.items())
                raise FileNotFoundError(f"no {self.NAME} files in {root} (looked for {wanted})")
            return found
        raise ValueError(f"dataset {self.NAME!r}: source 'local' needs data_dir or data_files")

    def _split_generators(self, dl_manager):
        src = self.source
        if src == "hub":
            repo = self.config.hub_repo
            if not repo:
                raise ValueError(f"dataset {self.NAME!r} config {self.config.name!r} has no Hub source; "
                                 "pass data_dir/data_files or config='fixture'")
            sources = {split: {"hub_split": hub_split} for split, hub_split in self.HUB_SPLITS.items()}
        else:
            sources = {split: {"files": paths} for split, paths in self.input_files().items()}
        test_size = float(self.config.test_size)
        if test_size > 0:
            if len(sources) != 1:
                raise ValueError(f"test_size carves a test split out of a single-split source; "
                                 f"{self.NAME} has splits {sorted(sources)}")
            # ids keep the source split's name, so membership does not depend on the carved split
            ((source_split, only),) = sources.items()
            return [
                datasets.SplitGenerator(name="train", gen_kwargs={**only, "split": source_split, "part": "train"}),
                datasets.SplitGenerator(name="test", gen_kwargs={**only, "split": source_split, "part": "test"}),
            ]
        return [datasets.SplitGenerator(name=split, gen_kwargs={**kw, "split": split, "part": None})
                for split, kw in sources.items()]

    def _raw_rows(self, files: list[str] | None, hub_split: str | None) -> Iterator[tuple[str, dict]]:
        if hub_split is not None:
            ds = datasets.load_dataset(self.config.hub_repo, self.config.hub_name, split=hub_split,
                                       data_files=self.config.hub_data_files)
            for i, row in enumerate(ds):
                yield f"hub-{i}", row
            return
        for f_idx, path in enumerate(files or []):
            for i, row in enumerate(self.read_file(path)):
                yield f"{f_idx}-{i}", row

    def _generate_examples(self, split: str, part: str | None, files: list[str] | None = None,
                           hub_split: str | None = None):
        seen: dict[str, str] = {}
        index = 0
        for key, raw in self._raw_rows(files, hub_split):
            try:
                record = self.to_record(raw, index, split)
            except (KeyError, ValueError, TypeError) as e:
                where = f"row {key} of {hub_split or files}"
                raise ValueError(f"{self.NAME}: {where}: {e}") from e
            index += 1
            if record is None:
                continue
            rid = record["id"]
            if rid in seen and self.DUPLICATE_ID_POLICY == "suffix":
                k = 1
                while f"{rid}#{k}" in seen:
                    k += 1
                rid = record["id"] = f"{rid}#{k}"
            if rid in seen:
                raise ValueError(f"{self.NAME}: duplicate id {rid!r} in split {split} (rows {seen[rid]} and {key})")
            seen[rid] = key
            if part is not None:
                if in_test_split(rid, float(self.config.test_size), int(self.config.split_seed)) != (part == "test"):
                    continue
            yield key, record


def builder_hash(builder_cls: type, input_files: Iterable[str] = ()) -> str:
    """The ``hash=`` a builder is instantiated with: its module source, this module's source, its
    version, textleak's version and the stamps of its input files."""
    import importlib

    sources = []
    for cls in builder_cls.__mro__:
        if cls.__module__.startswith("textleak."):
            sources.append(inspect.getsource(sys.modules[cls.__module__]))
    for module in getattr(builder_cls, "SOURCE_MODULES", ()):  # readers the builder delegates to
        sources.append(inspect.getsource(importlib.import_module(module)))
    stamps = sorted(file_stamp(p) for p in input_files if os.path.exists(p))
    return content_hash(sorted(set(sources)), str(builder_cls.VERSION), __version__, stamps)[:16]


# ---- classification sets (SST-2, AG News, QNLI, Yelp) ----------------------------------------------
def label_index(value: Any, labels: tuple[str, ...], one_based_digits: bool = False) -> int:
    """A label as its class index: an int (Hub), a digit string ("0"/"1" in GLUE TSVs; "1".."N" in the
    Zhang et al. CSVs when ``one_based_digits``), or a label name. -1 and "" mean "no label" (GLUE test)."""
    if value is None or value == "" or value == -1 or value == "-1":
        return -1
    if isinstance(value, bool):
        raise ValueError(f"label {value!r} is not a class")
    if isinstance(value, int) or (isinstance(value, str) and value.strip().lstrip("-").isdigit()):
        idx = int(value) - (1 if one_based_digits else 0)
        if not 0 <= idx < len(labels):
            raise ValueError(f"label {value!r} is out of range for classes {list(labels)}")
        return idx
    name = str(value).strip()
    if name in labels:
        return labels.index(name)
    raise ValueError(f"label {value!r} is not one of {list(labels)}")


class ClassificationBuilder(TextleakBuilder):
    """A sentence-classification set: ``id``, ``text``, ``label`` (ClassLabel), plus ``EXTRA_FIELDS``."""

    LABELS: tuple[str, ...] = ()
    EXTRA_FIELDS: tuple[str, ...] = ()

    def labels(self) -> tuple[str, ...]:
        return self.LABELS

    def _features(self) -> datasets.Features:
        feats = {"id": datasets.Value("string"), "text": datasets.Value("string")}
        feats.update({f: datasets.Value("string") for f in self.EXTRA_FIELDS})
        feats["label"] = datasets.ClassLabel(names=list(self.labels()))
        return datasets.Features(feats)
