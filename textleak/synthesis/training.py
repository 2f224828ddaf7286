"""Fine-tune a causal LM on control-coded private records, with or without DP-SGD.

One loop serves CPU, one GPU and several GPUs (``accelerate launch``): ``accelerate.Accelerator``
places the model and, without DP, shards the data. LoRA (through ``peft``) or full fine-tuning.

Training text for record *i* is ``prompt_i + text_i + EOS`` where ``prompt_i`` is its rendered
control code (:mod:`textleak.synthesis.templates`). The prompt tokens and the padding are masked
out of the loss (label -100): the model learns to write records given codes, not to write codes.

The loss is the mean over records of each record's mean token loss. Hugging Face's built-in loss
averages over all tokens of the batch instead, which couples a record's gradient to the lengths of
the other records in the batch; under DP-SGD that coupling would break the per-record sensitivity
bound, so the loss is computed here for both paths.

Reusable pieces for other trainers (e.g. DP prefix tuning): :func:`encode_example`,
:class:`CausalLMCollator`, :func:`per_record_loss`, :func:`load_causal_lm`, :func:`apply_lora`,
:func:`train_causal_lm` (any model whose forward takes ``input_ids``/``attention_mask`` and returns
``.logits``).
"""

from __future__ import annotations

import logging
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import torch
from torch.utils.data import DataLoader, Dataset

logger = logging.getLogger(__name__)

IGNORE_INDEX = -100


# ---- tokenization ------------------------------------------------------------------------------
def prompt_token_ids(tokenizer, prompt: str) -> list[int]:
    """Token ids of a prompt, special tokens included (BOS where the tokenizer adds one).

    An empty prompt (uncontrolled generation) becomes the BOS token, or EOS for tokenizers without
    one (GPT-2 uses ``<|endoftext|>`` for both), so generation always has a first token. Training
    and generation both call this, so the model sees the same prefix in both.
    """
    ids = list(tokenizer(prompt, add_special_tokens=True)["input_ids"]) if prompt else []
    if not ids:
        start = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
        if start is None:
            raise ValueError("the tokenizer has neither a BOS nor an EOS token to start an uncontrolled record")
        ids = [start]
    return ids


def encode_example(tokenizer, prompt: str, text: str, max_length: int) -> dict[str, Any]:
    """``prompt + text + EOS`` as token ids with loss labels on the text and EOS only.

    The text is truncated to fit ``max_length`` (EOS then dropped, so a truncated record is not
    taught to end early); ``truncated`` says whether that happened. A prompt that alone fills
    ``max_length`` is an error.
    """
    if tokenizer.eos_token_id is None:
        raise ValueError("the tokenizer has no EOS token; synthetic records need one to end")
    head = prompt_token_ids(tokenizer, prompt)
    body = list(tokenizer(text, add_special_tokens=False)["input_ids"]) + [tokenizer.eos_token_id]
    room = max_length - len(head)
    if room < 2:
        raise ValueError(f"the control code takes {len(head)} tokens, leaving no room in max_length={max_length}")
    truncated = len(body) > room
    body = body[:room]
    return {
        "input_ids": head + body,
        "labels": [IGNORE_INDEX] * len(head) + body,
        "truncated": truncated,
    }


class EncodedRecords(Dataset):
    """A list of :func:`encode_example` outputs as a map-style torch dataset."""

    def __init__(self, examples: Sequence[dict[str, Any]]):
        self.examples = list(examples)

    def __len__(self) -> int:
        return len(self.examples)

    def __getitem__(self, i: int) -> dict[str, list[int]]:
        ex = self.examples[i]
        return {"input_ids": ex["input_ids"], "labels": ex["labels"]}


