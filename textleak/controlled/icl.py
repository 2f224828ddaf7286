"""In-context generation from control codes (seed 004, section 2.2), with the privacy enhancement.

The prompt is three real (code, text) pairs and a fictional code; the model writes the text for the
fictional code::

    CODE: 41872/03
    PERSON: Mr Arvid Kellerman
    PROCEDURE ... (text 1, one line per paragraph)

    ... (pairs 2 and 3)

    CODE: X5T9L/QZ
    PERSON: Dr Kai Hayes
    <generation starts here>

``use_control_codes=False`` is the paper's baseline ICL: three texts, no codes (leakage is still
measured against the contexts' codes). ``block_private=True`` is the privacy enhancement: every
private value of the three contexts (MISC included, unlike the released code) is passed to the
LLM runtime as a banned phrase, in the paper's five case variants; the transformers backend bans
them as case-insensitive substrings of the decoded text, which covers every tokenisation.
``max_regenerations`` optionally redraws a leaking generation (new seed) up to that many times, as
the paper suggests; a generation still leaking after the cap keeps status "leaked" and its text,
so it counts in the metrics.

Contexts: ``context_selection="sample"`` (paper: three distinct records sampled per generation,
seeded by the generation's index) or ``"consecutive"`` (released code: non-overlapping runs of three
records in dataset order, wrapping around).
"""

from __future__ import annotations

import logging
import random
from typing import Any, Sequence

from tqdm.auto import tqdm

from textleak.controlled.control_codes import CodedRecord, ControlCode
from textleak.controlled.fictional import FictionalCodeGenerator, types_of
from textleak.controlled.entity_metrics import find_leaked, unique_entities
from textleak.text.seeds import derive_seed

logger = logging.getLogger(__name__)

CONTEXT_SELECTIONS = ("sample", "consecutive")
STATUS_OK, STATUS_LEAKED, STATUS_FAILED = "ok", "leaked", "failed"


def case_variants(phrase: str) -> list[str]:
    """The paper's five variants: as is, lower, UPPER, Title, Capitalized."""
    return list(dict.fromkeys([phrase, phrase.lower(), phrase.upper(), phrase.title(), phrase.capitalize()]))


def stop_strings(codes: Sequence[ControlCode]) -> list[str]:
    """Stops for a generated text: a blank line (the document separator) or a new code line."""
    types = types_of(codes) or ["PERSON"]
    return ["\n\n"] + [f"\n{t}:" for t in types]


