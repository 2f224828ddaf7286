"""Content-addressed on-disk caches: expensive work (LLM calls, claims, sanitized sets) happens once.

One SQLite file per cache name under the cache root. Keys are SHA-256 digests of a canonical JSON
encoding of everything that determines the value, so a rerun, or a run interrupted half way, costs
nothing twice. SQLite in WAL mode lets several processes (``datasets.map(num_proc=...)``) share a cache.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

logger = logging.getLogger(__name__)

CACHE_ENV = "TEXTLEAK_CACHE_DIR"
#: Part of every cache key: bump it when what a key stands for changes (version 2: seeds come from
#: numpy's SeedSequence, textleak.text.seeds), so old entries are never read as new results.
CACHE_VERSION = 2


def cache_root() -> Path:
    """The cache folder: ``$TEXTLEAK_CACHE_DIR``, else ``$XDG_CACHE_HOME/textleak``, else ``~/.cache/textleak``."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "textleak"


def model_cache_root() -> Path:
    """Where converted model weights live: ``$TEXTLEAK_MODEL_CACHE``, else ``~/.cache/textleak/models``.

    Separate from :func:`cache_root` so tests can isolate result caches without re-converting models.
    """
    env = os.environ.get("TEXTLEAK_MODEL_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "textleak" / "models"


def canonical_json(obj: Any) -> str:
    """A deterministic JSON encoding (sorted keys, no whitespace) for hashing."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_default)


def _default(obj: Any) -> Any:
    if isinstance(obj, (set, frozenset)):
        return sorted(obj)
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):  # a config dataclass: its class and fields
        # shallow (asdict would deep-copy every field): nested values go through this function in turn
        return {"__class__": type(obj).__qualname__, **{f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}}
    raise TypeError(f"cannot hash object of type {type(obj).__name__} into a cache key")


def content_hash(*parts: Any) -> str:
    """SHA-256 hex digest of the canonical JSON of ``parts`` (and :data:`CACHE_VERSION`)."""
    return hashlib.sha256(canonical_json([CACHE_VERSION, *parts]).encode("utf-8")).hexdigest()


def file_hash(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    """SHA-256 of a file's bytes (used to fingerprint model files and input data)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(chunk), b""):
            h.update(block)
    return h.hexdigest()


class CacheError(RuntimeError):
    """A cache database that cannot be opened or read (the message names its file)."""


class DiskCache:
    """A persistent key -> JSON value store in one SQLite file.

    ``DiskCache("llm")`` lives at ``cache_root()/llm.sqlite``. Values must be JSON-serialisable.
    The cache is safe to share between threads and processes; pickling it keeps only its path, so
    objects holding one stay hashable by ``datasets``.
    """

    def __init__(self, name: str = "default", root: str | os.PathLike | None = None, enabled: bool = True):
        self.name = name
        self.root = Path(root) if root is not None else None
        self.enabled = enabled
        self._local = threading.local()

    @property
    def path(self) -> Path:
        return (self.root or cache_root()) / f"{self.name}.sqlite"

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        pid = os.getpid()
        if conn is None or getattr(self._local, "pid", None) != pid:
            if not self.path.parent.exists():  # caches hold private text: owner-only folder and files
                self.path.parent.mkdir(parents=True, mode=0o700)
                os.chmod(self.path.parent, 0o700)
            if not self.path.exists():
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
            with self._guard():
                conn = sqlite3.connect(self.path, timeout=60, isolation_level=None, check_same_thread=False)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute("CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)")
            self._local.conn = conn
            self._local.pid = pid
        return conn

    @contextlib.contextmanager
    def _guard(self):
        """Database errors name the cache file and what to do (a truncated file is not a mystery)."""
        try:
            yield
        except sqlite3.DatabaseError as e:
            raise CacheError(f"the cache {self.path} cannot be used ({e}); delete it (it only holds results that "
                             "are recomputed) or set TEXTLEAK_CACHE_DIR to another folder") from None

    def get(self, key: str, default: Any = None) -> Any:
        if not self.enabled:
            return default
        with self._guard():
            row = self._conn().execute("SELECT v FROM kv WHERE k = ?", (key,)).fetchone()
        if row is None:
            return default
        try:
            return json.loads(row[0])
        except (TypeError, ValueError):  # a damaged value is a miss, never a value
            logger.warning("a damaged entry in the cache %s is ignored", self.path)
            return default

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """Values for the keys that are present (missing keys are absent from the result)."""
        keys = list(keys)
        if not self.enabled or not keys:
            return {}
        out: dict[str, Any] = {}
        with self._guard():
            conn = self._conn()
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for k, v in conn.execute(f"SELECT k, v FROM kv WHERE k IN ({marks})", chunk):
                    try:
                        out[k] = json.loads(v)
                    except (TypeError, ValueError):  # a damaged value is a miss (recomputed), never a value
                        out[k] = _DAMAGED
        return out

    def set(self, key: str, value: Any) -> None:
        if not self.enabled:
            return
        self._conn().execute("INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)", (key, json.dumps(value)))

    def set_many(self, items: dict[str, Any]) -> None:
        if not self.enabled or not items:
            return
        with self._guard():
            conn = self._conn()
            conn.execute("BEGIN")
            try:
                conn.executemany(
                    "INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)", [(k, json.dumps(v)) for k, v in items.items()]
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    def __contains__(self, key: str) -> bool:
        if not self.enabled:
            return False
        return self._conn().execute("SELECT 1 FROM kv WHERE k = ?", (key,)).fetchone() is not None

    def __len__(self) -> int:
        if not self.enabled or not self.path.exists():
            return 0
        return self._conn().execute("SELECT COUNT(*) FROM kv").fetchone()[0]

    def clear(self) -> None:
        if self.path.exists():
            self._conn().execute("DELETE FROM kv")

    def __getstate__(self) -> dict:
        return {"name": self.name, "root": str(self.root) if self.root else None, "enabled": self.enabled}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["name"], state["root"], state["enabled"])

    def __repr__(self) -> str:
        return f"DiskCache({self.name!r}, path={str(self.path)!r})"


#: What :meth:`DiskCache.get_many` returns for a value that is not JSON (``cached_map`` recomputes it).
_DAMAGED = object()


def cached_map(
    keys: Sequence[str],
    compute: Callable[[list[int]], Sequence[Any]],
    cache: "DiskCache | None",
    *,
    chunk_size: int = 64,
    keep: Callable[[int, Any], bool] | None = None,
    valid: Callable[[int, Any], bool] | None = None,
    after_chunk: Callable[[list[int], list[Any]], None] | None = None,
    progress: bool = False,
    desc: str = "",
    unit: str = "it",
) -> list[Any]:
    """The one get / dedupe / chunk / compute / set loop every cached stage uses.

    ``keys[i]`` identifies item i's value. Values found in ``cache`` are reused; the rest are computed
    by ``compute(positions)`` (one value per position, in order) in chunks of ``chunk_size``, items with
    equal keys computed once. Each finished chunk is written to the cache before the next starts, so an
    interrupted or failed run keeps what it computed. Values for which ``keep(i, value)`` is False
    (failures, unparsed answers) are returned but never cached, so a rerun retries them.
    ``after_chunk(positions, values)`` runs after a chunk is saved (e.g. to raise on a failure).
    A cached value that is not JSON, or for which ``valid(i, value)`` is False (the shape a stage
    expects: a damaged or edited entry), is a miss: recomputed and overwritten, with one warning naming
    the cache, never returned as a value.
    """
    values: dict[str, Any] = cache.get_many(set(keys)) if cache is not None else {}
    damaged = {k for k, v in values.items() if v is _DAMAGED}
    if valid is not None:
        damaged |= {k for i, k in enumerate(keys) if k in values and k not in damaged and not valid(i, values[k])}
    if damaged:
        logger.warning("%d damaged entries in the cache %s (not the shape %s stores) are ignored and recomputed",
                       len(damaged), cache.path if cache is not None else "", desc or "this stage")
        for k in damaged:
            del values[k]
    first: dict[str, int] = {}
    todo = [i for i, k in enumerate(keys) if k not in values and first.setdefault(k, i) == i]
    if todo:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(todo), desc=desc or None, unit=unit, disable=not progress, leave=False)
        try:
            for start in range(0, len(todo), max(1, chunk_size)):
                chunk = todo[start : start + max(1, chunk_size)]
                computed = list(compute(chunk))
                if len(computed) != len(chunk):
                    raise RuntimeError(f"{desc or 'compute'} returned {len(computed)} values for {len(chunk)} items")
                fresh = {}
                for i, value in zip(chunk, computed):
                    values[keys[i]] = value
                    if keep is None or keep(i, value):
                        fresh[keys[i]] = value
                if cache is not None:
                    cache.set_many(fresh)
                if after_chunk is not None:
                    after_chunk(chunk, computed)
                bar.update(len(chunk))
        finally:
            bar.close()
    return [values[k] for k in keys]
