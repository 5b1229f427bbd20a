"""The record of the web page's TCP listeners (thea.service.web_listeners): kept across a crash
or a maintenance restart, forgotten when the service is stopped on purpose."""

from __future__ import annotations

from pathlib import Path

from thea.locations import ServicePaths
from thea.service.stopping import StopCause
from thea.service.web_listeners import DELIBERATE_STOPS, WebListener, forget, recorded, remember


def test_listeners_are_recorded_once_and_forgotten(tmp_path: Path) -> None:
    paths = ServicePaths.of(tmp_path)
    paths.run_dir.mkdir()
    assert recorded(paths) == []
    web = WebListener(host="127.0.0.1", port=8765)
    remember(paths, web)
    remember(paths, web)
    remember(paths, WebListener(host="::1", port=8000))
    assert recorded(paths) == [web, WebListener(host="::1", port=8000)]
    forget(paths)
    forget(paths)
    assert recorded(paths) == []


def test_a_damaged_record_opens_nothing(tmp_path: Path) -> None:
    paths = ServicePaths.of(tmp_path)
    paths.run_dir.mkdir()
    paths.web_file.write_text('{"listeners": [{"host": "127.0.0.1", "port": 0}]}')
    assert recorded(paths) == []
    paths.web_file.write_text("not json")
    assert recorded(paths) == []


def test_only_a_stop_the_user_asked_for_forgets_the_web_page() -> None:
    assert {StopCause.API, StopCause.SIGNAL} == DELIBERATE_STOPS
    assert StopCause.MAINTENANCE not in DELIBERATE_STOPS  # comes back after `thea memory repair`
    assert StopCause.FAILED not in DELIBERATE_STOPS
