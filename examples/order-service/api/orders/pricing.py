"""Order totals: subtotal and tax, computed in integer minor units."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from api.models import LineItem

BASIS_POINTS = 10_000


@dataclass(frozen=True)
class Totals:
    """Subtotal, tax and grand total of an order, in cents."""

    subtotal_cents: int
    tax_cents: int

    @property
    def total_cents(self) -> int:
        """Subtotal plus tax."""
        return self.subtotal_cents + self.tax_cents


def round_half_up(numerator: int, denominator: int) -> int:
    """Integer division rounding halves away from zero (for non-negative input)."""
    return (2 * numerator + denominator) // (2 * denominator)


def compute_totals(items: Iterable[LineItem], tax_rate_bp: int) -> Totals:
    """Sum the line items and apply the tax rate given in basis points."""
    subtotal = sum(item.total_cents for item in items)
    tax = round_half_up(subtotal * tax_rate_bp, BASIS_POINTS)
    return Totals(subtotal, tax)


def format_amount(amount_cents: int, currency: str) -> str:
    """Render an amount for logs and emails, e.g. ``EUR 12.50``."""
    sign = "-" if amount_cents < 0 else ""
    units, cents = divmod(abs(amount_cents), 100)
    return f"{currency} {sign}{units}.{cents:02d}"
