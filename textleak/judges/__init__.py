"""Judges of claim support: LLM (sampled or log-probability), embedding, lexical."""

from textleak.judges.base import OK, UNPARSED, ClaimRating, Judge, normalise

__all__ = ["ClaimRating", "Judge", "OK", "UNPARSED", "normalise"]
