"""``GET /metrics`` scraped after real cycles (real engines, scripted model) and parsed with
prometheus_client's own text parser."""

from __future__ import annotations

from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from thea.config import load_settings
from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime, build_runtime
from thea.testing.service import LiveServer, local_token, service_app


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(found: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted({"profile": "embedded", **labels}.items()))), 0.0)


def test_metrics_after_cycles(runtime: Runtime, llm: FakeChatModel) -> None:
    with LiveServer(service_app(runtime), local_token(runtime.settings)) as live:
        auth = live.headers
        for text in ("Ana works on Redis queues.", "Can you suggest a gift for Ana?"):
            said = httpx.post(f"{live.url}/api/v1/ask", json={"text": text}, headers=auth, timeout=60)
            assert said.status_code == 200
        llm.fail = {PromptId.SYNTHESIS}
        said = httpx.post(f"{live.url}/api/v1/ask", json={"text": "And now?"}, headers=auth, timeout=60)
        assert said.status_code == 200
        scraped = httpx.get(f"{live.url}/metrics", headers=auth)
    assert scraped.status_code == 200
    assert scraped.headers["content-type"].startswith("text/plain")
    found = samples(scraped.text)
    assert value(found, "thea_cycles_total", outcome="done") == 3
    assert value(found, "thea_cycle_seconds_count") == 3
    assert value(found, "thea_step_seconds_count", step="synthesis") == 3
    assert value(found, "thea_step_failures_total", step="synthesis") == 1
    # a statement is acknowledged without the model; a request and a question cost an answer each
    assert value(found, "thea_llm_calls_total") >= 1
    assert value(found, "thea_llm_tokens_total", direction="in") > 0
    assert value(found, "thea_recall_hits_total", stage="vectors") >= 1
    # no worker runs here: every cycle's crystallize job waits in its queue
    assert value(found, "thea_queue_jobs", queue="thea-crystallize", state="queued") == 3
    assert value(found, "thea_queue_jobs", queue="thea-crystallize", state="failed") == 0


def test_metrics_need_the_token_where_the_api_does(tmp_path: Path) -> None:
    settings = load_settings(
        "embedded", data_dir=tmp_path / "d", llm={"provider": "fake"}, service={"tokens": {"ana": "tok-a"}}
    )
    rt = build_runtime(settings, llm=FakeChatModel())
    try:
        with LiveServer(service_app(rt)) as live:
            assert httpx.get(f"{live.url}/metrics").status_code == 401
            ok = httpx.get(f"{live.url}/metrics", headers={"Authorization": "Bearer tok-a"})
            assert ok.status_code == 200
            assert "thea_cycle_seconds" in ok.text
    finally:
        rt.close()
