"""The ``semantic_leakage`` evaluate metric: seed 000's privacy of a sanitized set, as an evaluate module.

One class serves three uses: ``evaluate.load("semantic_leakage")`` (through the two-line shim in
``metrics/semantic_leakage/``), direct use (``SemanticLeakage(judge="embedding")``) and a Trainer's
``compute_metrics``. The work is :func:`textleak.leakage.evaluate_leakage`; this adapter only maps
options and results.
"""

from __future__ import annotations

import logging
from typing import Any, Sequence

import datasets
import evaluate

from textleak.config import split_options
from textleak.leakage import LeakageConfig, evaluate_leakage

logger = logging.getLogger(__name__)

_CITATION = """\
@inproceedings{xin2025false,
  title={A False Sense of Privacy: Evaluating Textual Data Sanitization Beyond Surface-level Privacy Leakage},
  author={Xin, Rui and Mireshghallah, Niloofar and Li, Shuyue Stella and Duan, Michael and Kim, Hyunwoo and Choi, Yejin and Tsvetkov, Yulia and Oh, Sewoong and Koh, Pang Wei},
  booktitle={International Conference on Learning Representations},
  year={2025}
}
"""

_DESCRIPTION = """\
Semantic leakage measures how much of each original record an adversary can still learn from a
sanitized dataset. Every original record is broken into atomic claims; the adversary knows k of them
(default 3) and links them to one sanitized record with BM25; a judge rates each remaining claim
against the linked record (1 same, 2 similar, 3 unsupported, normalised to 0, 0.5, 1). Semantic
privacy is the mean over original records: 0 means everything leaks, 1 means nothing does. Also
returned: the lexical baseline 1 - ROUGE-L, the correct-linkage rate (when records align),
linkage@k, bootstrap 95% intervals, and the judge, linker and settings that produced the numbers.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): sanitized records. Same length as `references` when they align one
        to one (sanitized[i] came from original[i]); any other length for synthetic data (no linkage
        rate then). An empty string is a legitimate record that supports no claim.
    references (`list` of `str`): the original (private) records.
    sanitized_ids (`list`, optional): for each prediction, the index or id of the original it came from
        (missing or reordered records).
    original_ids (`list`, optional): ids of the references (default: their positions).
    return_records (`bool`, default False): also return per-record details (claims, ratings, links).
    labels (`str` or `dict`, optional): hand labels of judged claims (a file written by `textleak label`, or
        claim key -> 1/2/3): adds `labelled`, semantic privacy corrected by prediction-powered inference with
        its interval, the judge-only figure and the judge's agreement on the labels.
Options: every field of ``textleak.leakage.LeakageConfig`` (judge, judge_options, llm, atomizer,
    linker, k, knowledge, paraphrase_knowledge, seed, alignment, missing, unlinked, unparsed,
    empty_originals, lexical_variant, bootstrap, batch_size, device, ...; see the metric card), at load
    time (``evaluate.load("semantic_leakage", judge=...)`` or ``config=LeakageConfig(...)``) or per call
    (``leak.compute(..., alignment="none")``; the load-time values are the defaults).
Returns:
    semantic_privacy (`float`), lexical_privacy (`float`), linkage_rate (`float` or None),
    linkage_at_k (`dict`), n_records, n_sanitized, n_claims, n_scored_claims, unparsed_claims,
    n_unlinked, n_unscored, ci95 (`dict` of [low, high]), judge, atomizer, linker, settings.
Examples:
    >>> leak = evaluate.load("semantic_leakage")
    >>> r = leak.compute(predictions=["", ""], references=["She is 25 years old. She is a cook. She lives in Oslo. She has asthma.",
    ...                                                    "He is 60 years old. He is a pilot. He lives in Rome. He has gout."])
    >>> r["semantic_privacy"], r["linkage_rate"]
    (1.0, 0.0)
"""


