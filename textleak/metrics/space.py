"""A small Gradio app for a metric's Hub Space.

evaluate's own ``launch_gradio_widget`` (0.4.6) predates Gradio 5 and builds one table from the first
feature set, which cannot express our extra inputs (aux-claim count, mechanism, epsilon, shadow texts,
private entities). This app takes predictions and references one per line, the remaining
``compute`` arguments as JSON, and shows the result as JSON next to the metric card.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


def _lines(text: str) -> list[str]:
    """One record per line; an empty line is an empty record (what "remove all" produces)."""
    return (text or "").split("\n") if text else []


def _card_body(folder: Path) -> str:
    card = folder / "README.md"
    if not card.exists():
        return ""
    text = card.read_text(encoding="utf-8")
    return re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)


def build_app(module: Any, folder: str | Path, example: dict[str, Any] | None = None):
    """A ``gr.Blocks`` app computing ``module`` (an evaluate metric) on user input."""
    import gradio as gr

    example = example or {}
    folder = Path(folder)

    def compute(predictions: str, references: str, options: str) -> dict[str, Any]:
        try:
            kwargs = json.loads(options) if options and options.strip() else {}
        except json.JSONDecodeError as e:
            return {"error": f"options are not valid JSON: {e}"}
        preds, refs = _lines(predictions), _lines(references)
        try:
            result = module.compute(predictions=preds, references=refs, **kwargs)
        except Exception as e:  # shown to the user, not swallowed
            logger.exception("compute failed")
            return {"error": f"{type(e).__name__}: {e}"}
        return json.loads(json.dumps(result, default=_jsonable))

    with gr.Blocks(title=module.name) as app:
        gr.Markdown(f"# {module.name}\nOne record per line. Other `compute` arguments go in the options box as JSON.")
        with gr.Row():
            preds = gr.Textbox(label="predictions (sanitized or generated texts)", lines=8,
                               value="\n".join(example.get("predictions", [])), elem_id="predictions")
            refs = gr.Textbox(label="references (original texts)", lines=8,
                              value="\n".join(example.get("references", [])), elem_id="references")
        opts = gr.Textbox(label="options (JSON)", lines=2, value=json.dumps(example.get("options", {})), elem_id="options")
        button = gr.Button("Compute", variant="primary", elem_id="compute")
        out = gr.JSON(label="result", elem_id="result")
        button.click(compute, inputs=[preds, refs, opts], outputs=out)
        gr.Markdown(_card_body(folder))
    return app


def _jsonable(x: Any) -> Any:
    if hasattr(x, "tolist"):
        return x.tolist()
    if hasattr(x, "item"):
        return x.item()
    return str(x)


def launch(app_file: str, example: dict[str, Any] | None = None, **module_options: Any) -> None:
    """Load the metric from the folder holding ``app_file`` and serve the app (the Space entry point)."""
    import evaluate

    folder = Path(app_file).resolve().parent
    module = evaluate.load(str(folder), **module_options)
    build_app(module, folder, example).launch()
