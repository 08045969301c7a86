"""The cost model: every constant that turns an interaction step into a cost and a window.

One editable object, saved with results and in the session, loaded from a bundle's `[cost]`
table. Costs are in the unit of the step kind: reference words (MT `reference`), word edits
(MT `post_edit`) - characters and character edits for scripts written without spaces
(`llgui.core.mt.script`: Chinese, Japanese, Thai) -, seconds listened (diarization). The `*_weight` factors let an organiser
price kinds against each other; at 1.0 the cost is the plain count.

Windows (seconds) follow the ALLIES evaluation plan: `same(t1, t2)` listens to two windows
of `window` seconds centred on t1 and t2; `boundary(t)` to the reference turn around t plus
`window` on each side; `name(t)` to a window of `window` seconds around t; `segment` to
[start, end].
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace

from llgui.core.numbers import check_number

MAX_WINDOW = 86400.0
"""Seconds: a listening window longer than a day is a typo, and its sums must stay finite."""
MAX_WEIGHT = 1e6


@dataclass(frozen=True)
class CostModel:
    window: float = 3.0
    """Seconds: width of a `same` / `name` window, margin on each side of a `boundary` turn."""

    reference_weight: float = 1.0
    """Cost per reference word (character, for scripts without spaces) when the human gives
    the reference (MT `reference`)."""

    post_edit_weight: float = 1.0
    """Cost per word (character) edit of a post-edit (MT `post_edit`)."""

    listen_weight: float = 1.0
    """Cost per second listened (diarization steps)."""

    use_log_cost: bool = True
    """True: a cost stated in the log wins over the model. False: the model always decides."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "bool":
                if not isinstance(value, bool):
                    raise ValueError(f"cost model: {f.name} must be true or false")
                continue
            bounds = ({"above": 0.0, "maximum": MAX_WINDOW} if f.name == "window"
                      else {"minimum": 0.0, "maximum": MAX_WEIGHT})
            try:
                value = check_number(value, f.name, **bounds)
            except ValueError as exc:
                raise ValueError(f"cost model: {exc}") from None
            object.__setattr__(self, f.name, value)

    def to_dict(self) -> dict[str, float | bool]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "CostModel":
        """Build from a mapping (a bundle's `[cost]`, a session file); ValueError on bad keys."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(
                f"cost model: unknown key {unknown[0]!r} (known: {', '.join(sorted(known))})"
            )
        return cls(**data)

    def with_(self, **changes) -> "CostModel":
        return replace(self, **changes)
