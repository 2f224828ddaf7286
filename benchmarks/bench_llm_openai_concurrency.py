"""OpenAI-compatible backend: wall time of N requests at several ``max_concurrency`` values, and of a
cached rerun, against a local server whose every answer takes a fixed latency (a stand-in for a
remote vLLM/OpenAI endpoint; the point is the client's overlap of waiting, not the server).

    python benchmarks/bench_llm_openai_concurrency.py [--prompts 48] [--latency 0.2]

Writes ``benchmarks/results/llm_openai_concurrency.{md,json}``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from textleak.cache import DiskCache
from textleak.llm.openai_compat import OpenAICompatibleLM

RESULTS = Path(__file__).resolve().parent / "results"


def serve(latency: float) -> tuple[ThreadingHTTPServer, str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            time.sleep(latency)
            text = body["messages"][-1]["content"]
            data = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": text[::-1]}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/v1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=48)
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    httpd, url = serve(args.latency)
    prompts = [f"record {i}: tell me about it" for i in range(args.prompts)]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for concurrency in (1, 4, 16):
            lm = OpenAICompatibleLM("bench", url, max_concurrency=concurrency)
            lm.cache = DiskCache("llm", root=Path(tmp) / f"c{concurrency}")
            start = time.perf_counter()
            out = lm.generate(prompts, max_new_tokens=16)
            cold = time.perf_counter() - start
            start = time.perf_counter()
            again = lm.generate(prompts, max_new_tokens=16)
            warm = time.perf_counter() - start
            assert again == out and out[0][0] == prompts[0][::-1]
            rows.append({"max_concurrency": concurrency, "seconds": round(cold, 2), "requests": lm.requests_sent,
                         "cached_rerun_seconds": round(warm, 4)})
    httpd.shutdown()
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "llm_openai_concurrency.json").write_text(json.dumps({"prompts": args.prompts, "latency": args.latency, "rows": rows}, indent=2))
    lines = [f"# OpenAI-compatible backend: {args.prompts} prompts, {args.latency}s server latency each", "",
             f"`python benchmarks/bench_llm_openai_concurrency.py --prompts {args.prompts} --latency {args.latency}`", "",
             "| max_concurrency | wall s | requests | cached rerun s |", "|---|---|---|---|"]
    lines += [f"| {r['max_concurrency']} | {r['seconds']} | {r['requests']} | {r['cached_rerun_seconds']} |" for r in rows]
    (RESULTS / "llm_openai_concurrency.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
