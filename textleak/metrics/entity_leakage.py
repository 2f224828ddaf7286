"""``entity_leakage``: PIPP and ELP of synthetic text (Zhao & Field, "Controlled Generation for
Private Synthetic Text"), with ROUGE-2/ROUGE-L against the private references and optional
perplexity and MAUVE.

    leak = evaluate.load("entity_leakage")                 # or EntityLeakage() directly
    leak.compute(predictions=synthetic_texts, references=context_texts,
                 private_entities=[["Mr Arvid Kellerman", "41872/03"], ...])        # ICL setting
    leak.compute(predictions=synthetic_texts, references=train_texts,
                 private_entities=all_training_values)                              # fine-tuning setting
"""

from __future__ import annotations

import logging
from typing import Any, Sequence

import datasets
import evaluate

from textleak.controlled.entity_metrics import BOUNDARIES, corpus_leakage, icl_leakage, max_rouge

logger = logging.getLogger(__name__)

SETTINGS = ("auto", "icl", "fine_tuning")

_CITATION = """\
@misc{zhao2025controlled,
  title={Controlled Generation for Private Synthetic Text},
  author={Zhao, Zihao and Field, Anjalie},
  year={2025},
  note={Johns Hopkins University}
}
"""

_DESCRIPTION = """\
Entity leakage of synthetic text. PIPP (private information presence) is the share of generations
containing at least one private entity; ELP (entity leakage) is the share of private entities that
appear. In the ICL setting each generation is checked against the entities of its own prompt context
and ELP is averaged over generations; in the fine-tuning setting every generation is checked against
all training entities (de-duplicated) and ELP = distinct leaked / distinct entities. Matching is
case-insensitive, whitespace-tolerant, with word boundaries only at the value's word-character edges
(so "$87,500" and "45%" are found; the released code's \\b...\\b is boundary="word"). Values are
fractions in [0, 1]; the paper prints percentages.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): the synthetic texts (a None, i.e. a failed generation, is an error: filter and report it).
    references (list): ROUGE references. ICL: one string or list of strings per prediction (best match taken);
        fine-tuning: the training texts, each prediction scored against all of them (maximum, as in the paper).
        Optional: without it no ROUGE is reported.
    private_entities (list): ICL: one list of entity strings per prediction (its context's control-code values);
        fine-tuning: one flat list of all training entity strings (or one list per training record).
    setting (str): "auto" (default: a flat list of strings means fine-tuning, a list of lists means ICL),
        "icl" or "fine_tuning".
    boundary (str): "edge" (default) or "word" (the released code's \\b...\\b, under-counts symbols).
    deduplicate (bool): ICL only; count each distinct context entity once (default True, the paper);
        False is the released code.
    use_stemmer (bool): Porter stemming in ROUGE (default True, as in seed 004).
    perplexity_model (str): if given ("embedded", "hf:<id>", a path), adds the perplexity of the predictions.
    mauve_references (list of str): if given, adds MAUVE between these real texts and the predictions.
    mauve_features (str): feature model for MAUVE: "minilm" (default), a sentence-transformers path, or a causal LM spec.
Returns:
    pipp (float), elp (float or None: no prediction had entities), rouge2, rougeL (float, when references are given),
    num_predictions, num_entities, num_leaked_entities (int), setting (str), boundary (str), and the
    released-code variants: ICL "elp_released"; fine-tuning "elp_unique_over_predictions", "elp_per_prediction",
    "leaked_entities". Optionally perplexity, mauve.
Examples:
    >>> leak = EntityLeakage()
    >>> r = leak.compute(predictions=["Ms Ann Lee paid $87,500.", "Nothing here."],
    ...                  references=["Ann Lee paid the sum.", "A quiet day."],
    ...                  private_entities=[["Ann Lee", "$87,500", "Oslo"], ["Bob"]])
    >>> r["pipp"], round(r["elp"], 4), r["setting"]
    (0.5, 0.3333, 'icl')
    >>> r = leak.compute(predictions=["Bob met Ann Lee.", "clean"], private_entities=["Ann Lee", "Bob", "Carl", "Dan"])
    >>> r["pipp"], r["elp"], r["leaked_entities"]
    (0.5, 0.5, ['Ann Lee', 'Bob'])
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class EntityLeakage(evaluate.Metric):
    """PIPP/ELP/ROUGE of synthetic text; usable directly, via ``evaluate.load`` and in ``compute_metrics``."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            module_type="metric",
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string")}),
            codebase_urls=["https://github.com/zzhao71/Controlled-Generation-for-Private-Synthetic-Text"],
        )

    def compute(self, *, predictions=None, references=None, **kwargs) -> dict | None:
        """``references`` is not a per-row input here (in the fine-tuning setting it is the whole
        training set, of another length), so it travels as a compute argument."""
        if references is not None:
            kwargs["rouge_references"] = list(references)
        return super().compute(predictions=predictions, **kwargs)

    def _compute(
        self,
        predictions: Sequence[str],
        private_entities: Sequence | None = None,
        rouge_references: Sequence | None = None,
        setting: str = "auto",
        boundary: str = "edge",
        deduplicate: bool = True,
        use_stemmer: bool = True,
        perplexity_model: str | None = None,
        mauve_references: Sequence[str] | None = None,
        mauve_features: str = "minilm",
    ) -> dict[str, Any]:
        if private_entities is None:
            raise ValueError("entity_leakage needs private_entities (per prediction for ICL, or all training entities)")
        if setting not in SETTINGS:
            raise ValueError(f"setting must be one of {SETTINGS}, got {setting!r}")
        if boundary not in BOUNDARIES:
            raise ValueError(f"boundary must be one of {BOUNDARIES}, got {boundary!r}")
        predictions = list(predictions)
        entities = list(private_entities)
        if setting == "auto":
            setting = "fine_tuning" if all(isinstance(e, str) for e in entities) else "icl"
        if setting == "icl":
            leakage = icl_leakage(predictions, entities, boundary, deduplicate)
        else:
            flat = [v for e in entities for v in ([e] if isinstance(e, str) else e)]
            leakage = corpus_leakage(predictions, flat, boundary)
        result: dict[str, Any] = {**leakage.as_dict(), "setting": setting, "boundary": boundary}
        if rouge_references is not None:
            refs = list(rouge_references)
            if setting == "fine_tuning":
                pool = [r for r in refs for r in ([r] if isinstance(r, str) else r)]
                refs = [pool] * len(predictions)
            result.update(max_rouge(predictions, refs, use_stemmer))
        if perplexity_model:
            from textleak.controlled.quality import perplexity

            result["perplexity"] = perplexity(predictions, perplexity_model)
            result["perplexity_model"] = perplexity_model
        if mauve_references is not None:
            from textleak.controlled.quality import mauve_score

            result["mauve"] = mauve_score(predictions, list(mauve_references), mauve_features)
            result["mauve_features"] = mauve_features
        return result
