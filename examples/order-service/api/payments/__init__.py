"""Payment provider integration: signed callbacks and their effect on orders."""

from api.payments.callbacks import CallbackResult, handle_payment_callback
from api.payments.signature import sign_payload, verify_signature

__all__ = ["CallbackResult", "handle_payment_callback", "sign_payload", "verify_signature"]
