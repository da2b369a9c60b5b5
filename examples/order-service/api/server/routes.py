"""URL routing: maps method and path patterns to handler functions."""

from __future__ import annotations

import logging
import re
from typing import Callable, Pattern

from api.app import Services
from api.errors import OrderServiceError
from api.server import handlers
from api.server.handlers import Request, Response, error_response

log = logging.getLogger(__name__)

Handler = Callable[[Services, Request], Response]

_PARAM = re.compile(r"\{(\w+)\}")


def compile_path(template: str) -> Pattern[str]:
    """Turn ``/orders/{order_id}`` into a regex with named groups."""
    return re.compile("^" + _PARAM.sub(r"(?P<\1>[A-Za-z0-9_-]+)", template) + "$")


ROUTES: list[tuple[str, Pattern[str], Handler]] = [
    ("GET", compile_path("/healthz"), handlers.health),
    ("POST", compile_path("/orders"), handlers.create_order),
    ("GET", compile_path("/orders/{order_id}"), handlers.get_order),
    ("GET", compile_path("/orders/{order_id}/status"), handlers.get_order_status),
    ("POST", compile_path("/orders/{order_id}/cancel"), handlers.cancel_order),
    ("POST", compile_path("/orders/{order_id}/retry"), handlers.retry_payment),
    ("POST", compile_path("/orders/{order_id}/ship"), handlers.ship_order),
    ("POST", compile_path("/payments/callback"), handlers.payment_callback),
]


def dispatch(services: Services, request: Request) -> Response:
    """Find the route for ``request``, run it and turn errors into responses."""
    path_matched = False
    for method, pattern, handler in ROUTES:
        match = pattern.match(request.path)
        if match is None:
            continue
        path_matched = True
        if method != request.method:
            continue
        routed = Request(request.method, request.path, request.body, request.headers,
                         match.groupdict())
        try:
            return handler(services, routed)
        except OrderServiceError as exc:
            return error_response(exc)
        except Exception:
            log.exception("unhandled error in %s %s", request.method, request.path)
            return Response(500, {"error": "internal_error", "message": "unexpected error"})
    if path_matched:
        return Response(405, {"error": "method_not_allowed", "message": request.method})
    return Response(404, {"error": "not_found", "message": request.path})
