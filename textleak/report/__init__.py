"""Turn a study result into things people look at: a self-contained HTML page, PNG figures, CSV/JSON.

The page needs no network: figures are embedded as PNG data URIs, styles are inline, and the
drill-down uses ``<details>`` elements (no JavaScript framework).

Study result schema (what :func:`textleak.study.run_study` produces)::

    {"dataset": str, "n_records": int, "settings": {...}, "textleak_version": str,
     "rows": [{"sanitizer": str, "semantic_privacy": float|None, "semantic_ci95": [lo, hi]|None,
               "lexical_privacy": ..., "lexical_ci95": ..., "linkage_rate": float|None,
               "utility": float|None, "utility_ci95": [lo, hi]|None, "utility_name": str,
               "coherence": float|None, "unparsed_claims": int, "n_records": int,
               "llm_refusals": {"sanitizer": int, "atomizer": int, "judge": int, "paraphraser": int} (optional),
               "linkage": {"first": float, "random": float, "last": float} (optional)}, ...],
     "dp_sweep": [{"epsilon": float|"inf", "semantic_privacy": ..., "lexical_privacy": ...,
                   "utility": ...}, ...] (optional),
     "records": {sanitizer: [{"id", "original", "linked_id", "linked_text", "link_score",
                              "known_claims": [str], "claims": [{"text", "rating", "score", "status"}]}]}}
"""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import logging
import os
from pathlib import Path
from typing import Any

from textleak.io import make_private_dir, write_json, write_private_text

logger = logging.getLogger(__name__)

_RATING_LABEL = {1: "same", 2: "similar", 3: "unsupported", None: "unparsed"}


def _fmt(x: Any, digits: int = 3) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return html.escape(str(x))


def _ci(ci: Any) -> str:
    if not ci:
        return ""
    return f" <span class='ci'>[{ci[0]:.2f}, {ci[1]:.2f}]</span>"


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120, bbox_inches="tight")
    return buf.getvalue()


def privacy_utility_figure(rows: list[dict[str, Any]], title: str = ""):
    """Semantic (filled) and lexical (hollow) privacy against task utility, one colour per sanitizer."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    cmap = plt.get_cmap("tab10")
    plotted = 0
    for i, row in enumerate(rows):
        u = row.get("utility")
        if u is None:
            continue
        color = cmap(i % 10)
        uerr = _err(u, row.get("utility_ci95"))
        for key, marker, fill in (("semantic", "o", color), ("lexical", "s", "none")):
            p = row.get(f"{key}_privacy")
            if p is None:
                continue
            ax.errorbar(
                p, u, xerr=_err(p, row.get(f"{key}_ci95")), yerr=uerr, fmt=marker, color=color,
                markerfacecolor=fill, markersize=8, capsize=3, label=f"{row['sanitizer']} ({key})",
            )
            plotted += 1
    ax.set_xlabel("privacy (1 = nothing leaked)")
    ax.set_ylabel(rows[0].get("utility_name", "utility") if rows else "utility")
    ax.set_xlim(-0.05, 1.05)
    ax.grid(alpha=0.3)
    ax.set_title(title or "Privacy-utility trade-off (filled: semantic, hollow: lexical)")
    if plotted:
        ax.legend(fontsize=7, loc="best")
    else:
        ax.text(0.5, 0.5, "no utility measured", ha="center", va="center", transform=ax.transAxes)
    return fig


def dp_sweep_figure(sweep: list[dict[str, Any]]):
    """Privacy (semantic and lexical) and utility against the DP budget epsilon."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    finite = [r for r in sweep if r["epsilon"] not in ("inf", None, float("inf"))]
    finite.sort(key=lambda r: float(r["epsilon"]))
    inf = [r for r in sweep if r["epsilon"] in ("inf", None, float("inf"))]
    labels = [str(r["epsilon"]) for r in finite] + ["∞" for _ in inf]
    ordered = finite + inf
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    xs = list(range(len(ordered)))
    for key, style in (("semantic_privacy", "o-"), ("lexical_privacy", "s--"), ("utility", "^:")):
        ys = [r.get(key) for r in ordered]
        if any(y is not None for y in ys):
            ax.plot([x for x, y in zip(xs, ys) if y is not None], [y for y in ys if y is not None], style, label=key.replace("_", " "))
    ax.set_xticks(xs, labels)
    ax.set_xlabel("epsilon (DP-SGD budget)")
    ax.set_ylim(-0.05, 1.05)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("DP synthesis sweep")
    return fig


