"""The offline GGUF model in-process (xllamacpp) as a LangChain chat model.

Loads lazily on first call (about 1.5 s), runs one generation at a time (one
llama context), streams real tokens through xllamacpp's chunk callback, and
supports JSON-schema constrained output (``response_format``), which
:func:`thea.llm.structured.ainvoke_structured` uses. A timed-out call cannot be
interrupted inside llama.cpp: the caller gets LLMTimeout while the generation
finishes in the background (bounded by ``max_tokens``). A *stream* that its consumer
closes (a cancelled answer, a background job giving the model up to a cycle) stops
decoding at the next token.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict, PrivateAttr

from thea.errors import LLMError
from thea.llm.cpu_share import CoreWatch, pick_level, thread_levels
from thea.llm.scheduler import START_CHECK, Deferred

log = logging.getLogger(__name__)

_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}
_DONE = object()


def to_openai(messages: list[BaseMessage]) -> list[dict[str, str]]:
    return [{"role": _ROLES.get(m.type, "user"), "content": str(m.text)} for m in messages]


def _usage(raw: dict[str, Any] | None) -> UsageMetadata:
    raw = raw or {}
    prompt, completion = int(raw.get("prompt_tokens", 0)), int(raw.get("completion_tokens", 0))
    return UsageMetadata(input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion)


#: a background prompt is evaluated this many characters at a time (~150 tokens, well under a
#: second on 2 cores), so a question waits for at most one slice, not for a whole long prompt
SLICE_CHARS = 600


def prompt_slices(
    messages: list[dict[str, str]], size: int = SLICE_CHARS, skip: int = 0
) -> list[list[dict[str, str]]]:
    """Growing prefixes of ``messages`` (the last message of each cut short), ``size``
    characters apart, beyond the first ``skip`` characters (already evaluated: the prompt cache
    holds them); the whole prompt is not among them. Each one's chat-templated text starts like
    the whole prompt's, so llama.cpp's prompt cache reuses every evaluated slice."""
    total = sum(len(m["content"]) for m in messages)
    out: list[list[dict[str, str]]] = []
    for cut in range(skip + size, total - size // 2, size):
        prefix: list[dict[str, str]] = []
        left = cut
        for message in messages:
            if left <= 0:
                break
            prefix.append({**message, "content": message["content"][:left]})
            left -= len(message["content"])
        out.append(prefix)
    return out


def prompt_text(messages: list[dict[str, str]]) -> str:
    """What a prompt's messages say, in order (to compare prompts by their common start)."""
    return "\x00".join(f"{m['role']}\x01{m['content']}" for m in messages)


def shared_start(a: str, b: str) -> int:
    """How many characters two texts share at their start."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def cached_chars(messages: list[dict[str, str]], recent: Sequence[str]) -> int:
    """Characters of the messages' contents that an earlier whole prompt (``recent``, as
    :func:`prompt_text` wrote it) already evaluated: the longest shared start, in content
    characters (role markers and separators do not count)."""
    text = prompt_text(messages)
    shared = max((shared_start(text, earlier) for earlier in recent), default=0)
    done, at = 0, 0
    for m in messages:
        head = len(m["role"]) + 1  # the role and its marker
        if shared <= at + head:
            break
        done += min(len(m["content"]), shared - at - head)
        at += head + len(m["content"]) + 1
    return done


class RecentPrompts:
    """The whole prompts the model evaluated last, one per prompt family (its first message: a
    system prompt), the least recently used dropped beyond ``keep``. One per family, not the
    last few calls: eight short sort calls after a claims reading had pushed the reading's
    prompt out of a list of the last three, and its next call was sliced and evaluated from the
    start (50 s a message on 2 cores) though its 2,300-token system prompt was still in a slot."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self._by_family: dict[str, str] = {}

    @staticmethod
    def _family(messages: list[dict[str, str]]) -> str:
        return prompt_text(messages[:1])

    def add(self, messages: list[dict[str, str]]) -> None:
        family = self._family(messages)
        self._by_family.pop(family, None)
        self._by_family[family] = prompt_text(messages)
        while len(self._by_family) > self.keep:
            del self._by_family[next(iter(self._by_family))]

    def cached(self, messages: list[dict[str, str]]) -> int:
        """Content characters of ``messages`` an earlier prompt already evaluated."""
        return cached_chars(messages, list(self._by_family.values()))


