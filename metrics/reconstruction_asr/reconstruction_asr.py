# The metric lives in textleak (pip install textleak); this shim makes it loadable as evaluate.load("reconstruction_asr").
from textleak.metrics.reconstruction_asr import ReconstructionASR  # noqa: F401
