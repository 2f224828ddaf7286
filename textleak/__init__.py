"""textleak: measure how much private information survives text sanitization.

The engine package. Sanitizers, metrics, dataset cards, benchmarks and tests import it; it imports none
of them. Heavy dependencies (torch, transformers, presidio, ...) are imported lazily where used.
"""

from textleak._version import __version__

__all__ = ["__version__"]
