"""Sanitizers' engine: the base class, the one run function and failure policy, and the engines
behind the built-in record-level sanitizers (Presidio scrubbing, LLM anonymization). The
``datasets.map`` transforms themselves are in the top-level ``sanitizers`` package."""

from textleak.sanitize.base import STATUS_OK, SanitizeResult, Sanitizer, create_sanitizer, screen_text
from textleak.sanitize.run import FAILURE_POLICIES, released_texts, run_sanitizer, sanitize_dataset

__all__ = ["FAILURE_POLICIES", "STATUS_OK", "SanitizeResult", "Sanitizer", "create_sanitizer", "released_texts",
           "run_sanitizer", "sanitize_dataset", "screen_text"]
