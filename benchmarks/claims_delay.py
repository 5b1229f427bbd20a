"""How long after a statement is said its claims are stored (issue 36: at most 15 s on an idle
machine with the default slow-loop model).

A real service (``thea.service run``, the offline models) on a fresh data directory; one user
tells ``--statements`` ordinary facts, one at a time, each after the previous one's claims are in
(so each is measured on an idle slow loop, as after a pause in a chat): the delay is from the
moment the acknowledgement arrives to the moment ``memories`` lists a claim read from it.
A statement whose claims never come within ``--timeout`` counts as missing, not as a delay.

``python -m benchmarks.claims_delay [--statements 8] [--timeout 120]``
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.live_memory import LiveService
from thea.client import Client

STATEMENTS = [
    "I live in Leeds with my partner Sam.",
    "I work as a physiotherapist at the Royal Infirmary.",
    "Our dog Biscuit is a three year old beagle.",
    "My sister Ana moved to Porto last month.",
    "I'm allergic to shellfish.",
    "My car is a grey 2018 Honda Jazz.",
    "We're going to Lisbon on the 14th of May.",
    "I play five-a-side football on Thursday evenings.",
    "My son Leo starts school in September.",
    "Sam's birthday is on the 3rd of August.",
]


def claims_from(client: Client, impulse_id: str) -> int:
    view = client.memories(include_history=True)
    return sum(1 for group in view.subjects for fact in group.facts if fact.source.id == impulse_id)


def measure(statements: int, timeout_s: float) -> tuple[list[float], int]:
    delays: list[float] = []
    missing = 0
    with tempfile.TemporaryDirectory(prefix="thea-claims-delay-") as tmp:
        service = LiveService(Path(tmp) / "data", "local")
        with service, service.client(user="delay") as client:
            client.ask("Hello!", session_id="warm")  # the answering model is loaded and warm
            for n, text in enumerate(STATEMENTS[:statements], 1):
                said = client.ask(text, session_id="delay")
                started = time.monotonic()
                while claims_from(client, said.impulse_id) == 0:
                    if time.monotonic() - started > timeout_s:
                        missing += 1
                        print(f"{n}. {text!r}: no claim within {timeout_s:.0f} s")
                        break
                    time.sleep(0.25)
                else:
                    delays.append(time.monotonic() - started)
                    print(f"{n}. {text!r}: claims stored {delays[-1]:.1f} s after the acknowledgement")
    return delays, missing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--statements", type=int, default=8)
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    delays, missing = measure(min(args.statements, len(STATEMENTS)), args.timeout)
    if delays:
        print(
            f"claims stored after: median {statistics.median(delays):.1f} s, max {max(delays):.1f} s "
            f"over {len(delays)} statements; {missing} without a claim"
        )


if __name__ == "__main__":
    main()
