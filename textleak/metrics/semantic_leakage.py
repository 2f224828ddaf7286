"""The ``semantic_leakage`` evaluate metric: seed 000's privacy of a sanitized set, as an evaluate module.

One class serves three uses: ``evaluate.load("semantic_leakage")`` (through the two-line shim in
``metrics/semantic_leakage/``), direct use (``SemanticLeakage(judge="embedding")``) and a Trainer's
``compute_metrics``. The work is :func:`textleak.leakage.evaluate_leakage`; this adapter only maps
options and results.
"""

from __future__ import annotations

import inspect
import logging
from typing import Any, Sequence

import datasets
import evaluate

from textleak.leakage import evaluate_leakage

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
Load-time options (``evaluate.load("semantic_leakage", judge=..., ...)``):
    judge ("embedding" | "lexical" | "llm"), llm (spec for the llm judge/atomizer: "embedded",
    "hf:<id>", "openai:<model>@<url>"), judge_options (dict), atomizer ("rules" | "llm"),
    linker ("bm25" | "bm25-release" | "rouge" | "dense"), k (3), aux_strategy ("random" | "first" |
    "last" | "release_shuffle"), paraphrase_aux (False), seed (0), batch_size, device, bootstrap (1000),
    lexical_variant ("paper" | "release"), unlinked ("score_empty" | "skip").
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

    def __init__(
        self,
        judge: Any = "embedding",
        llm: Any = None,
        judge_options: dict[str, Any] | None = None,
        atomizer: Any = "rules",
        linker: Any = "bm25",
        k: int = 3,
        aux_strategy: str = "random",
        paraphrase_aux: bool = False,
        seed: int = 0,
        batch_size: int | None = None,
        device: str | None = None,
        bootstrap: int = 1000,
        lexical_variant: str = "paper",
        unlinked: str = "score_empty",
        broadcast_result: bool = True,
        progress: bool = False,
        **kwargs: Any,
    ):
        super().__init__(seed=seed, **kwargs)
        self.judge_spec = judge
        self.llm = llm
        self.judge_options = dict(judge_options or {})
        self.atomizer_spec = atomizer
        self.linker_spec = linker
        self.k = k
        self.aux_strategy = aux_strategy
        self.paraphrase_aux = paraphrase_aux
        self.leakage_seed = seed
        self.batch_size = batch_size
        self.device = device
        self.bootstrap = bootstrap
        self.lexical_variant = lexical_variant
        self.unlinked = unlinked
        self.broadcast_result = broadcast_result
        self.progress = progress
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

    # ---- the judge is built once per metric object (models load lazily on its first call) ----
    def judge(self):
        if self._judge is None:
            from textleak.judges import Judge, make_judge

            if isinstance(self.judge_spec, Judge):
                self._judge = self.judge_spec
            else:
                options = dict(self.judge_options)
                factory_target = {"embedding": "EmbeddingJudge", "lexical": "LexicalJudge", "llm": "LLMJudge"}.get(str(self.judge_spec))
                if factory_target:
                    import textleak.judges as judges

                    params = inspect.signature(getattr(judges, factory_target).__init__).parameters
                    if self.batch_size is not None and "batch_size" in params:
                        options.setdefault("batch_size", self.batch_size)
                    if self.device is not None and "device" in params:
                        options.setdefault("device", self.device)
                self._judge = make_judge(self.judge_spec, llm=self.llm, **options)
        return self._judge

    def _linker(self):
        """A fresh linker per compute (it holds the index); the dense one gets device and batch size."""
        from textleak.linking import make_linker

        if self.linker_spec == "dense":
            options = {"device": self.device, **({"batch_size": self.batch_size} if self.batch_size else {})}
            return make_linker("dense", **options)
        return make_linker(self.linker_spec)

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
    ) -> dict[str, Any] | None:
        rank, world = _rank_and_world()
        result = None
        if rank == 0:
            predictions, references = list(predictions), list(references)
            alignment = "auto"
            if sanitized_ids is not None:
                if original_ids is None and all(isinstance(s, int) for s in sanitized_ids):
                    sanitized_ids = [str(s) for s in sanitized_ids]
                alignment = "ids"
            elif len(predictions) != len(references):
                alignment = "none"
            report = evaluate_leakage(
                references, predictions, original_ids=original_ids, sanitized_ids=sanitized_ids, alignment=alignment,
                judge=self.judge(), llm=self.llm, atomizer=self.atomizer_spec, linker=self._linker(), k=self.k,
                aux_strategy=self.aux_strategy, paraphrase_aux=self.paraphrase_aux, seed=self.leakage_seed,
                lexical_variant=self.lexical_variant, unlinked=self.unlinked, bootstrap=self.bootstrap, progress=self.progress,
            )
            result = report.summary()
            if return_records:
                result["records"] = [r.to_dict() for r in report.records]
        if world > 1:
            import torch.distributed as dist

            box = [result]
            dist.broadcast_object_list(box, src=0)
            result = box[0] if self.broadcast_result or rank == 0 else None
        return result
