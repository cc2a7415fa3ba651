"""``python`` family fragments, part 2: functions and containers.

Same contract as part 1 (:mod:`torchsmith.generate.python.frags_control`): closures, partials, default
and variadic arguments, recursion, lambdas, named tuples, dataclasses, local classes, dicts,
``getattr`` with defaults and try/except, each leaving a new ``h`` of the same shape.
"""

from __future__ import annotations

from torchsmith.generate.python.builder import Builder, Fragment
from torchsmith.generate.python.frags_control import SCALES


# -- functions ------------------------------------------------------------------------------------
def closure(b: Builder) -> None:
    v = b.rng.randrange(4)
    inner = b.fresh("inner")
    if v == 0:
        w = b.fresh("w")
        b.emit(
            f"{w} = {b.choice(SCALES)}",
            f"def {inner}(t):",
            f"    return t * {w} + 0.25",
            f"h = {inner}(h) + {inner}(h.flip(0)) * 0.5",
        )
    elif v == 1:
        cnt = b.fresh("count")
        b.emit(
            f"{cnt} = 0",
            f"def {inner}(t):",
            f"    nonlocal {cnt}",
            f"    {cnt} += 1",
            f"    return t * 0.5 + {cnt}",
            f"h = {inner}({inner}(h))",
        )
    elif v == 2:
        base = b.fresh("base")
        b.emit(
            f"{base} = h.mean(0, keepdim=True)",
            f"def {inner}(t):",
            f"    return t - {base}",
            f"h = {inner}(h) * 1.5",
        )
    else:
        b.emit(
            f"def {inner}(k):",
            "    def f(t):",
            "        return t * k",
            "    return f",
            f"h = {inner}(0.5)(h) + {inner}(2.0)(h) * 0.1",
        )


def partial(b: Builder) -> None:
    b.need("functools")
    v = b.rng.randrange(4)
    if v == 0:
        b.top("_affine", "def _affine(t, a, b=0.0):\n    return t * a + b")
        f = b.fresh("f")
        b.emit(f"{f} = functools.partial(_affine, a=0.5, b=0.25)", f"h = {f}(h)")
    elif v == 1:
        clip = b.fresh("clip")
        b.emit(
            f"{clip} = functools.partial(torch.clamp, min=-2.0, max=2.0)", f"h = {clip}(h * 1.5)"
        )
    elif v == 2:
        b.top("_CLIP", "_CLIP = functools.partial(torch.clamp, min=-3.0, max=3.0)")
        b.emit("h = _CLIP(h * 2.0)")
    else:
        b.emit("h = functools.partial(torch.add, alpha=0.5)(h, h.flip(-1))")


def default_args(b: Builder) -> None:
    b.top(
        "_shift",
        "def _shift(t, k=2.0, *, bias=0.5, scale=None):\n"
        "    if scale is None:\n"
        "        scale = 1.0\n"
        "    return (t + bias) * scale / k",
    )
    b.emit(b.choice(("h = _shift(h)", "h = _shift(h, 4.0, bias=0.0)", "h = _shift(h, scale=0.5)")))
    if b.rng.random() < 0.5:
        alpha = b.param("alpha", "scalar", SCALES, keyword=1.0)
        b.emit(f"h = h * {alpha}")


def star_args(b: Builder) -> None:
    b.top(
        "_combine",
        "def _combine(*ts, **kw):\n"
        "    out = ts[0]\n"
        "    for t in ts[1:]:\n"
        '        out = out + t * kw.get("w", 1.0)\n'
        '    return out * kw.get("gain", 1.0)',
    )
    v = b.rng.randrange(3)
    if v == 0:
        b.emit("h = _combine(h, h.flip(-1), h * 0.5, w=0.25)")
    elif v == 1:
        parts, opts = b.fresh("parts"), b.fresh("opts")
        b.emit(
            f"{parts} = (h, h * 2.0)",
            f'{opts} = {{"gain": 0.5}}',
            f"h = _combine(*{parts}, **{opts})",
        )
    else:
        b.emit("h = _combine(*[h] * 2, gain=0.25)")


def recursion(b: Builder) -> None:
    b.top(
        "_rec",
        "def _rec(t, depth):\n"
        "    if depth == 0:\n"
        "        return t\n"
        "    return _rec(t * 0.5 + 0.25, depth - 1)",
    )
    if b.rng.random() < 0.5:
        depth = b.param("depth", "count", ("1", "2", "3"), vary=0.5)
        b.emit(f"h = _rec(h, {depth})")
    else:
        b.emit(f"h = _rec(h, {b.rng.randint(1, 3)})")