class ICLGenerator:
    """``ICLGenerator(llm).generate(records, num_records, seed)`` -> one dict per synthetic record.

    ``llm``: a :class:`~textleak.llm.LanguageModel` or a spec for ``load_llm`` (``"embedded"``,
    ``"hf:<id>"``, ``"openai:<model>@<url>"``). Sampling defaults are the paper's (T 0.7, top-p 0.9,
    400 new tokens).
    """

    def __init__(
        self,
        llm: Any = "embedded",
        n_shots: int = 3,
        use_control_codes: bool = True,
        block_private: bool = True,
        max_regenerations: int = 0,
        context_selection: str = "sample",
        fictional: FictionalCodeGenerator | None = None,
        max_new_tokens: int = 400,
        temperature: float = 0.7,
        top_p: float = 0.9,
    ):
        if context_selection not in CONTEXT_SELECTIONS:
            raise ValueError(f"context_selection must be one of {CONTEXT_SELECTIONS}, got {context_selection!r}")
        if max_regenerations and temperature <= 0:
            logger.warning("max_regenerations with greedy decoding redraws the same text; use temperature > 0")
        self.llm = llm
        self.n_shots = n_shots
        self.use_control_codes = use_control_codes
        self.block_private = block_private
        self.max_regenerations = max_regenerations
        self.context_selection = context_selection
        self.fictional = fictional or FictionalCodeGenerator()
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.top_p = top_p
        self._llm = None

    def _model(self):
        if self._llm is None:
            from textleak.llm import load_llm

            self._llm = load_llm(self.llm)
        return self._llm

    # ---- prompts -----------------------------------------------------------------------------
    def contexts_for(self, records: Sequence[CodedRecord], index: int, seed: int) -> list[CodedRecord]:
        n = len(records)
        if n < self.n_shots:
            raise ValueError(f"ICL needs at least {self.n_shots} records, got {n}")
        if self.context_selection == "consecutive":
            start = (index * self.n_shots) % n
            return [records[(start + k) % n] for k in range(self.n_shots)]
        rng = random.Random(derive_seed(seed, "contexts", index))
        return [records[k] for k in rng.sample(range(n), self.n_shots)]

    def build_prompt(self, contexts: Sequence[CodedRecord], fictional_code: ControlCode) -> str:
        if not self.use_control_codes:
            return "".join(f"{c.text}\n\n" for c in contexts)
        shots = "".join(f"{c.code.render()}\n{c.text}\n\n" for c in contexts)
        return f"{shots}{fictional_code.render()}\n"

    # ---- generation --------------------------------------------------------------------------
    def generate(self, records: Sequence[CodedRecord], num_records: int, seed: int = 0) -> list[dict[str, Any]]:
        """``num_records`` synthetic records; record ``i`` depends only on ``seed`` and ``i``.

        Generations that share a banned-phrase list (all of them without blocking) go to the LLM
        backend in one call, so it can batch them; each keeps its own seed, so its text does not
        depend on the batching (up to the floating-point noise of padded batches).
        """
        llm = self._model()
        plans = []
        for i in range(num_records):
            contexts = self.contexts_for(records, i, seed)
            private = unique_entities(v for c in contexts for v in c.values)
            fictional = self.fictional.generate(types_of([c.code for c in contexts]), index=i, avoid=private)
            plans.append({
                "contexts": contexts, "private": private, "fictional": fictional,
                "prompt": self.build_prompt(contexts, fictional),
                "banned": tuple(v for p in private for v in case_variants(p)) if self.block_private else (),
                "stops": tuple(stop_strings([c.code for c in contexts])),
                "text": None, "status": STATUS_FAILED, "attempts": 0,
            })
        pending = list(range(num_records))
        progress = tqdm(total=num_records, desc="ICL generation", disable=num_records < 4)
        for attempt in range(1 + self.max_regenerations):
            groups: dict[tuple, list[int]] = {}
            for i in pending:
                groups.setdefault((plans[i]["banned"], plans[i]["stops"]), []).append(i)
            still = []
            for (banned, stops), members in groups.items():
                answers = llm.generate(
                    [plans[i]["prompt"] for i in members], max_new_tokens=self.max_new_tokens,
                    temperature=self.temperature, top_p=self.top_p,
                    seed=[derive_seed(seed, "generation", i, attempt, bits=31) for i in members], stop=list(stops),
                    banned_phrases=list(banned), on_error="none",
                )
                for i, answer in zip(members, answers):
                    plan = plans[i]
                    plan["attempts"] += 1
                    if answer[0] is None:
                        still.append(i)
                        continue
                    plan["text"] = _cut(answer[0], stops)
                    plan["status"] = STATUS_LEAKED if find_leaked(plan["text"], plan["private"]) else STATUS_OK
                    if plan["status"] != STATUS_OK:
                        still.append(i)
            progress.update(len(pending) - len(still) if attempt < self.max_regenerations else len(pending))
            pending = sorted(still)
            if not pending:
                break
        progress.close()
        out = []
        for i, plan in enumerate(plans):
            contexts = plan["contexts"]
            annotated = None
            if all(c.annotated_values is not None for c in contexts):
                annotated = unique_entities(v for c in contexts for v in c.annotated_values)
            out.append(
                {
                    "id": f"synthetic-{i}",
                    "text": plan["text"],
                    "control_code": plan["fictional"].render() if self.use_control_codes else "",
                    "context_ids": [c.id for c in contexts],
                    "private_entities": plan["private"],
                    **({"annotated_entities": annotated} if annotated is not None else {}),
                    "references": [c.text for c in contexts],
                    "attempts": plan["attempts"],
                    "generation_status": plan["status"],
                }
            )
        failed = sum(r["generation_status"] == STATUS_FAILED for r in out)
        if failed:
            logger.warning("%d of %d generations failed (text None, status 'failed')", failed, len(out))
        return out


def _cut(text: str, stops: Sequence[str]) -> str:
    cut = len(text)
    for s in stops:
        pos = text.find(s)
        if pos >= 0:
            cut = min(cut, pos)
    return text[:cut].strip()
