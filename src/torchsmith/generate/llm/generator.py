"""``--generator llm``: programs written by a language model behind any OpenAI-compatible endpoint.

Works with vLLM, Ollama, llama.cpp's server or a hosted API through the ``openai`` client::

    torchsmith fuzz --generator llm --gen-option base_url=http://127.0.0.1:8000/v1 \\
        --gen-option model=Qwen2.5-Coder-7B-Instruct          # key from $OPENAI_API_KEY

For each seed the generator picks a target (an Inductor optimization or an op family, steered
toward what coverage shows as rare), builds a prompt with examples from a corpus, extracts the code
from the reply and checks it in eager mode in a worker. A reply that has no code, does not parse,
lacks the canonical format or fails in eager goes back to the model with the exact error, for up to
``repair_rounds`` rounds. :class:`LLMStats` counts first-try and after-repair validity, tokens (from
``usage``) and seconds per valid program. The model's text is parsed (``ast``) here and executed
only in workers.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import random
import re
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import openai

from torchsmith.generate.coverage import (
    Coverage,
    WorkerClient,
    common_ops,
    rare_ops,
    source_features,
    steer,
)
from torchsmith.generate.llm import prompts
from torchsmith.generate.protocol import GenContext, typed_options
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program, ProgramFormatError
from torchsmith.program.load import program_from_source
from torchsmith.verdict import CheckResult, Verdict

FEEDBACK_MODES = ("inductor", "ops", "off")


class LLMEndpointError(RuntimeError):
    """The endpoint failed repeatedly (unreachable, wrong key or model): stop, don't spin."""


@dataclasses.dataclass
class LLMOptions:
    base_url: str | None = None  # e.g. http://127.0.0.1:8000/v1 (default: $OPENAI_BASE_URL)
    model: str | None = None  # default: the first model the endpoint lists
    api_key_env: str = "OPENAI_API_KEY"  # environment variable holding the key
    repair_rounds: int = 3  # K: error round trips after the first answer
    temperature: float = 0.8
    max_tokens: int = 2048
    request_timeout: float = 120.0  # seconds per request
    max_retries: int = 2  # the client's own retries (connection errors, 429, 5xx)
    targets: str | None = None  # comma-separated target names or globs (default: all)
    examples: int = 2  # few-shot examples per prompt
    corpus: str | None = None  # files/folders for examples (default: examples + generated)
    feedback: str = "inductor"  # inductor: compile valid programs for counters; ops; off
    check_timeout: float = 60.0  # seconds per eager check in the generator's own worker
    max_api_failures: int = 3  # consecutive failed requests before LLMEndpointError
    send_seed: bool = True  # pass `seed` to the endpoint (dropped if it refuses it)
    transcript: str | None = None  # JSONL file: one line per request and its outcome

    def __post_init__(self) -> None:
        if self.feedback not in FEEDBACK_MODES:
            raise ValueError(f"option feedback: one of {', '.join(FEEDBACK_MODES)}")
        if self.repair_rounds < 0 or self.examples < 0:
            raise ValueError("repair_rounds and examples must be >= 0")


@dataclasses.dataclass
class LLMStats:
    """Counts over the programs the generator was asked for."""

    programs: int = 0  # generate() calls
    valid_first_try: int = 0  # the first answer was valid
    valid_after_repair: int = 0  # valid within repair_rounds (first try included)
    requests: int = 0  # answered requests
    repair_requests: int = 0
    api_errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usage_missing: int = 0  # answers without a usage block
    seconds: float = 0.0  # wall time in generate(), feedback excluded
    llm_seconds: float = 0.0
    check_seconds: float = 0.0
    feedback_seconds: float = 0.0
    problems: Counter[str] = dataclasses.field(default_factory=Counter)  # by kind, every round
    rounds_to_valid: Counter[int] = dataclasses.field(default_factory=Counter)
    targets: Counter[str] = dataclasses.field(default_factory=Counter)

    @property
    def first_try_validity(self) -> float:
        return self.valid_first_try / self.programs if self.programs else 0.0

    @property
    def after_repair_validity(self) -> float:
        return self.valid_after_repair / self.programs if self.programs else 0.0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def tokens_per_valid(self) -> float | None:
        return self.tokens / self.valid_after_repair if self.valid_after_repair else None

    @property
    def seconds_per_valid(self) -> float | None:
        return self.seconds / self.valid_after_repair if self.valid_after_repair else None

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        for name in ("seconds", "llm_seconds", "check_seconds", "feedback_seconds"):
            d[name] = round(d[name], 3)
        d["rounds_to_valid"] = {str(k): v for k, v in sorted(self.rounds_to_valid.items())}
        for name in ("first_try_validity", "after_repair_validity"):
            d[name] = round(getattr(self, name), 4)
        tpv, spv = self.tokens_per_valid, self.seconds_per_valid
        d["tokens_per_valid"] = round(tpv, 1) if tpv is not None else None
        d["seconds_per_valid"] = round(spv, 3) if spv is not None else None
        return d


