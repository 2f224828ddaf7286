"""Prefix tuning on (control code, text) pairs, optionally with seed 004's masked objective.

Each training sequence is ``[BOS] code "\\n" text [EOS]``, right-padded; labels are -100 on the code
and the padding (the released code pads left and slices labels by the code's length, which puts
the labels on the wrong tokens, and trains on the padding). The private-token mask comes from
character spans through the tokenizer's ``offset_mapping``: a text token is private when its
characters overlap a private span (annotated mentions, plus every other occurrence of a code value
in the text). The released code matches token-id sequences instead, which misses a value whose
tokenisation depends on its neighbours.

The prefix is PEFT's ``PrefixTuningConfig`` (20 virtual tokens, with the reparametrisation MLP, as
released). The base distribution for the contrastive and KL terms comes from the same module with
the adapter disabled (``disable_adapter()``), under ``no_grad``. Training runs under ``accelerate``
(CPU, one GPU). Generation calls the PEFT model's ``generate``, so the prefix is used; the released
inference script calls ``base_model.generate`` and so samples from the untuned model. That path is
kept as ``generate(..., use_prefix=False)``, for comparison only.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import torch
from torch.utils.data import DataLoader
from tqdm.auto import tqdm

from textleak.controlled.losses import KL_MASKS, LossWeights, masked_prefix_losses
from textleak.text.seeds import record_seed

logger = logging.getLogger(__name__)

IGNORE_INDEX = -100


def encode_prefix_example(
    tokenizer, code: str, text: str, private_spans: Sequence[tuple[int, int]], max_length: int = 512
) -> dict[str, Any]:
    """``[BOS] code "\\n" text [EOS]`` with labels on text+EOS and a private mask on text tokens.

    The code and the text are tokenised separately (the generation prompt is exactly the code
    part), the text with offsets. A text longer than the room left is truncated (EOS dropped, so a
    cut record is not taught to stop); a code that fills ``max_length`` is an error.
    """
    if not getattr(tokenizer, "is_fast", False):
        raise TypeError("the private-token mask needs a fast tokenizer (offset_mapping)")
    head = prompt_ids(tokenizer, code)
    enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    body, offsets = list(enc["input_ids"]), list(enc["offset_mapping"])
    spans = sorted((int(s), int(e)) for s, e in private_spans)
    body_private = [any(s < se and ss < e for ss, se in spans) for s, e in offsets]
    body, body_private = body + [tokenizer.eos_token_id], body_private + [False]
    room = max_length - len(head)
    if room < 2:
        raise ValueError(f"the control code takes {len(head)} tokens, leaving no room in max_length={max_length}")
    truncated = len(body) > room
    body, body_private = body[:room], body_private[:room]
    return {
        "input_ids": head + body,
        "labels": [IGNORE_INDEX] * len(head) + body,
        "private_mask": [False] * len(head) + body_private,
        "truncated": truncated,
    }


def prompt_ids(tokenizer, code: str) -> list[int]:
    """``[BOS] code "\\n"``: the part of a training sequence that is also the generation prompt."""
    bos = [tokenizer.bos_token_id] if tokenizer.bos_token_id is not None else []
    return bos + list(tokenizer(code + "\n", add_special_tokens=False)["input_ids"])


def collate_right_padded(batch: Sequence[dict[str, Any]], pad_id: int) -> dict[str, torch.Tensor]:
    """Pad on the right: pads get attention 0, label -100 and no private mark."""
    width = max(len(b["input_ids"]) for b in batch)
    out = {k: [] for k in ("input_ids", "attention_mask", "labels", "private_mask")}
    for b in batch:
        pad = width - len(b["input_ids"])
        out["input_ids"].append(b["input_ids"] + [pad_id] * pad)
        out["attention_mask"].append([1] * len(b["input_ids"]) + [0] * pad)
        out["labels"].append(b["labels"] + [IGNORE_INDEX] * pad)
        out["private_mask"].append(b["private_mask"] + [False] * pad)
    tensors = {k: torch.tensor(v) for k, v in out.items()}
    tensors["private_mask"] = tensors["private_mask"].bool()
    return tensors


@dataclass
class PrefixTrainingResult:
    """What training did: steps, per-epoch mean losses, trainable parameters, truncated records."""

    steps: int = 0
    history: list[dict[str, float]] = field(default_factory=list)
    trainable_parameters: int = 0
    truncated_records: int = 0


class PrefixTuner:
    """Prefix-tune a causal LM on (code, text, private spans) and generate from fictional codes.

    ``model``: ``"embedded"`` (Gemma 3 270M), ``"hf:<id>"``, a Hub id or folder, or a loaded
    ``PreTrainedModel`` (then pass ``tokenizer``). ``masking=True`` trains with the 3-term objective
    (weights ``loss_weights``: "paper" (1,1,1) default, "released" (1,4,1.6), or a tuple) and
    ``kl_mask`` ("public" paper, "all" released); ``masking=False`` is plain prefix tuning (LM loss).
    Optimiser: AdamW on the prefix only, lr 5e-5 decayed linearly to 0.1x (as released), 3 epochs.
    ``dtype``: the base model's dtype when ``model`` is a name ("bfloat16" runs several times faster
    on CPUs with bf16 matrix units); the prefix parameters stay float32.
    """

    def __init__(
        self,
        model: Any = "embedded",
        tokenizer: Any = None,
        num_virtual_tokens: int = 20,
        prefix_projection: bool = True,
        masking: bool = True,
        loss_weights: "LossWeights | str | tuple" = "paper",
        kl_mask: str = "public",
        epochs: int = 3,
        learning_rate: float = 5e-5,
        batch_size: int = 2,
        gradient_accumulation_steps: int = 4,
        max_length: int = 512,
        lr_end_factor: float = 0.1,
        seed: int = 0,
        cpu: bool | None = None,
        mixed_precision: str = "no",
        dtype: str = "float32",
    ):
        if kl_mask not in KL_MASKS:
            raise ValueError(f"kl_mask must be one of {KL_MASKS}, got {kl_mask!r}")
        self.model = model
        self.tokenizer = tokenizer
        self.num_virtual_tokens = num_virtual_tokens
        self.prefix_projection = prefix_projection
        self.masking = masking
        self.loss_weights = LossWeights.resolve(loss_weights) if masking else LossWeights.lm_only()
        self.kl_mask = kl_mask
        self.epochs = epochs
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.max_length = max_length
        self.lr_end_factor = lr_end_factor
        self.seed = seed
        self.cpu = cpu
        self.mixed_precision = mixed_precision
        self.dtype = dtype
        self._peft_model = None
        self._prefix_checked = False  # check_prefix_reaches_generate ran and passed
        self._tokenizer = None
        self._device = None

    # ---- model -------------------------------------------------------------------------------
    def _load(self):
        if self._peft_model is not None:
            return
        from peft import PrefixTuningConfig, get_peft_model

        if isinstance(self.model, str):
            from textleak.synthesis.training import load_causal_lm

            base, tokenizer = load_causal_lm(self.model, dtype=self.dtype)
        else:
            if self.tokenizer is None:
                raise ValueError("pass the tokenizer together with a loaded model")
            base, tokenizer = self.model, self.tokenizer
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        for p in base.parameters():
            p.requires_grad_(False)
        config = PrefixTuningConfig(
            task_type="CAUSAL_LM", num_virtual_tokens=self.num_virtual_tokens, prefix_projection=self.prefix_projection
        )
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(self.seed)
            self._peft_model = get_peft_model(base, config)
        self._tokenizer = tokenizer

    @property
    def peft_model(self):
        self._load()
        return self._peft_model

    @property
    def hf_tokenizer(self):
        self._load()
        return self._tokenizer

    # ---- training ----------------------------------------------------------------------------
    def fit(self, codes: Sequence[str], texts: Sequence[str], private_spans: Sequence[Sequence[tuple[int, int]]]) -> PrefixTrainingResult:
        """Train the prefix on ``(codes[i], texts[i])`` with ``private_spans[i]`` (character spans in the text)."""
        from accelerate import Accelerator

        if not (len(codes) == len(texts) == len(private_spans)):
            raise ValueError(f"{len(codes)} codes, {len(texts)} texts and {len(private_spans)} span lists must match")
        if not codes:
            raise ValueError("no training records")
        self._load()
        tok, model = self._tokenizer, self._peft_model
        examples = [encode_prefix_example(tok, c, t, s, self.max_length) for c, t, s in zip(codes, texts, private_spans)]
        result = PrefixTrainingResult(truncated_records=sum(e["truncated"] for e in examples))
        if result.truncated_records:
            logger.warning("%d of %d records truncated to max_length=%d", result.truncated_records, len(examples), self.max_length)
        data = [{k: e[k] for k in ("input_ids", "labels", "private_mask")} for e in examples]

        accelerator = Accelerator(
            cpu=bool(self.cpu) if self.cpu is not None else not torch.cuda.is_available(),
            mixed_precision=self.mixed_precision,
            gradient_accumulation_steps=self.gradient_accumulation_steps,
        )
        loader = DataLoader(
            data, batch_size=self.batch_size, shuffle=True, generator=torch.Generator().manual_seed(self.seed),
            collate_fn=lambda b: collate_right_padded(b, tok.pad_token_id),
        )
        params = [p for p in model.parameters() if p.requires_grad]
        result.trainable_parameters = sum(p.numel() for p in params)
        optimizer = torch.optim.AdamW(params, lr=self.learning_rate)
        updates = max(1, math.ceil(len(loader) / self.gradient_accumulation_steps) * self.epochs)
        scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, 1.0, self.lr_end_factor, total_iters=updates)
        wrapped, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)
        unwrapped = accelerator.unwrap_model(wrapped)
        self._device = accelerator.device
        weights = self.loss_weights

        wrapped.train()
        progress = tqdm(total=len(loader) * self.epochs, desc="prefix tuning", disable=not accelerator.is_local_main_process)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(self.seed)
            for epoch in range(self.epochs):
                sums = {"loss": 0.0, "lm": 0.0, "contrastive": 0.0, "kl": 0.0}
                for batch in loader:
                    with accelerator.accumulate(wrapped):
                        out = wrapped(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])
                        base_logits = None
                        if weights.needs_base:
                            with torch.no_grad(), unwrapped.disable_adapter():
                                base_logits = unwrapped(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
                        losses = masked_prefix_losses(out.logits, batch["labels"], batch["private_mask"], base_logits, weights, self.kl_mask)
                        accelerator.backward(losses["loss"])
                        optimizer.step()
                        scheduler.step()
                        optimizer.zero_grad()
                    if accelerator.sync_gradients:
                        result.steps += 1
                    for k in sums:
                        sums[k] += float(losses[k].detach())
                    progress.update(1)
                result.history.append({"epoch": epoch + 1, **{k: v / len(loader) for k, v in sums.items()}})
                logger.info("epoch %d: %s", epoch + 1, result.history[-1])
        progress.close()
        wrapped.eval()
        self._peft_model = unwrapped
        return result

    # ---- generation --------------------------------------------------------------------------
    def generate(
        self,
        codes: Sequence[str],
        max_new_tokens: int = 400,
        temperature: float = 0.7,
        top_p: float = 0.9,
        seed: int = 0,
        stop: Sequence[str] = (),
        use_prefix: bool = True,
        batch_size: int = 8,
        top_k: int = 50,
    ) -> list[str]:
        """One text per code, sampled from the prefix-tuned model; ``seed`` + the record index seed
        each record through its own generator, so a record's text does not depend on the batch
        (batches are left-padded; ``batch_size=1`` generates one record at a time). ``top_k=50`` is
        Hugging Face's sampling default, which the released script inherits. ``temperature=0`` is
        greedy decoding. ``use_prefix=False`` samples from the base model, as the released inference
        script does by mistake; it exists to compare, never as a method. Text is cut at the first
        ``stop`` string."""
        self._load()
        model, tok = self._peft_model, self._tokenizer
        device = self._device or next(model.parameters()).device
        model.eval()
        if use_prefix and codes:
            self.check_prefix_reaches_generate(codes[0])
        if temperature <= 0:
            return [self._greedy(model, tok, code, device, max_new_tokens, stop, use_prefix) for code in codes]
        from contextlib import nullcontext

        from textleak.synthesis.generation import GenerationConfig, generate_records

        config = GenerationConfig(max_new_tokens=max_new_tokens, temperature=temperature, top_p=top_p, top_k=top_k,
                                  batch_size=batch_size)
        seeds = [record_seed(seed, i, "") for i in range(len(codes))]
        with (nullcontext() if use_prefix else model.disable_adapter()):
            records = generate_records(model, tok, [prompt_ids(tok, code) for code in codes], seeds, config)
        return [cut_at_stop(r.text or "", stop) for r in records]

    def check_prefix_reaches_generate(self, code: str) -> None:
        """Raise when ``generate`` ignores the prefix. transformers 5.24 passes its own ``cache`` and
        drops the ``past_key_values`` through which peft injects the prefix, so a prefix-tuned model
        sampled as its base model, and the table scored the base model's (lower) leakage as the
        method's. The first step's logits from ``generate`` must lie at least as close to a forward
        pass with the prefix (which training uses) as to one without it. Checked once per tuner."""
        if self._prefix_checked:
            return
        import transformers

        model, tok = self._peft_model, self._tokenizer
        device = self._device or next(model.parameters()).device
        ids = torch.tensor([prompt_ids(tok, code)], device=device)
        mask = torch.ones_like(ids)
        with torch.no_grad():
            generated = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=1, do_sample=False,
                                       pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id,
                                       output_logits=True, return_dict_in_generate=True).logits[0].float()
            with_prefix = model(input_ids=ids, attention_mask=mask).logits[:, -1].float()
            with model.disable_adapter():
                without = model(input_ids=ids, attention_mask=mask).logits[:, -1].float()
        if (generated - with_prefix).abs().max() > (generated - without).abs().max():
            raise RuntimeError(f"the prefix does not reach generate() with transformers {transformers.__version__} and this peft: "
                               "generations would come from the base model. Install transformers<5.24 (see setup.py).")
        self._prefix_checked = True

    @staticmethod
    def _greedy(model, tok, code: str, device, max_new_tokens: int, stop: Sequence[str], use_prefix: bool) -> str:
        from contextlib import nullcontext

        ids = torch.tensor([prompt_ids(tok, code)], device=device)
        with torch.no_grad(), (nullcontext() if use_prefix else model.disable_adapter()):
            out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=max_new_tokens,
                                 pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id, do_sample=False)
        return cut_at_stop(tok.decode(out[0, ids.shape[1]:], skip_special_tokens=True), stop)

    def save(self, path: "str | Path") -> Path:
        """Write the prefix adapter (PEFT format) and the tokenizer."""
        path = Path(path)
        self.peft_model.save_pretrained(str(path))
        self.hf_tokenizer.save_pretrained(str(path))
        return path


def cut_at_stop(text: str, stop: Sequence[str]) -> str:
    """``text`` up to the first stop string, stripped."""
    cut = len(text)
    for s in stop:
        if s and s in text:
            cut = min(cut, text.index(s))
    return text[:cut].strip()
