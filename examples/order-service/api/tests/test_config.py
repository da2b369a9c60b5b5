import pytest

from api.config import load_settings
from api.errors import ConfigError


def test_defaults_with_only_the_secret():
    settings = load_settings({"ORDERS_WEBHOOK_SECRET": "whsec_abcdef"})
    assert settings.unpaid_timeout_seconds == 1800
    assert settings.currency == "EUR"
    assert settings.describe()["payment_webhook_secret"] == "whse..."


def test_missing_secret_is_fatal():
    with pytest.raises(ConfigError):
        load_settings({})


@pytest.mark.parametrize("name, value", [("ORDERS_PORT", "http"), ("ORDERS_UNPAID_TIMEOUT", "-5"),
                                         ("ORDERS_CURRENCY", "EURO")])
def test_invalid_values(name, value):
    with pytest.raises(ConfigError):
        load_settings({"ORDERS_WEBHOOK_SECRET": "s", name: value})
