"""Background jobs run by ``python -m api`` next to the HTTP server."""
