"""The API's routes, below :data:`thea.api.PREFIX`: the service's routers declare them and the
clients' specs (``thea/client/specs.py``) call them, so the two sides name each path once.
``{name}`` is a path parameter. ``tests/unit/test_api_routes.py`` checks that every route has
a client call and every client call a route."""

from __future__ import annotations

# -- the service --------------------------------------------------------------------------
HEALTH = "/health"
STATUS = "/status"
DOCTOR = "/doctor"
WHOAMI = "/whoami"
#: the caller's data as a whole (``DELETE``: everything thea has of them)
ME = "/me"
JOBS = "/jobs"
SLOW_LOOP = "/slow-loop"
JOBS_RETRY = "/jobs/retry"
MEMORY_STATS = "/memory/stats"
MEMORY_CHECK = "/memory/check"
MEMORY_REPAIR = "/memory/repair"
MEMORY_OPTIMIZE = "/memory/optimize"
SERVICE_STOP = "/service/stop"
SERVICE_LISTEN = "/service/listen"

# -- the cycle and conversations ----------------------------------------------------------
ASK = "/ask"
CHAT = "/chat"
SESSIONS = "/sessions"
SESSION = "/sessions/{session_id}"
TRACE = "/traces/{impulse}"

# -- knowledge ----------------------------------------------------------------------------
INSIGHTS = "/insights"
INSIGHT = "/insights/{insight_id}"
GRAPH = "/graph"
FACTS = "/facts"
FACT = "/facts/{fact_id}"
FORGET = "/forget"
FEEDBACK = "/feedback"
REFLECT = "/reflect"
EXPORT = "/export"
IMPORT = "/import"
RECALL = "/recall"
REMEMBER = "/remember"
