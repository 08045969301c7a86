"""The message loop shared by the reference systems: parse llgui's lines, call the system,
write its replies (one JSON line each, flushed)."""
from __future__ import annotations

import sys
from typing import IO

from llgui.sim import protocol as P


class System:
    """Override what the system does; the loop handles the protocol's turns."""

    name = "system"
    version = "1"

    def hello(self, message: P.Hello) -> None:
        self.task = message.task

    def document(self, message: P.DocumentStart) -> P.Hypothesis:
        raise NotImplementedError

    def request(self) -> P.Request | None:
        """The next request in active mode; None to stop."""
        return None

    def learn(self, message: P.Answer | P.Correction) -> P.AdaptedReply:
        return P.AdaptedReply()

    def end_document(self, message: P.EndDocument) -> None:
        pass


def serve(system: System, stdin: IO[bytes] | None = None, stdout: IO[str] | None = None) -> int:
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout
    mode = "none"

    def say(message) -> None:
        stdout.write(P.encode(message))
        stdout.flush()

    def ask() -> None:
        request = system.request()
        say(request if request is not None else P.Stop())

    for raw in stdin:
        if not raw.strip():
            continue
        message = P.parse_llgui(raw)
        if isinstance(message, P.Hello):
            system.hello(message)
            say(P.SystemHello(system.name, system.version))
        elif isinstance(message, P.DocumentStart):
            mode = message.mode
            say(system.document(message))
            if mode == "active":
                ask()
        elif isinstance(message, (P.Answer, P.Correction)):
            say(system.learn(message))
            if isinstance(message, P.Answer):
                ask()
        elif isinstance(message, P.EndDocument):
            system.end_document(message)
        elif isinstance(message, P.Bye):
            return 0
    return 0
