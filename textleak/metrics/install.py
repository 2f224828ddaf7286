"""Make ``evaluate.load("<metric>")`` find textleak's metrics by bare name, offline.

evaluate 0.4.6 resolves a bare name through the Hub (Spaces ``evaluate-metric/<name>``) and, when
that fails, falls back to its module cache:
``$HF_MODULES_CACHE/evaluate_modules/metrics/evaluate-metric--<name>/<64-hex hash>/<name>.py``
(``evaluate/loading.py:CachedEvaluationModuleFactory``). :func:`install_metrics` writes our two-line
shims there (and under ``textleak--<name>`` so ``evaluate.load("textleak/<name>")`` works too), with
the ``__init__.py`` files evaluate's importer expects. It is idempotent and respects ``HF_HOME`` /
``HF_MODULES_CACHE`` at call time. Set ``HF_EVALUATE_OFFLINE=1`` on firewalled hosts: without it
evaluate may wait minutes for the Hub before it falls back to the cache.

The shim text here is byte-identical to ``metrics/<name>/<name>.py`` in the repository (a test pins
it), so the Space, the repository folder and the installed cache run the same code: the class in
``textleak.metrics.<name>``.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from pathlib import Path
from typing import Any

METRICS: dict[str, str] = {
    "semantic_leakage": "SemanticLeakage",
    "reconstruction_asr": "ReconstructionASR",
    "entity_leakage": "EntityLeakage",
}
NAMESPACES = ("evaluate-metric", "textleak")


def shim_source(name: str) -> str:
    """The two-line module evaluate imports: a comment and the re-export of the textleak class."""
    if name not in METRICS:
        raise KeyError(f"unknown textleak metric {name!r}; available: {', '.join(METRICS)}")
    return (
        f'# The metric lives in textleak (pip install textleak); this shim makes it loadable as evaluate.load("{name}").\n'
        f"from textleak.metrics.{name} import {METRICS[name]}  # noqa: F401\n"
    )


def modules_cache() -> Path:
    """``HF_MODULES_CACHE`` as evaluate computes it, read from the environment now."""
    env = os.environ.get("HF_MODULES_CACHE")
    if env:
        return Path(env).expanduser()
    hf_home = os.environ.get("HF_HOME") or os.path.join(os.environ.get("XDG_CACHE_HOME", "~/.cache"), "huggingface")
    return Path(hf_home).expanduser() / "modules"


def _code_hash(source: str) -> str:
    """evaluate's ``_hash_python_lines``: sha256 of the code lines without comments and blank lines."""
    filtered = []
    for line in source.splitlines(keepends=True):
        line = re.sub(r"#.*", "", line)
        if line:
            filtered.append(line)
    return hashlib.sha256("\n".join(filtered).encode("utf-8")).hexdigest()


def shim_paths(name: str, namespace: str = "evaluate-metric", root: Path | None = None) -> Path:
    """Where the shim of ``name`` lives in the evaluate module cache."""
    base = (root or modules_cache()) / "evaluate_modules" / "metrics" / f"{namespace}--{name}"
    return base / _code_hash(shim_source(name)) / f"{name}.py"


def is_installed(names=tuple(METRICS), root: Path | None = None) -> bool:
    """Cheap check (a few stat calls): every shim is in place with the current content."""
    for name in names:
        for ns in NAMESPACES:
            path = shim_paths(name, ns, root)
            try:
                if path.read_text(encoding="utf-8") != shim_source(name):
                    return False
            except OSError:
                return False
    return True


def install_metrics(names=tuple(METRICS), root: str | os.PathLike | None = None) -> list[Path]:
    """Write the shims of ``names`` into the evaluate module cache; returns the shim files."""
    cache = Path(root) if root is not None else modules_cache()
    written = []
    for name in names:
        source = shim_source(name)
        for ns in NAMESPACES:
            path = shim_paths(name, ns, cache)
            dirs = [cache / "evaluate_modules", cache / "evaluate_modules" / "metrics", path.parent.parent, path.parent]
            for d in dirs:
                d.mkdir(parents=True, exist_ok=True)
                init = d / "__init__.py"
                if not init.exists():
                    init.write_text("", encoding="utf-8")
            if not path.exists() or path.read_text(encoding="utf-8") != source:
                tmp = path.with_suffix(f".tmp{os.getpid()}")
                tmp.write_text(source, encoding="utf-8")
                os.replace(tmp, path)  # atomic: concurrent installers never expose a half-written shim
            written.append(path)
    return written


