"""Synthesis as a sanitizer: fine-tune on control-coded private records, then generate new ones.

The method of Yue et al. (2023) as seed 000 uses it (appendix A.2, table 2): each private record is
prefixed with a control code (MedQA: its question and answer; WildChat: none), a causal LM is
fine-tuned on them (LoRA or full, with DP-SGD at a target epsilon or without DP), and one synthetic
record is generated per control code. The synthetic set replaces the private one; its size may
differ, and it goes straight into ``textleak evaluate``.

    synth = SyntheticData(model="embedded", control_code="paper", epsilon=8.0)
    synthetic = synth.fit(train_ds).generate(num_records=1000, seed=0)
    synth.privacy_report()   # accountant, epsilon, delta, noise multiplier, steps, sample rate

Defaults that differ from the released seed 000 code, and why: the paper's control-code spelling
("Question: ... | Answer: ..."; the release's tab form is ``control_code="release"``); the embedded
Gemma 3 270M instead of gpt2-large (offline; pass ``model="gpt2-large"`` online); LoRA r=8.
``epsilon=None`` (or ``inf``) trains without DP, which is seed 000's epsilon = infinity row (the
release's ``eps_0`` directory is the base model without fine-tuning, a different thing).
"""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path
from typing import Any, Mapping, Sequence

from textleak._version import __version__
from textleak.cache import content_hash
from textleak.text.seeds import record_seed
from textleak.synthesis.templates import ConditioningTemplate, resolve_template

logger = logging.getLogger(__name__)

METADATA_FILE = "synthesis.json"


def _describe_object(obj: Any) -> Any:
    """Plain, hashable stand-in for a model or tokenizer object passed instead of a name."""
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    config = getattr(obj, "config", None)
    if config is not None and hasattr(config, "to_json_string"):
        return f"<{type(obj).__name__} {content_hash(config.to_json_string())[:12]}>"
    if hasattr(obj, "get_vocab"):
        return f"<{type(obj).__name__} {content_hash(sorted(obj.get_vocab().items()))[:12]}>"
    return f"<{type(obj).__name__}>"


