"""``textleak label OUTPUT_DIR``: label a sample of judged claims by hand, for a privacy number that
carries the judge's error.

Reads the folder a ``textleak evaluate`` (``report.json`` + ``records-<sanitizer>.jsonl``) or a
``textleak study`` (``<sanitizer>/records.jsonl``) wrote, draws ``--n`` judged claims (seeded, a simple
random sample within each judge rating so every rating is labelled:
:func:`textleak.leakage.labels.draw_sample`) and serves a local page (standard library, 127.0.0.1
only, a per-run token in the URL): the claim, the released text it was judged against with the
judge's best span marked, the rubric of seed 000, keys 1/2/3, back, skip and progress. Every answer
is saved at once to ``labels-<sanitizer>.jsonl`` in that folder (owner-only, like every private
output); a restart draws the same sample and resumes where the labels stop. The judge's own rating
is not shown, so it cannot anchor the labeller.

``--export labels.csv`` / ``--import labels.csv`` do the same in a spreadsheet; ``--plan`` estimates
from the judge's ratings how many labels give an interval of a given width. Then
``textleak evaluate ... --labels OUTPUT_DIR/labels-<sanitizer>.jsonl`` reports the corrected figure.
"""

from __future__ import annotations

import argparse
import csv
import functools
import io
import json
import logging
import secrets
import threading
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("output_dir", help="the folder textleak evaluate or textleak study wrote")
    parser.add_argument("--sanitizer", default=None, help="which sanitized set of the folder to label (default: the only one)")
    parser.add_argument("--n", type=int, default=100, help="claims to label (default: 100)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample (the same seed resumes the same sample)")
    parser.add_argument("--port", type=int, default=0, help="port of the page on 127.0.0.1 (default: a free one)")
    parser.add_argument("--no-browser", action="store_true", help="print the page's address instead of opening a browser")
    parser.add_argument("--export", metavar="CSV", default=None, help="write the sample to a CSV to label in a spreadsheet (a 'label' column: 1/2/3 or empty), then stop")
    parser.add_argument("--import", dest="import_", metavar="CSV", default=None, help="read labels from such a CSV into the labels file, then stop")
    parser.add_argument("--plan", action="store_true", help="estimate, from the judge's ratings, the interval width for several numbers of labels, then stop")
    parser.add_argument("--width", type=float, default=0.1, help="with --plan: the interval width wanted (default: 0.1)")


# ---------------------------------------------------------------------------------------------
@dataclass
class Run:
    """One sanitized set of an output folder: its records and where its labels go."""

    name: str
    records_path: Path
    labels_path: Path
    unparsed: str = "leak"


def _read_report(path: Path) -> dict:
    """A report.json, or one clear error naming the file (a damaged report is not a traceback)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not valid JSON ({e.msg} at line {e.lineno}, column {e.colno})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object, found {type(data).__name__}")
    return data


def find_runs(folder: str | Path) -> list[Run]:
    """The sanitized sets of an evaluate or study output folder (one clear error when there are none)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such folder (give the --output folder of textleak evaluate or study)")
    runs = []
    report = folder / "report.json"
    if report.exists():
        data = _read_report(report)
        for k, row in enumerate(data.get("results", [])):
            if not isinstance(row, dict) or not isinstance(row.get("records_file"), str) or "sanitizer" not in row:
                raise ValueError(f"{report}: result {k} has no 'sanitizer' and 'records_file' (not a textleak evaluate report?)")
            path = folder / row["records_file"]
            stem = Path(row["records_file"]).stem.removeprefix("records-")
            runs.append(Run(row["sanitizer"], path, folder / f"labels-{stem}.jsonl", (row.get("settings") or {}).get("unparsed", "leak")))
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and (p / "records.jsonl").exists()):  # textleak study
        settings = {}
        if (sub / "report.json").exists():
            settings = _read_report(sub / "report.json").get("settings") or {}
        runs.append(Run(sub.name, sub / "records.jsonl", sub / "labels.jsonl", settings.get("unparsed", "leak")))
    if not runs:
        raise FileNotFoundError(f"{folder}: no report.json with results and no <sanitizer>/records.jsonl: not a textleak evaluate or study output folder")
    return runs


def choose_run(runs: list[Run], name: str | None) -> Run:
    if name is None:
        if len(runs) > 1:
            raise ValueError(f"the folder holds {len(runs)} sanitized sets ({', '.join(r.name for r in runs)}): pick one with --sanitizer")
        return runs[0]
    for r in runs:
        if r.name == name:
            return r
    raise ValueError(f"no sanitized set {name!r} in the folder (it holds: {', '.join(r.name for r in runs)})")