def warm_in_slices(
    server: Any, messages: list[dict[str, str]], start_if: Callable[[], bool], skip: int = 0
) -> bool:
    """Evaluate a background prompt slice by slice (one token generated each, thrown away),
    checking ``start_if`` before each: False as soon as it says no. llama.cpp cannot be
    interrupted while it evaluates a prompt; this bounds how long a question waits for it. The
    first ``skip`` characters are in the prompt cache already and are not sliced again (slicing
    them would cut the cached prompt short and evaluate it all over)."""
    for prefix in prompt_slices(messages, skip=skip):
        if not start_if():
            return False
        server.handle_chat_completions({"messages": prefix, "max_tokens": 1, "temperature": 0.0})
    return start_if()


def usable_threads(wanted: int) -> int:
    """No more model threads than cores this process may run on (a thread without a core of
    its own makes every other thread wait for it at each operation)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(wanted, cores))


class LocalChatModel(BaseChatModel):
    """A GGUF chat model run in this process by llama.cpp (xllamacpp)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model_path: str
    model_name: str = "qwen2.5-coder-0.5b-instruct-q4_k_m"
    n_ctx: int = 4096
    #: prompts kept evaluated side by side (llama.cpp's slots, each ``n_ctx`` tokens): a model
    #: that alternates between two prompts (claims and their comparison) re-reads neither
    slots: int = 1
    threads: int = 2
    #: llama.cpp's busy-wait level between operations (0 = threads sleep; see LLMSettings.poll)
    poll: int = 0
    #: run each call on the cores free at that moment (see LLMSettings.adapt_threads)
    adapt_threads: bool = True
    #: penalty on recently generated tokens for free-text answers (1.0 = none; see
    #: LLMSettings.repeat_penalty); never applied to JSON-constrained calls
    repeat_penalty: float = 1.0
    temperature: float = 0.2
    max_tokens: int = 384
    #: Tells thea's structured-output helper that JSON-schema decoding is supported.
    supports_json_schema: bool = True
    #: takes the scheduler's start check (thea.llm.scheduler.START_CHECK) on streamed calls
    supports_start_check: bool = True

    _server: Any = PrivateAttr(default=None)
    #: smaller contexts by thread count, for calls while other processes take cores
    _reduced: dict[int, Any] = PrivateAttr(default_factory=dict)
    _watch: CoreWatch | None = PrivateAttr(default=None)
    _load_lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _run_lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    #: the whole prompts the model evaluated last (one per slot and one more), to know what of a
    #: new prompt its prompt cache already holds
    _recent: RecentPrompts = PrivateAttr(default_factory=lambda: RecentPrompts(keep=3))

    @property
    def _llm_type(self) -> str:
        return "thea-local-gguf"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name, "n_ctx": self.n_ctx}

    @property
    def loaded(self) -> bool:
        return self._server is not None

    def warm_up(self) -> None:
        """Load the weights now (the service does this in the background at start)."""
        self._load()

    def _params(self, threads: int) -> Any:
        try:
            import xllamacpp
        except ImportError as exc:
            raise LLMError("xllamacpp is not installed: pip install xllamacpp") from exc
        params = xllamacpp.CommonParams()
        params.model.path = self.model_path
        params.n_ctx = self.n_ctx * self.slots
        params.n_parallel = self.slots
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        # busy-waiting threads fight any other CPU-bound process for its core, and two
        # threads that wait for each other then lose a scheduler slice per operation
        params.cpuparams.poll = self.poll
        params.cpuparams_batch.poll = self.poll
        params.verbosity = -1
        return params

    def _new_server(self, threads: int) -> Any:
        import xllamacpp

        params = self._params(threads)
        started = time.perf_counter()
        try:
            server = xllamacpp.Server(params)
        except Exception as exc:
            raise LLMError(f"cannot load the local model {self.model_path}: {exc}") from exc
        log.info(
            "loaded local model %s (a %d-thread context) in %.1f s",
            self.model_name,
            threads,
            time.perf_counter() - started,
        )
        return server

    def _load(self) -> Any:
        if self._server is not None:
            return self._server
        with self._load_lock:
            if self._server is None:
                levels = thread_levels(usable_threads(self.threads))
                self._server = self._new_server(levels[0])
                if self.adapt_threads and len(levels) > 1:
                    self._watch = CoreWatch()
                    self._watch.start()
                    threading.Thread(
                        target=self._load_reduced, args=(levels[1:],), name="thea-llm-reduced", daemon=True
                    ).start()
        return self._server

    def _load_reduced(self, levels: list[int]) -> None:
        """Contexts with fewer threads over the same weights (memory-mapped, so shared: each
        adds its KV cache and buffers, ~150 MB for the default model), for busy moments."""
        for threads in levels:
            try:
                server = self._new_server(threads)
            except LLMError as exc:
                log.warning("no %d-thread context for busy moments: %s", threads, exc)
                return
            self._reduced = {**self._reduced, threads: server}  # rebound whole: readers never see it change

    def _pick_server(self) -> Any:
        """The context whose thread count fits the cores free right now (call under the run lock)."""
        server = self._load()
        if self._watch is None or not self._reduced:
            return server
        levels = thread_levels(usable_threads(self.threads))
        threads = pick_level([levels[0], *self._reduced], self._watch.free_cores())
        if threads == levels[0]:
            return server
        log.debug("other processes take %.1f cores: %d model threads", self._watch.busy_elsewhere(), threads)
        return self._reduced[threads]

    def _request(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        request: dict[str, Any] = {
            "messages": to_openai(messages),
            "max_tokens": int(kwargs.get("max_tokens", self.max_tokens)),
            "temperature": float(kwargs.get("temperature", self.temperature)),
        }
        if stop:
            request["stop"] = stop
        if kwargs.get("response_format"):
            request["response_format"] = kwargs["response_format"]
        elif self.repeat_penalty != 1.0:
            request["repeat_penalty"] = self.repeat_penalty
        return request

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self._load()
        request = self._request(messages, stop, kwargs)
        started = time.perf_counter()
        with self._run_lock:
            self._recent.add(request["messages"])
            try:
                reply = self._pick_server().handle_chat_completions(request)
            except Exception as exc:
                raise LLMError(f"local model failed: {exc}") from exc
        if not isinstance(reply, dict) or "choices" not in reply:
            raise LLMError(f"local model returned an unexpected reply: {str(reply)[:200]}")
        if "error" in reply:
            raise LLMError(f"local model error: {reply['error']}")
        text = reply["choices"][0].get("message", {}).get("content") or ""
        message = AIMessage(
            content=text,
            usage_metadata=_usage(reply.get("usage")),
            response_metadata={
                "model_name": self.model_name,
                "latency_ms": (time.perf_counter() - started) * 1000,
            },
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        self._load()
        start_if: Callable[[], bool] | None = kwargs.pop(START_CHECK, None)
        request = {
            **self._request(messages, stop, kwargs),
            "stream": True,
            "stream_options": {"include_usage": True},  # token counts arrive in a last chunk
        }
        chunks: queue.Queue[Any] = queue.Queue()
        stop_decoding = threading.Event()

        def on_chunk(chunk: Any) -> bool:
            chunks.put(chunk)
            return stop_decoding.is_set()  # True makes llama.cpp cancel the generation

        def produce() -> None:
            with self._run_lock:
                try:
                    server = self._pick_server()
                    skip = self._recent.cached(request["messages"])
                    if start_if is not None and not warm_in_slices(
                        server, request["messages"], start_if, skip
                    ):
                        # a cycle started while this background call waited for the model (or
                        # between two slices of its prompt): give the model up to the cycle
                        chunks.put(Deferred())
                    elif not stop_decoding.is_set():
                        self._recent.add(request["messages"])
                        reply = server.handle_chat_completions(request, on_chunk)
                        if isinstance(reply, dict) and "error" in reply:  # e.g. a prompt too long
                            chunks.put(LLMError(f"local model error: {_error_text(reply['error'])}"))
                except Exception as exc:
                    chunks.put(LLMError(f"local model failed: {exc}"))
                finally:
                    chunks.put(_DONE)

        threading.Thread(target=produce, name="thea-llm-stream", daemon=True).start()
        try:
            while (item := chunks.get()) is not _DONE:
                chunk = _chunk_of(item)
                if chunk is None:
                    continue
                if run_manager and chunk.text:
                    run_manager.on_llm_new_token(chunk.text, chunk=chunk)
                yield chunk
        finally:
            # the consumer stopped early (cancelled answer, preempted background job):
            # stop decoding at the next token instead of finishing the generation unseen
            stop_decoding.set()


def _chunk_of(item: Any) -> ChatGenerationChunk | None:
    """A streamed piece of llama.cpp's answer as a LangChain chunk (text, or the token counts of
    the last one); None for a piece that carries neither. Raises what the stream reported."""
    if isinstance(item, Exception):
        raise item
    if isinstance(item, dict) and "error" in item:
        raise LLMError(f"local model error: {_error_text(item['error'])}")
    if not isinstance(item, dict) or not (item.get("choices") or item.get("usage")):
        return None
    choices = item.get("choices") or [{}]
    piece = (choices[0].get("delta") or {}).get("content") or ""
    usage = _usage(item["usage"]) if item.get("usage") else None
    if not (piece or usage):
        return None
    return ChatGenerationChunk(message=AIMessageChunk(content=piece, usage_metadata=usage))


def _error_text(error: Any) -> str:
    """The message of a llama.cpp error reply (a dict with ``message``, or plain text)."""
    if isinstance(error, dict):
        return str(error.get("message") or error)[:300]
    return str(error)[:300]
