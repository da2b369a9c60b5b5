"""Command line: ``python -m api serve`` or ``python -m api close-expired``."""

from __future__ import annotations

import argparse
import json
import logging
import sys

from api.app import build_services
from api.config import load_settings
from api.errors import ConfigError
from api.server.httpd import serve
from api.jobs.runner import start_in_background
from api.jobs.timeout_close import close_expired_orders

TIMEOUT_JOB_INTERVAL_SECONDS = 60.0


def main(argv: list[str] | None = None) -> int:
    """Parse arguments and run the chosen command."""
    parser = argparse.ArgumentParser(prog="python -m api", description=__doc__)
    parser.add_argument("command", choices=["serve", "close-expired", "config"])
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        settings = load_settings()
    except ConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2

    if args.command == "config":
        print(json.dumps(settings.describe(), indent=2))
        return 0
    services = build_services(settings)
    if args.command == "close-expired":
        print(close_expired_orders(services).summary())
        return 0
    start_in_background(lambda: close_expired_orders(services), TIMEOUT_JOB_INTERVAL_SECONDS)
    serve(services)
    return 0


if __name__ == "__main__":
    sys.exit(main())
