"""DP-SGD through opacus: Poisson sampling, per-record clipping, noise calibrated to a target epsilon.

Follows Yue et al. (2023) / microsoft dp-transformers: delta defaults to 1/N (seed 000 does not
state its delta, so this default is ours, taken from dp-transformers), flat clipping at
``max_grad_norm=1.0``. The accountant defaults to RDP, not dp-transformers' PRV: opacus 1.6's PRV
accountant overflows at large epsilon (at the target 1024 it returned 709.8 = log of the largest
double for a noise level whose true epsilon is far higher, a silent under-report), and each PRV
call costs about a second on a CPU. RDP's epsilon is an upper bound everywhere and cheap.
``accountant="prv"`` (tighter) is accepted for targets up to 100, and a PRV result at the overflow
limit is an error, never a number.

The calibration is done here rather than by ``make_private_with_epsilon`` so the sampling rate is
exactly q = batch_size / N and the step count is the one the loop will run: opacus derives its own
rate as 1 / len(data_loader), which differs from batch_size / N whenever N is not a multiple of the
batch size. The accountant hook is attached with the same q, so the reported epsilon is the
accountant's for the steps actually taken.

Layer support (opacus 1.6 with transformers 5 and peft 0.21): with LoRA only the adapters' plain
``nn.Linear`` layers are trainable, which opacus's hook-based per-sample gradients support. Full
fine-tuning works too: layers opacus has no grad sampler for (GPT-2's ``Conv1D``, Gemma 3's
``Gemma3RMSNorm`` and scaled embedding) fall back to opacus's functorch path, which is slower.
"""

from __future__ import annotations

import logging
import math
import os
import warnings
from dataclasses import asdict, dataclass, field
from typing import Any

import torch

logger = logging.getLogger(__name__)

ACCOUNTANTS = ("rdp", "prv", "gdp")
PRV_MAX_EPSILON = 100.0
_PRV_OVERFLOW = 700.0  # log(largest double) is 709.78: PRV answers near it are overflow, not epsilons
# The opacus internals used here (DPOptimizer.grad_samples / p.grad_sample for empty Poisson
# batches, attach_step_hook, DPDataLoader arguments) are those of opacus 1.5 and 1.6.
SUPPORTED_OPACUS = ((1, 5), (1, 7))
# TEST ONLY: break DP-SGD on purpose so the canary audit (textleak.synthesis.audit) can show that it catches
# a broken run. "noise" adds no noise, "clip" skips per-record clipping, "both" does neither; the accountant
# still reports the calibrated epsilon, as a real bug would. Never set it for a release.
BREAK_DP_ENV = "TEXTLEAK_TEST_ONLY_BREAK_DP"


def broken_dp_mode() -> str | None:
    """The test-only switch's value (``noise``, ``clip``, ``both``) or None; anything else is an error."""
    mode = os.environ.get(BREAK_DP_ENV, "").strip().lower() or None
    if mode not in (None, "noise", "clip", "both"):
        raise ValueError(f"{BREAK_DP_ENV} must be noise, clip or both, got {mode!r}")
    return mode


def check_opacus_version() -> str:
    """The installed opacus version; a clear error when it is outside the tested range."""
    try:
        import opacus
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("DP fine-tuning needs opacus: pip install 'textleak[dp]'") from err
    version = opacus.__version__
    parts = tuple(int(x) for x in version.split("+")[0].split(".")[:2])
    low, high = SUPPORTED_OPACUS
    if not (low <= parts < high):
        raise ImportError(f"opacus {version} is untested; textleak's DP training supports opacus >=1.5,<1.7")
    return version


