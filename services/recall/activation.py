"""Spreading activation over typed concept relations.

Activation starts at 1.0 on the seed concepts and flows along relations (either
direction): a neighbour receives ``activation * decay[relation] * confidence``
and keeps the best value it is offered. Spreading stops at ``threshold`` or
``max_depth`` hops. One neighbour lookup per hop for the whole frontier.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from thea.tuning import ActivationTuning

#: (from concept id, to concept id, relation type, confidence or None)
Neighbour = tuple[str, str, str, float | None]
NeighbourFetch = Callable[[list[str]], Iterable[Neighbour]]

#: the relations' decays and the other knobs live in thea.tuning (ActivationConfig is its model)
ActivationConfig = ActivationTuning


def spread(
    seeds: Iterable[str], fetch: NeighbourFetch, config: ActivationConfig | None = None
) -> dict[str, float]:
    """Activation of every concept reached (seeds included, at 1.0)."""
    cfg = config or ActivationConfig()
    activation = {seed: 1.0 for seed in seeds}
    frontier = list(activation)
    for _hop in range(cfg.max_depth):
        if not frontier:
            break
        offers: dict[str, float] = {}
        for src, dst, rel, confidence in fetch(frontier):
            decay = cfg.decay_of(rel)
            conf = cfg.default_confidence if confidence is None else confidence
            value = activation.get(src, 0.0) * decay * conf
            if value >= cfg.threshold and value > activation.get(dst, 0.0) and value > offers.get(dst, 0.0):
                offers[dst] = value
        activation.update(offers)
        frontier = list(offers)
    return activation