def _err(value: float, ci: Any):
    if not ci:
        return None
    lo, hi = ci
    return [[max(0.0, value - lo)], [max(0.0, hi - value)]]


def _summary_table(rows: list[dict[str, Any]]) -> str:
    head = ("sanitizer", "semantic privacy", "lexical privacy", "linkage rate", "utility", "coherence", "failed records",
            "claims scored / all", "unscored records", "unparsed claims")
    out = ["<table class='summary'><thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"]
    for r in rows:
        utility = _utility_cell(r)
        out.append(
            "<tr>"
            f"<td>{html.escape(r['sanitizer'])}</td>"
            f"<td>{_fmt(r.get('semantic_privacy'))}{_ci(r.get('semantic_ci95'))}</td>"
            f"<td>{_fmt(r.get('lexical_privacy'))}{_ci(r.get('lexical_ci95'))}</td>"
            f"<td>{_fmt(r.get('linkage_rate'))}</td>"
            f"<td>{utility}</td>"
            f"<td>{_fmt(r.get('coherence'), 2)}</td>"
            f"<td class='failed'>{r.get('failed_records', 0)} of {r.get('n_records', '?')}</td>"
            f"<td>{r.get('n_scored_claims', '?')} / {r.get('n_claims', '?')}</td>"
            f"<td>{r.get('n_unscored', 0)}</td>"
            f"<td>{r.get('unparsed_claims', 0)}</td>"
            "</tr>"
        )
    out.append("</tbody></table>")
    notes = sorted({r["utility_note"] for r in rows if r.get("utility_note")})
    out += [f"<p class='note'>Utility not shown: {html.escape(n)}. A model that cannot answer from the unsanitized "
            "records gives every sanitizer the same number; use an instruction model (--llm).</p>" for n in notes]
    out += [f"<p class='note refusals'>{html.escape(n)}</p>" for n in refusal_notes(rows)]
    return "".join(out)


REFUSAL_FATES = ("never cached or used: sanitizer -> record released unsanitized, atomizer -> rule claims, "
                 "judge -> unparsed, paraphraser -> verbatim claims")
"""What becomes of a refused LLM answer, for every note that counts refusals."""


def refused_counts(llm_refusals: dict[str, int] | None) -> str:
    """"sanitizer 2, judge 1" from ``llm_refusals`` (sanitizer, atomizer, judge, paraphraser counts,
    textleak.llm.refusals); empty when nothing was refused."""
    return ", ".join(f"{k} {v}" for k, v in (llm_refusals or {}).items() if v)


def refusal_notes(rows: list[dict[str, Any]]) -> list[str]:
    """One line per row whose LLM components refused (:func:`refused_counts`); a refusal is never cached or
    used, so the figures stand, but a reader sees it."""
    return [f"{r['sanitizer']}: the LLM refused {counts} ({REFUSAL_FATES})" for r in rows if (counts := refused_counts(r.get("llm_refusals")))]


def _utility_cell(r: dict[str, Any]) -> str:
    if r.get("utility_note"):
        return "<span title='" + html.escape(r["utility_note"]) + "'>n/a (chance)</span>"
    return f"{_fmt(r.get('utility'))}{_ci(r.get('utility_ci95'))}"