class SyntheticData:
    """A dataset-level sanitizer: ``fit`` on private records, ``generate`` a synthetic dataset.

    Args:
        model: ``"embedded"`` (Gemma 3 270M, offline), a Hub id or local path (``"gpt2"``,
            ``"hf:gpt2-large"``), or a ``PreTrainedModel`` object (trained in place; pass its
            ``tokenizer`` too).
        control_code: ``"paper"`` (default), ``"release"``, ``"none"``, a ``{field}`` template or a
            :class:`ConditioningTemplate`.
        epsilon: the DP target; ``None`` or ``inf`` trains without DP (no opacus involved).
        delta: DP delta; ``None`` means 1/N (dp-transformers' default; seed 000 does not state one).
        epochs / max_steps: training length (``max_steps`` wins when set). Under DP an epoch is
            N / batch_size Poisson-sampled steps.
        lora_r: LoRA rank; ``None`` or 0 means full fine-tuning.
        learning_rate: default 3e-4 with LoRA (dp-transformers' LoRA advice), else 5e-5 without DP
            and 1e-4 with DP (Yue et al.'s recipes).
        batch_size: records per step (expected records per step under Poisson sampling).
        accountant: ``"rdp"`` (default; opacus's PRV, dp-transformers' choice, overflows at large
            epsilon, see :mod:`textleak.synthesis.dp`), ``"prv"`` (epsilon <= 100) or ``"gdp"``.
        max_new_tokens, temperature, top_p, top_k: sampling; defaults follow the release (T=1,
            top-k 50) with a cap on new tokens.
        seed: training seed and the default generation seed.
        dtype: ``"float32"`` (default) or ``"bfloat16"`` for the base model; LoRA adapters stay
            float32. bfloat16 is several times faster on GPUs and on CPUs with bf16 matrix units.
        lora_layers: transformer blocks that get LoRA adapters (negative: from the top); None = all.
        loss_impl: ``"auto"`` (logits only at labelled positions when the model allows it, see
            :mod:`textleak.synthesis.lm_loss`) or ``"full"`` (the reference full-logits loss).
    """

    name = "synthetic"
    VERSION = "1"

    def __init__(self, model: Any = "embedded", control_code: "str | ConditioningTemplate | None" = "paper",
                 epsilon: float | None = None, delta: float | None = None, epochs: float = 3.0,
                 max_steps: int | None = None, lora_r: int | None = 8, lora_alpha: int | None = None,
                 lora_target_modules: Sequence[str] | None = None, learning_rate: float | None = None,
                 batch_size: int = 8, max_length: int = 256, max_grad_norm: float = 1.0, accountant: str = "rdp",
                 text_field: str = "text", max_new_tokens: int = 256, temperature: float = 1.0, top_p: float = 1.0,
                 top_k: int = 50, generation_batch_size: int = 8, seed: int = 0, tokenizer: Any = None,
                 secure_mode: bool = False, dtype: str = "float32", lora_layers: Sequence[int] | None = None,
                 loss_impl: str = "auto"):
        self.model = model
        self.control_code = control_code
        self.epsilon = epsilon
        self.delta = delta
        self.epochs = epochs
        self.max_steps = max_steps
        self.lora_r = lora_r
        self.lora_alpha = lora_alpha
        self.lora_target_modules = list(lora_target_modules) if lora_target_modules else None
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.max_length = max_length
        self.max_grad_norm = max_grad_norm
        self.accountant = accountant
        self.text_field = text_field
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.top_p = top_p
        self.top_k = top_k
        self.generation_batch_size = generation_batch_size
        self.seed = seed
        self.tokenizer = tokenizer
        self.secure_mode = secure_mode
        self.dtype = dtype
        self.lora_layers = list(lora_layers) if lora_layers is not None else None
        self.loss_impl = loss_impl
        # runtime state (dropped from the pickled/hashed state)
        self._model = None
        self._tokenizer = None
        self._records: list[dict[str, Any]] | None = None
        self._prompts: list[str] | None = None
        self._training = None
        self._fit_info: dict[str, Any] | None = None

    # ---- configuration ---------------------------------------------------------------------------
    @property
    def uses_dp(self) -> bool:
        return self.epsilon is not None and not math.isinf(float(self.epsilon))

    def get_config(self) -> dict[str, Any]:
        config = {k: v for k, v in self.__dict__.items() if not k.startswith("_")}
        config["model"] = _describe_object(self.model)
        config["tokenizer"] = _describe_object(self.tokenizer)
        if isinstance(self.control_code, ConditioningTemplate):
            config["control_code"] = self.control_code.describe()
        return config

    def __getstate__(self) -> dict[str, Any]:
        return {"config": self.get_config(), "sanitizer": f"{type(self).__module__}.{type(self).__qualname__}",
                "version": self.VERSION, "textleak": __version__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """The configuration only (a model object comes back as its description string, which
        identifies it for hashing but cannot be loaded: pass the object again to fit)."""
        self.__init__()
        self.__dict__.update(state["config"])

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.get_config().items())})"

    def _learning_rate(self) -> float:
        if self.learning_rate is not None:
            return float(self.learning_rate)
        if self.lora_r:
            return 3e-4
        return 1e-4 if self.uses_dp else 5e-5

    # ---- fit -------------------------------------------------------------------------------------
    def _load(self):
        from textleak.synthesis.training import apply_lora, load_causal_lm

        if isinstance(self.model, str):
            model, tokenizer = load_causal_lm(self.model, dtype=self.dtype)
            if self.tokenizer is not None:
                tokenizer = self.tokenizer
        else:
            if self.tokenizer is None:
                raise ValueError("a model object needs its tokenizer: SyntheticData(model=m, tokenizer=t)")
            model, tokenizer = self.model, self.tokenizer
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        if self.lora_r:
            import torch

            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(self.seed)
                model = apply_lora(model, r=self.lora_r, alpha=self.lora_alpha, target_modules=self.lora_target_modules,
                                   layers=self.lora_layers)
        return model, tokenizer

    def fit(self, dataset: "Any", callbacks: Sequence[Any] = (), accelerator=None) -> "SyntheticData":
        """Fine-tune on ``dataset`` (a ``datasets.Dataset`` or a list of dicts with ``text_field``
        and the control code's fields). ``callbacks``: objects with ``step_callback(step, model)``
        (e.g. :class:`~textleak.synthesis.callback.LeakageCallback`). Returns ``self``."""
        from textleak.synthesis.dp import DPConfig
        from textleak.synthesis.training import TrainingConfig, encode_example, train_causal_lm

        records = [dict(r) for r in dataset]
        if not records:
            raise ValueError("no records to fit on")
        code = resolve_template(self.control_code)
        texts, prompts = [], []
        for i, r in enumerate(records):
            text = r.get(self.text_field)
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"record {i} (id {r.get('id', i)!r}) has no text in field {self.text_field!r}")
            texts.append(text)
            prompts.append(code.render(r, i))
        model, tokenizer = self._load()
        examples = [encode_example(tokenizer, p, t, self.max_length) for p, t in zip(prompts, texts)]
        config = TrainingConfig(epochs=self.epochs, max_steps=self.max_steps, batch_size=min(self.batch_size, len(records)),
                                learning_rate=self._learning_rate(), max_length=self.max_length, seed=self.seed,
                                loss_impl=self.loss_impl)
        dp = None
        if self.uses_dp:
            dp = DPConfig(epsilon=float(self.epsilon), delta=self.delta, max_grad_norm=self.max_grad_norm,
                          accountant=self.accountant, secure_mode=self.secure_mode)
        hooks = [c.step_callback if hasattr(c, "step_callback") else c for c in callbacks]

        def step_callback(step, m):
            out: dict[str, Any] = {}
            for hook in hooks:
                out.update(hook(step, m) or {})
            return out or None

        result = train_causal_lm(model, tokenizer, examples, config, dp=dp, accelerator=accelerator,
                                 step_callback=step_callback if hooks else None)
        self._model, self._tokenizer, self._training = result.model, tokenizer, result
        self._records, self._prompts = records, prompts
        finite = [x for x in result.losses if x == x]
        self._fit_info = {
            "num_records": len(records),
            "records_hash": content_hash(texts),
            "truncated_records": result.truncated_records,
            "steps": result.steps,
            "training": config.to_dict(),
            "first_loss": finite[0] if finite else None,
            "final_loss": finite[-1] if finite else None,
            "control_code": code.describe(),
            "loss_impl": result.loss_impl,
            "dtype": str(next((p for p in result.model.parameters() if not p.requires_grad),
                              next(result.model.parameters())).dtype).replace("torch.", ""),
        }
        return self

    # ---- generate --------------------------------------------------------------------------------
    def _check_fitted(self) -> None:
        if self._model is None:
            raise RuntimeError("call fit(dataset) before generate() or privacy_report()")

    def privacy_report(self) -> dict[str, Any]:
        """The DP guarantee of the fitted model: accountant, epsilon (the accountant's, for the
        steps taken), delta, noise multiplier, steps, sampling rate, clipping norm. Without DP,
        ``{"dp": False, "epsilon": inf}``: no formal guarantee."""
        self._check_fitted()
        if self._training.privacy is None:
            return {"dp": False, "epsilon": float("inf"), "delta": None, "steps": self._training.steps,
                    "notes": ["trained without differential privacy: no formal guarantee"]}
        return {"dp": True, **self._training.privacy.to_dict()}

    def generate(self, num_records: int | None = None, seed: int | None = None,
                 control_codes: Sequence[str] | None = None) -> "Any":
        """A ``datasets.Dataset`` of synthetic records (column ``text``).

        Record *i* is conditioned on the control code of training record ``i mod N`` (so
        ``num_records=None``, i.e. N, gives one synthetic record per private one, as seed 000), or on
        ``control_codes[i]`` (already rendered prompts). Its sampling seed derives from ``seed`` and
        *i*. A failed (empty) generation has ``text=None`` and ``sanitize_status="empty"``; the
        count is in the metadata. The privacy report, training and sampling settings are stored in
        ``dataset.info.description`` as JSON (see :meth:`save` for a side file).
        """
        import datasets

        from textleak.synthesis.generation import GenerationConfig, generate_records

        self._check_fitted()
        seed = self.seed if seed is None else seed
        if control_codes is not None:
            prompts = list(control_codes)
            sources: list[int | None] = [None] * len(prompts)
        else:
            n = len(self._prompts) if num_records is None else int(num_records)
            if n < 0:
                raise ValueError("num_records must be non-negative")
            sources = [i % len(self._prompts) for i in range(n)]
            prompts = [self._prompts[j] for j in sources]
        gen_config = GenerationConfig(max_new_tokens=self.max_new_tokens, temperature=self.temperature, top_p=self.top_p,
                                      top_k=self.top_k, batch_size=self.generation_batch_size)
        seeds = [record_seed(seed, i, "") for i in range(len(prompts))]
        generated = generate_records(self._model, self._tokenizer, prompts, seeds, gen_config)
        failed = sum(g.status != "ok" for g in generated)
        metadata = {
            "sanitizer": "synthetic",
            "textleak_version": __version__,
            "config": self.get_config(),
            "privacy": self.privacy_report(),
            "fit": self._fit_info,
            "generation": {**gen_config.to_dict(), "seed": seed, "num_records": len(prompts),
                           "failed_records": failed,
                           "unfinished_records": sum(not g.finished for g in generated)},
        }
        source_ids = [str(self._records[j].get("id", j)) if j is not None else None for j in sources]
        data = {
            "id": [f"synthetic-{i}" for i in range(len(prompts))],
            "text": [g.text for g in generated],
            "control_code": prompts,
            "source_index": sources,
            "source_id": source_ids,
            "sanitize_status": [g.status for g in generated],
            "finished": [g.finished for g in generated],
            "num_tokens": [g.num_tokens for g in generated],
        }
        features = datasets.Features({
            "id": datasets.Value("string"), "text": datasets.Value("string"), "control_code": datasets.Value("string"),
            "source_index": datasets.Value("int64"), "source_id": datasets.Value("string"),
            "sanitize_status": datasets.Value("string"), "finished": datasets.Value("bool"),
            "num_tokens": datasets.Value("int64"),
        })
        info = datasets.DatasetInfo(description=json.dumps(metadata, default=_json_default), features=features)
        ds = datasets.Dataset.from_dict(data, features=features, info=info)
        self._last_metadata = metadata
        return ds

    def save(self, dataset: "Any", output_dir: str | Path, save_model: bool = False) -> Path:
        """``save_to_disk`` the synthetic dataset plus ``synthesis.json`` (the metadata); with
        ``save_model`` also the adapter (LoRA) or model and tokenizer under ``model/``."""
        out = Path(output_dir)
        dataset.save_to_disk(str(out))
        (out / METADATA_FILE).write_text(json.dumps(json.loads(dataset.info.description), indent=2), encoding="utf-8")
        if save_model:
            from textleak.synthesis.training import save_adapter_or_model

            self._check_fitted()
            save_adapter_or_model(self._model, self._tokenizer, out / "model")
        return out

    @property
    def training_log(self) -> list[dict[str, Any]]:
        """Per-step log of the last fit (loss, batch size, clipped fraction under DP, callbacks)."""
        self._check_fitted()
        return self._training.step_logs


def _json_default(obj: Any) -> Any:
    if isinstance(obj, float) and math.isinf(obj):
        return "inf"
    if isinstance(obj, Path):
        return str(obj)
    return str(obj)


def read_metadata(dataset: "Any") -> dict[str, Any]:
    """The synthesis metadata stored in a synthetic dataset's ``info.description``."""
    return json.loads(dataset.info.description)
