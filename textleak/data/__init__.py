"""Datasets in one schema (builders, loaders) and the bundled demo data.

Every dataset is a :class:`datasets.GeneratorBasedBuilder` subclass in this package. Records share one
schema: ``id``, ``text`` (the private part a sanitizer rewrites), plus the task's own fields.

>>> from textleak.data import load
>>> ds = load("medqa", "fixture", split="test")          # bundled, offline
>>> ds = load("sst2", data_dir="glue/SST-2")              # local GLUE files
>>> ds = load("medqa", split="test")                      # online: GBaker/MedQA-USMLE-4-options
>>> ds = load("notes.jsonl", columns={"text": "note"})    # bring your own (a path is the "byo" dataset)
"""

from __future__ import annotations

import importlib
import logging
import os
from pathlib import Path
from typing import Any

import datasets

from textleak.cache import cache_root

logger = logging.getLogger(__name__)

# name -> "module:Builder"; the module import is deferred until the dataset is used
BUILDERS: dict[str, str] = {
    "medqa": "textleak.data.medqa:MedQA",
    "wildchat": "textleak.data.wildchat:WildChat",
    "tab": "textleak.data.tab_builder:TAB",
    "sst2": "textleak.data.sst2:SST2",
    "ag_news": "textleak.data.ag_news:AGNews",
    "qnli": "textleak.data.qnli:QNLI",
    "yelp": "textleak.data.yelp:Yelp",
    "byo": "textleak.data.byo:BringYourOwn",
}
# other spellings -> (name, config or None)
ALIASES: dict[str, tuple[str, str | None]] = {
    "sst-2": ("sst2", None),
    "agnews": ("ag_news", None),
    "ag-news": ("ag_news", None),
    "pupa": ("wildchat", "pupa_tnb"),
    "echr": ("tab", None),
    "bring_your_own": ("byo", None),
}
_FILE_SUFFIXES = (".jsonl", ".json", ".csv", ".tsv", ".parquet")


def list_datasets() -> list[str]:
    """The dataset names :func:`load` and the CLI accept (aliases excluded)."""
    return sorted(BUILDERS)


def resolve_name(name: str, config: str | None = None) -> tuple[str, str | None]:
    """Canonical (name, config) for a name or alias."""
    key = name.strip().lower()
    if key in BUILDERS:
        return key, config
    if key in ALIASES:
        canon, cfg = ALIASES[key]
        return canon, config or cfg
    raise KeyError(f"unknown dataset {name!r}; available: {', '.join(list_datasets())} "
                   f"(aliases: {', '.join(sorted(ALIASES))}), or a path to a .jsonl/.csv/.parquet file")


def builder_class(name: str) -> type:
    name, _ = resolve_name(name)
    module_name, cls_name = BUILDERS[name].split(":")
    return getattr(importlib.import_module(module_name), cls_name)


def config_names(name: str) -> list[str]:
    return [c.name for c in builder_class(name).BUILDER_CONFIGS]


def get_builder(
    name: str,
    config: str | None = None,
    data_dir: str | os.PathLike | None = None,
    data_files: Any = None,
    cache_dir: str | os.PathLike | None = None,
    **config_kwargs: Any,
) -> datasets.DatasetBuilder:
    """An instantiated builder with ``hash=`` set from its code, version and input files.

    A ``name`` that is a path to a data file loads it as the "byo" dataset (``data_files=name``).
    ``config_kwargs`` override config fields (``source``, ``test_size``, ``split_seed``, or the
    dataset's own, e.g. ``columns`` for byo)."""
    from textleak.data._builder import builder_hash

    if isinstance(name, (str, os.PathLike)) and str(name).lower().endswith(_FILE_SUFFIXES):
        if data_files is not None:
            raise ValueError("pass a file either as the dataset name or as data_files, not both")
        name, data_files = "byo", str(name)
    name = str(name)
    if ":" in name and config is None:  # "medqa:fixture" (what `data:medqa:fixture` in textleak.io passes)
        name, config = name.split(":", 1)
    name, config = resolve_name(name, config)
    cls = builder_class(name)
    if config is not None and config not in config_names(name):
        raise ValueError(f"dataset {name!r} has no config {config!r}; configs: {', '.join(config_names(name))}")
    if data_dir is not None:
        config_kwargs["data_dir"] = str(data_dir)
    if data_files is not None:
        config_kwargs["data_files"] = _normalise_data_files(data_files)
    cache = Path(cache_dir) if cache_dir is not None else cache_root() / "datasets"
    # a first instance resolves the source's input files; the hash covers their stamps
    probe = cls(config_name=config, cache_dir=str(cache), dataset_name=name, **config_kwargs)
    inputs = [p for paths in probe.input_files().values() for p in paths]
    code_hash = builder_hash(cls, inputs)
    return cls(config_name=config, cache_dir=str(cache), dataset_name=name, hash=code_hash, **config_kwargs)


