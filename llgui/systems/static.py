"""`static`: starts from the bundle's hypothesis, asks nothing, never adapts (the floor any
adaptive system must beat). Run as `python -m llgui.systems.static`."""
from __future__ import annotations

import sys

from llgui.sim import protocol as P
from llgui.systems._serve import System, serve


class Static(System):
    name = "static"

    def document(self, message: P.DocumentStart) -> P.Hypothesis:
        hyp = message.hypothesis
        if self.task == "mt":
            lines = list(hyp) if hyp is not None else list(message.source or ())
            return P.Hypothesis(message.doc, lines=tuple(lines))
        return P.Hypothesis(message.doc, turns=tuple(hyp or ()))


if __name__ == "__main__":
    sys.exit(serve(Static()))
