"""Test suite of the order API; shared constants live here."""

WEBHOOK_SECRET = "whsec_test_3b1f"