# -- extracting code from a reply ---------------------------------------------------------------
_FENCE = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*([\w+.-]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.S | re.M)
_OPEN_FENCE = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*([\w+.-]*)[^\n]*\n", re.M)
_THINK = re.compile(r"<think>.*?(</think>|\Z)", re.S | re.I)
_NOT_PYTHON = {
    "bash",
    "sh",
    "shell",
    "console",
    "text",
    "txt",
    "json",
    "yaml",
    "output",
    "diff",
    "c",
    "cpp",
    "c++",
    "cuda",
    "log",
    "stderr",
    "stdout",
}
_CODE_START = re.compile(r"^(import |from \S+ import |class |def |@)")


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except SyntaxError:
        return False
    return True


def _score(code: str) -> float:
    s = 4.0 if _parses(code) else 0.0
    s += 2.0 if re.search(r"^class \w+\(", code, re.M) else 0.0
    s += 2.0 if "get_inputs" in code or re.search(r"^inputs\s*=", code, re.M) else 0.0
    return s + min(len(code), 100_000) / 1e6


def extract_code(text: str | None) -> str | None:
    """The program in a model's reply: the best Python fenced block (or blocks joined, when the
    model split the program), an unterminated block of a truncated reply, or bare code with the
    prose around it trimmed. Reasoning in ``<think>`` tags is ignored. ``None`` if there is none."""
    if not text:
        return None
    text = _THINK.sub("", text)
    blocks = [(lang.lower(), body) for _, lang, body in _FENCE.findall(text)]
    if not blocks:
        m = _OPEN_FENCE.search(text)
        if m:
            blocks = [(m.group(2).lower(), text[m.end() :])]
    code_blocks = [b for lang, b in blocks if lang not in _NOT_PYTHON and b.strip()]
    if code_blocks:
        best = max(code_blocks, key=_score)
        if len(code_blocks) > 1:
            joined = "\n\n".join(code_blocks)
            if _score(joined) > _score(best) + 1:
                best = joined
        return best.strip("\n") + "\n"
    return _strip_prose(text)


def _strip_prose(text: str) -> str | None:
    lines = text.strip().splitlines()
    start = next((i for i, line in enumerate(lines) if _CODE_START.match(line)), None)
    if start is None:
        return None
    body = lines[start:]
    for end in range(len(body), max(0, len(body) - 40), -1):  # drop trailing prose
        code = "\n".join(body[:end])
        if _parses(code) and re.search(r"^class \w+", code, re.M):
            return code.strip("\n") + "\n"
    return None


# -- the generator ------------------------------------------------------------------------------
@dataclasses.dataclass
class Problem:
    kind: str  # no_code, format, invalid, nondeterministic, timeout, died, ...
    message: str  # what the model is told (the check's explanation verbatim for invalid)
    detail: str = ""


