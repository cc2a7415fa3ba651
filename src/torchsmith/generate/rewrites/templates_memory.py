"""``rewrites`` templates for Inductor's opt-in memory passes, which only fire on large tensors:
the **auto-chunker** (``auto_chunker.enable``: a training graph's large matmul output is cut
into row chunks, each run through one subgraph, and the chunking is propagated through the
loss and its backward) and the **partitioned scatter** (``partitioned_scatter_enabled``: a
large ``index_put(accumulate=True)`` becomes a scatter into P copies of the output, then a sum).

Both passes have size gates, so these programs are bigger than the family's others: the chunker
wants a ``mm``/``addmm`` whose output has more than 2**20 elements and is more than 8 times the
bytes of its inputs; the scatter pass wants an index of at least 4096 elements. The draws are
the shapes and spellings the passes must handle or refuse: losses over either dim (negative
dims included), per-row losses (a non-scalar tangent), row counts that ``torch.chunk`` cannot
cut into ``num_chunk`` pieces, indices with more than one dim, at another dim than 0, broadcast
values, negative indices, gradients of advanced indexing and of ``embedding``
(``bench/found/auto_chunker_*.py``, ``partitioned_scatter_multidim_index.py``).
"""

from __future__ import annotations

import random

from torchsmith.generate.rewrites.base import Spec, Template, fmt, shape_lit

#: The chunker's gates (``torch._inductor.config.auto_chunker``), mirrored to size programs.
CHUNK_MIN_OUT = 1024 * 1024
CHUNK_MIN_RATIO = 8
#: ``partitioned_scatter_min_index_size``'s default.
SCATTER_MIN_INDEX = 4096


def _chunk_shape(rng: random.Random) -> tuple[int, int, int]:
    """Rows ``n``, hidden ``h`` and vocabulary ``v`` that pass the chunker's gates: more than
    2**20 logits, more than 8x the bytes of ``x`` and the weight. A tenth of the programs have
    41 or 49 rows, which ``torch.chunk`` cuts into 7 pieces, not 8 (so do 1000 rows into 64)."""
    if rng.random() < 0.1:  # 41 or 49 rows make 7 chunks of 8
        h, n = 4, rng.choice((41, 49))
    else:
        h = rng.choice((8, 16, 32))
        n = rng.choice([r for r in (256, 512, 768, 1000, 1024, 1536, 2048) if r > 8 * h + 8])
    v = 1024
    while n * v <= CHUNK_MIN_OUT or n * v <= CHUNK_MIN_RATIO * (n * h + v * h + v):
        v *= 2
    return n, h, v


def auto_chunk(rng: random.Random, target: str) -> Spec:
    """A projection to a large vocabulary and a loss on its logits, with gradients: the shape
    of program the auto-chunker was written for (an LM head and its cross-entropy). Drawn: the
    loss (cross-entropy with ``reduction`` mean/sum/none and ignored rows, NLL of a
    log-softmax, softmax-weighted sums and ``amax`` over dim ``-1``/``1``/``0``/``-2``, a
    temperature, a z-loss term, sums over several dims, a segment sum of the rows with
    ``scatter_add``), a bias, a ``float()`` upcast, and ``num_chunk``."""
    s = Spec(module=True)
    n, h, v = _chunk_shape(rng)
    bias = rng.random() < 0.3
    s.init.append(f"self.proj = nn.Linear({h}, {v}, bias={bias})")
    x = s.add_input("x", f"torch.randn({shape_lit((n, h))}, generator=g)")
    y = s.add_input("y", f"torch.randint(0, {v}, ({n},), generator=g)")
    s.body.append(f"logits = self.proj({x})")
    if rng.random() < 0.25:
        s.body.append(f"logits = logits / {fmt(rng.choice((0.7, 2.0, 1.5)))}")
    if rng.random() < 0.15:
        s.body.append("logits = logits.float()")
    loss = rng.choice(("ce", "ce", "ce", "nll", "softmax_sum", "amax", "zloss", "sums", "segment"))
    dim = rng.choice((-1, 1, 0, -2))
    reduction = rng.choice(("mean", "mean", "sum", "none"))
    if loss == "ce":
        if rng.random() < 0.3:
            s.body.append(f"{y} = torch.where({y} % 5 == 0, -100, {y})")
        s.ret = f'F.cross_entropy(logits, {y}, reduction="{reduction}")'
    elif loss == "nll":
        s.ret = f'F.nll_loss(F.log_softmax(logits, dim=-1), {y}, reduction="{reduction}")'
    elif loss == "softmax_sum":
        s.ret = f"(logits.softmax(dim={dim}) * logits).sum()"
        if reduction == "none":
            s.ret = f"(logits.softmax(dim={dim}) * logits).sum(dim=-1)"
    elif loss == "amax":
        s.ret = f"(logits - logits.amax(dim={dim}, keepdim=True)).exp().sum()"
    elif loss == "zloss":
        s.ret = f"F.cross_entropy(logits, {y}) + 1e-4 * logits.logsumexp(dim={dim}).sum()"
    elif loss == "sums":  # reductions over several dims, and after a new leading dim
        s.ret = rng.choice(
            (
                "logits.tanh().sum([-2, -1])",
                "logits.tanh().sum([1, -2])",
                "logits.unsqueeze(0).tanh().sum([0]).sum()",
                "logits.tanh().sum([0, 1])",
            )
        )
    else:  # a segment sum of the rows: a scatter along the chunked dim
        groups = rng.choice((4, 16))
        s.body.append(f"index = ({y} % {groups}).unsqueeze(1).expand(-1, logits.shape[1])")
        s.body.append(f"per_group = logits.new_zeros({groups}, {v}).scatter_add(0, index, logits)")
        s.ret = "per_group.tanh().sum()"
    s.config["inductor.auto_chunker.enable"] = True
    chunks = rng.choice((None, None, None, 16, 32, 64))
    if chunks is not None:
        s.config["inductor.auto_chunker.num_chunk"] = chunks
    s.check["grad"] = True
    s.note(loss=loss, dim=dim, reduction=reduction, nhv=(n, h, v), bias=bias, chunks=chunks)
    return s