def _rank_and_world() -> tuple[int, int]:
    try:
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            return dist.get_rank(), dist.get_world_size()
    except Exception:  # noqa: BLE001 - torch missing or not distributed
        pass
    return 0, 1


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SemanticLeakage(evaluate.Metric):
    """Seed 000 semantic leakage; options at load time, work at compute time, models loaded once.

    In a distributed Trainer evaluation ``compute_metrics`` runs on every rank with the full,
    gathered predictions: when ``torch.distributed`` is initialised, only rank 0 runs the pipeline and
    the result is broadcast to the other ranks (``broadcast_result=False`` returns None there instead),
    so the judge runs once, not once per GPU.
    """

    def __init__(self, config: LeakageConfig | None = None, broadcast_result: bool = True, **kwargs: Any):
        options, evaluate_kwargs = split_options(LeakageConfig, kwargs)
        self.leakage_config = (config or LeakageConfig()).replace(**options)
        super().__init__(seed=self.leakage_config.seed, **evaluate_kwargs)
        self.broadcast_result = broadcast_result
        self._judge = None

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            module_type="metric",
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            codebase_urls=["https://github.com/ruixin31/false-sense-privacy"],
            reference_urls=["https://arxiv.org/abs/2411.11521"],
        )

    def judge(self):
        """The judge, built once per metric object (its model loads lazily on the first call)."""
        if self._judge is None:
            from textleak.leakage.judge import judge_for

            self._judge = judge_for(self.leakage_config)
        return self._judge

    def compute(self, *, predictions=None, references=None, **kwargs) -> dict | None:
        """Aligned sets go through evaluate's buffer as usual; a sanitized set of another size than
        the originals (synthetic data) cannot share an Arrow table with them, so it is computed
        directly (on process 0; other processes get None, as evaluate does)."""
        if predictions is not None and references is not None and len(predictions) != len(references):
            if self.process_id != 0:
                return None
            return self._compute(predictions=list(predictions), references=list(references), **kwargs)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _compute(
        self,
        predictions: Sequence[str | None],
        references: Sequence[str],
        sanitized_ids: Sequence[Any] | None = None,
        original_ids: Sequence[Any] | None = None,
        return_records: bool = False,
        labels: Any = None,
        **options: Any,
    ) -> dict[str, Any] | None:
        """Per-call ``options`` are fields of :class:`LeakageConfig` (``alignment="none"``, ``k``,
        ``missing``, ...), as evaluate's own metrics take theirs at compute time; the load-time values
        are their defaults. An option that changes the judge builds one for this call only."""
        config_options, unknown = split_options(LeakageConfig, options)
        if unknown:
            raise TypeError(f"semantic_leakage.compute() got unknown option(s) {', '.join(sorted(unknown))}; it takes "
                            "predictions, references, sanitized_ids, original_ids, return_records, labels and the fields of "
                            "textleak.leakage.LeakageConfig")
        config = self.leakage_config.replace(**config_options) if config_options else self.leakage_config
        if set(config_options) & {"judge", "judge_options", "llm", "device", "batch_size"}:
            from textleak.leakage.judge import judge_for

            judge = judge_for(config)
        else:
            judge = self.judge()
        rank, world = _rank_and_world()
        result = None
        if rank == 0:
            predictions, references = list(predictions), list(references)
            if sanitized_ids is not None and original_ids is None and all(isinstance(s, int) for s in sanitized_ids):
                sanitized_ids = [str(s) for s in sanitized_ids]  # positions of the references
            # sets of different sizes are an error unless alignment="none" (synthetic data) was asked for at
            # load or compute time, or sanitized_ids say which original each prediction came from
            report = evaluate_leakage(references, predictions, config.replace(judge=judge),
                                      original_ids=original_ids, sanitized_ids=sanitized_ids, labels=labels)
            result = report.summary()
            if return_records:
                result["records"] = [r.to_dict() for r in report.records]
        if world > 1:
            import torch.distributed as dist

            box = [result]
            dist.broadcast_object_list(box, src=0)
            result = box[0] if self.broadcast_result or rank == 0 else None
        return result
