# The metric lives in textleak (pip install textleak); this shim makes it loadable as evaluate.load("entity_leakage").
from textleak.metrics.entity_leakage import EntityLeakage  # noqa: F401
