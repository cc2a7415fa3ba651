"""The fuzz loop: generate, check, localize, dedup and store, for hours, crash-safely.

Program ``i`` of a campaign is ``generator.generate(seed + i)``: two campaigns with one seed and
one generator check the same programs, in any order and with any ``jobs``. Each slot of a
:class:`~torchsmith.execute.pool.WorkerPool` takes the next unrecorded seed, generates the
program (in the parent: generators never run program code), checks it in its long-lived worker
(:func:`torchsmith.check.check_program`: verdict, then the backend ladder for compiler bugs),
writes a finding folder for every compiler bug and every death or hang, and hands the row to the
:class:`Writer`, the one thread that writes ``campaign.db``. A row is committed after its folder;
on ``resume`` seeds without a row are checked again, and finding folders no row names are
removed first (they are rewritten when their seed comes round again).

Any generator works: a ``generate.protocol.REGISTRY`` name or ``module:factory`` (one per
slot), or an object passed to :class:`Campaign` (shared, its ``generate`` calls serialized).
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from torchsmith import dedup
from torchsmith.campaign import pack
from torchsmith.campaign.avoid import Avoidance, features
from torchsmith.campaign.config import CampaignConfig, CampaignError
from torchsmith.campaign.reducer import BackgroundReducer, drain_seconds, mark_path_wide, refine_bug
from torchsmith.campaign.repair import relink_reductions, remove_orphans
from torchsmith.campaign.steer import LineCoverage
from torchsmith.campaign.store import DB_NAME, ProgramRow, RecordAck, Store
from torchsmith.campaign.summary import summarize
from torchsmith.campaign.writer import Writer
from torchsmith.check import CheckError, check_eager, check_program, effective_options
from torchsmith.configspace.session import ConfigSampler
from torchsmith.execute.inductor_cache import BoundedCache, slot_env
from torchsmith.execute.pool import Slot, WorkerPool
from torchsmith.execute.protocol import worker_env
from torchsmith.execute.ray_pool import ActorLost
from torchsmith.finding import FINDINGS, Finding, read_finding, write_finding
from torchsmith.generate import availability, mix
from torchsmith.generate.protocol import GenContext, Generator, get_generator
from torchsmith.program.format import Program
from torchsmith.program.ops import program_size, source_ops
from torchsmith.verdict import CheckResult

#: A session whose first programs all fail inside torchsmith stops instead of spinning.
MAX_ERRORS_BEFORE_FIRST_CHECK = 5


# -- the campaign --------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Packed:
    """A seed's program from a packing round; verdict and time shares only when checked in it."""

    program: Program | None
    result: CheckResult | None = None
    gen_s: float = 0.0
    work_s: float = 0.0
    wall_s: float = 0.0
    avoided: str | None = None  # the feature that kept it from the pack (fuzz --avoid-repeats)


class SeedSource:
    """Hands out seeds ``start, start+1, ...`` not recorded yet, up to ``count`` programs."""

    def __init__(self, start: int, count: int | None, recorded: set[int]) -> None:
        self.start, self.count, self.recorded = start, count, recorded
        self._i, self._again, self.stopped = 0, list[int](), False
        self._lock = threading.Lock()

    def requeue(self, seed: int) -> None:
        """Hand ``seed`` out again (its worker's node was lost during its check)."""
        with self._lock:
            self._again.append(seed)

    def next(self) -> int | None:
        with self._lock:
            if self._again and not self.stopped:
                return self._again.pop(0)
            while not self.stopped and (self.count is None or self._i < self.count):
                seed = self.start + self._i
                self._i += 1
                if seed not in self.recorded:
                    return seed
            return None

    def stop(self) -> None:
        with self._lock:
            self.stopped = True


class _NullProgress:
    def update(self, stats: dict[str, Any]) -> None: ...

    def event(self, kind: str, text: str) -> None: ...


