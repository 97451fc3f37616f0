"""Prices for a small online shop: quantity discounts, shipping, coupons and money."""

from __future__ import annotations

import re

COUPON = re.compile(r"^[A-Z]{4}-\d{2}$")
FREE_SHIPPING_CENTS = 5000


def discount_rate(quantity: int) -> float:
    """The discount for buying ``quantity`` items at once.

    >>> discount_rate(12)
    0.05
    """
    if quantity < 0:
        raise ValueError("quantity must not be negative")
    if quantity >= 100:
        return 0.15
    if quantity >= 10:
        return 0.05
    return 0.0


def shipping_cents(weight_grams: int, order_cents: int, express: bool = False) -> int:
    """Shipping for a parcel: free above 50.00 (not for express), 4.50 up to 2 kg, then per kg."""
    if weight_grams <= 0:
        raise ValueError(f"weight must be positive, got {weight_grams}")
    if order_cents >= FREE_SHIPPING_CENTS and not express:
        return 0
    cost = 450
    if weight_grams > 2000:
        extra_kg = (weight_grams - 2000 + 999) // 1000
        cost += 125 * extra_kg
    return cost * 2 if express else cost


def coupon_percent(code: str) -> int:
    """The percentage a coupon such as ``SAVE-10`` takes off (at most 50)."""
    code = code.strip().upper()
    if not COUPON.match(code):
        raise ValueError(f"not a coupon code: {code!r}")
    percent = int(code[-2:])
    if percent == 0 or percent > 50:
        raise ValueError(f"coupon out of range: {percent}%")
    return percent


def format_cents(cents: int, currency: str = "EUR") -> str:
    """``1234`` → ``'12.34 EUR'``; negative amounts keep their sign."""
    sign = "-" if cents < 0 else ""
    units, rest = divmod(abs(cents), 100)
    return f"{sign}{units}.{rest:02d} {currency}"


class Money:
    """An amount in cents of one currency."""

    def __init__(self, cents: int, currency: str = "EUR") -> None:
        if len(currency) != 3 or not currency.isupper():
            raise ValueError(f"currency must be a three-letter code, got {currency!r}")
        self.cents = cents
        self.currency = currency

    def __repr__(self) -> str:
        return f"Money({self.cents}, {self.currency!r})"

    def add(self, cents: int) -> Money:
        """A new amount, ``cents`` more."""
        return Money(self.cents + cents, self.currency)

    def split(self, parts: int) -> list[int]:
        """Shares that differ by at most one cent and add up to the amount."""
        if parts < 1:
            raise ValueError("parts must be at least 1")
        share, left = divmod(self.cents, parts)
        return [share + 1 if i < left else share for i in range(parts)]

    def with_discount(self, rate: float) -> Money:
        """The amount after taking off ``rate`` (0 to 1), rounded to the cent."""
        if not 0 <= rate <= 1:
            raise ValueError(f"rate must be between 0 and 1, got {rate}")
        return Money(round(self.cents * (1 - rate)), self.currency)


def checkout(price: Money, weight_grams: int, coupon: str | None = None) -> Money:
    """What the customer pays: the price less any coupon, plus shipping."""
    if coupon is not None:
        price = price.with_discount(coupon_percent(coupon) / 100)
    return price.add(shipping_cents(weight_grams, price.cents))
