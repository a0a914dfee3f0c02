"""Marker regions for Python programs profiled by rprof: the Python twin of rprof/marker.h.

    import rprof

    with rprof.region("matmul", flops=2 * n**3, bytes=3 * 4 * n * n, precision="fp32"):
        c = a @ b

    @rprof.region("step")          # every call of step() is a call of the region
    def step(): ...

    rprof.declare("matmul", flops=2 * n**3, bytes=12 * n * n, precision="fp32")
    rprof.active()                 # True when the program runs under rprof

`rprof python3 script.py` then reports every region as it does a C program's: calls, time, the
counters and, declared or counted (--counters sim), its FLOPs and bytes and its place on the
roofline. Under sim a region counts the work of every thread of the process while it is open:
NumPy's BLAS threads included.

Outside rprof (RPROF_MARKER_OUT unset or empty) nothing is loaded and every call returns at once:
the cost of a Python function call. Under rprof the calls go to librprof-marker.so.1 through
ctypes (no compiled extension): the library this module was configured with, else
$RPROF_MARKER_LIBRARY, else the dynamic loader's. When none loads, regions are not measured and
one line on stderr says why; the program itself runs on.

Contract (rprof/marker.h): a region begun in a thread must end in that thread; regions with
different names may nest and overlap; declarations are per call of the region (FLOPs and
compulsory bytes of one pass), the first one kept; `precision` is "fp64", "fp32" or None.
"""

import ctypes
import functools
import os
import sys

from rprof import _paths

__all__ = ["region", "declare", "active"]

_PRECISIONS = (None, "fp64", "fp32")
_library = None  # the loaded marker library, once _load() found it
_loaded = False  # _load() ran: its answer (a library, or None) is final for the process


def _load():
    global _library, _loaded
    if _loaded:
        return _library
    _loaded = True
    if not os.environ.get("RPROF_MARKER_OUT"):
        return None
    tried = []
    for path in (os.environ.get("RPROF_MARKER_LIBRARY"), _paths.LIBRARY, "librprof-marker.so.1"):
        if not path:
            continue
        try:
            library = ctypes.CDLL(path)
        except OSError as error:
            tried.append(str(error))
            continue
        for name in ("rprof_region_begin", "rprof_region_end"):
            function = getattr(library, name)
            function.argtypes = [ctypes.c_char_p]
            function.restype = None
        for name in ("rprof_region_declare", "rprof_region_declare_fp64",
                     "rprof_region_declare_fp32"):
            function = getattr(library, name, None)
            if function is not None:
                function.argtypes = [ctypes.c_char_p, ctypes.c_double, ctypes.c_double]
                function.restype = None
        _library = library
        return _library
    print("rprof: note: regions not measured: librprof-marker.so.1 not loaded (" +
          "; ".join(tried) + "); set RPROF_MARKER_LIBRARY to its path", file=sys.stderr)
    return None


def _encoded(name):
    if not isinstance(name, str) or not name:
        raise ValueError("rprof: a region's name is a non-empty str, not %r" % (name,))
    return name.encode("utf-8", "replace")


def active():
    """True when the program runs under rprof and regions are measured."""
    return _load() is not None


def declare(name, flops=None, bytes=None, precision=None):
    """Declares the model work of ONE call of region `name`: `flops` floating-point operations
    and `bytes` moved to or from memory (compulsory: each input read once, each output written
    once), in `precision` ("fp64", "fp32" or None). rprof multiplies them by the region's calls
    and checks them against what it counts. None leaves that part undeclared."""
    if precision not in _PRECISIONS:
        raise ValueError("rprof: precision is 'fp64', 'fp32' or None, not %r" % (precision,))
    encoded = _encoded(name)
    library = _load()
    if library is None:
        return
    function = library.rprof_region_declare
    if precision is not None:
        function = getattr(library, "rprof_region_declare_" + precision, None)
        if function is None:  # a marker library older than precisions: the work still counts
            function = library.rprof_region_declare
    function(encoded, -1.0 if flops is None else float(flops),
             -1.0 if bytes is None else float(bytes))


class region:
    """A region named `name`, as a context manager (`with rprof.region("mm"): ...`) or a
    decorator (`@rprof.region("mm")`). Given `flops`, `bytes` or `precision`, it declares them
    (declare()) when created."""

    __slots__ = ("_name",)

    def __init__(self, name, flops=None, bytes=None, precision=None):
        self._name = _encoded(name)
        if flops is not None or bytes is not None or precision is not None:
            declare(name, flops, bytes, precision)

    def __enter__(self):
        library = _library if _loaded else _load()
        if library is not None:
            library.rprof_region_begin(self._name)
        return self

    def __exit__(self, *exc):
        if _library is not None:
            _library.rprof_region_end(self._name)
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def measured(*args, **kwargs):
            with self:
                return function(*args, **kwargs)
        return measured