def _linkage_table(rows: list[dict[str, Any]]) -> str:
    rows = [r for r in rows if r.get("linkage")]
    if not rows:
        return "<p>No linkage ablation was run.</p>"
    cols = ("first", "random", "last")
    out = ["<table class='linkage'><thead><tr><th>sanitizer</th>" + "".join(f"<th>{c} 3 claims</th>" for c in cols) + "</tr></thead><tbody>"]
    for r in rows:
        out.append(f"<tr><td>{html.escape(r['sanitizer'])}</td>" + "".join(f"<td>{_fmt(r['linkage'].get(c))}</td>" for c in cols) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _drilldown(records: dict[str, list[dict[str, Any]]], limit: int) -> str:
    parts = []
    for sanitizer, recs in records.items():
        parts.append(f"<h3>{html.escape(sanitizer)}</h3><div class='records' data-sanitizer='{html.escape(sanitizer)}'>")
        for rec in recs[:limit]:
            claims = rec.get("claims", [])
            scored = [c["score"] for c in claims if c.get("score") is not None]
            mean = sum(scored) / len(scored) if scored else None
            leaked = sum(1 for c in claims if c.get("rating") == 1)
            items = []
            for c in claims:
                rating = c.get("rating")
                cls = {1: "leak", 2: "partial", 3: "safe"}.get(rating, "unparsed")
                items.append(
                    f"<li class='claim {cls}'><span class='badge'>{_RATING_LABEL.get(rating, rating)}</span> {html.escape(c['text'])}</li>"
                )
            known = "".join(f"<li>{html.escape(a)}</li>" for a in rec.get("known_claims", []))
            linked = rec.get("linked_text")
            linked_html = "<em>not linked</em>" if linked is None else (html.escape(linked) or "<em>(empty)</em>")
            parts.append(
                "<details class='record'>"
                f"<summary>record {html.escape(str(rec.get('id')))} — privacy {_fmt(mean, 2)}, "
                f"{leaked} of {len(claims)} claims leaked, linked to {html.escape(str(rec.get('linked_id')))}</summary>"
                "<div class='pair'>"
                f"<div><h4>original</h4><p class='text'>{html.escape(rec.get('original', ''))}</p></div>"
                f"<div><h4>linked sanitized record (score {_fmt(rec.get('link_score'), 2)})</h4><p class='text'>{linked_html}</p></div>"
                "</div>"
                f"<h4>adversary's known claims</h4><ul class='known'>{known}</ul>"
                f"<h4>claims judged against the linked record</h4><ul class='claims'>{''.join(items)}</ul>"
                "</details>"
            )
        if len(recs) > limit:
            parts.append(f"<p class='more'>{len(recs) - limit} more records in records.jsonl</p>")
        parts.append("</div>")
    return "".join(parts)


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1100px;color:#222;padding:0 1rem}
h1{margin-bottom:.2rem} .meta{color:#666;font-size:.9rem}
table{border-collapse:collapse;margin:1rem 0;font-size:.92rem} th,td{border:1px solid #ddd;padding:.35rem .6rem;text-align:left}
th{background:#f4f4f4} .ci{color:#777;font-size:.8rem}
figure{margin:1rem 0} figure img{max-width:100%;border:1px solid #eee}
details.record{border:1px solid #ddd;border-radius:6px;margin:.4rem 0;padding:.3rem .6rem}
details.record summary{cursor:pointer;font-weight:500}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:1rem} .text{white-space:pre-wrap;background:#fafafa;padding:.5rem;font-size:.88rem}
li.claim{margin:.15rem 0} .badge{display:inline-block;min-width:6.5rem;font-size:.75rem;padding:0 .3rem;border-radius:3px;color:#fff}
li.leak .badge{background:#c0392b} li.partial .badge{background:#e67e22} li.safe .badge{background:#27ae60} li.unparsed .badge{background:#7f8c8d}
"""


def has_utility(rows: list[dict[str, Any]]) -> bool:
    """Whether any row has a utility figure to plot."""
    return any(r.get("utility") is not None for r in rows)


def _privacy_utility_section(imgs: dict[str, str]) -> str:
    if "privacy_utility" not in imgs:
        return ""
    return ("<h2>Privacy against utility</h2>\n<figure><img id=\"fig-privacy-utility\" alt=\"privacy-utility scatter\" "
            f"src=\"{imgs['privacy_utility']}\"></figure>\n")


def _linkage_section(rows: list[dict[str, Any]]) -> str:
    """The ablation table, when one was run (its entry for the report's own strategy is the summary's figure)."""
    if not any(r.get("linkage") for r in rows):
        return ""
    return f"<h2>Linkage with first / random / last three claims</h2>{_linkage_table(rows)}"


def _judge_line(judge: dict[str, Any] | None) -> str:
    """The judge and its measured agreement, for the report's header."""
    if not judge:
        return ""
    from textleak.judges.agreement import measured_agreement

    return (f"<br>judge <b id='judge-name'>{html.escape(str(judge.get('name', '?')))}</b> "
            f"({html.escape(measured_agreement(judge))})")


def _labels_section(rows: list[dict[str, Any]]) -> str:
    """Semantic privacy corrected by hand labels (``textleak label``; docs/ppi.md) beside the judge alone,
    and the judge's agreement on those labels: how far to trust the uncorrected figure."""
    rows = [r for r in rows if r.get("labelled")]
    if not rows:
        return ""
    body = []
    for r in rows:
        c, a = r["labelled"], r["labelled"]["agreement"]
        conf = " ".join("/".join(str(x) for x in row) for row in a["confusion"])
        body.append(f"<tr><td>{html.escape(str(r['sanitizer']))}</td><td class='corrected'>{_fmt(c['semantic_privacy'])}{_ci(c.get('ci95'))}</td>"
                    f"<td>{c['n_labels']}</td><td>{_fmt(c['judge_alone']['semantic_privacy'])}{_ci(c['judge_alone'].get('ci95'))}</td>"
                    f"<td>{_fmt(a['spearman'], 2)}</td><td>{a['lean']:+.3f}</td><td>{conf}</td></tr>")
    return ("<h2>Corrected by hand labels</h2><p>Semantic privacy corrected by prediction-powered inference on a labelled "
            "sample of the judged claims: its interval carries the judge's error. Lean: the judge's mean score minus the "
            "labels' on the labelled claims (above 0: the judge alone reads privacy high). Confusion: rows label 1/2/3, "
            "columns judge 1/2/3.</p><table id='labelled'><tr><th>sanitizer</th><th>corrected semantic privacy [95% CI]</th>"
            "<th>labels</th><th>judge alone [95% CI]</th><th>Spearman</th><th>lean</th><th>confusion</th></tr>"
            + "".join(body) + "</table>")


def render_html(result: dict[str, Any], figures: dict[str, bytes], drilldown_limit: int = 50) -> str:
    """The report page as one string (figures are PNG bytes keyed by name)."""
    imgs = {k: "data:image/png;base64," + base64.b64encode(v).decode("ascii") for k, v in figures.items()}
    settings = html.escape(json.dumps(result.get("settings", {}), indent=2, sort_keys=True, default=str))
    sweep = ""
    if "dp_sweep" in imgs:
        sweep = f"<h2>DP epsilon sweep</h2><figure><img id='fig-dp-sweep' alt='DP sweep' src='{imgs['dp_sweep']}'></figure>"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>textleak report: {html.escape(str(result.get('dataset', '')))}</title>
<style>{_CSS}</style></head><body>
<h1>textleak privacy-utility report</h1>
<p class="meta">dataset <b>{html.escape(str(result.get('dataset', '')))}</b>, {result.get('n_records', '?')} records,
textleak {html.escape(str(result.get('textleak_version', '')))}{_judge_line(result.get('judge'))}</p>
<h2>Summary</h2>{_summary_table(result.get('rows', []))}
{_labels_section(result.get('rows', []))}
{_privacy_utility_section(imgs)}{_linkage_section(result.get('rows', []))}
{sweep}
<h2>Records</h2><p>Each record: the original, the sanitized record the adversary linked it to, the claims the
adversary knew, and every other claim with the judge's rating.</p>
{_drilldown(result.get('records', {}), drilldown_limit)}
<h2>Settings</h2><pre>{settings}</pre>
</body></html>"""


def write_report(result: dict[str, Any], out_dir: str | Path, drilldown_limit: int = 50) -> dict[str, Path]:
    """Write ``report.html``, the PNG figures, ``summary.csv`` and ``study.json`` into ``out_dir``."""
    import matplotlib.pyplot as plt

    out = make_private_dir(out_dir)
    figures: dict[str, bytes] = {}
    if has_utility(result.get("rows", [])):  # no utility measured (--no-utility, evaluate without --utility): no empty frame
        fig = privacy_utility_figure(result.get("rows", []), title=f"{result.get('dataset', '')}: privacy vs utility")
        figures["privacy_utility"] = _png(fig)
        plt.close(fig)
    if result.get("dp_sweep"):
        fig = dp_sweep_figure(result["dp_sweep"])
        figures["dp_sweep"] = _png(fig)
        plt.close(fig)
    paths: dict[str, Path] = {}
    for name, data in figures.items():
        paths[name] = out / f"{name}.png"
        fd = os.open(paths[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    # the drill-down holds original records: report.html is private text (readable by its owner only)
    paths["html"] = write_private_text(out / "report.html", render_html(result, figures, drilldown_limit))
    paths["json"] = write_json(out / "study.json", {k: v for k, v in result.items() if k != "records"})
    fields = ["sanitizer", "semantic_privacy", "semantic_ci95", "lexical_privacy", "lexical_ci95", "linkage_rate",
              "utility_name", "utility", "utility_ci95", "utility_note", "coherence", "unparsed_claims", "failed_records",
              "n_records", "n_claims", "n_scored_claims", "n_unscored", "llm_refusals"]
    paths["csv"] = write_private_text(out / "summary.csv", _csv(fields, [
        {k: (json.dumps(v) if isinstance(v, (list, dict)) else v) for k, v in row.items()} for row in result.get("rows", [])]))
    if result.get("dp_sweep"):
        paths["dp_csv"] = write_private_text(out / "dp_sweep.csv", _csv(sorted({k for r in result["dp_sweep"] for k in r}),
                                                                         result["dp_sweep"]))
    logger.info("report written to %s", paths["html"])
    return paths


def _csv(fields: list[str], rows: list[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    w = csv.DictWriter(buffer, fieldnames=fields, extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    return buffer.getvalue()


def summary_text(rows: list[dict[str, Any]]) -> str:
    """A plain-text table for the terminal."""
    head = ["sanitizer", "semantic", "lexical", "linkage", "utility", "coherence", "failed", "claims", "unscored", "unparsed"]
    body = [
        [
            r["sanitizer"],
            _plain(r.get("semantic_privacy")),
            _plain(r.get("lexical_privacy")),
            _plain(r.get("linkage_rate")),
            "n/a (chance)" if r.get("utility_note") else _plain(r.get("utility")),
            _plain(r.get("coherence"), 2),
            f"{r.get('failed_records', 0)}/{r.get('n_records', '?')}",
            f"{r.get('n_scored_claims', '?')}/{r.get('n_claims', '?')}",
            str(r.get("n_unscored", 0)),
            str(r.get("unparsed_claims", 0)),
        ]
        for r in rows
    ]
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths)), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in body]
    notes = sorted({r["utility_note"] for r in rows if r.get("utility_note")})
    lines += [f"utility not shown: {n}" for n in notes]
    lines += refusal_notes(rows)
    return "\n".join(lines)


def _plain(x: Any, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"