@dataclass
class CausalLMCollator:
    """Right-pads a batch; pads are masked out of attention and loss."""

    pad_token_id: int

    def __call__(self, batch: list[dict[str, list[int]]]) -> dict[str, torch.Tensor]:
        width = max(len(ex["input_ids"]) for ex in batch)
        ids = torch.full((len(batch), width), self.pad_token_id, dtype=torch.long)
        labels = torch.full((len(batch), width), IGNORE_INDEX, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for row, ex in enumerate(batch):
            n = len(ex["input_ids"])
            ids[row, :n] = torch.tensor(ex["input_ids"])
            labels[row, :n] = torch.tensor(ex["labels"])
            mask[row, :n] = 1
        return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def position_ids_for(attention_mask: torch.Tensor) -> torch.Tensor:
    """Explicit ``[batch, length]`` position ids. Models that otherwise build ``[1, length]`` ids
    (GPT-2) would make opacus see one "sample" for the position embedding and sum its gradient
    over the batch, silently breaking per-record clipping."""
    return (attention_mask.long().cumsum(-1) - 1).clamp(min=0)


def per_record_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean next-token cross-entropy of each record over its labelled tokens: shape ``[batch]``."""
    shift_logits = logits[:, :-1, :].float()
    shift_labels = labels[:, 1:]
    token_loss = torch.nn.functional.cross_entropy(
        shift_logits.reshape(-1, shift_logits.size(-1)), shift_labels.reshape(-1),
        ignore_index=IGNORE_INDEX, reduction="none",
    ).view(shift_labels.shape)
    counts = (shift_labels != IGNORE_INDEX).sum(dim=1).clamp(min=1)
    return token_loss.sum(dim=1) / counts


# ---- models --------------------------------------------------------------------------------------
def resolve_model_path(spec: str) -> str:
    """``"embedded"`` -> the converted Gemma 3 270M folder; ``"hf:<id>"`` or a plain Hub id/path as is."""
    if spec == "embedded":
        from textleak.llm.embedded import embedded_model_path

        return str(embedded_model_path())
    return spec[3:] if spec.startswith("hf:") else spec


def load_causal_lm(spec: str, dtype: "torch.dtype | str | None" = torch.float32):
    """Load (model, tokenizer) from ``"embedded"``, a Hub id or a local folder, with a pad token.

    ``dtype``: a torch dtype or its name (``"float32"``, ``"bfloat16"``). bfloat16 halves the memory
    and, on GPUs and CPUs with bf16 matrix units (Intel AMX, AVX512-BF16), runs the frozen base
    model several times faster; LoRA adapters stay float32 (:func:`apply_lora`).

    A tokenizer without a pad token gets EOS as pad; padding is masked everywhere, so the choice
    never enters the loss.
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if isinstance(dtype, str):
        dtype = getattr(torch, dtype)
    path = resolve_model_path(spec)
    tokenizer = AutoTokenizer.from_pretrained(path)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype)
    return model, tokenizer


def apply_lora(model, r: int = 8, alpha: int | None = None, dropout: float = 0.0,
               target_modules: Sequence[str] | str | None = None, layers: Sequence[int] | None = None):
    """Wrap ``model`` with LoRA adapters (peft); only the adapter weights stay trainable.

    ``target_modules=None`` uses peft's per-architecture default (``c_attn`` for GPT-2,
    ``q_proj``/``v_proj`` for Llama and Gemma). ``alpha`` defaults to ``2 * r``. Dropout defaults
    to 0: LoRA dropout draws from the global torch RNG, which the training loop seeds inside a
    forked RNG scope anyway. ``layers``: indices of the transformer blocks that get adapters (peft's
    ``layers_to_transform``; negative indices count from the top); None means every block. Adapters
    only in the top blocks also shorten the backward pass, which then stops at the lowest adapter.

    A model loaded in bfloat16 keeps float32 adapters (peft's ``autocast_adapter_dtype``), so the
    optimizer, the per-sample gradients and the DP noise stay in float32.
    """
    from peft import LoraConfig, get_peft_model

    extra: dict[str, Any] = {}
    if layers is not None:
        n_layers = _num_layers(model)
        extra["layers_to_transform"] = sorted({(i + n_layers) if i < 0 else i for i in layers})
        if any(not 0 <= i < n_layers for i in extra["layers_to_transform"]):
            raise ValueError(f"LoRA layers {list(layers)} are out of range for a model with {n_layers} blocks")
    config = LoraConfig(
        r=r, lora_alpha=alpha if alpha is not None else 2 * r, lora_dropout=dropout,
        target_modules=list(target_modules) if isinstance(target_modules, (list, tuple)) else target_modules,
        bias="none", task_type="CAUSAL_LM", **extra,
    )
    return get_peft_model(model, config)