@dataclass
class Session:
    """The sample being labelled and the labels so far (saved after every answer)."""

    run: Run
    items: list[Any]  # JudgedClaim
    labels: dict[str, int | None] = field(default_factory=dict)
    token: str = field(default_factory=lambda: secrets.token_urlsafe(16))
    lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def open(cls, run: Run, n: int, seed: int) -> "Session":
        from textleak.io import read_jsonl
        from textleak.leakage.labels import draw_sample, judged_claims, read_labels

        claims = judged_claims(read_jsonl(run.records_path), run.unparsed)
        if not claims:
            raise ValueError(f"{run.records_path}: no judged claim to label")
        items = draw_sample(claims, n, seed)
        labels = read_labels(run.labels_path) if run.labels_path.exists() else {}
        session = cls(run, items, labels)
        session.all_keys = {c.key for c in claims}  # type: ignore[attr-defined]
        return session

    def set(self, key: str, label: int | None) -> None:
        from textleak.leakage.labels import RATINGS

        if label is not None and label not in RATINGS:
            raise ValueError(f"label {label!r} is not 1, 2, 3 or null (skip)")
        with self.lock:
            self.labels[key] = label
            self.save()

    def save(self) -> None:
        """The whole labels file, rewritten atomically with owner-only permissions."""
        from textleak.io import write_jsonl
        from textleak.leakage.labels import label_row

        by_key = {c.key: c for c in self.items}
        rows = [label_row(by_key[k], v) if k in by_key else {"key": k, "label": v} for k, v in self.labels.items()]
        write_jsonl(self.run.labels_path, rows)

    @functools.cached_property
    def page_items(self) -> list[dict[str, Any]]:
        """The sample as the page shows it, computed once per session (the page asks for its state on every load)."""
        from textleak.leakage.labels import locate_span

        def item(c: Any) -> dict[str, Any]:
            # where the page marks the judge's best span in the released text (the span may be in the
            # reader's form the judge read: then the released sentence closest to it, span_exact False)
            at = locate_span(c.released, c.span)
            # offsets in UTF-16 code units, as JavaScript indexes strings (an emoji is two)
            js = [len(c.released[:k].encode("utf-16-le")) // 2 for k in at[:2]] if at else None
            return {"key": c.key, "claim": c.claim, "released": c.released, "span": c.span, "record_id": c.record_id,
                    "span_at": js, "span_exact": bool(at and at[2])}

        return [item(c) for c in self.items]

    def state(self) -> dict[str, Any]:
        from textleak.leakage.labels import rubric

        return {"sanitizer": self.run.name, "labels_file": str(self.run.labels_path), "rubric": {str(k): v for k, v in rubric().items()},
                "items": self.page_items,
                "labels": {k: v for k, v in self.labels.items() if k in {c.key for c in self.items}}}


def page_html() -> str:
    return resources.files("textleak.report").joinpath("label.html").read_text(encoding="utf-8")


def make_server(session: Session, port: int = 0, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """The labelling page's server (not started): ``GET /`` the page, ``GET /api/state``, ``POST /api/label``.
    The API answers only requests carrying the session's token (a header a cross-site page cannot send)."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, fmt: str, *args: Any) -> None:  # quiet: the terminal shows progress instead
            logger.debug(fmt, *args)

        def _send(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: int, obj: Any) -> None:
            self._send(status, json.dumps(obj, ensure_ascii=False).encode("utf-8"), "application/json; charset=utf-8")

        def _authorised(self) -> bool:
            if self.headers.get("X-Token") != session.token:
                self._json(HTTPStatus.FORBIDDEN, {"error": "missing or wrong token (open the address textleak label printed)"})
                return False
            return True

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            path = self.path.split("?", 1)[0]
            if path in ("/", "/index.html"):
                self._send(HTTPStatus.OK, page_html().encode("utf-8"), "text/html; charset=utf-8")
            elif path == "/api/state":
                if self._authorised():
                    self._json(HTTPStatus.OK, session.state())
            else:
                self._json(HTTPStatus.NOT_FOUND, {"error": "not found"})

        def do_POST(self) -> None:  # noqa: N802
            if self.path != "/api/label" or not self._authorised():
                if self.path != "/api/label":
                    self._json(HTTPStatus.NOT_FOUND, {"error": "not found"})
                return
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                key, label = body.get("key"), body.get("label")
                if key not in {c.key for c in session.items}:
                    raise ValueError(f"unknown claim key {key!r}")
                session.set(key, label)
            except (ValueError, TypeError, json.JSONDecodeError) as err:
                self._json(HTTPStatus.BAD_REQUEST, {"error": str(err)})
                return
            done = sum(1 for c in session.items if session.labels.get(c.key) is not None)
            logger.info("%d of %d claims labelled", done, len(session.items))
            self._json(HTTPStatus.OK, {"ok": True, "labelled": done})

    return ThreadingHTTPServer((host, port), Handler)


# ---- spreadsheet path and planning -------------------------------------------------------------
CSV_COLUMNS = ("key", "record_id", "claim", "best_span", "released_text", "label")


def export_csv(session: Session, path: str | Path) -> Path:
    """The sample as a CSV (owner-only: it quotes private claims), with the labels so far in ``label``."""
    from textleak.io import write_private_text

    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(CSV_COLUMNS)
    for c in session.items:
        label = session.labels.get(c.key)
        writer.writerow([c.key, c.record_id, c.claim, c.span or "", c.released or "", "" if label is None else label])
    return write_private_text(path, buf.getvalue())


def import_csv(session: Session, path: str | Path) -> tuple[int, int]:
    """Labels of a CSV into the labels file: (labels taken, rows whose key matches no judged claim: not taken)."""
    from textleak.leakage.labels import read_labels

    taken = unmatched = 0
    for key, label in read_labels(path).items():
        if key not in session.all_keys:  # type: ignore[attr-defined]
            unmatched += 1
            continue
        if label is not None:
            session.labels[key] = label
            taken += 1
    if unmatched:
        logger.warning("%s: %d rows match no judged claim of %s (the run changed?): not taken", path, unmatched, session.run.records_path)
    session.save()
    return taken, unmatched


def format_plan(rows: list[dict[str, Any]], width: float) -> str:
    lines = ["labels | per judge rating (1/2/3) | expected 95% interval width: typical | worst case",
             "-------|--------------------------|------------------------------------------------"]
    for r in rows:
        per = "/".join(str(r["per_rating"].get(s, 0)) for s in (1, 2, 3))
        lines.append(f"{r['labels']:>6} | {per:>24} | {r['width_typical']:.3f} | {r['width_worst']:.3f}")
    enough = next((r for r in rows if r["width_typical"] <= width), None)
    lines.append(f"\nfor a width of {width:.2f}: " + (f"about {enough['labels']} labels in the typical case" if enough else
                 "more labels than the largest size shown (or the records' own spread is already wider)"))
    lines.append("typical: residuals as measured for the default judge on hand-labelled held-out sets (docs/ppi.md); "
                 "worst case: any labels. The record sampling part does not shrink with labels.")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from textleak.io import read_jsonl
    from textleak.leakage.labels import judged_claims, plan

    target = choose_run(find_runs(args.output_dir), args.sanitizer)
    if args.plan:
        print(format_plan(plan(judged_claims(read_jsonl(target.records_path), target.unparsed), sizes=(25, 50, 100, 200, 400, 800)), args.width))
        return 0
    session = Session.open(target, args.n, args.seed)
    if args.export:
        path = export_csv(session, args.export)
        print(f"wrote {len(session.items)} claims to {path}: fill the 'label' column (1 same, 2 similar, 3 unsupported; "
              f"empty: skip), then textleak label {args.output_dir} --import {path}")
        return 0
    if args.import_:
        taken, unmatched = import_csv(session, args.import_)
        print(f"{taken} labels taken into {target.labels_path}" + (f"; {unmatched} rows matched no claim" if unmatched else ""))
        return 0
    server = make_server(session, args.port)
    url = f"http://127.0.0.1:{server.server_address[1]}/?token={session.token}"
    done = sum(1 for c in session.items if session.labels.get(c.key) is not None)
    print(f"labelling {len(session.items)} claims of {target.name} ({done} labelled so far); labels go to {target.labels_path}\n"
          f"labelling page: {url}\n(Ctrl-C to stop; run again to resume)", flush=True)
    if not args.no_browser:
        import webbrowser

        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    done = sum(1 for c in session.items if session.labels.get(c.key) is not None)
    print(f"\n{done} of {len(session.items)} claims labelled in {target.labels_path}\n"
          f"next: textleak evaluate <the same options> --labels {target.labels_path}")
    return 0
