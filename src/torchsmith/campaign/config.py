"""A campaign's configuration, stored in ``campaign.db``, and the rules for resuming it.

:class:`CampaignConfig` is the one owner of what a campaign is (seed, count, time, jobs,
generator and its options, check options, the interpreter and cluster it runs on) and of what a
resumed session may change (:attr:`CampaignConfig.OVERRIDABLE`); the CLI only passes what the
user gave.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

from torchsmith.campaign.repair import store_damage
from torchsmith.campaign.store import DB_NAME, Store
from torchsmith.configspace.space import load_space
from torchsmith.generate.protocol import validate_options
from torchsmith.options import CheckOptions


class CampaignError(RuntimeError):
    """The campaign cannot start or go on (bad folder, generator, or every program errors)."""


#: ``fuzz``'s click parameter -> CampaignConfig field, for the options a campaign stores.
CLI_FIELDS = {
    "seed": "seed",
    "count": "count",
    "time_": "time_budget",
    "jobs": "jobs",
    "generator": "generator",
    "gen_option": "gen_options",
    "known": "known_file",
    "reduce": "reduce",
    "reduce_time": "reduce_budget",
    "python": "python",
    "ray": "ray",
    "ray_cpus": "ray_cpus",
    "ray_gpus": "ray_gpus",
    "pack": "pack",
    "config_space": "config_space",
    "inductor_cache_mb": "inductor_cache_mb",
    "coverage_every": "coverage_every",
    "steer": "steer",
    "avoid_repeats": "avoid_repeats",
}

#: The settings a campaign's summary and page show, in reading order.
SHOWN_SETTINGS = ("generator", "gen_options", "seed", "count", "time_budget", "jobs",
                  "known_file", "reduce", "reduce_budget", "python", "config_space",
                  "coverage_every", "steer", "avoid_repeats")  # fmt: skip

#: The command-line spelling of the fields whose flag is not ``--field-name``.
_FLAG = {
    "time_budget": "--time",
    "gen_options": "--gen-option",
    "known_file": "--known",
    "options": "the check options",
}


@dataclasses.dataclass
class CampaignConfig:
    """A campaign's parameters; stored in ``campaign.db`` so ``--resume`` reuses them."""

    out: Path
    seed: int = 0
    count: int | None = None  # programs in all (seeds seed .. seed+count-1); None: no limit
    time_budget: float | None = None  # seconds in all, over every session; None: no limit
    jobs: int = 1
    generator: str = "graph"
    gen_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    options: CheckOptions = dataclasses.field(default_factory=CheckOptions)
    known_file: str | None = None
    reduce: bool = False
    reduce_budget: float = 120.0
    retire_rss_fraction: float = 0.5
    retire_after_jobs: int = 2000
    python: str | None = None  # workers under another interpreter (another torch)
    ray: str | None = None  # a Ray cluster's address (auto, local, host:port): workers as actors
    ray_cpus: float = 1.0  # resources per actor
    ray_gpus: float = 0.0
    pack: int = 1  # programs checked per compile (fuzz --pack K; see torchsmith.campaign.pack)
    config_space: str | None = None  # default or a table file: settings sampled per program
    #: Inductor cache of the campaign's workers, in all: one folder per slot (and the reducer),
    #: emptied past its share; 0 keeps Inductor's machine-wide folder (execute/inductor_cache.py)
    inductor_cache_mb: float = 4096.0
    #: measure compiler line coverage of every N-th seed's program (0: never); campaign/steer.py
    coverage_every: int = 0
    #: steer the mix's family weights by the new compiler lines each family reaches
    steer: bool = False
    #: check fewer programs whose features mostly repeated a cause already found; campaign/avoid.py
    avoid_repeats: bool = False

    #: What a resumed campaign may change; everything else decides which programs are checked.
    OVERRIDABLE = (
        "count",
        "time_budget",
        "jobs",
        "known_file",
        "reduce",
        "reduce_budget",
        "ray",
        "ray_cpus",
        "ray_gpus",
        "inductor_cache_mb",
    )

    @classmethod
    def from_cli(
        cls,
        values: dict[str, Any],
        given: set[str],
        options: CheckOptions,
        options_given: bool,
        out: Path | None = None,
        resume: Path | None = None,
    ) -> CampaignConfig:
        """``fuzz``'s configuration from what its command line held: ``values`` by click
        parameter (:data:`CLI_FIELDS`), ``given`` the parameters the user typed. With
        ``resume`` the stored configuration, changed only by what was given (and refused for
        a field that may not change); else a new campaign in ``out`` with every value."""
        if resume is not None:
            if out is not None:
                raise CampaignError("--resume DIR continues DIR: drop --out")
            changes = {CLI_FIELDS[n]: values[n] for n in CLI_FIELDS if n in given}
            if options_given:
                changes["options"] = options
            return cls.resumed(resume, **changes)
        fields = {CLI_FIELDS[n]: values[n] for n in CLI_FIELDS if n in values}
        return cls.new(out, options=options, **fields)

    @classmethod
    def new(cls, out: Path | None = None, **fields: Any) -> CampaignConfig:
        """The configuration of a new campaign in ``out`` (default: a dated folder name).

        Raises :class:`CampaignError` when ``out`` already holds a campaign or the known-bugs
        file does not exist, and ``ValueError`` (naming the valid choices) for an unknown
        generator or generator option.
        """
        out = (
            Path(out)
            if out is not None
            else Path(time.strftime("torchsmith-campaign-%Y%m%d-%H%M%S"))
        )
        if (out / DB_NAME).exists():
            raise CampaignError(f"{out} already holds a campaign: continue it with --resume {out}")
        known = fields.get("known_file")
        if known is not None and not Path(known).exists():
            raise CampaignError(f"--known {known}: no such file")
        if fields.get("config_space") not in (None, "default"):  # a file: absolute, and readable
            fields["config_space"] = str(Path(fields["config_space"]).resolve())
        config = cls(out=out, **fields)
        config.check_coverage()
        validate_options(config.generator, config.gen_options)
        if config.config_space:
            load_space(config.config_space)  # a bad table file is refused here
        return config

    @classmethod
    def resumed(cls, out: Path, **overrides: Any) -> CampaignConfig:
        """The stored configuration of the campaign in ``out``, with ``overrides`` applied.

        Only the fields in :attr:`OVERRIDABLE` may change (``None`` means "keep"); any other
        field given, even with its stored value, is a :class:`CampaignError`, since it would
        silently change which programs are checked and how.
        """
        out = Path(out)
        if not (out / DB_NAME).exists():
            raise CampaignError(f"{out}: no {DB_NAME} to resume")
        fixed = sorted(
            _FLAG.get(k, "--" + k.replace("_", "-")) for k in overrides if k not in cls.OVERRIDABLE
        )
        if fixed:
            raise CampaignError(
                f"--resume uses the campaign's own settings; these cannot change: {', '.join(fixed)}"
            )
        if (damage := store_damage(out)) is not None:
            raise CampaignError(
                f"the campaign database is damaged ({damage}); salvage it with:"
                f" torchsmith status {out} --repair"
            )
        with Store(out, readonly=True) as store:
            params = store.params()
        if not params:
            raise CampaignError(f"{out}: the campaign has no parameters")
        config = cls.from_params(out, params)
        return dataclasses.replace(config, **{k: v for k, v in overrides.items() if v is not None})

    def check_coverage(self) -> None:
        """``--steer`` needs line coverage (sampled every 4th seed unless given) and a mix of
        families to steer; a negative ``--coverage-every`` is refused (``ValueError``)."""
        if self.coverage_every is None or self.coverage_every < 0:
            raise ValueError(f"--coverage-every: 0 (off) or more, not {self.coverage_every}")
        if self.steer and self.generator != "mix":
            raise ValueError(
                f"--steer steers the mix's family weights; the generator is {self.generator!r}:"
                " use --generator mix (or --coverage-every N alone to measure its coverage)"
            )
        if self.steer and not self.coverage_every:
            self.coverage_every = 4

    def to_params(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["out"] = str(self.out)
        d["options"] = self.options.to_dict()
        return d

    @classmethod
    def from_params(cls, out: Path, params: dict[str, Any]) -> CampaignConfig:
        names = {f.name for f in dataclasses.fields(cls)} - {"out", "options"}
        kw = {k: v for k, v in params.items() if k in names}
        return cls(out=Path(out), options=CheckOptions.from_dict(params["options"]), **kw)
