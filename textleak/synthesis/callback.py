"""Watch leakage while a model trains: every N steps, generate a few records and measure them.

``LeakageCallback`` is a ``transformers.TrainerCallback``, so any Hugging Face training script can
add it (``Trainer(..., callbacks=[LeakageCallback(...)])``); textleak's own loop
(:func:`textleak.synthesis.training.train_causal_lm`) calls :meth:`LeakageCallback.measure` through
its ``step_callback``. Each measurement generates ``num_records`` records from the control codes of
the first training records (seeded per record index, the same every time, so successive
measurements differ only by the model) and runs the semantic-leakage pipeline
(:func:`textleak.leakage.evaluate_leakage`, offline defaults: rule-based atomizer, embedding judge,
BM25 linking) against the private training texts. With ``entities`` it also reports the
entity-leakage metrics PIPP / ELP of seed 004 (:func:`textleak.controlled.entity_metrics.corpus_leakage`).

Logged keys (prefixed ``leakage/``): ``semantic_privacy``, ``lexical_privacy``, ``empty_generations``
and, with entities, ``pipp`` and ``elp``. Higher privacy means less leakage. A few records give a
noisy trend line, not a privacy claim: measure the final synthetic set with ``textleak evaluate``.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Mapping, Sequence

from transformers import TrainerCallback

from textleak.text.seeds import record_seed
from textleak.synthesis.templates import ConditioningTemplate, resolve_template
from textleak.synthesis.generation import GenerationConfig, generate_records

logger = logging.getLogger(__name__)


class LeakageCallback(TrainerCallback):
    """Every ``every_n_steps`` optimizer steps, generate and measure leakage against the training data.

    Args:
        records: the private training records (dicts with ``text_field`` and the control-code fields).
        tokenizer: the model's tokenizer (else the Trainer's ``processing_class``).
        control_code: ``"paper"``, ``"release"``, ``"none"``, a template, or a ConditioningTemplate.
        num_records: generated records per measurement (prompts from records 0..num_records-1).
        leakage_options: keyword arguments for :func:`textleak.leakage.evaluate_leakage`.
        entities: private entity strings; when given, PIPP/ELP are logged too.
        leakage_fn: ``(originals, synthetic) -> dict`` replacing the pipeline (tests, custom metrics).
        progress: progress bars for each measurement's stages (atomize, link, judge, lexical); None (default)
            shows them when stderr is a terminal and CI is unset (:mod:`textleak.progress`).
    """

    def __init__(self, records: Sequence[Mapping[str, Any]], tokenizer=None, control_code: "str | ConditioningTemplate | None" = "paper",
                 every_n_steps: int = 50, num_records: int = 8, text_field: str = "text",
                 generation: GenerationConfig | None = None, seed: int = 0,
                 leakage_options: Mapping[str, Any] | None = None, entities: Sequence[str] | None = None,
                 leakage_fn: Callable[[list[str], list[str | None]], Mapping[str, Any]] | None = None,
                 prefix: str = "leakage/", progress: bool | None = None):
        if every_n_steps < 1:
            raise ValueError("every_n_steps must be at least 1")
        if not records:
            raise ValueError("LeakageCallback needs the training records")
        self.records = list(records)
        self.tokenizer = tokenizer
        self.control_code = resolve_template(control_code)
        missing = [f for f in (*self.control_code.fields, text_field) if f not in self.records[0]]
        if missing:  # checked now, not after training has run
            raise ValueError(f"LeakageCallback: the records have no field(s) {missing} (fields: {sorted(self.records[0])}); "
                             f"the control code {control_code!r} reads {self.control_code.fields}: pass control_code='none' "
                             "for plain text records, or text_field=")
        self.every_n_steps = every_n_steps
        self.num_records = min(num_records, len(self.records))
        self.text_field = text_field
        self.generation = generation or GenerationConfig(max_new_tokens=128)
        self.seed = seed
        self.leakage_options = dict(leakage_options or {})
        self.entities = list(entities) if entities else None
        self.leakage_fn = leakage_fn
        self.prefix = prefix
        self.progress = progress
        self.history: list[dict[str, Any]] = []
        self._pending: dict[str, Any] | None = None

    # ---- the measurement -------------------------------------------------------------------------
    def measure(self, model, tokenizer=None, step: int | None = None) -> dict[str, Any]:
        """Generate ``num_records`` records and return the prefixed leakage metrics."""
        tokenizer = tokenizer or self.tokenizer
        if tokenizer is None:
            raise ValueError("LeakageCallback needs a tokenizer (pass it, or give the Trainer a processing_class)")
        prompts = [self.control_code.render(r, i) for i, r in enumerate(self.records[: self.num_records])]
        seeds = [record_seed(self.seed, i, "") for i in range(len(prompts))]
        generated = generate_records(model, tokenizer, prompts, seeds, self.generation)
        synthetic = [g.text for g in generated]
        originals = [str(r[self.text_field]) for r in self.records]
        if self.leakage_fn is not None:
            metrics = dict(self.leakage_fn(originals, synthetic))
        else:
            from textleak.leakage import evaluate_leakage

            options = {"alignment": "none", "bootstrap": 0, "progress": self.progress, **self.leakage_options}
            if all(t is None for t in synthetic):
                metrics = {"semantic_privacy": None, "lexical_privacy": None}
            else:
                report = evaluate_leakage(originals, synthetic, **options)
                metrics = {"semantic_privacy": report.semantic_privacy, "lexical_privacy": report.lexical_privacy}
        if self.entities is not None:
            from textleak.controlled.entity_metrics import corpus_leakage

            ent = corpus_leakage([t or "" for t in synthetic], self.entities)
            metrics.update({"pipp": ent.pipp, "elp": ent.elp})
        metrics["empty_generations"] = sum(t is None for t in synthetic)
        out = {f"{self.prefix}{k}": v for k, v in metrics.items()}
        self.history.append({"step": step, **out})
        logger.info("step %s: %s", step, out)
        return out

    def step_callback(self, step: int, model) -> dict[str, Any] | None:
        """For :func:`train_causal_lm`'s ``step_callback``: measure every ``every_n_steps`` steps."""
        if step % self.every_n_steps:
            return None
        return self.measure(model, step=step)

    # ---- transformers.Trainer hooks --------------------------------------------------------------
    def on_step_end(self, args, state, control, model=None, processing_class=None, **kwargs):
        if state.global_step % self.every_n_steps or model is None:
            return control
        if not state.is_world_process_zero:
            return control
        metrics = self.measure(model, tokenizer=self.tokenizer or processing_class or kwargs.get("tokenizer"),
                               step=state.global_step)
        state.log_history.append({**metrics, "step": state.global_step})
        self._pending = metrics
        control.should_log = True  # so reporting integrations after this callback see the numbers
        return control

    def on_log(self, args, state, control, logs=None, **kwargs):
        if self._pending and logs is not None:
            logs.update(self._pending)  # callbacks after this one (W&B, TensorBoard, ...) receive them
            self._pending = None
        return control
