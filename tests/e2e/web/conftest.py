"""The browser tests run the web page against the same in-process service as tests/web."""

from tests.web.conftest import _reset_llm, llm, runtime, web_settings

__all__ = ["_reset_llm", "llm", "runtime", "web_settings"]