@dataclass
class DPConfig:
    """Differential-privacy settings. ``delta=None`` means 1/N (N = number of training records)."""

    epsilon: float | None
    delta: float | None = None
    max_grad_norm: float = 1.0
    accountant: str = "rdp"
    secure_mode: bool = False
    noise_multiplier: float | None = None  # set instead of epsilon: fixed noise, epsilon reported after

    def __post_init__(self) -> None:
        if (self.epsilon is None) == (self.noise_multiplier is None):
            raise ValueError("give exactly one of epsilon (noise calibrated to it) and noise_multiplier")
        if self.epsilon is not None and not (self.epsilon > 0 and math.isfinite(self.epsilon)):
            raise ValueError(f"epsilon must be a positive finite number (use no DPConfig for epsilon = infinity), got {self.epsilon}")
        if self.noise_multiplier is not None and not self.noise_multiplier > 0:
            raise ValueError(f"noise_multiplier must be positive, got {self.noise_multiplier}")
        if self.delta is not None and not (0 < self.delta < 1):
            raise ValueError(f"delta must be in (0, 1), got {self.delta}")
        if self.accountant not in ACCOUNTANTS:
            raise ValueError(f"accountant must be one of {ACCOUNTANTS}, got {self.accountant!r}")
        if self.accountant == "prv" and self.epsilon is not None and self.epsilon > PRV_MAX_EPSILON:
            raise ValueError(f"the PRV accountant is numerically unreliable above epsilon {PRV_MAX_EPSILON} in opacus "
                             f"(it overflows); use accountant='rdp' for epsilon {self.epsilon}")
        if self.max_grad_norm <= 0:
            raise ValueError(f"max_grad_norm must be positive, got {self.max_grad_norm}")


@dataclass
class PrivacyReport:
    """What a DP run guarantees, as the accountant computed it after training."""

    accountant: str
    epsilon: float                 # the accountant's epsilon for the steps taken, at ``delta``
    target_epsilon: float | None   # None when the noise multiplier was fixed instead
    delta: float
    delta_source: str              # "1/N (default)" or "user"
    noise_multiplier: float
    steps: int
    sample_rate: float
    expected_batch_size: float
    num_records: int
    max_grad_norm: float
    clipping: str = "flat"
    sampling: str = "poisson"
    opacus_version: str = ""
    secure_mode: bool = False
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def noise_multiplier_for(target_epsilon: float, delta: float, sample_rate: float, steps: int,
                         accountant: str = "rdp", rel_tolerance: float = 0.005) -> float:
    """The noise multiplier whose accountant epsilon after ``steps`` Poisson-sampled steps at
    ``sample_rate`` lies in ``[target * (1 - rel_tolerance), target]``.

    A bisection on log(sigma) with a relative stopping rule: opacus's ``get_noise_multiplier`` stops
    at an absolute 0.01, which costs many more accountant calls at large epsilon (each PRV call
    takes about a second on a CPU). Results are cached on disk (``dp_noise``), so a sweep or a
    rerun calibrates each setting once.
    """
    from textleak.cache import DiskCache, content_hash

    key = content_hash("noise_multiplier", 1, target_epsilon, delta, sample_rate, steps, accountant, rel_tolerance)
    cache = DiskCache("dp_noise")
    found = cache.get(key)
    if found is not None:
        return float(found)
    low, high = 0.0, 1.0
    eps_high = epsilon_for(high, delta, sample_rate, steps, accountant)
    while eps_high > target_epsilon:  # find a sigma that meets the target
        low, high = high, high * 2
        if high > 1e6:
            raise ValueError(f"epsilon {target_epsilon} at delta {delta} is out of reach for q={sample_rate}, {steps} steps")
        eps_high = epsilon_for(high, delta, sample_rate, steps, accountant)
    for _ in range(60):
        if eps_high >= target_epsilon * (1 - rel_tolerance):
            break
        mid = (low + high) / 2 if low == 0.0 else math.sqrt(low * high)
        eps_mid = epsilon_for(mid, delta, sample_rate, steps, accountant)
        if eps_mid <= target_epsilon:
            high, eps_high = mid, eps_mid
        else:
            low = mid
    cache.set(key, high)
    return float(high)


def epsilon_for(noise_multiplier: float, delta: float, sample_rate: float, steps: int, accountant: str = "rdp") -> float:
    """The accountant's epsilon for a noise multiplier, sampling rate and step count."""
    from opacus.accountants import create_accountant

    acc = create_accountant(mechanism=accountant)
    acc.history = [(noise_multiplier, sample_rate, steps)]
    with warnings.catch_warnings():  # RDP's "optimal order is the largest alpha"; PRV's overflows (checked below)
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        epsilon = float(acc.get_epsilon(delta=delta))
    if accountant == "prv" and not epsilon < _PRV_OVERFLOW:
        raise FloatingPointError(f"the PRV accountant overflowed (epsilon {epsilon}) at noise {noise_multiplier}; use 'rdp'")
    return epsilon


