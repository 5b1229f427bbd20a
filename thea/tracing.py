"""OpenTelemetry spans for every cycle, cycle step and slow-loop job, linked by the impulse id.

Optional: with the ``otel`` extra installed (``pip install 'thea[otel]'``) and a tracer provider
configured (e.g. ``opentelemetry-instrument thea service run`` with ``OTEL_*`` variables, or
``trace.set_tracer_provider`` in your own process), thea's spans go wherever that provider sends
them. Without the package, or without a configured provider, :func:`span` costs a function call.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

Attribute = str | int | float | bool

#: attribute names thea sets (one vocabulary for cycles, steps and jobs)
IMPULSE_ID = "thea.impulse_id"
TASK_ID = "thea.task_id"
STEP = "thea.step"
USER_ID = "thea.user_id"
JOB_ID = "thea.job_id"
JOB_FUNCTION = "thea.job_function"

_UNSET = object()
_trace: Any = _UNSET


def _otel_trace() -> Any:
    """``opentelemetry.trace``, or None when the package is not installed (looked up once)."""
    global _trace
    if _trace is _UNSET:
        try:
            _trace = importlib.import_module("opentelemetry.trace")
        except ImportError:
            _trace = None
    return _trace


class SpanHandle:
    """What the code inside a span may do: add attributes, mark it failed."""

    def __init__(self, otel_span: Any = None) -> None:
        self._span = otel_span

    def set(self, key: str, value: Attribute) -> None:
        if self._span is not None:
            self._span.set_attribute(key, value)

    def fail(self, message: str) -> None:
        trace = _otel_trace()
        if self._span is not None and trace is not None:
            self._span.set_status(trace.Status(trace.StatusCode.ERROR, message))


@contextmanager
def span(name: str, attributes: Mapping[str, Attribute | None]) -> Iterator[SpanHandle]:
    """A span named ``name`` around the block (a no-op handle without OpenTelemetry).

    An exception leaving the block marks the span failed (cancellation included)."""
    trace = _otel_trace()
    if trace is None:
        yield SpanHandle()
        return
    clean = {k: v for k, v in attributes.items() if v is not None}
    tracer = trace.get_tracer("thea")
    with tracer.start_as_current_span(name, attributes=clean) as otel_span:
        yield SpanHandle(otel_span)
