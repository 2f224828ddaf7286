"""``ControlledGenerator``: seed 004's private synthetic text generation behind one fit/generate API.

    gen = ControlledGenerator(model="embedded", mode="icl", block_private_tokens=True)
    synthetic = gen.fit(train_ds, entities="annotations").generate(num_records=200, seed=0)
    leak = EntityLeakage()
    leak.compute(predictions=synthetic["text"], references=synthetic["references"],
                 private_entities=synthetic["private_entities"])                        # ICL setting
    leak.compute(predictions=synthetic["text"], references=gen.training_texts(),
                 private_entities=gen.training_entities())                             # prefix setting

Modes: ``"icl"`` (three real code/text pairs + a fictional code; ``block_private_tokens`` bans the
contexts' private values), ``"baseline_icl"`` (three texts, no codes: the paper's baseline) and
``"prefix"`` (prefix tuning; ``masking=True`` adds the contrastive and KL terms).

Entities: ``"annotations"`` reads TAB-style mentions from ``mentions_column`` (DIRECT identifiers
by default; ``identifier_types=("DIRECT", "QUASI")`` for both); ``"presidio"`` detects them
(seed 004's "private entity unknown" setting: codes from Presidio; evaluate against the annotations
when they exist: ICL output then has an ``annotated_entities`` column, the contexts' hand-annotated
values, to pass as ``private_entities``); ``"deid_markers"`` takes MIMIC-style ``[**...**]`` markers.

``dtype`` (None: the backend's default, float32 on a CPU): the model's dtype for the transformers
backends and prefix tuning; "bfloat16" is several times faster on CPUs with bf16 matrix units.

Outputs keep failures visible: ``generation_status`` is "ok", "leaked" (still leaking after the
regeneration cap) or "failed" (no text; ``text`` is None), so nothing is silently dropped.
"""

from __future__ import annotations

import logging
from typing import Any, Sequence

from textleak.controlled.control_codes import (
    DEFAULT_IDENTIFIER_TYPES,
    CodedRecord,
    coded_record,
    marker_mentions,
    presidio_mentions,
)
from textleak.controlled.fictional import FictionalCodeGenerator
from textleak.controlled.entity_metrics import unique_entities

logger = logging.getLogger(__name__)

MODES = ("icl", "baseline_icl", "prefix")
ENTITY_SOURCES = ("annotations", "presidio", "deid_markers")