class DPTrainingSession:
    """Turns (model, optimizer, dataset) private for one run and reports the guarantee afterwards.

    Usable from any hand-written loop::

        session = DPTrainingSession(DPConfig(epsilon=8), num_records=N, batch_size=8, steps=T, seed=0)
        model, optimizer, loader = session.make_private(model, optimizer, dataset, collate_fn)
        ...                      # per batch: forward, mean loss, backward, optimizer.step()
        session.report(steps_taken=T)
    """

    def __init__(self, config: DPConfig, num_records: int, batch_size: int, steps: int, seed: int = 0,
                 distributed: bool = False, rank: int = 0):
        if num_records < 1:
            raise ValueError("DP training needs at least one record")
        if not 0 < batch_size <= num_records:
            raise ValueError(f"batch_size must be in [1, N={num_records}], got {batch_size}")
        self.config = config
        self.num_records = num_records
        self.steps = steps
        self.sample_rate = batch_size / num_records
        self.delta = config.delta if config.delta is not None else 1.0 / num_records
        self.seed = seed
        self.distributed = distributed
        self.rank = rank
        self.opacus_version = check_opacus_version()
        if config.noise_multiplier is not None:
            self.noise_multiplier = float(config.noise_multiplier)
        else:
            self.noise_multiplier = noise_multiplier_for(config.epsilon, self.delta, self.sample_rate, steps, config.accountant)
        self.engine = None
        logger.info("DP-SGD: target epsilon %s, delta %.3g, q %.4f, %d steps -> noise multiplier %.4f (%s)",
                    config.epsilon, self.delta, self.sample_rate, steps, self.noise_multiplier, config.accountant)

    def make_private(self, model, optimizer, dataset, collate_fn):
        """(private model, DP optimizer, Poisson data loader). The model is wrapped in opacus's
        GradSampleModule (and DPDDP when distributed); use :meth:`unwrap` to get it back."""
        from opacus import PrivacyEngine
        from opacus.data_loader import DPDataLoader

        if self.distributed:
            from opacus.distributed import DifferentiallyPrivateDistributedDataParallel as DPDDP

            model = DPDDP(model)
        self.engine = PrivacyEngine(accountant=self.config.accountant, secure_mode=self.config.secure_mode)
        sampler_gen = None if self.config.secure_mode else torch.Generator().manual_seed(self.seed * 1000 + self.rank)
        noise_gen = None
        if not self.config.secure_mode:
            device = next(model.parameters()).device
            noise_gen = torch.Generator(device=device).manual_seed(self.seed * 1000 + 7 + self.rank)
        loader = DPDataLoader(dataset, sample_rate=self.sample_rate, collate_fn=collate_fn, generator=sampler_gen,
                              distributed=self.distributed)
        module, dp_optimizer, loader = self.engine.make_private(
            module=model, optimizer=optimizer, data_loader=loader, noise_multiplier=self.noise_multiplier,
            max_grad_norm=self.config.max_grad_norm, poisson_sampling=False, noise_generator=noise_gen,
            loss_reduction="mean", clipping="flat", grad_sample_mode="hooks",
        )
        # account at exactly q = batch_size / N (opacus would use 1 / len(loader)), and normalise
        # the noisy sum by the expected batch size q * N
        dp_optimizer.attach_step_hook(self.engine.accountant.get_optimizer_hook_fn(sample_rate=self.sample_rate))
        dp_optimizer.expected_batch_size = self.sample_rate * self.num_records
        if self.distributed:
            dp_optimizer.expected_batch_size /= torch.distributed.get_world_size()
        module.forbid_grad_accumulation()
        self.broken = broken_dp_mode()
        if self.broken:
            _break_optimizer(dp_optimizer, self.broken)
        return module, dp_optimizer, loader

    @staticmethod
    def prepare_empty_step(optimizer) -> None:
        """An empty Poisson batch: zero per-sample gradients so the optimizer still adds noise and
        the accountant still counts the step."""
        for p in optimizer.params:
            p.grad_sample = torch.zeros((0, *p.shape), dtype=p.dtype, device=p.device)

    @staticmethod
    def check_per_sample_shapes(optimizer, batch_size: int) -> None:
        """Every trainable parameter must have one gradient per record; a broadcast input (e.g.
        position ids of batch 1) would otherwise sum records together and void the guarantee."""
        for p in optimizer.params:
            gs = p.grad_sample
            n = sum(len(g) for g in gs) if isinstance(gs, list) else (len(gs) if gs is not None else None)
            if n != batch_size:
                name = getattr(p, "_textleak_name", tuple(p.shape))
                raise RuntimeError(f"parameter {name} has per-sample gradients for {n} records in a batch of {batch_size}; "
                                   "its input is not batch-first per record (pass explicit [batch, length] inputs)")

    @staticmethod
    def per_sample_gradient_norms(optimizer) -> torch.Tensor:
        """L2 norm of each record's full (all trainable parameters) gradient before clipping."""
        grads = optimizer.grad_samples
        if not grads or len(grads[0]) == 0:
            return torch.zeros(0)
        return torch.stack([g.reshape(len(g), -1).norm(2, dim=-1) for g in grads], dim=1).norm(2, dim=1)

    def clipping_stats(self, optimizer) -> dict[str, float]:
        """Share of records in the batch whose gradient was clipped, and their median norm."""
        norms = self.per_sample_gradient_norms(optimizer)
        if norms.numel() == 0:
            return {"clipped_fraction": float("nan"), "median_grad_norm": float("nan")}
        return {"clipped_fraction": float((norms > self.config.max_grad_norm).float().mean()),
                "median_grad_norm": float(norms.median())}

    @staticmethod
    def unwrap(module):
        """The user's model inside the opacus GradSampleModule / DPDDP wrappers (hooks left on)."""
        inner = module
        while hasattr(inner, "_module"):
            inner = inner._module
        if type(inner).__name__ == "DifferentiallyPrivateDistributedDataParallel":
            inner = inner.module
        return inner

    def release(self, module):
        """Remove opacus's hooks and per-sample attributes; returns the user's plain model."""
        if hasattr(module, "to_standard_module"):
            module = module.to_standard_module()
        return self.unwrap(module)

    def report(self, steps_taken: int) -> PrivacyReport:
        """The accountant's final epsilon for the steps actually taken (plus the run's settings).

        Call :meth:`release` on the wrapped model to get a plain module back.
        """
        if self.engine is None:
            raise RuntimeError("make_private was not called")
        history_steps = sum(s for _, _, s in self.engine.accountant.history)
        if history_steps != steps_taken:
            raise RuntimeError(f"the accountant recorded {history_steps} steps but {steps_taken} were taken")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            epsilon = float(self.engine.accountant.get_epsilon(delta=self.delta))
        if self.config.accountant == "prv" and not epsilon < _PRV_OVERFLOW:
            raise FloatingPointError(f"the PRV accountant overflowed (epsilon {epsilon}); use accountant='rdp'")
        notes = []
        if getattr(self, "broken", None):
            notes.append(f"BROKEN ON PURPOSE ({BREAK_DP_ENV}={self.broken}): DP-SGD ran without "
                         f"{'noise' if self.broken == 'noise' else 'clipping' if self.broken == 'clip' else 'clipping or noise'}; "
                         "the epsilon above is the accountant's and does NOT hold")
        if self.config.delta is None:
            notes.append("delta = 1/N, the dp-transformers default; seed 000 does not state its delta")
        if not self.config.secure_mode:
            notes.append("noise and sampling use seeded torch generators (reproducible, not cryptographically secure); "
                         "use secure_mode=True for a release")
        return PrivacyReport(
            accountant=self.config.accountant, epsilon=epsilon, target_epsilon=self.config.epsilon, delta=self.delta,
            delta_source="user" if self.config.delta is not None else "1/N (default)",
            noise_multiplier=self.noise_multiplier, steps=steps_taken, sample_rate=self.sample_rate,
            expected_batch_size=self.sample_rate * self.num_records, num_records=self.num_records,
            max_grad_norm=self.config.max_grad_norm, opacus_version=self.opacus_version,
            secure_mode=self.config.secure_mode, notes=notes,
        )


def _break_optimizer(optimizer, mode: str) -> None:
    """TEST ONLY (see :data:`BREAK_DP_ENV`): make ``optimizer`` skip its noise and/or clipping while its
    ``noise_multiplier`` (which the accountant reads) stays the calibrated one."""
    logger.warning("%s=%s: DP-SGD is broken on purpose (test-only switch); the reported epsilon does not hold",
                   BREAK_DP_ENV, mode)
    if mode in ("clip", "both"):
        clip = optimizer.clip_and_accumulate

        def clip_and_accumulate_unclipped():
            norm = optimizer.max_grad_norm
            optimizer.max_grad_norm = float("inf")
            try:
                clip()
            finally:
                optimizer.max_grad_norm = norm

        optimizer.clip_and_accumulate = clip_and_accumulate_unclipped
    if mode in ("noise", "both"):
        def add_no_noise():
            for p in optimizer.params:
                p.grad = p.summed_grad.clone().view_as(p)

        optimizer.add_noise = add_no_noise
