"""``python`` family fragments, part 5: Python's runtime protocols Dynamo simulates.

Same contract as part 1 (:mod:`torchsmith.generate.python.frags_control`): each leaves a new
``h`` of the same shape, scaled by a Python value computed by code whose meaning Dynamo must
reproduce: ``functools.partial`` objects (attributes, keyword dicts, nesting), generators
(``throw``, finalization of one dropped while suspended), exceptions (chaining, matching by
real type, the args builtins give them, errors raised while folding a builtin), containers
built outside the compiled code (a bounded ``deque``), ``enumerate`` with a bool start,
``str`` of a namedtuple, a size comparison used as an index, and grad-mode context objects
entered away from where they were made; arithmetic on sizes (``size_arithmetic``, the fifteenth
pass). Written after the twelfth pass's reading found Dynamo
bugs in each (``bench/found/dynamo_*.py``); the variants around each are where neighbours may
hide.

Invariant: every value is a deterministic function of shapes and literals (never of tensor
values or dtypes), so eager, the float64 run and compiled code agree unless Dynamo errs.
"""

from __future__ import annotations

from torchsmith.generate.python.builder import Builder, Fragment

#: One-line variants: the value a partial, a generator or a builtin gives, scaled into ``h``.
PARTIALS = (
    'h = h * (SCALED.scale if hasattr(SCALED, "scale") else 1.0)',
    'h = h * getattr(SCALED, "scale", 0.5)',
    "h = h * len(functools.partial(functools.partial(_pick, 1, c=3), 2).args)",
    "h = h * (2.0 if functools.partial(functools.partial(_pick, 1), 2).func is _pick else 0.5)",
)

MISC = (
    "h = h * len(f\"{[i for i, _ in enumerate('ab', start=True)][0]}\")",
    "h = h * len(str(Pair(1, 2)))",
    "h = h * (0.5, 2.0)[h.shape[0] > 1]",
    "h = h * sum(a for a, _ in zip(itertools.cycle(Epochs()), range(3)))",
)


def partial_objects(b: Builder) -> None:
    b.need("functools")
    b.top("_pick", "def _pick(a, b, c=0):\n    return a + b + c")
    b.top("SCALED", "SCALED = functools.partial(_pick)\nSCALED.scale = 2.0")
    if b.rng.random() < 0.2:
        p = b.fresh("p")
        b.emit(
            f"{p} = functools.partial(_pick, 1, c=1.0)",
            f'{p}.keywords["c"] = 3.0',
            f"h = h * {p}(2)",
        )
    else:
        b.emit(b.choice(PARTIALS))


def generator_protocol(b: Builder) -> None:
    v = b.rng.randrange(3)
    g = b.fresh("g")
    if v == 0:
        b.top(
            "_echo",
            "def _echo():\n    try:\n        yield 1\n    except ValueError as e:\n"
            "        yield e.args[0] if e.args else 0",
        )
        b.emit(f"{g} = _echo()", f"next({g})", f"h = h + {g}.throw(ValueError, 2)")
    elif v == 1:
        b.top("_two", "def _two():\n    yield 1\n    yield 2")
        b.emit(
            f"{g} = _two()",
            f"next({g})",
            "try:",
            f'    {g}.throw(KeyError("k"))',
            "except KeyError:",
            "    pass",
            f"h = h * next({g}, 3)",
        )
    else:
        b.top(
            "_graded",
            "def _graded(n):\n    with torch.enable_grad():\n        for i in range(n):\n"
            "            yield i",
        )
        b.emit(
            f"for _{g} in _graded(3):",
            "    break",
            "h = h * (2.0 if torch.is_grad_enabled() else 1.0)",
        )


