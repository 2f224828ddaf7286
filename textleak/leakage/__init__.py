"""Semantic leakage (seed 000): the pipeline as stages, its one configuration and its report.

    from textleak.leakage import evaluate_leakage, LeakageConfig
    report = evaluate_leakage(originals, sanitized, LeakageConfig(judge="embedding", k=3))
"""

from textleak.leakage.config import KNOWLEDGE_STRATEGIES, LeakageConfig
from textleak.leakage.pipeline import evaluate_leakage
from textleak.leakage.report import LeakageReport, RecordResult, bootstrap_ci

__all__ = ["KNOWLEDGE_STRATEGIES", "LeakageConfig", "LeakageReport", "RecordResult", "bootstrap_ci", "evaluate_leakage"]