def ensure_installed() -> None:
    """Install when missing; never raises (used at interpreter start-up by ``textleak-metrics.pth``)."""
    try:
        if os.environ.get("TEXTLEAK_NO_AUTOINSTALL"):
            return
        if not is_installed():
            install_metrics()
    except Exception:  # noqa: BLE001 - start-up must never fail because of us
        pass


# ---- what evaluate says when it loads a shim ----------------------------------------------------
_CACHED_MESSAGE = "Using the latest cached version of the module from "


def honest_cache_message(record: Any) -> bool:
    """A ``logging`` filter for ``evaluate.loading``: evaluate announces a shim from its module cache as
    "Using the latest cached version ... since it couldn't be found locally at semantic_leakage, or
    remotely on the Hugging Face Hub", which reads as a failure. For textleak's own shims the line is
    rewritten to say what happened; every other module's message is left as it is."""
    try:
        message = record.getMessage()
    except Exception:  # noqa: BLE001 - never break logging
        return True
    if not message.startswith(_CACHED_MESSAGE):
        return True
    for name in METRICS:
        for ns in NAMESPACES:
            ours = f"{os.sep}{ns}--{name}{os.sep}{_code_hash(shim_source(name))}"
            if ours in message:
                from textleak._version import __version__

                record.msg = (f"evaluate.load({name!r}): using textleak's {name} metric (textleak {__version__}, "
                              f"textleak.metrics.{name}) through the shim textleak installed in evaluate's module cache "
                              f"({message[len(_CACHED_MESSAGE):].split(' (last modified')[0]}); textleak's metrics are not "
                              "on the Hugging Face Hub, so this is the expected path")
                record.args = ()  # the level stays evaluate's: the line is still shown, now saying what happened
                return True
    return True


def make_shims_current(names=tuple(METRICS), root: Path | None = None) -> None:
    """Install missing shims and make each one the newest version in its folder: evaluate takes the most
    recently modified hash folder, and the module cache is shared by every environment of the user, so
    a shim another environment wrote (another textleak version) must not be the one this one loads."""
    cache = root or modules_cache()
    if not is_installed(names, cache):
        install_metrics(names, cache)
    for name in names:
        for ns in NAMESPACES:
            ours = shim_paths(name, ns, cache)
            try:  # evaluate orders the hash folders by the mtime of <hash>/<name>.py
                others = [p / ours.name for p in ours.parent.parent.iterdir() if p.is_dir() and p != ours.parent]
                newest = max((p.stat().st_mtime for p in others if p.exists()), default=0.0)
                if newest >= ours.stat().st_mtime:
                    stamp = max(newest + 1.0, ours.stat().st_mtime)
                    os.utime(ours, (stamp, stamp))
            except OSError:
                pass


def on_evaluate_import() -> None:
    """Run by the ``textleak-metrics.pth`` hook when ``evaluate.loading`` is first imported: the honest
    message filter and current shims. Never raises."""
    import sys

    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "_TextleakEvaluateHook"]
    try:
        logger = logging.getLogger("evaluate.loading")
        if honest_cache_message not in logger.filters:
            logger.addFilter(honest_cache_message)
        if not os.environ.get("TEXTLEAK_NO_AUTOINSTALL"):
            make_shims_current()
    except Exception:  # noqa: BLE001 - importing evaluate must never fail because of us
        pass


# textleak imported before evaluate.load (import textleak.metrics, or the metric itself): the same honest line
if honest_cache_message not in logging.getLogger("evaluate.loading").filters:
    logging.getLogger("evaluate.loading").addFilter(honest_cache_message)
