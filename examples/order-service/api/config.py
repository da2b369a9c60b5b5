"""Runtime configuration for the order API, read from environment variables."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

from api.errors import ConfigError

ENV_PREFIX = "ORDERS_"


@dataclass(frozen=True)
class Settings:
    """Settings shared by the HTTP server, the callback handler and the jobs."""

    payment_webhook_secret: str
    unpaid_timeout_seconds: int = 30 * 60
    callback_tolerance_seconds: int = 5 * 60
    data_dir: str = "var/orders"
    outbox_path: str = "var/outbox.jsonl"
    http_host: str = "127.0.0.1"
    http_port: int = 8080
    currency: str = "EUR"
    tax_rate_bp: int = 2000  # basis points: 2000 = 20 %

    def describe(self) -> dict[str, object]:
        """Return the settings as a dict with the webhook secret masked."""
        masked = self.payment_webhook_secret[:4] + "..." if self.payment_webhook_secret else ""
        return {
            "payment_webhook_secret": masked,
            "unpaid_timeout_seconds": self.unpaid_timeout_seconds,
            "callback_tolerance_seconds": self.callback_tolerance_seconds,
            "data_dir": self.data_dir,
            "outbox_path": self.outbox_path,
            "http": f"{self.http_host}:{self.http_port}",
            "currency": self.currency,
            "tax_rate_bp": self.tax_rate_bp,
        }


def _int_setting(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(ENV_PREFIX + name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise ConfigError(f"{ENV_PREFIX}{name} must be an integer, got {raw!r}") from exc
    if value < 0:
        raise ConfigError(f"{ENV_PREFIX}{name} must not be negative")
    return value


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Build Settings from ``env`` (defaults to ``os.environ``).

    Only the webhook secret is mandatory: without it no payment callback
    could ever be trusted, so we refuse to start.
    """
    env = os.environ if env is None else env
    secret = env.get(ENV_PREFIX + "WEBHOOK_SECRET", "")
    if not secret:
        raise ConfigError(f"{ENV_PREFIX}WEBHOOK_SECRET is not set")
    currency = env.get(ENV_PREFIX + "CURRENCY", "EUR").upper()
    if len(currency) != 3 or not currency.isalpha():
        raise ConfigError(f"{ENV_PREFIX}CURRENCY must be an ISO 4217 code, got {currency!r}")
    return Settings(
        payment_webhook_secret=secret,
        unpaid_timeout_seconds=_int_setting(env, "UNPAID_TIMEOUT", 30 * 60),
        callback_tolerance_seconds=_int_setting(env, "CALLBACK_TOLERANCE", 5 * 60),
        data_dir=env.get(ENV_PREFIX + "DATA_DIR", "var/orders"),
        outbox_path=env.get(ENV_PREFIX + "OUTBOX", "var/outbox.jsonl"),
        http_host=env.get(ENV_PREFIX + "HOST", "127.0.0.1"),
        http_port=_int_setting(env, "PORT", 8080),
        currency=currency,
        tax_rate_bp=_int_setting(env, "TAX_RATE_BP", 2000),
    )