def load(
    name: str,
    config: str | None = None,
    split: str | None = None,
    data_dir: str | os.PathLike | None = None,
    data_files: Any = None,
    cache_dir: str | os.PathLike | None = None,
    **config_kwargs: Any,
) -> "datasets.Dataset | datasets.DatasetDict":
    """Prepare (once, cached) and return a dataset in the project's schema.

    ``name``: one of :func:`list_datasets` (or an alias, ``"name:config"``, or a data file path for
    "byo"); ``config``:
    one of the dataset's configs (every dataset has ``fixture``, the bundled offline sample);
    ``split``: a split name or a slice like ``"test[:50]"`` (None returns the DatasetDict);
    ``data_dir``/``data_files``: local files instead of the Hub.

    The prepared copies hold the records' text: they are written readable by their owner only
    (:func:`textleak.io.private_files`), from Python as from the CLI.
    """
    from textleak.io import make_private_dir, private_files

    with private_files():
        if cache_dir is None:
            make_private_dir(cache_root() / "datasets")
        builder = get_builder(name, config, data_dir=data_dir, data_files=data_files, cache_dir=cache_dir, **config_kwargs)
        if builder.source == "hub" and datasets.config.HF_HUB_OFFLINE:
            raise ConnectionError(
                f"dataset {builder.name!r} config {builder.config.name!r} reads the Hub repo {builder.config.hub_repo!r}, "
                "but Hugging Face is offline (HF_HUB_OFFLINE/HF_DATASETS_OFFLINE); pass data_dir/data_files, "
                "or config='fixture' for the bundled sample")
        try:
            builder.download_and_prepare()
        except datasets.exceptions.DatasetGenerationError as e:
            # surface our message naming the record instead of datasets' generic wrapper
            if isinstance(e.__cause__, (ValueError, KeyError, TypeError)):
                raise e.__cause__ from e
            raise
        return builder.as_dataset(split=split)


def from_spec(spec: str, split: str | None = None, **kwargs: Any) -> "datasets.Dataset":
    """One split of a dataset named the way the CLI names one: ``data:<name>[:<config>]`` (or the
    bare ``<name>[:<config>]``). Without ``split`` the test split is used when there is one, else the
    first. For commands that take an input file and should also take a built-in dataset."""
    name = spec[5:] if spec.startswith("data:") else spec
    ds = load(name, **kwargs)
    if isinstance(ds, datasets.DatasetDict):
        if split is None:
            split = "test" if "test" in ds else next(iter(ds))
        if split not in ds:
            raise ValueError(f"{spec} has splits {list(ds)}, not {split!r}")
        ds = ds[split]
    return ds


def _normalise_data_files(data_files: Any) -> Any:
    if isinstance(data_files, os.PathLike):
        return str(data_files)
    if isinstance(data_files, dict):
        return {k: ([str(p) for p in v] if isinstance(v, (list, tuple)) else str(v)) for k, v in data_files.items()}
    if isinstance(data_files, (list, tuple)):
        return [str(p) for p in data_files]
    return data_files


def export_parquet(ds: "datasets.Dataset | datasets.DatasetDict", out_dir: str | os.PathLike,
                   config: str = "default") -> Path:
    """Write a prepared dataset in the Hub dataset-repo layout ``Dataset.push_to_hub`` uses:
    ``data/<split>-00000-of-00001.parquet`` for the default config, ``<config>/<split>-...`` for
    others, as listed under the card's ``configs:`` YAML. Returns the folder."""
    out = Path(out_dir)
    if isinstance(ds, datasets.Dataset):
        ds = datasets.DatasetDict({"train": ds})
    folder = "data" if config == "default" else config
    for split, part in ds.items():
        target = out / folder / f"{split}-00000-of-00001.parquet"
        target.parent.mkdir(parents=True, exist_ok=True)
        part.to_parquet(str(target))
    return out


def push_to_hub(
    name: str,
    repo_id: str,
    config: str | None = None,
    data_dir: str | os.PathLike | None = None,
    data_files: Any = None,
    private: bool = True,
    token: str | None = None,
    card_dir: str | os.PathLike | None = None,
    **config_kwargs: Any,
) -> str:
    """Prepare a dataset and push it to a Hub dataset repo as parquet (``DatasetDict.push_to_hub``
    writes ``data/`` parquet shards and the ``configs:`` YAML). ``card_dir``, when given, is a folder
    whose README.md body (the dataset card in ``datasets/<name>/``) is uploaded after the data.
    Private by default: these are private-text datasets. Returns the repo id."""
    ds = load(name, config, data_dir=data_dir, data_files=data_files, **config_kwargs)
    config_name = config or "default"
    ds.push_to_hub(repo_id, config_name=config_name, private=private, token=token)
    card = Path(card_dir) / "README.md" if card_dir is not None else None
    if card is not None and card.exists():
        from huggingface_hub import DatasetCard

        # push_to_hub wrote the configs/dataset_info YAML into README.md: keep it, replace the body
        pushed = DatasetCard.load(repo_id, token=token)
        pushed.text = card.read_text(encoding="utf-8").split("---", 2)[-1]
        pushed.push_to_hub(repo_id, token=token)
    return repo_id


__all__ = ["load", "from_spec", "list_datasets", "get_builder", "push_to_hub", "export_parquet", "resolve_name", "config_names"]