def lambdas(b: Builder) -> None:
    v = b.rng.randrange(4)
    if v == 0:
        fs = b.fresh("fs")
        b.emit(
            f"{fs} = [lambda t: t * 0.5, torch.tanh, lambda t: t + 1.0]",
            f"for f in {fs}:",
            "    h = f(h)",
        )
    elif v == 1:
        b.emit("h = list(map(lambda t: t * 0.5 + 0.1, [h, h.flip(0)]))[1]")
    elif v == 2:
        b.emit("h = sorted([h * 2.0, h], key=lambda t: t.shape[-1])[0] * 0.5")
    else:
        b.emit("h = max([h * 0.5, h.flip(0)], key=lambda t: t.dim())")


# -- containers -----------------------------------------------------------------------------------
def namedtuple(b: Builder) -> None:
    v = b.rng.randrange(4)
    if v in (0, 3):
        b.need("collections")
        b.top("Pair", 'Pair = collections.namedtuple("Pair", ["a", "b"])')
        p = b.fresh("p")
        if v == 0:
            b.emit(
                f"{p} = Pair(h, h * 0.5)",
                f"{p} = {p}._replace(b={p}.b + 1.0)",
                f"h = {p}.a - {p}.b * 0.5 + {p}[0] * 0.25",
            )
        else:
            u, w = b.fresh("u"), b.fresh("w")
            b.emit(f"{u}, {w} = Pair(h * 0.5, h + 1.0)", f"h = {u} * 0.5 + {w} * 0.25")
        if b.rng.random() < 0.3:
            b.output(p if v == 0 else f"Pair({u}, {w})")
    elif v == 1:
        b.need("collections")
        b.top(
            "Vec",
            'class Vec(collections.namedtuple("Vec", ["a", "b"])):\n'
            "    def __add__(self, other):\n"
            "        return Vec(self.a + other.a, self.b * other.b)\n\n"
            "    def norm(self):\n"
            "        return self.a * 0.5 + self.b * 0.5",
        )
        b.emit("h = (Vec(h, h * 0.5) + Vec(h.flip(0), torch.ones_like(h))).norm()")
    else:
        b.need("typing")
        b.top(
            "Stats",
            "class Stats(typing.NamedTuple):\n    mean: torch.Tensor\n    scale: float = 1.5",
        )
        st = b.fresh("st")
        b.emit(f"{st} = Stats(h.mean(-1, keepdim=True))", f"h = (h - {st}.mean) * {st}.scale")
        if b.rng.random() < 0.3:
            b.output(st)


def dataclass(b: Builder) -> None:
    b.need("dataclasses")
    b.top(
        "Box",
        "@dataclasses.dataclass\n"
        "class Box:\n"
        "    t: torch.Tensor\n"
        "    k: float = 0.5\n\n"
        "    def scaled(self):\n"
        "        return self.t * self.k",
    )
    bx = b.fresh("bx")
    if b.rng.random() < 0.5:
        b.emit(f"{bx} = Box(h)", f"{bx}.k = {bx}.k + 0.25", f"h = {bx}.scaled() + {bx}.t * 0.1")
    else:
        b.emit(f"{bx} = dataclasses.replace(Box(h), k=1.5)", f"h = {bx}.scaled() - 0.5")


def local_class(b: Builder) -> None:
    v = b.rng.randrange(3)
    if v == 0:
        b.top(
            "Scaler",
            "class Scaler:\n"
            "    def __init__(self, k):\n"
            "        self.k = k\n\n"
            "    def __call__(self, t):\n"
            "        return t * self.k + 0.1",
        )
        b.emit(f"h = Scaler({b.choice(SCALES)})(h)")
    elif v == 1:
        acc, obj = b.fresh("Acc"), b.fresh("acc")
        b.emit(
            f"class {acc}:",
            "    def __init__(self):",
            "        self.total = None",
            "",
            "    def add(self, t):",
            "        self.total = t if self.total is None else self.total + t",
            f"{obj} = {acc}()",
            "for t in (h, h * 0.5):",
            f"    {obj}.add(t)",
            f"h = {obj}.total",
        )
    else:
        b.top(
            "_Child",
            "class _Base:\n"
            "    def apply(self, t):\n"
            "        return t * 0.5\n\n\n"
            "class _Child(_Base):\n"
            "    def apply(self, t):\n"
            "        return super().apply(t) + 1.0",
        )
        b.emit("h = _Child().apply(h)")


