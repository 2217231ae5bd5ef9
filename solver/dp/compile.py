"""The one njit of the package: Numba's, with the on-disk cache switched off when no cache folder is
writable (solver/numba_setup.py decides).

With KNIFFEL_JIT=0 in the environment (read once, when this module is first imported) the kernels stay
plain Python and Numba is never imported: the same code, interpreted. That serves one quick answer in a
fresh process (`kniffel advise` from a solved table: loading Numba and its cached kernels costs most of a
second, one turn interpreted a few hundredths); anything heavy refuses to run so (require_jit).

Numba compiles a kernel once for each combination of its arguments' types, a caller's compile including its
callees'. So that each kernel compiles once: every index array is int64 (Rules, the keep lattice, the packed
buffers), and a kernel called with a constant integer gets np.int64(0) rather than 0 (a constant is typed
as its value, Literal[int](0), and compiles a version of its own). benchmarks/bench_compile.py lists the
kernels compiled more than once.

An array copied into a slice (a[i:] = b, a[:, c] = b[:, 0]) is written as a loop: Numba compiles each such
store with a shape check whose error message formats the shapes as text, about forty of its own string
kernels (str, repr, join of ints and tuples) per process, 5-9 s of a first `solve` (71 compiles, 26 without).

A kernel's compile also optimises, once more, the machine code of every kernel it calls (Numba links the callees'
code into the caller's and runs LLVM's optimiser over the whole), so each level of a call tree costs again all the
code below it: a kernel with a single njit caller, or a thin wrapper, is therefore inlined (inline="always": typed
as part of its caller, no level of its own). So are the deep kernels several callers share (policy._policy in the
solve's turn and the forward pass; moments._turn in the solve's lane kernel, which the advice's spread calls too):
loading a callee from the cache saves only its typing, its caller still optimises its code again. A parallel
(prange) kernel would cost a second copy of its call tree and Numba's parallel pass; the kernels that use every core
are plain nogil kernels on threads (lanes.py), which cost neither. benchmarks/compile_table.py lists, kernel by
kernel, where a first use's compile goes.
"""

from __future__ import annotations

import numpy as np

from .. import numba_setup
from ..errors import KniffelError
from ..i18n.texts import t

if numba_setup.JIT:
    from numba import njit as _numba_njit


def njit(*args, **options):
    if not numba_setup.JIT:
        return args[0] if args and callable(args[0]) else (lambda fn: fn)
    if not numba_setup.CACHE_ENABLED:
        options.pop("cache", None)
    return _numba_njit(*args, **options)


@njit(inline="always")
def unmasked(x):
    """x + 0.0: the same number (but -0.0, which becomes 0.0, and the tables hold none), for a store of an in-place
    maximum, arr[i] = unmasked(max(arr[i], v)). LLVM sees that the plain form stores arr[i] back unchanged when
    v is smaller, drops that store and vectorises the rest as a masked store (vmaskmovpd), which AMD Zen
    microcodes: such a loop ran 4x slower than with the plain store that + 0.0 keeps."""
    return x + 0.0


@njit(inline="always")
def unsigned(i):
    """i (an index that is never negative) as an unsigned integer, for a gathered load a[unsigned(idx[k])]: Numba
    then leaves out its wrap-around of negative indices (three instructions a load, as many as the load's own
    in the one-column lattice passes). Only as an index: unsigned and signed arithmetic mixes into float64."""
    return np.uint64(i)


if numba_setup.JIT:
    from numba import carray, types
    from numba.extending import intrinsic

    @intrinsic
    def _pointer_at(typingctx, buf, offset):
        """A pointer to item `offset` of buf (one dimension, contiguous)."""

        def codegen(context, builder, signature, args):
            data = context.make_array(signature.args[0])(context, builder, args[0]).data
            return builder.gep(data, [args[1]])

        return types.CPointer(buf.dtype)(buf, offset), codegen

    @njit(inline="always")
    def buffer_view(buf, offset, shape):
        """buf[offset:offset + prod(shape)] as an array of this shape, with no reference to buf: Numba counts
        references to every array a kernel reads (a call that takes Rules: two dozen atomic counts, 0.1-0.2
        us), a reshape costs 0.02-0.04 us, and such a view costs neither. Only for views that a kernel reads
        while buf is its argument, never to return or keep."""
        return carray(_pointer_at(buf, offset), shape)

else:

    def buffer_view(buf, offset, shape):
        return buf[offset : offset + int(np.prod(shape))].reshape(shape)


def entry_point(kernel, args):
    """The compiled function behind `kernel` for these arguments' types, to call without Numba's dispatch by
    type (about 0.35 us of a best_action call); `kernel` itself while kernels are interpreted or when it has
    no such compiled version yet. Call it only with arguments of the same types: it does not check them."""
    if not numba_setup.JIT:
        return kernel
    from numba import typeof

    compiled = getattr(kernel, "overloads", {}).get(tuple(typeof(a) for a in args))
    return getattr(compiled, "entry_point", kernel)  # Numba's internals: the dispatcher if they change


def thread_count() -> int:
    """The threads the multi-threaded kernels run on (lanes.in_threads; 1 while the kernels are interpreted)."""
    if not numba_setup.JIT:
        return 1
    import numba

    return numba.get_num_threads()


# True only in the tests' interpreted child (tests/conftest.py): heavy work on tiny variants takes seconds there
HEAVY_WORK_INTERPRETED = False


def require_jit(what: str, **fields) -> None:
    """Refuse heavy work while the kernels are interpreted (KNIFFEL_JIT=0): it would take hours. `what`: the
    catalogue's key of the work (jit_solve, jit_simulate, ...), its fields."""
    if not numba_setup.JIT and not HEAVY_WORK_INTERPRETED:
        raise KniffelError(t("jit_needed", what=t(what, **fields)))


__all__ = ["buffer_view", "entry_point", "njit", "require_jit", "thread_count", "unmasked", "unsigned"]
