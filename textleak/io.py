"""Read records from files and datasets into one shape: dicts with ``id`` and ``text`` (plus the rest).

Sources:

- ``*.jsonl`` / ``*.json`` (JSON lines, or one JSON array), ``*.csv`` / ``*.tsv``, ``*.parquet``;
- a folder written by ``datasets``' ``save_to_disk`` (a Dataset, or a DatasetDict: ``split`` picks one);
- ``hf:<name>[:<config>]`` for a dataset from the Hugging Face Hub (``split`` picks one, default train);
- ``data:<name>`` for a dataset built into textleak (``textleak.data.load``), when available.

Column mapping: ``text_column`` names the text, ``id_column`` the record id (default: ``id`` when it
exists, else the row number). Raw MedQA lines (``question`` + ``options`` and no text column) are
turned into the project's schema, whose text is the patient profile (the vignette without its final
question sentence, :mod:`textleak.data.medqa`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from pathlib import Path
from typing import Any, Sequence

logger = logging.getLogger(__name__)


# ---- writing: outputs hold private text, so they are readable by their owner only ---------------------
PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def make_private_dir(path: str | Path) -> Path:
    """Create ``path`` (and parents) readable by the owner only; an existing folder keeps its mode."""
    path = Path(path)
    if not path.exists():
        path.mkdir(parents=True, mode=PRIVATE_DIR_MODE)
        os.chmod(path, PRIVATE_DIR_MODE)  # mkdir's mode is filtered by the umask
    return path


_UMASK_LOCK = threading.Lock()
_UMASK_DEPTH = [0, 0]  # [nesting depth, the umask to restore]


@contextlib.contextmanager
def private_files():
    """Within the block, files and folders are created readable by their owner only (umask 077), for
    writers that take no mode (``datasets``' Arrow copies, lock files). The umask is per process: the
    block is re-entrant and thread-safe among its own users, and it only ever makes files more private."""
    with _UMASK_LOCK:
        if _UMASK_DEPTH[0] == 0:
            _UMASK_DEPTH[1] = os.umask(0o077)
        _UMASK_DEPTH[0] += 1
    try:
        yield
    finally:
        with _UMASK_LOCK:
            _UMASK_DEPTH[0] -= 1
            if _UMASK_DEPTH[0] == 0:
                os.umask(_UMASK_DEPTH[1])


def write_private_text(path: str | Path, text: str) -> Path:
    """Write ``text`` atomically (a temporary file, then a rename: a half-written file is never taken
    for a finished one) with owner-only permissions."""
    path = Path(path)
    make_private_dir(path.parent)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")  # one per process: ranks of a launch never share it
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(tmp, PRIVATE_FILE_MODE)
    tmp.replace(path)
    return path


def write_json(path: str | Path, obj: Any) -> Path:
    return write_private_text(path, json.dumps(obj, indent=2, ensure_ascii=False, default=str))


def write_jsonl(path: str | Path, rows: Any) -> Path:
    return write_private_text(path, "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in rows))


# ---- reading ----------------------------------------------------------------------------------------
def parse_jsonl(text: str, source: str) -> list[dict[str, Any]]:
    """The JSON objects of JSON-lines ``text``; a bad line is one ValueError naming ``source`` and the line."""
    rows = []
    # records end at "\n" only: str.splitlines would also split inside strings at U+2028, U+0085 and
    # other characters JSON allows raw (textleak's own writers emit them); a "\r" before it is JSON whitespace
    for n, line in enumerate(text.split("\n"), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ValueError(f"{source} line {n} is not valid JSON: {e}") from None
            if not isinstance(rows[-1], dict):
                raise ValueError(f"{source} line {n} is not a JSON object (every record must be one)")
    return rows


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """The records of a JSON-lines file (:func:`parse_jsonl`); text that is not UTF-8 is one ValueError too."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 text (byte {e.start}: {e.reason}); convert it to UTF-8") from None
    return parse_jsonl(text, str(path))


