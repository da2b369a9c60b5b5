"""Serving the API with the standard library's ``http.server``."""

from __future__ import annotations

import logging
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from api.app import Services
from api.server.handlers import JSON_TYPE, Request
from api.server.routes import dispatch

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 1 << 20


def make_handler(services: Services) -> type[BaseHTTPRequestHandler]:
    """Create a request handler class bound to ``services``."""

    class OrderRequestHandler(BaseHTTPRequestHandler):
        server_version = "order-service/0.4"

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY_BYTES:
                self.send_error(413, "request body too large")
                return
            body = self.rfile.read(length) if length else b""
            request = Request(self.command, urlsplit(self.path).path, body, dict(self.headers.items()))
            response = dispatch(services, request)
            payload = response.encode()
            self.send_response(response.status)
            self.send_header("Content-Type", JSON_TYPE)
            self.send_header("Content-Length", str(len(payload)))
            for name, value in response.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        do_GET = _handle
        do_POST = _handle

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            log.info("%s %s", self.address_string(), format % args)

    return OrderRequestHandler


def serve(services: Services) -> None:
    """Run the HTTP server until interrupted."""
    settings = services.settings
    server = ThreadingHTTPServer((settings.http_host, settings.http_port), make_handler(services))
    log.info("listening on http://%s:%d", settings.http_host, settings.http_port)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