class ControlledGenerator:
    """Configuration in ``__init__``, training in :meth:`fit`, sampling in :meth:`generate`."""

    VERSION = "1"

    def __init__(
        self,
        model: Any = "embedded",
        mode: str = "icl",
        block_private_tokens: bool = True,
        identifier_types: Sequence[str] = DEFAULT_IDENTIFIER_TYPES,
        n_shots: int = 3,
        context_selection: str = "sample",
        max_regenerations: int = 0,
        fictional_source: str = "patterns",
        masking: bool = True,
        loss_weights: Any = "paper",
        kl_mask: str = "public",
        num_virtual_tokens: int = 20,
        epochs: int = 3,
        learning_rate: float = 5e-5,
        batch_size: int = 2,
        gradient_accumulation_steps: int = 4,
        max_length: int = 512,
        max_new_tokens: int = 400,
        temperature: float = 0.7,
        top_p: float = 0.9,
        seed: int = 0,
        dtype: str | None = None,
    ):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.model = model
        self.mode = mode
        self.block_private_tokens = block_private_tokens
        self.identifier_types = tuple(identifier_types)
        self.n_shots = n_shots
        self.context_selection = context_selection
        self.max_regenerations = max_regenerations
        self.fictional_source = fictional_source
        self.masking = masking
        self.loss_weights = loss_weights
        self.kl_mask = kl_mask
        self.num_virtual_tokens = num_virtual_tokens
        self.epochs = epochs
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.max_length = max_length
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.top_p = top_p
        self.seed = seed
        self.dtype = dtype
        self._records: list[CodedRecord] = []
        self._tuner = None
        self.training_result = None

    # ---- data --------------------------------------------------------------------------------
    def prepare(
        self, dataset: Any, entities: str = "annotations", mentions_column: str = "entity_mentions",
        text_column: str = "text", id_column: str = "id",
    ) -> list[CodedRecord]:
        """Control codes and private spans of every record (see the module docstring for ``entities``)."""
        if entities not in ENTITY_SOURCES:
            raise ValueError(f"entities must be one of {ENTITY_SOURCES}, got {entities!r}")
        rows = [dict(r) for r in dataset] if not isinstance(dataset, list) else dataset
        texts = []
        for i, row in enumerate(rows):
            text = row.get(text_column)
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"record {i} ({row.get(id_column, '?')}): column {text_column!r} is not a non-empty string")
            texts.append(text)
        if entities == "annotations":
            missing = [i for i, r in enumerate(rows) if mentions_column not in r]
            if missing:
                raise KeyError(f"records {missing[:5]} have no {mentions_column!r} column (use entities='presidio' for unannotated text)")
            mentions = [list(r[mentions_column] or []) for r in rows]
            types = self.identifier_types
        elif entities == "presidio":
            mentions, types = presidio_mentions(texts), ("DIRECT",)
        else:
            mentions, types = [marker_mentions(t) for t in texts], ("DIRECT",)
        records = [
            coded_record(str(row.get(id_column, i)), text, ms, types)
            for i, (row, text, ms) in enumerate(zip(rows, texts, mentions))
        ]
        if entities != "annotations" and all(r.get(mentions_column) is not None for r in rows):
            # entity-unknown setting: codes from a detector, leakage judged on the hand annotations
            for rec, row in zip(records, rows):
                annotated = coded_record(rec.id, row[text_column], list(row[mentions_column]), self.identifier_types)
                rec.annotated_values = annotated.values
        empty = sum(not r.code for r in records)
        if empty:
            logger.info("%d of %d records have no private entity of types %s", empty, len(records), types)
        return records

    def fit(self, dataset: Any, entities: str = "annotations", mentions_column: str = "entity_mentions",
            text_column: str = "text", id_column: str = "id") -> "ControlledGenerator":
        """Read the private records; in prefix mode, also train the prefix."""
        self._records = self.prepare(dataset, entities, mentions_column, text_column, id_column)
        if self.mode == "prefix":
            from textleak.controlled.prefix import PrefixTuner

            self._tuner = PrefixTuner(
                self.model, num_virtual_tokens=self.num_virtual_tokens, masking=self.masking,
                loss_weights=self.loss_weights, kl_mask=self.kl_mask, epochs=self.epochs,
                learning_rate=self.learning_rate, batch_size=self.batch_size,
                gradient_accumulation_steps=self.gradient_accumulation_steps, max_length=self.max_length, seed=self.seed,
                dtype=self.dtype or "float32",
            ) if isinstance(self.model, str) else self._tuner_for_loaded_model()
            self.training_result = self._tuner.fit(
                [r.code.render() for r in self._records], [r.text for r in self._records], [r.private_spans for r in self._records]
            )
        return self

    def _tuner_for_loaded_model(self):
        from textleak.controlled.prefix import PrefixTuner

        model, tokenizer = self.model
        return PrefixTuner(
            model, tokenizer, num_virtual_tokens=self.num_virtual_tokens, masking=self.masking,
            loss_weights=self.loss_weights, kl_mask=self.kl_mask, epochs=self.epochs, learning_rate=self.learning_rate,
            batch_size=self.batch_size, gradient_accumulation_steps=self.gradient_accumulation_steps,
            max_length=self.max_length, seed=self.seed,
        )

    # ---- what the fine-tuning-setting metrics compare against ---------------------------------
    def training_entities(self) -> list[str]:
        """Distinct private values of the training records (the fine-tuning setting's entity pool)."""
        return unique_entities(v for r in self._records for v in r.values)

    def training_texts(self) -> list[str]:
        return [r.text for r in self._records]

    @property
    def records(self) -> list[CodedRecord]:
        return list(self._records)

    # ---- generation --------------------------------------------------------------------------
    def generate(self, num_records: int | None = None, seed: int | None = None):
        """A ``datasets.Dataset`` of synthetic records (``num_records`` defaults to the training size)."""
        import datasets

        if not self._records:
            raise RuntimeError("call fit() first")
        n = len(self._records) if num_records is None else int(num_records)
        seed = self.seed if seed is None else seed
        fictional = FictionalCodeGenerator(seed=seed, source=self.fictional_source)
        if self.mode in ("icl", "baseline_icl"):
            from textleak.controlled.icl import ICLGenerator

            llm = self.model
            if self.dtype is not None and isinstance(llm, str) and (llm == "embedded" or llm.startswith("hf:")):
                from textleak.llm import load_llm

                llm = load_llm(llm, dtype=self.dtype)
            icl = ICLGenerator(
                llm, n_shots=self.n_shots, use_control_codes=self.mode == "icl",
                block_private=self.block_private_tokens and self.mode == "icl", max_regenerations=self.max_regenerations,
                context_selection=self.context_selection, fictional=fictional, max_new_tokens=self.max_new_tokens,
                temperature=self.temperature, top_p=self.top_p,
            )
            rows = icl.generate(self._records, n, seed)
        else:
            rows = self._prefix_generate(n, seed, fictional)
        return datasets.Dataset.from_list(rows)

    def _prefix_generate(self, n: int, seed: int, fictional: FictionalCodeGenerator) -> list[dict]:
        from textleak.controlled.icl import STATUS_LEAKED, STATUS_OK, stop_strings
        from textleak.controlled.entity_metrics import find_leaked

        if self._tuner is None:
            raise RuntimeError("prefix mode: call fit() first")
        pool = self.training_entities()
        sources = [self._records[i % len(self._records)] for i in range(n)]
        codes = [fictional.generate(src.code.types, index=i, avoid=pool) for i, src in enumerate(sources)]
        texts = self._tuner.generate(
            [c.render() for c in codes], max_new_tokens=self.max_new_tokens, temperature=self.temperature,
            top_p=self.top_p, seed=seed, stop=stop_strings([src.code for src in sources]),
        )
        return [
            {
                "id": f"synthetic-{i}",
                "text": text,
                "control_code": code.render(),
                "source_id": src.id,
                "generation_status": STATUS_LEAKED if find_leaked(text, pool) else STATUS_OK,
            }
            for i, (text, code, src) in enumerate(zip(texts, codes, sources))
        ]

    def get_config(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_") and k != "training_result"}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.get_config().items())})"