def _read_table(source: str, split: str | None) -> list[dict[str, Any]]:
    if source.startswith("hf:"):
        import datasets

        name, _, config = source[3:].partition(":")
        ds = datasets.load_dataset(name, config or None, split=split or "train")
        return [dict(r) for r in ds]
    if source.startswith("data:"):
        from textleak import data as textleak_data

        load = getattr(textleak_data, "load", None)
        if load is None:
            raise ValueError("this textleak has no built-in dataset loader (textleak.data.load)")
        ds = load(source[5:])
        import datasets

        if isinstance(ds, datasets.DatasetDict):
            ds = ds[split or ("test" if "test" in ds else next(iter(ds)))]
        return [dict(r) for r in ds]
    path = Path(source).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"no such file or folder: {source}")
    if path.is_dir():
        import datasets

        ds = datasets.load_from_disk(str(path))
        if isinstance(ds, datasets.DatasetDict):
            if split is None:
                split = "test" if "test" in ds else next(iter(ds))
            if split not in ds:
                raise ValueError(f"{source} has splits {list(ds)}, not {split!r}")
            ds = ds[split]
        return [dict(r) for r in ds]
    suffix = "".join(path.suffixes[-2:]) if path.suffix == ".gz" else path.suffix
    suffix = suffix.lower()
    if suffix in (".jsonl", ".jsonl.gz", ".json", ".ndjson"):
        import gzip

        opener = gzip.open if suffix.endswith(".gz") else open
        try:
            with opener(path, "rt", encoding="utf-8") as f:
                text = f.read()
        except UnicodeDecodeError as e:
            raise ValueError(f"{source}: not UTF-8 text (byte {e.start}: {e.reason}); convert it to UTF-8") from None
        stripped = text.lstrip()
        rows = json.loads(text) if suffix == ".json" and stripped.startswith("[") else parse_jsonl(text, source)
        if any(not isinstance(r, dict) for r in rows):
            raise ValueError(f"{source}: every JSON record must be an object")
        return rows
    if suffix in (".csv", ".tsv"):
        import pandas as pd

        try:
            df = pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",", dtype=str, keep_default_na=False)
        except UnicodeDecodeError as e:
            raise ValueError(f"{source}: not UTF-8 text (byte {e.start}: {e.reason}); convert it to UTF-8") from None
        return df.to_dict(orient="records")
    if suffix == ".parquet":
        import pandas as pd

        return pd.read_parquet(path).to_dict(orient="records")
    raise ValueError(f"cannot read {source}: use .jsonl, .json, .csv, .tsv, .parquet, a save_to_disk folder, hf:<name> or data:<name>")


def read_records(source: str, text_column: "str | Sequence[str]" = "text", id_column: str | None = None,
                 split: str | None = None, limit: int | None = None, row_ids: bool = True) -> list[dict[str, Any]]:
    """Records of ``source`` with ``id`` (str) and ``text`` keys; other columns are kept.

    ``text_column`` may list candidates: the first the file has is read (``textleak evaluate`` reads
    a sanitizer's ``sanitized`` column before ``text``, which ``textleak sanitize`` keeps as the
    original). A missing text column is an error listing the columns that exist. A value that is not
    a string (a number, a list) is an error naming the row; a null text stays ``None`` (the caller
    decides: for sanitized sets, None means a failed sanitization). Without an id column the id is the
    row number, or None with ``row_ids=False`` (for a set whose rows must not be taken for ids: a
    missing row would shift every later one onto the wrong record).
    """
    rows = _read_table(source, split)
    if limit is not None:
        rows = rows[: max(0, int(limit))]
    if not rows:
        raise ValueError(f"{source} has no records")
    if not isinstance(text_column, str):
        candidates = list(text_column)
        text_column = next((c for c in candidates if c in rows[0]), candidates[-1])
        if len(candidates) > 1 and text_column != candidates[-1]:
            logger.info("%s: reading the text from column %r", source, text_column)
    if text_column not in rows[0] and "question" in rows[0] and "options" in rows[0]:
        from textleak.data.medqa import medqa_record

        rows = [medqa_record(r, i) for i, r in enumerate(rows)]
        text_column, id_column = "text", "id"
    columns = list(rows[0])
    if text_column not in rows[0]:
        raise ValueError(f"{source} has no column {text_column!r}; columns: {', '.join(map(str, columns))}")
    if id_column is None:
        id_column = "id" if "id" in rows[0] else None
    elif id_column not in rows[0]:
        raise ValueError(f"{source} has no id column {id_column!r}; columns: {', '.join(map(str, columns))}")
    out = []
    for n, r in enumerate(rows):
        text = r.get(text_column)
        if text is not None and not isinstance(text, str):
            if isinstance(text, float) and text != text:  # NaN from pandas
                text = None
            else:
                raise TypeError(f"{source} row {n}: column {text_column!r} is {type(text).__name__}, expected a string")
        rid = r.get(id_column) if id_column else None
        if rid is None and row_ids:
            rid = n
        out.append({**r, "id": str(rid) if rid is not None else None, "text": text})
    return out