class LLMGenerator:
    """The ``llm`` generator (see the module docstring). Options as keywords or CLI strings."""

    Options = LLMOptions  # its options, parsed by ``typed_options``

    name = "llm"

    def __init__(self, worker: Any = None, **options: Any) -> None:
        self.opts = typed_options(LLMOptions, options, "llm generator")
        base_url = self.opts.base_url or os.environ.get("OPENAI_BASE_URL")
        key = os.environ.get(self.opts.api_key_env)
        if not base_url and not key:
            raise ValueError(
                "llm generator: no endpoint configured: pass base_url (e.g. --gen-option"
                " base_url=http://127.0.0.1:8000/v1) or set OPENAI_BASE_URL, and the API key in"
                f" ${self.opts.api_key_env} (local servers accept any key)"
            )
        self.base_url = base_url
        self.client = openai.OpenAI(
            base_url=base_url,
            api_key=key or "not-needed",
            timeout=self.opts.request_timeout,
            max_retries=self.opts.max_retries,
        )
        self.model: str | None = self.opts.model
        self.targets = prompts.select_targets(self.opts.targets)
        if self.opts.corpus:
            self.corpus, self.skipped = prompts.load_corpus(self.opts.corpus)
            if not self.corpus:
                raise ValueError(f"llm generator: no usable program in {self.opts.corpus!r}")
        else:
            self.corpus, self.skipped = prompts.default_corpus(generated=12), []
        self.stats = LLMStats()
        self.coverage = Coverage()
        self.chosen: Counter[str] = Counter()
        self.workers = WorkerClient(
            worker, CheckOptions(timeout=self.opts.check_timeout, localize=False)
        )
        self._failures = 0
        self.last_error = ""
        self.last_finish: str | None = None

    # -- the endpoint ---------------------------------------------------------------------------
    def _model(self) -> str:
        if self.model is None:
            try:
                listed = [m.id for m in self.client.models.list()]
            except openai.OpenAIError as e:
                raise LLMEndpointError(
                    f"llm generator: no model given and listing models at {self.base_url} failed:"
                    f" {type(e).__name__}: {e}"
                ) from e
            if not listed:
                raise LLMEndpointError(f"llm generator: {self.base_url} lists no model")
            self.model = listed[0]
        return self.model

    def complete(self, messages: list[dict[str, str]], seed: int) -> str | None:
        """One chat completion; ``None`` when the request failed (after the client's retries)."""
        kwargs: dict[str, Any] = {
            "model": self._model(),
            "messages": messages,
            "temperature": self.opts.temperature,
            "max_tokens": self.opts.max_tokens,
        }
        if self.opts.send_seed:
            kwargs["seed"] = seed
        t0 = time.monotonic()
        try:
            try:
                resp = self.client.chat.completions.create(**kwargs)
            except openai.BadRequestError as e:
                if "seed" not in kwargs or "seed" not in str(e).lower():
                    raise
                self.opts.send_seed = False  # an endpoint that refuses `seed`
                del kwargs["seed"]
                resp = self.client.chat.completions.create(**kwargs)
        except openai.OpenAIError as e:
            self.stats.api_errors += 1
            self._failures += 1
            self.last_error = f"{type(e).__name__}: {e}"
            if self._failures >= self.opts.max_api_failures:
                raise LLMEndpointError(
                    f"llm generator: {self._failures} requests in a row to {self.base_url} failed;"
                    f" last: {self.last_error}"
                ) from e
            return None
        finally:
            self.stats.llm_seconds += time.monotonic() - t0
        self._failures = 0
        self.stats.requests += 1
        usage = getattr(resp, "usage", None)
        if usage is not None and usage.prompt_tokens is not None:
            self.stats.prompt_tokens += int(usage.prompt_tokens or 0)
            self.stats.completion_tokens += int(usage.completion_tokens or 0)
        else:
            self.stats.usage_missing += 1
        if not resp.choices:
            return ""
        self.last_finish = resp.choices[0].finish_reason
        return resp.choices[0].message.content or ""

    # -- one program ----------------------------------------------------------------------------
    def _examples(self, target: prompts.Target, rng: random.Random, seed: int) -> list[Program]:
        k = self.opts.examples
        if k == 0:
            return []
        out: list[Program] = []
        if not self.opts.corpus:
            fam = prompts.family_example(target, seed)
            if fam is not None:
                out.append(fam)
        out += prompts.pick_examples(self.corpus, target, rng, k - len(out))
        return out

    def messages_for(self, seed: int, ctx: GenContext) -> tuple[prompts.Target, list[dict]]:
        """The target and the first prompt for ``seed`` (steered by coverage so far)."""
        rng = random.Random(f"torchsmith-llm:{seed}")
        counts = self.coverage.merged(ctx.coverage)
        target = steer(self.targets, counts, self.chosen, rng)
        examples = self._examples(target, rng, seed)
        msgs = prompts.generation_messages(
            target, examples, rare_ops(target, counts, rng), common_ops(counts), nonce=seed
        )
        return target, msgs

    def generate(self, seed: int, ctx: GenContext) -> Program | None:
        t0 = time.monotonic()
        feedback0 = self.stats.feedback_seconds
        self.stats.programs += 1
        target, messages = self.messages_for(seed, ctx)
        self.chosen[target.name] += 1
        self.stats.targets[target.name] += 1
        check = ctx.eager_check or self.workers.eager
        try:
            for rnd in range(self.opts.repair_rounds + 1):
                reply = self.complete(messages, seed * 1000 + rnd)
                if reply is None:
                    self.stats.problems["api_error"] += 1
                    self._log(seed, rnd, target, messages, None, "api_error", self.last_error)
                    return None
                program, problem = self._validate(reply, seed, target.name, rnd, check)
                outcome = "valid" if program else problem.kind  # type: ignore[union-attr]
                detail = problem.message if problem else ""
                self._log(seed, rnd, target, messages, reply, outcome, detail)
                if program is not None:
                    self.stats.valid_after_repair += 1
                    self.stats.valid_first_try += int(rnd == 0)
                    self.stats.rounds_to_valid[rnd] += 1
                    self._feedback(program)
                    return program
                assert problem is not None
                self.stats.problems[problem.kind] += 1
                if rnd == self.opts.repair_rounds:
                    break
                messages = messages + [
                    {"role": "assistant", "content": _echo(reply)},
                    {
                        "role": "user",
                        "content": prompts.repair_message(problem.message, problem.detail),
                    },
                ]
                self.stats.repair_requests += 1
            return None
        finally:
            spent = time.monotonic() - t0
            self.stats.seconds += spent - (self.stats.feedback_seconds - feedback0)

    def _validate(
        self,
        reply: str,
        seed: int,
        target: str,
        rnd: int,
        check: Callable[[Program], CheckResult],
    ) -> tuple[Program | None, Problem | None]:
        cut = (
            f"Your answer was cut off at max_tokens={self.opts.max_tokens}: write a shorter program."
            if self.last_finish == "length"
            else ""
        )
        code = extract_code(reply)
        if code is None:
            return None, Problem("no_code", "your answer contains no Python code block.", cut)
        try:
            program_from_source(
                code, name="program.py", scripts=False
            )  # errors with the model's line numbers
        except ProgramFormatError as e:
            return None, Problem("format", str(e), cut)
        header = f"# Generated by torchsmith llm: model={self.model} target={target} seed={seed}\n"
        program = program_from_source(header + code, name=f"llm_{seed}", scripts=False)
        program = dataclasses.replace(
            program, origin="generated", notes=(*program.notes, f"target={target}", f"round={rnd}")
        )
        t0 = time.monotonic()
        result = check(program)
        self.stats.check_seconds += time.monotonic() - t0
        if result.verdict is Verdict.PASS:
            return program, None
        return None, problem_of(result, header_lines=1)

    def _feedback(self, program: Program) -> None:
        feats = source_features(program.source)
        if self.opts.feedback == "inductor":
            t0 = time.monotonic()
            feats.update(self.workers.coverage(program))
            self.stats.feedback_seconds += time.monotonic() - t0
        if self.opts.feedback != "off":
            self.coverage.add(feats)

    def _log(
        self,
        seed: int,
        rnd: int,
        target: prompts.Target,
        messages: list[dict],
        reply: str | None,
        outcome: str,
        detail: str,
    ) -> None:
        if not self.opts.transcript:
            return
        line = {
            "seed": seed,
            "round": rnd,
            "target": target.name,
            "model": self.model,
            "prompt": messages[-1]["content"],
            "reply": reply,
            "outcome": outcome,
            "detail": detail,
        }
        with open(self.opts.transcript, "a") as f:
            f.write(json.dumps(line) + "\n")

    def close(self) -> None:
        self.workers.close()
        self.client.close()

    def __enter__(self) -> LLMGenerator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _echo(reply: str) -> str:
    """What the conversation keeps of an answer: its code (shorter than prose and reasoning)."""
    code = extract_code(reply)
    return f"```python\n{code}```" if code else reply[:4000]