def _num_layers(model) -> int:
    config = getattr(model, "config", None)
    config = getattr(config, "text_config", None) or config
    for name in ("num_hidden_layers", "n_layer", "num_layers"):
        if getattr(config, name, None):
            return int(getattr(config, name))
    raise ValueError("cannot tell the number of transformer blocks from the model config")


def trainable_parameter_count(model) -> tuple[int, int]:
    """(trainable, total) parameter counts."""
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return trainable, sum(p.numel() for p in model.parameters())


# ---- the loop ------------------------------------------------------------------------------------
@dataclass
class TrainingConfig:
    """Optimisation settings. ``batch_size`` is the (expected, under Poisson sampling) number of
    records per optimizer step; ``max_steps`` overrides ``epochs`` when set."""

    epochs: float = 3.0
    max_steps: int | None = None
    batch_size: int = 8
    learning_rate: float = 3e-4
    weight_decay: float = 0.0
    max_length: int = 256
    seed: int = 0
    log_every: int = 10
    # "auto": the fused loss of :mod:`textleak.synthesis.lm_loss` (logits only at labelled positions,
    # in chunks) when the model allows it, else full logits; "full" forces the reference path
    loss_impl: str = "auto"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class TrainingResult:
    model: Any
    steps: int
    losses: list[float] = field(default_factory=list)
    privacy: Any = None          # a dp.PrivacyReport when trained with DP
    truncated_records: int = 0
    step_logs: list[dict[str, Any]] = field(default_factory=list)
    loss_impl: str = "full"      # the loss path actually used: "fused" or "full"


StepCallback = Callable[[int, Any], "dict[str, Any] | None"]


def planned_steps(num_records: int, config: TrainingConfig) -> int:
    """Optimizer steps for the run: ``max_steps``, else ``ceil(epochs * N / batch_size)``
    (under Poisson sampling an "epoch" is 1/q steps with q = batch_size / N)."""
    if config.max_steps is not None:
        return int(config.max_steps)
    return max(1, math.ceil(config.epochs * num_records / config.batch_size))


def _batch_length(batch: Any) -> int:
    if isinstance(batch, dict):
        return int(batch["input_ids"].shape[0])
    return 0  # opacus returns [] for an empty first Poisson batch