class Campaign:
    """One run (session) of a campaign folder; :meth:`run` returns the final summary."""

    def __init__(
        self,
        config: CampaignConfig,
        generator: Generator | Callable[[], Generator] | None = None,
        progress: Any = None,
        resume: bool = False,
        reducer: Callable[..., Finding | None] | None = None,
    ) -> None:
        """``reducer(finding, worker, options=, time_budget=)`` replaces
        :func:`torchsmith.reduce.reduce_finding` for ``config.reduce``."""
        self.config = config
        self.reducer = reducer
        self.out = Path(config.out)
        self.findings_dir = self.out / FINDINGS
        self.progress = progress or _NullProgress()
        self.resume = resume
        self._shared_gen = generator if hasattr(generator, "generate") else None
        self._factory = generator if generator is not None and not self._shared_gen else None
        self._gen_lock = threading.Lock()
        self._lock = threading.Lock()
        self.known = (
            dedup.load_known(config.known_file)
            if config.known_file and Path(config.known_file).exists()
            else set()
        )
        self.coverage: Counter[str] = Counter()
        self.yields: dict[str, list[int]] = {}  # family -> [programs checked, bug findings]
        self._lost: set[int] = set()  # seeds re-queued once after their Ray actor was lost
        self.stats: dict[str, Any] = dict.fromkeys(
            (
                "programs",
                "session_programs",
                "checked",
                "valid",
                "findings",
                "faults",
                "worker_restarts",
                "errors",
                "session_checked",
            ),
            0,
        )
        self._bugs: set[str] = set()
        self._known_bugs: set[str] = set()
        self.elapsed_before = 0.0
        self.session_start = time.monotonic()
        self.prepared = False
        self.fatal: str | None = None
        self.writer: Writer | None = None  # set by run(): the one thread writing campaign.db
        self.seeds = SeedSource(config.seed, config.count, set())  # replaced once prepared
        self.pool: WorkerPool | None = None
        self.bg_reducer: BackgroundReducer | None = None
        self.space = ConfigSampler(config.config_space, config.options)  # fuzz --config-space
        #: compiler line coverage of every N-th seed, steering the mix (fuzz --steer)
        self.lines = (
            LineCoverage(self.out, config.coverage_every, config.steer)
            if config.coverage_every
            else None
        )
        #: counts of programs repeating a cause, per feature (fuzz --avoid-repeats)
        self.avoid = Avoidance(self.out) if config.avoid_repeats else None

    # -- set-up -------------------------------------------------------------------------------
    def _new_generator(self) -> Generator:
        if self._factory is not None:
            return self._factory()  # type: ignore[operator]
        return get_generator(self.config.generator, **self.config.gen_options)

    def _generate(self, gen: Generator, seed: int, ctx: GenContext) -> Program | None:
        if self._shared_gen is not None:
            with self._gen_lock:
                return self._shared_gen.generate(seed, ctx)
        return gen.generate(seed, ctx)

    def _prepare(self, store: Store) -> set[int]:
        params = store.params()
        if params and not self.resume:
            raise CampaignError(f"{self.out} already holds a campaign: resume it with --resume")
        if not params and self.resume:
            raise CampaignError(f"{self.out}: no campaign to resume ({DB_NAME} has no parameters)")
        now = time.time()
        fresh = {"created": now, "elapsed_s": 0.0} if not params else {}
        store.set_params(
            **fresh,
            **self.config.to_params(),
            state="running",
            pid=os.getpid(),
            heartbeat=now,
            sessions=int(params.get("sessions", 0)) + 1,
        )
        self.elapsed_before = float(store.params().get("elapsed_s", 0.0))
        recorded = store.recorded_seeds()
        remove_orphans(store, self.findings_dir, recorded)
        relink_reductions(store, self.findings_dir)
        counts = store.counts()
        bugs = store.bugs(self.known)
        self.stats = {
            "programs": counts["programs"],
            "session_programs": 0,
            "checked": counts["checked"],
            "valid": counts["valid"],
            "findings": counts["findings"],
            "faults": counts["faults"],
            "worker_restarts": counts["worker_deaths"],
            "errors": 0,
            "session_checked": 0,
        }
        self._bugs = {b.signature for b in bugs if b.category == "bug"}
        self._known_bugs = {b.signature for b in bugs if b.category == "bug" and b.known}
        self.prepared = True
        return recorded

    # -- the loop -------------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        cfg = self.config
        self.out.mkdir(parents=True, exist_ok=True)
        self.session_start = time.monotonic()
        self.writer = writer = Writer(
            self.out / DB_NAME, elapsed=lambda: self.elapsed() if self.prepared else None
        )
        state = "failed"
        pool: WorkerPool | None = None
        try:
            recorded = writer.call(self._prepare)
            if self.lines is not None:
                self.lines.load()
            if self.avoid is not None:
                self.avoid.load()
            self.seeds = SeedSource(cfg.seed, cfg.count, recorded)
            if self._shared_gen is None:  # families that cannot run here: left out, one message
                self.config = availability.runnable(cfg, self.progress, writer, not self._factory)
                self._new_generator()  # a bad generator name or option fails here, not in a slot
            pool = WorkerPool(
                cfg.jobs,
                cfg.options.memory_mb,
                self.out / "workers",
                python=cfg.python,
                make_worker=self._ray_workers() if cfg.ray else None,
                retire_rss_fraction=cfg.retire_rss_fraction,
                retire_after_jobs=cfg.retire_after_jobs,
                cache_mb=cfg.inductor_cache_mb,
            )
            self.pool = pool
            deadline = None
            if cfg.time_budget is not None:
                deadline = self.session_start + max(0.0, cfg.time_budget - self.elapsed_before)
                if cfg.time_budget <= self.elapsed_before:
                    self.seeds.stop()  # the time is already spent: nothing to start
            if cfg.reduce:
                self.bg_reducer = self._start_reducer()
            pool.start(self._slot_loop)
            try:
                while pool.alive():
                    pool.join(0.5)
                    self.progress.update(self.snapshot())
                    if deadline is not None and time.monotonic() >= deadline:
                        break
                    if self.fatal or pool.errors():
                        break
            except KeyboardInterrupt:
                state = "interrupted"
                raise
            finally:
                self.seeds.stop()
                pool.stop()
            errors = pool.errors()
            if errors and not self.fatal:
                e = errors[0]
                self.fatal = "".join(traceback.format_exception(type(e), e, e.__traceback__))
            state = "failed" if self.fatal else "finished" if self._done() else "stopped"
        finally:
            if pool is not None:
                pool.close()
            if self.bg_reducer is not None:  # queued reductions run, a time budget's 1/4 at most
                self.bg_reducer.close(state == "interrupted", drain_seconds(self.config))
                self.bg_reducer = None
            if self.prepared:  # never touch the state of a campaign this session did not run
                self.progress.update(self.snapshot())
                writer.call(lambda s: s.set_params(state=state, elapsed_s=self.elapsed(), pid=None))
            writer.close()
        if self.fatal:
            raise CampaignError(self.fatal)
        return self.summary()

    def _done(self) -> bool:
        """Every seed of a ``--count`` campaign is recorded."""
        cfg = self.config
        if cfg.count is None or self.writer is None:
            return False
        recorded = self.writer.call(Store.recorded_in, cfg.seed, cfg.seed + cfg.count)
        return recorded >= cfg.count

    def elapsed(self) -> float:
        return self.elapsed_before + (time.monotonic() - self.session_start)

    def summary(self) -> dict[str, Any]:
        with Store(self.out, readonly=True) as store:
            return summarize(store, self.known or None)

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            s = dict(self.stats)
            s["bugs"] = len(self._bugs)
            s["known_bugs"] = len(self._known_bugs & self._bugs)
        session_min = max(1e-9, time.monotonic() - self.session_start) / 60
        s["per_min"] = s["session_programs"] / session_min
        s["valid_pct"] = 100.0 * s["valid"] / s["checked"] if s["checked"] else 0.0
        s["elapsed_s"] = self.elapsed()
        s["count"] = self.config.count
        s["time_budget"] = self.config.time_budget
        s["jobs"] = self.config.jobs
        s["retirements"] = self.pool.retirements if self.pool is not None else 0
        s["cache_clears"] = self.pool.cache_clears if self.pool is not None else 0
        return s

    def _ray_workers(self) -> Callable[[], Any]:
        from torchsmith.execute import ray_pool

        cfg = self.config
        ray_pool.init(cfg.ray, cfg.jobs)
        return lambda: ray_pool.RayWorker(
            cfg.options.memory_mb, cfg.python, cfg.ray_cpus, cfg.ray_gpus
        )

    def _slot_loop(self, slot: Slot) -> None:
        gen = self._shared_gen or self._new_generator()
        opts = self.config.options
        ctx = GenContext(
            eager_check=lambda p: check_eager(p, opts, slot.worker),
            options=dict(self.config.gen_options),
        )
        while not slot.aborted.is_set():
            drawn = (self.seeds.next() for _ in range(max(1, self.config.pack)))
            seeds = [s for s in drawn if s is not None]
            if not seeds:
                return
            given = self._packed(slot, gen, ctx, seeds) if len(seeds) > 1 else {}
            for seed in seeds:
                row = self._one(slot, gen, ctx, seed, given.get(seed))
                if row is None or slot.aborted.is_set():
                    return  # aborted mid-program: the seed stays unrecorded, redone on resume
            slot.after_program()

    def _packed(
        self, slot: Slot, gen: Generator, ctx: GenContext, seeds: list[int]
    ) -> dict[int, Packed]:
        """The seeds' programs, generated once each: those checked in one pack with their
        verdicts and shares of the pack's time (:func:`torchsmith.campaign.pack.check_packed`), the
        others (not packable, no program, too few to pack) without a verdict, for :meth:`_one`
        to check alone. A seed whose generator raised is left out: :meth:`_one` records why."""
        parts: list[tuple[int, Program, float]] = []
        out: dict[int, Packed] = {}
        for seed in seeds:
            t0 = time.perf_counter()
            try:
                program = self._generate(gen, seed, ctx)
            except Exception:  # _one generates it again and records the error
                continue
            gen_s = time.perf_counter() - t0
            why = self._avoided(seed, program) if program is not None else None
            if why is not None:  # decided here, so the pack does not check it
                out[seed] = Packed(program, None, gen_s, avoided=why)
            elif program is not None and pack.packable(program) and not self.space.sampled(seed):
                parts.append((seed, program, gen_s))
            else:
                out[seed] = Packed(program, None, gen_s)
        alone = {**out, **{seed: Packed(p, None, g) for seed, p, g in parts}}
        if len(parts) < 2:
            return alone
        slot.worker.reset_work()
        t0 = time.perf_counter()
        try:
            checked = pack.check_packed(
                [p for _, p, _ in parts], self.config.options, slot.worker, check_program
            )
        except RuntimeError:  # CheckError, ActorLost, or a worker that cannot start (the
            return alone  # deadline killed it): _one checks them alone, says why, or sees the abort
        # The pack's check (and any re-checks of its parts) is shared equally by its parts.
        wall, work = (time.perf_counter() - t0) / len(parts), slot.worker.work_s / len(parts)
        for (seed, _, gen_s), (program, result) in zip(parts, checked, strict=True):
            out[seed] = Packed(program, result, gen_s, work, wall)
        return out

    def _one(
        self,
        slot: Slot,
        gen: Generator,
        ctx: GenContext,
        seed: int,
        given: Packed | None = None,
    ) -> ProgramRow | None:
        """Generate, check and record ``seed``; ``given``: its program (and verdict) from a pack."""
        cfg, w = self.config, slot.worker
        name = getattr(gen, "name", None) or cfg.generator
        row = ProgramRow(seed=seed, generator=str(name), options=cfg.options.to_dict())
        ops: list[str] = []
        feats: tuple[str, ...] = ()
        picked, extra = {}, {}  # the seed's sampled settings, its finding's config meta
        with self._lock:  # a snapshot: other slots update the campaign's counters meanwhile
            ctx.coverage = Counter(self.coverage)
            ctx.yields = {k: (v[0], v[1]) for k, v in self.yields.items()}
        ctx.boost = self.lines.boost() if self.lines is not None else {}
        t0 = time.perf_counter()
        try:
            program = given.program if given else self._generate(gen, seed, ctx)
        except Exception as e:
            program = None
            row.status, row.error = "error", f"generator: {type(e).__name__}: {e}"[:2000]
        row.gen_s = time.perf_counter() - t0
        if slot.aborted.is_set():
            return None
        if program is None and row.status != "error":
            row.status = "no-program"
        result = None
        if program is not None:
            row.generator = mix.family_of(program, row.generator)
            row.name, row.digest = program.name, program.digest
            row.lines, row.ops = program_size(program)
            ops = source_ops(program.source)
            feats = features(program.notes, ops) if self.avoid is not None else ()
            why = given.avoided if given else self._avoided(seed, program, feats)
            if why is not None:  # fuzz --avoid-repeats
                row.status, row.reason = "avoided", f"repeats: {why}"[:500]
        if program is not None and row.status != "avoided":
            was_alive, starts = w.alive, w.starts
            w.reset_work()
            try:
                opts, picked = self.space.pick(seed, program, w)
                result = (given and given.result) or check_program(program, opts, w)
                if picked and result.finding_kind:  # bisected to its minimal set first
                    result, opts, extra = self.space.bisect(program, result, picked, w)
                row.options = effective_options(program, opts).to_dict()  # as checked
            except CheckError as e:
                row.status, row.error = "error", str(e)[:2000]
            except ActorLost as e:  # its node died: once more on another actor, then an error
                if seed not in self._lost:
                    self._lost.add(seed)
                    self.seeds.requeue(seed)
                    self.progress.event("error", f"seed {seed} re-queued: {e}"[:300])
                    return row
                row.status, row.error = "error", f"lost its Ray actor twice: {e}"[:2000]
            except RuntimeError as e:  # the worker cannot start at all: nothing can be checked
                if slot.aborted.is_set():
                    return None
                self.fatal = f"the worker cannot start: {e}"
                return None
            if slot.aborted.is_set():
                return None
            row.work_s = w.work_s
            row.node = getattr(w, "node", None)
            row.worker_deaths = max(
                0, (w.starts - starts) - (0 if was_alive else 1) + (0 if w.alive else 1)
            )
            if self.lines is not None and result is not None and not slot.aborted.is_set():
                self.lines.sample(
                    slot.worker, row, program, opts, result, self.elapsed(), self.progress.event
                )
        if result is not None:
            self._fill(row, program, result, extra)
        row.wall_s = time.perf_counter() - t0
        if given:
            row.gen_s += given.gen_s
            row.work_s += given.work_s
            row.wall_s += given.gen_s + given.wall_s
        assert self.writer is not None
        ack: RecordAck = self.writer.call(Store.record, row)
        self._count(row, ack, ops)
        if ack.inserted and result is not None:
            self.space.record(picked, extra.get("config_settings", {}), row.category == "bug")
        if self.avoid is not None and ack.inserted and row.status == "checked":
            repeat = row.category == "bug" and (row.known or not ack.new_bug)
            self.avoid.record(seed, feats, repeat)
        if ack.new_bug and row.category == "bug" and self.bg_reducer is not None:
            self.bg_reducer.submit(row.finding, ack.bug)
        return row

    def _avoided(
        self, seed: int, program: Program, feats: tuple[str, ...] | None = None
    ) -> str | None:
        """With ``--avoid-repeats``: the feature that keeps ``seed``'s program from a check
        (:class:`~torchsmith.campaign.avoid.Avoidance`), else None."""
        if self.avoid is None:
            return None
        if feats is None:
            feats = features(program.notes, source_ops(program.source))
        ok, why = self.avoid.accept(seed, feats)
        return None if ok else str(why)

    def _fill(self, row: ProgramRow, program: Program, result: CheckResult, extra: dict) -> None:
        row.verdict = result.verdict.value
        row.phase = result.phase.value if result.phase else None
        row.stage = result.stage.value if result.stage else None
        row.symptom = result.symptom.value if result.symptom else None
        row.reason = result.reason[:500]
        row.timings = result.timings
        row.category = result.finding_kind or "-"
        if row.category == "-":
            return
        row.readable = dedup.readable_signature(result, program)
        row.signature = dedup.hash_signature(row.readable)
        row.known = dedup.is_known(row.signature, row.readable, self.known)
        finding = write_finding(
            self.findings_dir,
            program,
            result,
            signature=row.signature,
            generator=row.generator,
            seed=row.seed,
            extra={
                "readable_signature": row.readable,
                "known": row.known,
                "category": row.category,
                "campaign": str(self.out),
                **extra,
            },
        )
        row.finding = finding.id

    def _count(self, row: ProgramRow, ack: RecordAck, ops: list[str]) -> None:
        if not ack.inserted:
            return
        with self._lock:
            s = self.stats
            s["programs"] += 1
            s["session_programs"] += 1
            s["worker_restarts"] += row.worker_deaths
            if row.status == "checked":
                s["checked"] += 1
                s["session_checked"] += 1
                s["valid"] += int(row.valid)
            elif row.status == "error":
                s["errors"] += 1
                if s["session_checked"] == 0 and s["errors"] >= MAX_ERRORS_BEFORE_FIRST_CHECK:
                    self.fatal = f"every program fails inside torchsmith; the last: {row.error}"
            if row.category == "bug":
                s["findings"] += 1
                if ack.bug:
                    self._bugs.add(ack.bug)
                    if row.known:
                        self._known_bugs.add(ack.bug)
            elif row.category == "fault":
                s["faults"] += 1
            if row.valid:
                self.coverage.update(ops)  # what generators may steer by
            if row.status == "checked":
                y = self.yields.setdefault(row.generator, [0, 0])
                y[0] += 1
                y[1] += int(row.category == "bug")
        if ack.new_bug:
            known = " (known)" if row.known else ""
            what = "new bug" if row.category == "bug" else "new fault"
            self.progress.event(
                row.category,
                f"{what}{known} {ack.bug}: {row.readable} (seed {row.seed}, {FINDINGS}/{row.finding})",
            )

    def _start_reducer(self) -> BackgroundReducer:
        from torchsmith.execute.worker import Worker
        from torchsmith.reduce import finding_options, reduce_finding

        cfg = self.config

        def reduce(finding: Finding, worker: Any) -> Finding | None:
            fn = self.reducer or reduce_finding
            return fn(
                finding, worker, options=finding_options(finding), time_budget=cfg.reduce_budget
            )

        def refine(bug: str, reduced: Finding) -> str:
            new = refine_bug(self.writer, bug, reduced)  # type: ignore[arg-type]
            with self._lock:
                self._bugs.discard(bug)
                self._bugs.add(new)
                if bug in self._known_bugs or dedup.is_known(new, "", self.known):
                    self._known_bugs.add(new)
            return new

        logs = self.out / "workers" / "reducer"
        env, folder = slot_env(worker_env(python=cfg.python), logs, cfg.inductor_cache_mb)
        share = cfg.inductor_cache_mb / (cfg.jobs + 1)  # the reducer's share, like a slot's
        mark = lambda bug, why: mark_path_wide(self.writer, bug, why)  # noqa: E731

        def make_worker() -> Any:
            return Worker(memory_mb=cfg.options.memory_mb, env=env, log_dir=logs, python=cfg.python)

        return BackgroundReducer(
            reduce,
            refine,
            lambda fid: read_finding(self.findings_dir / fid),
            self.progress.event,
            make_worker,
            BoundedCache(folder, share) if folder is not None else None,
            mark=mark,  # screened by the path canary first (canary.py)
        )
