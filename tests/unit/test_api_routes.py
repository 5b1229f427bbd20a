"""Every route of the API has a client call and every client call a route (method and path,
both named in thea/api/paths.py); each call's answer is the model its route declares; every
request body is one the route's request model accepts; the package ships ``py.typed``."""

from __future__ import annotations

import inspect
import itertools
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from types import NoneType, UnionType
from typing import Any, Literal, get_args, get_origin

import pytest
from fastapi.routing import APIRoute
from pydantic import BaseModel, TypeAdapter

from thea.api import PREFIX, paths
from thea.client import specs
from thea.client.asynchronous import AsyncClient
from thea.client.sync import Client
from thea.service.routes import admin, cycle, facts, history, knowledge, memories, sessions

ROUTERS = (cycle, sessions, knowledge, facts, memories, history, admin)
#: the value a spec function is called with, by parameter type
SAMPLES: dict[Any, Any] = {str: "ab12", int: 1, float: 1.5, bool: False}


def api_routes() -> dict[tuple[str, str], APIRoute]:
    found: dict[tuple[str, str], APIRoute] = {}
    for module in ROUTERS:
        for route in module.router.routes:
            assert isinstance(route, APIRoute)
            for method in route.methods:
                found[(method, route.path)] = route
    return found


#: ... and by parameter name, where a string must be one of a few
BY_NAME: dict[str, Any] = {"fmt": "auto"}


def _values(hint: Any) -> list[Any]:
    if get_origin(hint) is Literal:
        return list(get_args(hint))
    if get_origin(hint) in (UnionType, typing.Union):
        return [v for arg in get_args(hint) if arg is not NoneType for v in _values(arg)][:1]
    return [SAMPLES[hint]]


def spec_functions() -> list[Callable[..., specs.Spec[Any]]]:
    return [
        fn
        for name, fn in inspect.getmembers(specs, inspect.isfunction)
        if fn.__module__ == specs.__name__
        and not name.startswith("_")
        and typing.get_type_hints(fn).get("return", None) is not None
        and get_origin(typing.get_type_hints(fn)["return"]) is specs.Spec
    ]


def client_specs() -> Iterator[tuple[str, specs.Spec[Any]]]:
    """Each spec function called with every combination of its literal arguments."""
    for fn in spec_functions():
        hints = typing.get_type_hints(fn)
        params = [
            p for p in inspect.signature(fn).parameters.values() if p.default is inspect.Parameter.empty
        ]
        choices = [[BY_NAME[p.name]] if p.name in BY_NAME else _values(hints[p.name]) for p in params]
        for combo in itertools.product(*choices):
            yield fn.__name__, fn(*combo)


def test_the_route_constants_are_the_routes() -> None:
    declared = {v for k, v in vars(paths).items() if k.isupper()}
    assert declared == {path for _, path in api_routes()}


def test_every_route_has_a_client_call_and_every_call_a_route() -> None:
    routes = set(api_routes())
    called = {(spec.method, spec.route) for _, spec in client_specs()}
    assert routes - called == set(), "routes no client calls"
    assert called - routes == set(), "client calls to no route"


def test_each_call_parses_what_its_route_answers() -> None:
    routes = api_routes()
    for name, spec in client_specs():
        declared = routes[(spec.method, spec.route)].response_model
        if spec.model is not None and declared is not None:
            assert spec.model is declared, name


def request_body(route: APIRoute) -> Any:
    """The type a route reads its JSON body into (a model, or a union of them); None: no body."""
    hints = typing.get_type_hints(route.endpoint, include_extras=True)
    hints.pop("return", None)
    found = [
        hint
        for hint in hints.values()
        if any(isinstance(a, type) and issubclass(a, BaseModel) for a in _flat(hint))
    ]
    assert len(found) <= 1, route.path
    return found[0] if found else None


def _flat(hint: Any) -> Iterator[Any]:
    yield hint
    for arg in get_args(hint):
        yield from _flat(arg)


def test_each_body_fits_its_routes_request_model() -> None:
    routes = api_routes()
    checked = 0
    for name, spec in client_specs():
        body = request_body(routes[(spec.method, spec.route)])
        if body is None:
            assert not spec.json, f"{name} sends a body its route does not read"
            continue
        assert spec.json is not None, name
        TypeAdapter(body).validate_python(spec.json)  # the service accepts it
        checked += 1
    assert checked >= 15


def test_every_spec_is_called_by_both_clients() -> None:
    names = {fn.__name__ for fn in spec_functions()}
    for client in (Client, AsyncClient):
        source = inspect.getsource(client)
        assert {n for n in names if f"specs.{n}(" not in source} == set(), client.__name__


def test_path_parameters_are_quoted() -> None:
    assert specs.memory("a/b").url == PREFIX + "/facts/a%2Fb"
    assert specs.trace("x y", None).path == "/traces/x%20y"


def test_a_body_the_model_refuses_is_an_input_error() -> None:
    from thea.errors import InputError

    with pytest.raises(InputError, match="id"):
        specs.forget("not an id")


def test_the_package_ships_py_typed() -> None:
    import thea

    assert (Path(thea.__file__).parent / "py.typed").is_file()
