# The metric lives in textleak (pip install textleak); this shim makes it loadable as evaluate.load("semantic_leakage").
from textleak.metrics.semantic_leakage import SemanticLeakage  # noqa: F401
