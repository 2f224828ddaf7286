"""textleak's evaluate metrics (imported lazily: ``import textleak.metrics`` stays cheap).

- :class:`SemanticLeakage` (``semantic_leakage``): seed 000's semantic and lexical privacy.
- :class:`ReconstructionASR` (``reconstruction_asr``): attack success rate on word-level DP text.
- :class:`EntityLeakage` (``entity_leakage``): PIPP/ELP of synthetic text.

Each is a plain ``evaluate.Metric``: use it directly (``SemanticLeakage(judge="embedding")``), in a
Trainer's ``compute_metrics``, or via ``evaluate.load("<name>")`` once the shims are in evaluate's
module cache (:func:`install_metrics`, ``textleak install-metrics``, or automatically at start-up by
the ``textleak-metrics.pth`` hook of a wheel install). ``module_path(name)`` gives a folder that
``evaluate.load`` accepts with no installation at all.
"""

from __future__ import annotations

import importlib
from typing import Any

from textleak.metrics.install import METRICS, install_metrics, is_installed

_CLASSES = {cls: name for name, cls in METRICS.items()}

__all__ = ["EntityLeakage", "METRICS", "ReconstructionASR", "SemanticLeakage", "install_metrics", "is_installed", "module_path"]


def __getattr__(attr: str) -> Any:
    if attr in _CLASSES:
        module = importlib.import_module(f"textleak.metrics.{_CLASSES[attr]}")
        return getattr(module, attr)
    raise AttributeError(f"module 'textleak.metrics' has no attribute {attr!r}")


def module_path(name: str) -> str:
    """A folder holding ``<name>/<name>.py`` for ``evaluate.load(path)`` (installed into the module
    cache on first use, so it works from any working directory)."""
    (shim,) = [p for p in install_metrics([name]) if "evaluate-metric--" in str(p)]
    return str(shim.parent)