def _index(rng: random.Random, shape: tuple[int, ...], high: int, negative: bool) -> str:
    low = -high if negative else 0
    return f"torch.randint({low}, {high}, {shape_lit(shape)}, generator=g)"


def partitioned_scatter(rng: random.Random, target: str) -> Spec:
    """A scatter-add of at least 4096 writes into a small output, spelled as users write it:
    ``index_put_(..., accumulate=True)`` on a fresh or given tensor, ``index_add``, the
    gradient of ``table[idx]`` / ``table[:, idx]`` and of ``F.embedding``. Drawn: a 1-d or 2-d
    index (at dim 0 or 1), full or broadcast values, negative indices, the dtype."""
    s = Spec()
    form = rng.choice(("index_put", "index_put", "index_add", "getitem_grad", "embedding_grad"))
    rows = rng.choice((8, 16, 64, 100))
    cols = rng.choice((1, 3, 8))
    two_d = rng.random() < 0.5
    ishape = (64, 64) if two_d else (rng.choice((4096, 5000, 8192)),)
    negative = rng.random() < 0.2
    dtype = rng.choice(("float32", "float32", "float32", "float64", "float16", "int64", "int32"))
    if form in ("getitem_grad", "embedding_grad"):
        dtype = rng.choice(("float32", "float32", "float64"))
    if form in ("getitem_grad", "embedding_grad"):
        s.check["grad"] = True
    tdt = f"torch.{dtype}"
    if form == "index_put":
        at_dim1 = rng.random() < 0.3
        broadcast = rng.random() < 0.3
        out = (cols, rows) if at_dim1 else (rows, cols)
        vshape = (cols, *ishape) if at_dim1 else (*ishape, cols)
        if broadcast:
            vshape = (cols,) if not at_dim1 else (cols, *([1] * len(ishape)))
        x = s.add_input("x", f"torch.zeros({shape_lit(out)}, dtype={tdt})")
        idx = s.add_input("idx", _index(rng, ishape, rows, negative))
        val = s.add_input(
            "val", f"torch.randint(-3, 4, {shape_lit(vshape)}, generator=g).to({tdt})"
        )
        if at_dim1:  # x[:, idx] += val written with index_put_ needs a None: go through aten
            s.ret = f"torch.ops.aten.index_put({x}, [None, {idx}], {val}, True)"
        elif rng.random() < 0.5:
            s.ret = f"{x}.index_put(({idx},), {val}, accumulate=True)"
        else:
            s.body.append(f"out = {x}.clone()")
            s.body.append(f"out.index_put_(({idx},), {val}, accumulate=True)")
            s.ret = "out * 2"
        s.note(form=form, at_dim1=at_dim1, broadcast=broadcast)
    elif form == "index_add":
        dim = rng.choice((0, 1))
        n = ishape[0] * (ishape[1] if two_d else 1)
        out = (rows, cols) if dim == 0 else (cols, rows)
        src = (n, cols) if dim == 0 else (cols, n)
        x = s.add_input("x", f"torch.zeros({shape_lit(out)}, dtype={tdt})")
        idx = s.add_input("idx", f"torch.randint(0, {rows}, ({n},), generator=g)")
        val = s.add_input("val", f"torch.randint(-3, 4, {shape_lit(src)}, generator=g).to({tdt})")
        s.ret = f"{x}.index_add({dim}, {idx}, {val})"
        s.note(form=form, dim=dim)
    elif form == "getitem_grad":
        at_dim1 = rng.random() < 0.5
        tshape = (cols, rows) if at_dim1 else (rows, cols)
        t = s.add_input("table", f"torch.randn({shape_lit(tshape)}, generator=g, dtype={tdt})")
        idx = s.add_input("idx", _index(rng, ishape, rows, negative))
        s.ret = f"{t}[:, {idx}].sin()" if at_dim1 else f"{t}[{idx}].sin()"
        s.note(form=form, at_dim1=at_dim1)
    else:
        w = s.add_input(
            "weight", f"torch.randn({shape_lit((rows, cols))}, generator=g, dtype={tdt})"
        )
        idx = s.add_input("idx", f"torch.randint(0, {rows}, {shape_lit(ishape)}, generator=g)")
        s.ret = f"F.embedding({idx}, {w}).cos()"
        s.note(form=form)
    s.config["inductor.partitioned_scatter_enabled"] = True
    s.note(index_shape=ishape, negative=negative, dtype=dtype)
    return s


TEMPLATES_MEMORY: tuple[Template, ...] = (
    Template("auto_chunk", ("auto_chunker",), auto_chunk),
    Template("partitioned_scatter", ("create_replacement",), partitioned_scatter),
)
