"""Without OpenTelemetry installed, thea's spans are a no-op that never gets in the way."""

from __future__ import annotations

import pytest

from thea import tracing


def test_spans_are_a_no_op_without_opentelemetry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tracing, "_trace", None)  # as if the package were not installed
    with tracing.span("thea.cycle", {tracing.IMPULSE_ID: "i1", tracing.USER_ID: None}) as span:
        span.set("thea.step", "plan")
        span.fail("nothing happens")
    with pytest.raises(ValueError, match="the block's own error"), tracing.span("thea.job", {}):
        raise ValueError("the block's own error")
