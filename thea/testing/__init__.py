"""Shipped helpers for tests, benchmarks and scripts (screenshots): the service's app around a
runtime, a live uvicorn server in a thread, and seeded memories. The fake model itself lives in
:mod:`thea.llm.fake`. Nothing here runs in production."""
