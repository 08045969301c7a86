"""Signed numbers as the window writes differences (a step's penalty, a gain, a delta)."""
from __future__ import annotations


def signed(value: float, places: int = 2) -> str:
    """`value` to `places` decimals with its sign, "+0.35" or "-1.20"; a value that rounds to
    zero is "+0.00", as the side-by-side and model-comparison deltas write it, never "-0.00"
    (a tiny negative difference, or an error rate's zero gain, -0.0 in floating point, read
    as a loss: "net gen. -0.00" at the last step, outsider helper-53)."""
    text = f"{value:+.{places}f}"
    return "+" + text[1:] if float(text) == 0 else text
