"""Op spec modules, one per family; importing this package registers every spec."""

from torchsmith.generate.graph.ops import (  # noqa: F401
    binary,
    conv_pool,
    edge,
    indexing,
    inplace,
    layout,
    linalg,
    logic,
    nn_misc,
    norm_act,
    pointwise,
    reduction,
)