def train_causal_lm(
    model,
    tokenizer,
    examples: Sequence[dict[str, Any]],
    config: TrainingConfig,
    dp: "Any | None" = None,
    accelerator=None,
    step_callback: StepCallback | None = None,
) -> TrainingResult:
    """Fine-tune ``model`` on encoded examples (:func:`encode_example`); DP-SGD when ``dp`` is a
    :class:`textleak.synthesis.dp.DPConfig`.

    Without DP: shuffled batches through ``accelerator.prepare`` (so ``accelerate launch`` shards
    them over processes). With DP: Poisson sampling at rate q = batch_size / N, per-record clipping
    and Gaussian noise through opacus, the noise multiplier calibrated to the target epsilon for the
    planned number of steps; empty Poisson batches still take a (noise-only) step, as the analysis
    assumes. ``step_callback(step, model)`` runs after each optimizer step; a dict it returns is
    added to that step's log. The returned model is unwrapped (no opacus/DDP wrapper).
    """
    from accelerate import Accelerator

    if not examples:
        raise ValueError("no training records")
    accelerator = accelerator or Accelerator(cpu=not torch.cuda.is_available())
    device = accelerator.device
    n = len(examples)
    steps = planned_steps(n, config)
    collate = CausalLMCollator(tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id)
    dataset = EncodedRecords(examples)
    truncated = sum(bool(ex.get("truncated")) for ex in examples)
    if truncated:
        logger.warning("%d of %d records were truncated to max_length=%d", truncated, n, config.max_length)

    devices = [device.index or 0] if device.type == "cuda" else []
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(config.seed)
        model.to(device)
        model.train()
        params = [p for p in model.parameters() if p.requires_grad]
        if not params:
            raise ValueError("the model has no trainable parameters")
        optimizer = torch.optim.AdamW(params, lr=config.learning_rate, weight_decay=config.weight_decay)

        privacy_session = None
        if dp is not None:
            from textleak.synthesis.dp import DPTrainingSession

            privacy_session = DPTrainingSession(dp, num_records=n, batch_size=config.batch_size, steps=steps,
                                                seed=config.seed, distributed=accelerator.num_processes > 1,
                                                rank=accelerator.process_index)
            train_model, optimizer, loader = privacy_session.make_private(model, optimizer, dataset, collate)
        else:
            gen = torch.Generator().manual_seed(config.seed)
            loader = DataLoader(dataset, batch_size=config.batch_size, shuffle=True, collate_fn=collate, generator=gen)
            train_model, optimizer, loader = accelerator.prepare(model, optimizer, loader)

        from textleak.synthesis.lm_loss import fused_per_record_loss, resolve_loss_impl

        sample_ids = torch.tensor([examples[0]["input_ids"]], device=device)
        loss_parts = resolve_loss_impl(train_model, config.loss_impl, sample_ids)
        result = TrainingResult(model=model, steps=0, truncated_records=truncated,
                                loss_impl="full" if loss_parts is None else "fused")
        from tqdm.auto import tqdm

        progress = tqdm(total=steps, desc="fine-tuning" + (" (DP)" if dp is not None else ""),
                        disable=not accelerator.is_local_main_process, leave=False)
        while result.steps < steps:
            for batch in loader:
                if result.steps >= steps:
                    break
                size = _batch_length(batch)
                if size == 0:
                    privacy_session.prepare_empty_step(optimizer)
                    loss_value = float("nan")
                else:
                    batch = {k: v.to(device) for k, v in batch.items()}
                    positions = position_ids_for(batch["attention_mask"])
                    if loss_parts is not None:
                        loss = fused_per_record_loss(loss_parts, batch["input_ids"], batch["attention_mask"], positions,
                                                     batch["labels"]).mean()
                    else:
                        logits = train_model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                                             position_ids=positions).logits
                        loss = per_record_loss(logits, batch["labels"]).mean()
                    if dp is None:
                        accelerator.backward(loss)
                    else:
                        loss.backward()
                        privacy_session.check_per_sample_shapes(optimizer, size)
                    loss_value = float(loss.detach())
                log: dict[str, Any] = {"step": result.steps + 1, "loss": loss_value, "batch_size": size}
                if privacy_session is not None:
                    log.update(privacy_session.clipping_stats(optimizer))
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
                result.steps += 1
                result.losses.append(loss_value)
                progress.update(1)
                if step_callback is not None:
                    extra = step_callback(result.steps, privacy_session.unwrap(train_model) if privacy_session else accelerator.unwrap_model(train_model))
                    if extra:
                        log.update(extra)
                if result.steps % max(1, config.log_every) == 0 or result.steps == steps:
                    logger.info("step %d/%d loss %.4f", result.steps, steps, loss_value)
                result.step_logs.append(log)
        progress.close()
        model.eval()
        if privacy_session is not None:
            result.model = privacy_session.release(train_model)
            result.privacy = privacy_session.report(steps_taken=result.steps)
        else:
            result.model = accelerator.unwrap_model(train_model)
    return result


def save_adapter_or_model(model, tokenizer, output_dir: str | Path) -> Path:
    """Save a LoRA adapter (peft) or the full model, plus the tokenizer, under ``output_dir``."""
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out
