"""The message loop shared by the reference systems: parse llgui's lines, call the system,
write its replies (one JSON line each, flushed). Every reply echoes the document and step it
answers (protocol 1.1)."""
from __future__ import annotations

import sys
from dataclasses import replace
from typing import IO

from llgui.sim import protocol as P
from llgui.sim.prefix import Completion, PrefixMessage


class System:
    """Override what the system does; the loop handles the protocol's turns."""

    name = "system"
    version = "1"
    minor: int | None = None
    """The minor protocol version the hello announces (2: the prefix interaction)."""

    def hello(self, message: P.Hello) -> None:
        self.task = message.task

    def document(self, message: P.DocumentStart) -> P.Hypothesis:
        raise NotImplementedError

    def request(self) -> P.Request | P.QuoteRequest | None:
        """The next request in active mode (or a quote to ask first); None to stop."""
        return None

    def quoted(self, message: P.Quote) -> None:
        """What a request asked as a `quote` would cost (then `request` is called again)."""

    def learn(self, message: P.Answer | P.Correction) -> P.AdaptedReply:
        return P.AdaptedReply()

    def complete(self, message: PrefixMessage) -> Completion:
        """Protocol 1.2 (a system whose `minor` is 2): the rest of the sentence after the
        expert's prefix and typed text."""
        return Completion()

    def end_document(self, message: P.EndDocument) -> None:
        pass


def serve(system: System, stdin: IO[bytes] | None = None, stdout: IO[str] | None = None) -> int:
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout
    mode = "none"
    doc, step = None, 0

    def say(message) -> None:
        stdout.write(P.encode(message))
        stdout.flush()

    def ask() -> None:
        request = system.request()
        say(replace(request if request is not None else P.Stop(), doc=doc, step=step + 1))

    for raw in stdin:
        if not raw.strip():
            continue
        message = P.parse_llgui(raw)
        if isinstance(message, P.Hello):
            system.hello(message)
            say(P.SystemHello(system.name, system.version, system.minor))
        elif isinstance(message, P.DocumentStart):
            mode, doc, step = message.mode, message.doc, message.step or 0
            say(replace(system.document(message), step=message.step))
            if mode == "active":
                ask()
        elif isinstance(message, (P.Answer, P.Correction)):
            step = message.step if message.step is not None else step + 1
            say(replace(system.learn(message), doc=message.doc, step=message.step))
            if isinstance(message, P.Answer):
                ask()
        elif isinstance(message, PrefixMessage):
            step = message.step if message.step is not None else step + 1
            say(replace(system.complete(message), doc=message.doc, step=message.step))
        elif isinstance(message, P.Quote):
            system.quoted(message)
            ask()
        elif isinstance(message, P.EndDocument):
            system.end_document(message)
        elif isinstance(message, P.Bye):
            return 0
    return 0
