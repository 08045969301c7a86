"""A constructed diarization system for the relapse test: it hears one speaker everywhere
(every show's h_0 is one label, "c1"), asks the name of the voice at 45 s in the first show,
and from then on labels the last 20 s of a show with the name it was told, for K shows
after the one it was told in; then it forgets (back to "c1" alone). K is argv[1]."""
from __future__ import annotations

import sys

from llgui.sim import protocol as P
from llgui.systems._serve import System, serve


class ForgetfulNamer(System):
    name = "forgetful_namer"

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.shows = 0            # shows started
        self.taught = None        # (name, the show it was told in)
        self.asked = False

    def _turns(self, name):
        if name is None:
            return ((0.0, 60.0, "c1"),)
        return ((0.0, 40.0, "c1"), (40.0, 60.0, name))

    def document(self, message: P.DocumentStart) -> P.Hypothesis:
        self.shows += 1
        name = None
        if self.taught is not None and self.shows - self.taught[1] <= self.keep:
            name = self.taught[0]
        self.current = self._turns(name)
        return P.Hypothesis(message.doc, turns=self.current)

    def request(self):
        if self.asked:
            return None
        self.asked = True
        return P.Request("name", P.PointTarget(45.0))

    def learn(self, message) -> P.AdaptedReply:
        if message.kind == "name" and isinstance(message.answer, str):
            self.taught = (message.answer, self.shows)
            self.current = self._turns(message.answer)
            return P.AdaptedReply(turns=self.current)
        return P.AdaptedReply()


if __name__ == "__main__":
    sys.exit(serve(ForgetfulNamer(int(sys.argv[1]))))
