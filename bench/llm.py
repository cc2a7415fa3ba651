"""LLM generator against a configured OpenAI-compatible endpoint: validity and cost.

    python bench/llm.py --base-url http://127.0.0.1:8000/v1 --model NAME [-n 20] [--json OUT]
    OPENAI_BASE_URL=... OPENAI_API_KEY=... python bench/llm.py -n 20

Asks the ``llm`` generator for ``-n`` programs (seeds 0..n-1, each eager-checked in a worker, with
up to ``--repair-rounds`` repair round trips) and reports first-try validity, validity after
repair, tokens per valid program (prompt + completion, from the endpoint's ``usage``) and seconds
per valid program (model and eager checks; coverage feedback excluded and shown apart).

Without an endpoint (no ``--base-url`` and no ``$OPENAI_BASE_URL``) it says so and exits with
status 2: nothing was measured. ``--self-test`` runs the same pipeline against a scripted local
server (canned programs, every other first answer broken on purpose) to check the plumbing; its
figures describe the harness, not any model.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from torchsmith.execute.worker import Worker
from torchsmith.generate.llm.generator import LLMEndpointError, LLMGenerator, extract_code
from torchsmith.generate.protocol import GenContext

EXIT_NO_ENDPOINT = 2


def _scripted_server() -> ThreadingHTTPServer:
    """A stand-in endpoint: answers with corpus programs; every other first answer has the
    unaligned ``torch.mm`` of the S2 example spliced in, and the repair request gets it fixed."""
    from torchsmith.generate.llm.prompts import default_corpus

    corpus = default_corpus(generated=16)
    state = {"n": 0, "first": 0}
    lock = threading.Lock()

    def answer(messages: list[dict[str, Any]]) -> str:
        first = len(messages) <= 2
        with lock:
            state["n"] += 1
            state["first"] += first
            n, k = state["n"], state["first"]
        prog = corpus[n % len(corpus)].source
        if first and k % 2 == 0:  # every other first answer, broken
            code = extract_code(prog) or prog
            lines = code.splitlines()
            i = next(k for k, line in enumerate(lines) if "def forward" in line)
            indent = " " * (len(lines[i + 1]) - len(lines[i + 1].lstrip()))
            lines.insert(i + 1, f"{indent}_bad = torch.mm(torch.ones(2, 10), torch.ones(2, 10))")
            return "Here is a program:\n```python\n" + "\n".join(lines) + "\n```"
        return f"Sure.\n```python\n{prog}```\nThis exercises the requested ops."

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _reply(self, out: dict[str, Any]) -> None:
            data = json.dumps(out).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # /v1/models
            model = {"id": "scripted", "object": "model", "created": 0, "owned_by": "bench"}
            self._reply({"object": "list", "data": [model]})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            text = answer(body["messages"])
            prompt = sum(len(m["content"]) for m in body["messages"]) // 4
            out = {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop",
                    }
                ],  # fmt: skip
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": len(text) // 4,
                    "total_tokens": prompt + len(text) // 4,
                },
            }
            self._reply(out)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base-url", default=os.environ.get("OPENAI_BASE_URL"))
    ap.add_argument("--model", default=None, help="default: the first model the endpoint lists")
    ap.add_argument("--api-key-env", default="OPENAI_API_KEY")
    ap.add_argument("-n", type=int, default=20, help="programs to ask for (default 20)")
    ap.add_argument("--repair-rounds", type=int, default=3)
    ap.add_argument("--targets", default=None, help="target names or globs, comma-separated")
    ap.add_argument("--feedback", default="inductor", choices=["inductor", "ops", "off"])
    ap.add_argument("--temperature", type=float, default=0.8)
    ap.add_argument("--transcript", default=None, help="JSONL of every request and outcome")
    ap.add_argument("--json", dest="json_out", default=None, help="write the figures here")
    ap.add_argument("--self-test", action="store_true", help="scripted local endpoint (plumbing)")
    args = ap.parse_args()

    httpd = None
    if args.self_test:
        httpd = _scripted_server()
        args.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        args.model = args.model or "scripted"
    if not args.base_url:
        print(
            "bench/llm.py: no endpoint configured, nothing measured. Pass --base-url"
            " http://HOST:PORT/v1 (vLLM, Ollama, llama.cpp server, hosted API) and --model, or set"
            " OPENAI_BASE_URL; the key is read from $OPENAI_API_KEY (--api-key-env)."
            " --self-test checks the plumbing against a scripted local server.",
            file=sys.stderr,
        )
        return EXIT_NO_ENDPOINT

    worker = Worker()
    worker.run({"kind": "ping"}, 300)  # pay the torch import before the clock starts
    opts: dict[str, Any] = {
        "base_url": args.base_url,
        "api_key_env": args.api_key_env,
        "repair_rounds": args.repair_rounds,
        "feedback": args.feedback,
        "temperature": args.temperature,
    }
    for key in ("model", "targets", "transcript"):
        if getattr(args, key):
            opts[key] = getattr(args, key)
    gen = LLMGenerator(worker=worker, **opts)
    t0 = time.monotonic()
    error = None
    try:
        for seed in range(args.n):
            gen.generate(seed, GenContext())
    except LLMEndpointError as e:
        error = str(e)
    wall = time.monotonic() - t0
    worker.close()
    if httpd is not None:
        httpd.shutdown()
    st = gen.stats
    figures = {
        "endpoint": args.base_url,
        "model": gen.model,
        "self_test": bool(args.self_test),
        **st.to_dict(),
        "tokens": st.tokens,
        "llm_seconds_per_request": round(st.llm_seconds / st.requests, 3) if st.requests else None,
        "wall_s": round(wall, 1),
        "coverage": gen.coverage.summary(),
        "error": error,
    }
    label = "SELF-TEST (scripted endpoint, not a model): " if args.self_test else ""
    print(f"{label}{args.base_url} model={gen.model}")
    print(f"programs asked           {st.programs}")
    print(f"valid on the first try   {st.valid_first_try}  ({100 * st.first_try_validity:.1f} %)")
    print(
        f"valid after repair       {st.valid_after_repair}  ({100 * st.after_repair_validity:.1f} %)"
    )
    print(
        f"repair requests          {st.repair_requests}   rounds to valid {figures['rounds_to_valid']}"
    )
    print(f"problems                 {dict(st.problems)}")
    print(f"tokens per valid         {figures['tokens_per_valid']}   (total {st.tokens})")
    print(f"seconds per valid        {figures['seconds_per_valid']}   (model {st.llm_seconds:.1f} s,"
          f" checks {st.check_seconds:.1f} s, feedback {st.feedback_seconds:.1f} s apart)")  # fmt: skip
    if error:
        print(f"stopped early: {error}", file=sys.stderr)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(figures, f, indent=1, default=str)
    return 1 if error else 0


if __name__ == "__main__":
    sys.exit(main())