_USER_LINE = re.compile(r"^(?P<file>.*?):(?P<line>\d+): (?P<text>.*)$", re.S)


def problem_of(result: CheckResult, header_lines: int = 0) -> Problem:
    """What to tell the model about a failed eager check; ``invalid`` keeps the check's own
    explanation (``result.reason``) verbatim and adds the failing line of the model's code."""
    v = result.verdict
    detail = ""
    user_line = str(result.evidence.get("user_line") or "")
    m = _USER_LINE.match(user_line)
    if m:
        line = int(m.group("line")) - header_lines
        detail = f"The failing line ({line} of your program): {m.group('text').strip()}"
    if v is Verdict.INVALID:
        return Problem("invalid", result.reason, detail)
    if v is Verdict.NONDETERMINISTIC:
        return Problem(
            "nondeterministic",
            f"{result.reason}. Remove every source of randomness from forward (dropout with p > 0,"
            " torch.rand*, Python random).",
        )
    if v is Verdict.TIMEOUT:
        return Problem("timeout", f"{result.reason} in eager mode; make the program much smaller.")
    if v is Verdict.DIED:
        return Problem("died", f"{result.reason}; make the tensors much smaller.")
    return Problem(v.value, result.reason or v.value)


__all__ = ["LLMEndpointError", "LLMGenerator", "LLMOptions", "LLMStats", "extract_code"]
