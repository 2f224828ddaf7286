"""Generate synthetic records from control codes with a fine-tuned causal LM.

Each record's randomness comes from its own seed (derived from the record index), so the text of
record *i* does not depend on the batch size or on which other records are generated with it.
This is done with a logits processor that samples each row from its own ``torch.Generator`` and
hands ``generate`` a one-hot distribution, so Hugging Face's decoding loop (cache, padding, EOS
handling) is reused unchanged. Batched forward passes with left padding can still differ from
unbatched ones in the last floating-point digits, which can in rare cases flip a sampled token.

Sampling follows the released seed 000 code by default (temperature 1, top-k 50, top-p 1, as
Hugging Face's defaults) with a cap on new tokens. The output is the generated continuation only
(the control code is never part of it); an empty continuation is a failed record, reported with
status ``"empty"`` and counted, never dropped.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from typing import Any, Sequence

import torch

from textleak.synthesis.training import prompt_token_ids

logger = logging.getLogger(__name__)

STATUS_OK = "ok"
STATUS_EMPTY = "empty"


@dataclass
class GenerationConfig:
    max_new_tokens: int = 256
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 50
    batch_size: int = 8

    def __post_init__(self) -> None:
        if self.temperature <= 0:
            raise ValueError("temperature must be positive (sampling); greedy decoding would make every record from one code identical")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")
        if self.max_new_tokens < 1:
            raise ValueError("max_new_tokens must be at least 1")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class GeneratedRecord:
    text: str | None       # None when generation failed (status says why)
    status: str
    num_tokens: int        # generated tokens, EOS excluded
    finished: bool         # ended with EOS rather than at the max_new_tokens cap


class SeededSampler:
    """A logits processor that samples each batch row with its own generator (temperature, top-k,
    top-p applied first) and returns a distribution with all mass on the sampled token."""

    def __init__(self, seeds: Sequence[int], config: GenerationConfig, device: torch.device):
        self.generators = [torch.Generator(device="cpu").manual_seed(int(s) % (2**63)) for s in seeds]
        self.config = config
        self.device = device

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        logits = scores.float() / self.config.temperature
        vocab = logits.size(-1)
        if self.config.top_k and self.config.top_k > 0:
            # sample among the top-k candidates only (a 262k-token vocabulary made a full-length
            # multinomial per row a quarter of the decoding time); the distribution is the same:
            # tokens tied with the k-th logit stay candidates (a margin of k more is kept for ties)
            k = min(self.config.top_k, vocab)
            values, index = torch.topk(logits, min(vocab, 2 * k), dim=-1)
            values = values.masked_fill(values < values[..., k - 1 : k], float("-inf"))
        elif self.config.top_p < 1.0:
            values, index = torch.sort(logits, descending=True, dim=-1)
        else:
            values, index = logits, None
        if self.config.top_p < 1.0:  # values are sorted in descending order here
            probs = torch.softmax(values, dim=-1)
            drop = probs.cumsum(dim=-1) - probs >= self.config.top_p  # keep the first token always
            values = values.masked_fill(drop, float("-inf"))
        probs = torch.softmax(values, dim=-1).cpu()
        picked = torch.stack([torch.multinomial(probs[row], 1, generator=self.generators[row]) for row in range(probs.size(0))])
        chosen = picked.to(scores.device) if index is None else torch.gather(index, 1, picked.to(index.device))
        out = torch.full_like(scores, float("-inf"))
        out.scatter_(1, chosen.to(scores.device), 0.0)
        return out


def generate_records(model, tokenizer, prompts: Sequence["str | Sequence[int]"], seeds: Sequence[int],
                     config: GenerationConfig | None = None) -> list[GeneratedRecord]:
    """One record per prompt (a rendered control code, or "" for uncontrolled, or the prompt's token
    ids when the caller builds them), seeded per record."""
    from transformers import LogitsProcessorList
    from tqdm.auto import tqdm

    config = config or GenerationConfig()
    if len(prompts) != len(seeds):
        raise ValueError(f"{len(prompts)} prompts for {len(seeds)} seeds")
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    eos_id = tokenizer.eos_token_id
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    records: list[GeneratedRecord] = []
    try:
        for start in tqdm(range(0, len(prompts), config.batch_size), desc="generating", leave=False,
                          disable=len(prompts) <= config.batch_size):
            chunk = [list(p) if not isinstance(p, str) else prompt_token_ids(tokenizer, p)
                     for p in prompts[start : start + config.batch_size]]
            width = max(len(ids) for ids in chunk)
            input_ids = torch.full((len(chunk), width), pad_id, dtype=torch.long)
            mask = torch.zeros((len(chunk), width), dtype=torch.long)
            for row, ids in enumerate(chunk):  # left padding: every row continues from its last token
                input_ids[row, width - len(ids):] = torch.tensor(ids)
                mask[row, width - len(ids):] = 1
            sampler = SeededSampler(seeds[start : start + config.batch_size], config, device)
            with torch.no_grad():
                out = model.generate(
                    input_ids=input_ids.to(device), attention_mask=mask.to(device), do_sample=False,
                    max_new_tokens=config.max_new_tokens, logits_processor=LogitsProcessorList([sampler]),
                    pad_token_id=pad_id, eos_token_id=eos_id, num_beams=1,
                    temperature=None, top_p=None, top_k=None,
                )
            for row in range(len(chunk)):
                new = out[row, width:].tolist()
                finished = eos_id in new
                if finished:
                    new = new[: new.index(eos_id)]
                else:
                    while new and new[-1] == pad_id and pad_id != eos_id:
                        new.pop()
                text = tokenizer.decode(new, skip_special_tokens=True).strip()
                records.append(GeneratedRecord(text=text or None, status=STATUS_OK if text else STATUS_EMPTY,
                                               num_tokens=len(new), finished=finished))
    finally:
        model.train(was_training)
    failed = sum(r.status != STATUS_OK for r in records)
    if failed:
        logger.warning("%d of %d generated records are empty (status %r)", failed, len(records), STATUS_EMPTY)
    return records