def exception_semantics(b: Builder) -> None:
    v = b.rng.randrange(4)
    got = b.fresh("got")
    if v == 0:
        b.need("abc")
        b.top(
            "BaseFault",
            "class BaseFault(Exception, abc.ABC):\n    pass\n\n\n"
            "class OtherFault(Exception):\n    pass\n\n\nBaseFault.register(OtherFault)",
        )
        b.emit(
            "try:",
            "    raise OtherFault()",
            "except BaseFault:",
            f"    {got} = 0.5",
            "except OtherFault:",
            f"    {got} = 2.0",
            f"h = h * {got}",
        )
    elif v == 1:
        b.emit(
            "try:",
            '    {}.pop("k")',
            "except KeyError as e:",
            f"    {got} = len(e.args) + 1",
            f"h = h * {got}",
        )
    elif v == 2:
        b.emit(
            "try:",
            f"    {got} = min([])",
            "except ValueError:",
            f"    {got} = 2.0",
            f"h = h * {got}",
        )
    else:
        k = b.fresh("k")
        b.emit(
            f"{got} = None",
            f"for {k} in range(2):",
            "    try:",
            "        try:",
            f"            raise TypeError({k} + 1)",
            "        except TypeError:",
            f'            raise {got} if {got} is not None else KeyError("k")  # noqa: B904',
            "    except KeyError as e:",
            f"        {got} = e",
            f"h = h * {got}.__context__.args[0]",
        )


def outside_state(b: Builder) -> None:
    v = b.rng.randrange(3)
    if v == 0:
        b.need("collections")
        b.top("HIST", "HIST = collections.deque(maxlen=2)")
        v = b.fresh("v")
        b.emit(
            "HIST.clear()",
            f"for {v} in (1.0, 2.0, 4.0):",
            f"    HIST.append({v})",
            "h = h * (sum(HIST) / len(HIST))",
        )
    elif v == 1:
        f, eg = b.fresh("flag"), b.fresh("eg")
        b.emit(
            f"{eg} = torch.no_grad()",
            "with torch.enable_grad():",
            f"    with {eg}:",
            "        pass",
            f"    {f} = torch.is_grad_enabled()",
            f"h = h * (2.0 if {f} else 1.0)",
        )
    else:
        b.need("collections", "itertools")
        b.top("Pair", 'Pair = collections.namedtuple("Pair", "x y")')
        b.top(
            "Epochs",
            "class Epochs:\n    def __init__(self):\n        self.n = 0\n\n"
            "    def __iter__(self):\n        self.n += 1\n"
            "        return iter([self.n, 2.0 * self.n])",
        )
        b.emit(b.choice(MISC))


#: A third of the usual weight, as part 4's: their variants meet this project's own finds on
#: torch 2.13.0, which the known table signs by construct (``py:`` signatures).
WEIGHT = 0.3

#: Integer and float arithmetic on sizes, whose symbolic forms Dynamo's ShapeEnv and Inductor's
#: printers rewrite (the fifteenth pass: ``bench/found/dynamic_*.py``, ``cpp_*.py``): truncation
#: of a negative true division, a floor division of a floor division by a negative, ``%`` with both
#: operands negative, ``2 ** n`` past 32 bits, a float ``%`` of a size. Static shapes fold them.
SIZE_ARITHMETIC = (
    "h = h + int(-h.shape[0] / 4)",
    "h = h + ((h.shape[0] + 11) // 2) // -2",
    "h = h + (-h.shape[0] - 7) % -6",
    "h = h + 2 ** (h.shape[0] + 29) / 2**31",
    "h = h + h.shape[0] % 2.5",
)


def size_arithmetic(b: Builder) -> None:
    if b.rng.random() < 0.8:
        b.emit(b.choice(SIZE_ARITHMETIC))
        return
    r = b.fresh("r")  # a divisor that is zero for some sizes: the handler must run then
    b.emit(
        "try:",
        f"    {r} = h.shape[0] // (h.shape[0] - h.shape[-1])",
        "except ZeroDivisionError:",
        f"    {r} = -1",
        f"h = h * {r}",
    )


FRAGMENTS_5 = [
    Fragment("partial_objects", partial_objects, weight=WEIGHT),
    Fragment("generator_protocol", generator_protocol, weight=WEIGHT),
    Fragment("exception_semantics", exception_semantics, weight=WEIGHT),
    Fragment("outside_state", outside_state, weight=WEIGHT),
    Fragment("size_arithmetic", size_arithmetic, weight=WEIGHT),
]

__all__ = ["FRAGMENTS_5"]