def dict_build(b: Builder) -> None:
    parts = b.fresh("parts")
    v = b.rng.randrange(4)
    if v == 0:
        b.emit(
            f'{parts} = {{"lo": h * 0.5, "hi": h + 1.0}}',
            f'{parts}["mid"] = ({parts}["lo"] + {parts}["hi"]) * 0.5',
            f'{parts}.pop("lo")',
            f"h = sum({parts}.values()) / len({parts})",
        )
    elif v == 1:
        b.emit(
            f'{parts} = {{f"k{{i}}": h * (i + 1) for i in range(3)}}',
            f'h = {parts}["k0"] + {parts}[list({parts})[-1]] * 0.1',
        )
    elif v == 2:
        b.emit(
            f"{parts} = dict(a=h)",
            f"{parts}.update(b=h * 0.5)",
            f'{parts}.setdefault("a", h * 100.0)',
            f'h = {parts}["a"] - {parts}["b"]',
        )
    else:
        kept = b.fresh("kept")
        b.emit(
            f'{parts} = {{"x": h, "y": h.flip(-1)}}',
            f'{kept} = {{k: v for k, v in {parts}.items() if k != "x"}}',
            f'h = h + {kept}["y"] * 0.5',
        )
    if b.rng.random() < 0.25:
        b.output(parts)


def getattr_default(b: Builder) -> None:
    v = b.rng.randrange(3)
    if v == 0:
        holder = b.fresh("Cfg")
        b.top(holder, f"class {holder}:\n    gain = 1.5")
    elif v == 1:
        b.need("types")
        holder = b.fresh("CFG")
        b.top(holder, f"{holder} = types.SimpleNamespace(gain=1.5)")
    else:
        holder = "self" if b.module else "fn"
    where = "target" if holder in ("self", "fn") else holder
    b.emit(
        f'h = h * getattr({holder}, "gain", 1.0) + getattr({holder}, "bias", 0.0)',
        f'if hasattr({holder}, "shift"):',
        f"    h = h - {holder}.shift",
    )
    if b.rng.random() < (0.8 if b.sequence else 0.3):
        b.on_before(
            "if i % 2 == 1:",
            f"    {where}.shift = 0.5",
            f'elif hasattr({where}, "shift"):',
            f"    del {where}.shift",
            f"{where}.gain = {b.before_choice(SCALES)}",
        )


def try_except(b: Builder) -> None:
    v = b.rng.randrange(4)
    if v == 0:
        b.top("LOOKUP", 'LOOKUP = {"a": 0.5, "b": 2.0}')
        key = b.choice(('"missing"', '"a"'))
        val = b.fresh("val")
        b.emit(
            "try:",
            f"    {val} = LOOKUP[{key}]",
            "except KeyError:",
            f"    {val} = 0.75",
            f"h = h * {val}",
        )
    elif v == 1:
        b.top(
            "_checked",
            "def _checked(t, k):\n"
            "    if k < 0:\n"
            '        raise ValueError("negative")\n'
            "    return t * k",
        )
        b.emit("try:", "    h = _checked(h, -1)", "except ValueError:", "    h = h * 0.5")
    elif v == 2:
        b.emit("try:", "    h = h + 1.0", "finally:", "    h = h * 0.5")
    else:
        b.emit(
            "try:",
            "    h = h + h.mean()",
            "except (RuntimeError, TypeError):",
            "    h = h - 1.0",
            "else:",
            "    h = h * 0.5",
        )


FRAGMENTS_2 = [
    Fragment("closure", closure, fullgraph=True),
    Fragment("partial", partial, fullgraph=True),
    Fragment("default_args", default_args, fullgraph=True),
    Fragment("star_args", star_args, fullgraph=True),
    Fragment("recursion", recursion, fullgraph=True),
    Fragment("lambdas", lambdas),
    Fragment("namedtuple", namedtuple),
    Fragment("dataclass", dataclass),
    Fragment("local_class", local_class),
    Fragment("dict_build", dict_build, fullgraph=True),
    Fragment("getattr_default", getattr_default),
    Fragment("try_except", try_except),
]

__all__ = ["FRAGMENTS_2"]
