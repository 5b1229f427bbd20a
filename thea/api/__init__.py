"""The thea service's HTTP API: one versioned contract for every client.

The service (``thea.service``) serves it; the terminal, the web page, ``thea.Client`` and
the other interfaces call it. This package holds only the request and response models and
the paths, so a client can import it without any engine, model or service code.
"""

from __future__ import annotations

API_VERSION = "v1"
PREFIX = f"/api/{API_VERSION}"
#: header a local caller (unix socket, or loopback without tokens) may use to pick its user
USER_HEADER = "X-Thea-User"
#: response header carrying the impulse id of an answer (also in the body)
IMPULSE_HEADER = "X-Thea-Impulse-Id"
#: request header naming one logical write: a retry sends the same key and gets the first result
IDEMPOTENCY_HEADER = "Idempotency-Key"

__all__ = ["API_VERSION", "IDEMPOTENCY_HEADER", "IMPULSE_HEADER", "PREFIX", "USER_HEADER"]
