"""Benchmark helper: a BERT-style encoder's forward pass run by ONNX Runtime instead of PyTorch eager,
on a CPU, fp32 or with ONNX Runtime's dynamic int8 quantisation (``bench_judges_speed.py --backends``).
Not part of textleak: measured side by side with the torch path, it was no clear win on the 2-core
machine (``benchmarks/results/judges_speed_backends.md``), so the judge does not offer it.

``use_onnx(model)`` makes a ``transformers`` encoder's (``BertModel``) forward pass an :class:`OnnxForward`: called with
``input_ids``, ``attention_mask`` and ``token_type_ids`` it returns an object with
``last_hidden_state`` (and ``[0]``), a float32 torch tensor, as the model does, so the code around it
(pooling, heads, sentence-transformers' ``Transformer`` module) is unchanged. The model is exported
once (float32, dynamic batch and sequence axes, LoRA already merged) to an ``.onnx`` file under
:func:`textleak.cache.model_cache_root` ``/onnx``, named by the hash of its weights and the export
settings, and built lazily on first use: no network, nothing shipped. Needs the packages
``onnxruntime`` and (to export) ``onnx`` (``pip install onnxruntime onnx``).
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

#: Part of the file name: bump when the export changes (opset, inputs, outputs).
EXPORT_VERSION = 1
OPSET = 17
_LOCK = threading.Lock()


def onnx_available() -> bool:
    """Whether onnxruntime and onnx import."""
    try:
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


def weights_hash(model: Any) -> str:
    """SHA-256 (first 16 hex digits) of a torch module's parameters and buffers, in order, with their
    names, shapes and dtypes: the same weights give the same file, changed weights a new one."""
    import torch

    h = hashlib.sha256()
    for name, tensor in list(model.state_dict().items()):
        t = tensor.detach().cpu().contiguous()
        h.update(f"{name}:{tuple(t.shape)}:{t.dtype};".encode())
        h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b"")
    return h.hexdigest()[:16]


def export_path(model: Any, folder: str | Path | None = None) -> Path:
    """Where the export of ``model`` lives (``folder`` or the model cache's ``onnx`` folder)."""
    import torch

    from textleak.cache import model_cache_root

    root = Path(folder) if folder is not None else model_cache_root() / "onnx"
    return root / f"encoder-{weights_hash(model)}-opset{OPSET}-v{EXPORT_VERSION}-torch{torch.__version__.split('+')[0]}.onnx"


def export_encoder(model: Any, path: Path) -> Path:
    """Export ``model`` (a ``transformers`` encoder, float32) to ``path``: inputs ``input_ids``,
    ``attention_mask``, ``token_type_ids`` (batch x sequence, both axes dynamic), output
    ``last_hidden_state``. Traced on a padded batch, so the attention mask's path is in the trace
    (tests/test_onnx_backend.py checks padded pairs rate as they do alone). Written to a temporary name and
    renamed, so a crash or a second process never leaves half a file under the final name."""
    import torch

    class _Wrapped(torch.nn.Module):
        def __init__(self, encoder: Any):
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.encoder(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state

    ids = torch.tensor([[101, 2023, 2003, 1037, 3231, 1012, 102, 2009, 2003, 102], [101, 2023, 102, 2009, 102, 0, 0, 0, 0, 0]])
    mask = (ids != 0).long()
    types = torch.tensor([[0] * 7 + [1] * 3, [0] * 3 + [1] * 2 + [0] * 5])
    names = ["input_ids", "attention_mask", "token_type_ids"]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            torch.onnx.export(_Wrapped(model), (ids, mask, types), str(tmp), dynamo=False, input_names=names,
                              output_names=["last_hidden_state"], opset_version=OPSET,
                              dynamic_axes={k: {0: "batch", 1: "sequence"} for k in names + ["last_hidden_state"]})
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
        model.train(was_training)
    return path


class _Output(dict):
    """``last_hidden_state`` by attribute, by key and as ``[0]`` (as transformers' model outputs)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError as err:
            raise AttributeError(name) from err

    def __getitem__(self, key: Any) -> Any:
        return super().__getitem__("last_hidden_state" if key == 0 else key)


class OnnxForward:
    """The forward pass of ``model`` run by ONNX Runtime on the CPU, with ``threads`` intra-op threads
    (default: torch's current number, so ``torch.set_num_threads`` governs both back ends).
    :func:`use_onnx` installs it as the model's ``forward``."""

    def __init__(self, model: Any, threads: int | None = None, folder: str | Path | None = None, int8: bool = False,
                 per_channel: bool = False):
        import onnxruntime as ort
        import torch

        path = export_path(model, folder)
        with _LOCK:
            if not path.is_file():
                logger.info("exporting the encoder to ONNX once: %s", path)
                export_encoder(model, path)
            if int8:
                # ONNX Runtime's dynamic quantisation: int8 weights, activations quantised with one scale
                # per tensor (per batch, padding included), so a pair's output depends on its batch
                from onnxruntime.quantization import QuantType, quantize_dynamic

                quantised = path.with_suffix(".int8-per-channel.onnx" if per_channel else ".int8.onnx")
                if not quantised.is_file():
                    tmp = quantised.with_name(f"{quantised.name}.{os.getpid()}.tmp")
                    quantize_dynamic(str(path), str(tmp), weight_type=QuantType.QInt8, per_channel=per_channel)
                    os.replace(tmp, quantised)
                path = quantised
        options = ort.SessionOptions()
        options.intra_op_num_threads = int(threads or torch.get_num_threads())
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.path = path
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self.session.get_inputs()}

    def __call__(self, input_ids: Any, attention_mask: Any = None, token_type_ids: Any = None, **_: Any) -> _Output:
        import torch

        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        feed = {"input_ids": input_ids, "attention_mask": attention_mask, "token_type_ids": token_type_ids}
        feed = {k: v.detach().cpu().numpy().astype("int64", copy=False) for k, v in feed.items() if k in self._inputs}
        hidden = self.session.run(["last_hidden_state"], feed)[0]
        return _Output(last_hidden_state=torch.from_numpy(hidden))


def use_onnx(model: Any, threads: int | None = None, folder: str | Path | None = None, int8: bool = False) -> Any:
    """``model`` (in place, and returned) with its forward pass run by ONNX Runtime: calling it, or
    anything that calls it (sentence-transformers, the NLI judge), goes through :class:`OnnxForward`;
    its torch weights stay (they define the export, and ``.to``/``.parameters`` keep working)."""
    model.eval()
    model.forward = OnnxForward(model, threads, folder, int8)
    return model
