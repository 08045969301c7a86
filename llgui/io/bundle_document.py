"""One `[[documents]]` table of a bundle, checked and built into an `MTDocument` or a
`DiarDocument` (`_Doc`): its id, time, references, hypothesis, source, line or docid
selection, UEM, uri, words and audio, each problem at its line (the schema: DESIGN.md section
3; the decisions taken: `llgui.io.bundle`'s docstring)."""
from __future__ import annotations

import re
from typing import Sequence

from llgui.core.errors import Problem
from llgui.core.types import DiarDocument, MTDocument, Stamp
from llgui.io.bundle_settings import _show
from llgui.io.text import (
    blank_tail, length_unlike_references, load_docid_fields, parse_line_range,
    selection_problem,
)
from llgui.utils.names import unknown_key

DOCUMENT_KEYS = {
    "mt": ("id", "time", "references", "hypothesis", "source", "lines", "docids", "docid",
           "partial"),
    "diarization": ("id", "time", "references", "hypothesis", "uem", "uri", "words",
                    "hypothesis_words", "audio", "partial"),
}

_DOCID_SHAPE = re.compile(r"[^\s:/\\\x00-\x1f\x7f-\x9f]{1,200}")
"""What a WMT / sacrebleu document id looks like (no ':' '/' '\\', no control characters):
ids of another shape are not echoed in a message (a docids file may be any file)."""
_SHOWN_URIS = 5


def nothing_scored_reason(reference, uem, collar: float) -> str | None:
    """Why no reference speech of a document would be scored, or None.

    pyannote scores the reference inside the UEM, less a collar of `collar` seconds (total
    width) around every reference boundary: a turn shorter than the collar loses all of it.
    When nothing is left, DER is 0/0 (pyannote prints 0 %) and JER 100 %: numbers that say
    nothing, so the bundle warns at the document's line."""
    spans = list(uem) if uem else None
    longest = 0.0
    for turn in reference:
        pieces = ([(max(turn.start, a), min(turn.end, b)) for a, b in spans] if spans is not None
                  else [(turn.start, turn.end)])
        for a, b in pieces:
            longest = max(longest, b - a)
    if longest <= 0.0:
        return "its UEM misses all reference speech: nothing is scored"
    if longest <= collar:
        return (f"collar {collar:g} s is at least as wide as its longest reference turn "
                f"({longest:g} s): nothing is scored")
    return None


class _Doc:
    """One [[documents]] table being checked."""

    def __init__(self, loader, task: str, index: int, table: dict):
        """`loader`: the bundle's `_Loader` (llgui.io.bundle), which collects the problems."""
        self.loader = loader
        self.task = task
        self.index = index
        self.table = table
        self.ok = True
        known = DOCUMENT_KEYS[task]
        for key in table:
            if key in known:
                continue
            other = "diarization" if task == "mt" else "mt"
            if key in DOCUMENT_KEYS[other]:
                self.add(key, f"key {key!r} is for {other} documents, not {task}")
            else:
                self.add(key, unknown_key(key, "[[documents]]", known))

    def line(self, key: str | None = None, element: int | None = None) -> int:
        pos = self.loader.pos
        if key is None:
            return pos.table_line(("documents",), self.index)
        if element is not None:
            return pos.element_line(("documents",), key, element, self.index)
        return pos.key_line(("documents",), key, self.index)

    def add(self, key: str | None, reason: str, element: int | None = None) -> None:
        self.ok = False
        self.loader.add(self.line(key, element), reason)

    def missing(self, key: str, what: str) -> None:
        self.add(None, f"[[documents]] number {self.index + 1} has no {key} (expected "
                       f"{key} = {what})")

    def id(self) -> str | None:
        if "id" not in self.table:
            self.missing("id", "a unique name")
            return None
        value = self.table["id"]
        if not isinstance(value, str) or not value.strip():
            self.add("id", f"id must be a non-empty string, not {_show(value)}")
            return None
        return value

    def time(self) -> Stamp | None:
        if "time" not in self.table:
            self.missing("time", "an ISO date or a number")
            return None
        try:
            return Stamp.parse(self.table["time"])
        except ValueError as exc:
            self.add("time", str(exc))
            return None

    def one_path(self, key: str, required: bool) -> list[tuple[str, int]] | None:
        """`paths(key)` of a key that names one file: an array is the problem said here."""
        found = self.paths(key, required)
        if found is not None and len(found) != 1:
            self.add(key, f"{key} must be one file name, not an array")
            return None
        return found

    def paths(self, key: str, required: bool) -> list[tuple[str, int]] | None:
        """[(written path, line)] of a string-or-array key; None when absent or wrong."""
        if key not in self.table:
            if required:
                self.missing(key, "a file name" if key != "references" else "[file names]")
            return None
        value = self.table[key]
        if isinstance(value, str):
            return [(value, self.line(key))]
        if not isinstance(value, list) or not value:
            self.add(key, f"{key} must be a file name or an array of file names, "
                          f"not {'an empty array' if value == [] else _show(value)}")
            return None
        return [(item, self.line(key, i)) for i, item in enumerate(value)]

    def file(self, key: str, written: object, line: int) -> str | None:
        resolved = self.loader.resolve(written, key, line)
        if resolved is None:
            self.ok = False
        return resolved

    def build(self, doc_id: str | None, stamp: Stamp | None):
        if self.task == "mt":
            return self.build_mt(doc_id, stamp)
        return self.build_diarization(doc_id, stamp)

    def build_mt(self, doc_id: str | None, stamp: Stamp | None) -> MTDocument | None:
        from llgui.io.text import load_segments

        refs = self.paths("references", required=True) or []
        hyp = self.one_path("hypothesis", required=True)
        src = self.one_path("source", required=False)
        loaded = {}
        for role, entries in (("references", refs), ("hypothesis", hyp or []),
                              ("source", src or [])):
            for written, line in entries:
                resolved = self.file(role, written, line)
                if resolved is not None:
                    segments = self.loader.read(load_segments, resolved)
                    if segments is None:
                        self.ok = False
                    loaded[(role, line, written)] = segments
        selection = self.mt_selection()
        if selection is not None:
            loaded = self.select(selection, loaded)
        hyp_segments = next((v for (r, _, _), v in loaded.items() if r == "hypothesis"), None)
        if hyp_segments is not None:
            (hyp_written,) = [w for (r, _, w) in loaded if r == "hypothesis"]
            for (role, line, written), segments in loaded.items():
                if role != "hypothesis" and segments is not None and len(segments) != len(
                        hyp_segments):
                    self.ok = False
                    self.loader.add(line, f"{role} file {written!r} has {len(segments)} lines "
                                          f"but hypothesis file {hyp_written!r} has "
                                          f"{len(hyp_segments)}"
                                          + blank_tail(hyp_segments, len(segments)))
        if not self.ok or doc_id is None or stamp is None or hyp_segments is None:
            return None
        references = tuple(v for (r, _, _), v in loaded.items() if r == "references")
        source = next((v for (r, _, _), v in loaded.items() if r == "source"), None)
        return MTDocument(doc_id, stamp, hyp_segments, references, source)

    def mt_selection(self) -> tuple[Sequence[int], int | None, int, str] | None:
        """The lines this MT document takes from its files: None for all of them, else
        (0-based rows, exact file length needed or None, least file length needed, what for
        messages). `lines = "131-260"` takes a range; `docids` + `docid` (default: the id)
        the lines of one document of a WMT test set. On a problem: ((), None, 0, "")."""
        failed: tuple[Sequence[int], int | None, int, str] = ((), None, 0, "")
        table = self.table
        if "docid" in table and "docids" not in table:
            self.add("docid", "docid needs docids = the doc-id file of the test set (one "
                              "document id per line)")
            return failed
        if "lines" in table:
            if "docids" in table:
                self.add("lines", "give either lines or docids (+ docid), not both")
                return failed
            try:
                first, last = parse_line_range(table["lines"])
            except ValueError as exc:
                self.add("lines", str(exc))
                return failed
            # a range, never a tuple: "1-999999999999" must fail on the file's length, not
            # on memory
            return range(first - 1, last), None, last, f'lines = "{first}-{last}"'
        if "docids" not in table:
            return None
        docid = table.get("docid", table.get("id"))
        if not isinstance(docid, str) or not docid.strip():
            if "docid" in table:
                self.add("docid", f"docid must be a non-empty string, not {_show(docid)}")
            return failed  # a bad id is reported by `id`
        written = table["docids"]
        resolved = self.file("docids", written, self.line("docids"))
        fields = self.loader.read(load_docid_fields, resolved) if resolved else None
        if fields is None:
            self.ok = False
            return failed
        # the document ids: the field with the most distinct values (sacrebleu's `docid
        # origlang` has them first, WMT's `.docs`, `domain docid`, last)
        width = min(len(f) for f in fields)
        column = max(range(width), key=lambda k: (len({f[k] for f in fields}), -k))
        ids = [f[column] for f in fields]
        rows = tuple(i for i, f in enumerate(fields) if docid in f)
        if rows:
            self.warn_block(docid, [ids[i] for i in rows], written)
        if not rows:
            known = list(dict.fromkeys(ids))
            if all(_DOCID_SHAPE.fullmatch(d) for d in known):
                shown = ", ".join(known[:_SHOWN_URIS]) + (", ..." if len(known) > _SHOWN_URIS
                                                          else "")
                listing = f"its {len(known)} ids: {shown}"
            else:   # a file of another kind (/etc/passwd): its lines are not echoed
                listing = (f"{len(known)} distinct first fields; not shown, as they do not "
                           "look like document ids")
            self.add("docid" if "docid" in table else "docids",
                     f"document id {docid!r} is not in docids file {written!r} ({listing})")
            return failed
        return rows, len(ids), 0, f"docids file {written!r}"

    def warn_block(self, docid: str, rows: list[str], written: str) -> None:
        """A docid found in a field that is not the document id (WMT's `.docs` layout,
        `domain<TAB>docid`: "literary" is a domain) selects every document of that block as
        one: said as a warning, at the line. `rows`: the document id of each selected line."""
        documents = set(rows)
        if len(documents) < 2:
            return
        key = "docid" if "docid" in self.table else "id"
        self.loader.warnings.append(Problem(self.loader.file, self.line(key), (
            f"warning: docid {docid!r} matches a block of {len(rows)} lines of "
            f"{len(documents)} documents in docids file {written!r} (a domain, not a "
            "document id): they are scored as one document; give one document's id to "
            "select one")))

    def select(self, selection, loaded: dict) -> dict:
        """`loaded` (role, line, written) -> segments, cut to the selected rows; a file too
        short for the range, or not as long as the doc-id file, is a problem at its line."""
        rows, exact, least, what = selection
        if not rows:
            self.ok = False
            return {key: None for key in loaded}
        out = {}
        # the references' own length (those the range fits: a short one is its own problem)
        whole = [len(v) for (r, _, _), v in loaded.items() if r == "references" and v
                 and selection_problem(len(v), exact, least, what) is None]
        for (role, line, written), segments in loaded.items():
            if segments is None:
                out[(role, line, written)] = None
                continue
            problem = selection_problem(len(segments), exact, least, what, len(rows))
            if problem is None and role == "hypothesis" and exact is None and whole:
                problem = length_unlike_references(segments, whole[0], what, len(rows))
            if problem is not None:
                self.ok = False
                self.loader.add(line, f"{role} file {written!r} {problem}")
                out[(role, line, written)] = None
            else:
                out[(role, line, written)] = tuple(segments[i] for i in rows)
        return out

    def build_diarization(self, doc_id: str | None, stamp: Stamp | None) -> DiarDocument | None:
        from llgui.io.rttm import load_turns, load_uem

        uri = doc_id
        if "uri" in self.table:
            value = self.table["uri"]
            if not isinstance(value, str) or not value.strip():
                self.add("uri", f"uri must be a non-empty string, not {_show(value)}")
                uri = None
            else:
                uri = value
        refs = self.paths("references", required=True)
        if refs is not None and len(refs) != 1:
            self.add("references", f"a diarization document takes one references file (RTTM "
                                   f"or MDTM), not {len(refs)}")
            refs = None
        hyp = self.one_path("hypothesis", required=True)
        uem = self.one_path("uem", required=False)
        uri_line = self.line("uri") if "uri" in self.table else None
        reference = hypothesis = uem_spans = None
        if refs:
            written, line = refs[0]
            resolved = self.file("references", written, line)
            turns = self.loader.read(load_turns, resolved) if resolved else None
            if turns is None:
                self.ok = False
            elif uri is not None:
                if uri not in turns or not turns[uri]:
                    self.add_uri(uri_line or line, uri, "references", written, turns)
                else:
                    reference = turns[uri]
        if hyp:
            written, line = hyp[0]
            resolved = self.file("hypothesis", written, line)
            turns = self.loader.read(load_turns, resolved) if resolved else None
            if turns is None:
                self.ok = False
            elif uri is not None:
                hypothesis = turns.get(uri, ())
        if uem:
            written, line = uem[0]
            resolved = self.file("uem", written, line)
            spans = self.loader.read(load_uem, resolved) if resolved else None
            if spans is None:
                self.ok = False
            elif uri is not None:
                if uri not in spans:
                    self.ok = False
                    self.loader.add(line, f"uem file {written!r} has no line for {uri!r}")
                else:
                    uem_spans = spans[uri]
        words = self.words("words", uri)
        hypothesis_words = self.words("hypothesis_words", uri)
        if hypothesis_words is not None and "words" not in self.table:
            self.add("hypothesis_words", "hypothesis_words needs the reference words too "
                                         "(words = \"FILE\")")
        if (not self.ok or doc_id is None or stamp is None or uri is None or reference is None
                or hypothesis is None):
            return None
        reason = nothing_scored_reason(reference, uem_spans, self.loader.collar)
        if reason is not None:
            self.loader.warnings.append(Problem(self.loader.file, self.line("id"),
                                                f"warning: document {doc_id!r}: {reason}"))
        audio = None
        if "audio" in self.table:
            end = DiarDocument(doc_id, stamp, uri, reference, hypothesis, uem_spans).extent[1]
            audio = self.audio(doc_id, end)
        return DiarDocument(doc_id, stamp, uri, reference, hypothesis, uem_spans,
                            words=words, hypothesis_words=hypothesis_words, audio=audio)

    def audio(self, doc_id: str, end: float):
        """The document's `Audio`, or None after a warning at the `audio` line: a recording
        that cannot be played never stops the load (no score depends on it), the document
        opens without sound and the window says why."""
        from llgui.io.audio import AudioError, duration_mismatch, probe

        written = self.table["audio"]
        line = self.line("audio")

        def warn(reason: str) -> None:
            self.loader.warnings.append(Problem(
                self.loader.file, line, f"warning: document {doc_id!r}: {reason}; it opens "
                                        "without audio"))

        if not isinstance(written, str) or not written.strip():
            warn(f"audio must be a file name (a non-empty string), not {_show(written)}")
            return None
        try:
            audio = probe(self.loader.base / written)
        except AudioError as exc:
            warn(f"audio file {written!r} {exc}")
            return None
        except ValueError:   # a NUL in the name
            warn(f"audio file {written!r} is not a valid path")
            return None
        reason = duration_mismatch(audio, end)
        if reason is not None:
            warn(f"audio file {written!r} {reason}")
            return None
        return audio

    def words(self, key: str, uri: str | None):
        """The words of `uri` in the file(s) of `key` (SegLST JSON, STM, or CTM files, one
        per speaker), or None when the key is absent or after a problem."""
        from llgui.io.nist_words import load_words

        entries = self.paths(key, required=False)
        if entries is None:
            return None
        if len(entries) > 1 and not all(isinstance(w, str) and w.lower().endswith(".ctm")
                                        for w, _ in entries):
            self.add(key, f"{key} takes one SegLST or STM file, or CTM files (one per "
                          f"speaker)")
            return None
        found: list = []
        held: dict[str, None] = {}   # the files' sessions, in order (a dict: linear)
        for written, line in entries:
            resolved = self.file(key, written, line)
            loaded = self.loader.read(load_words, resolved) if resolved else None
            if loaded is None:
                self.ok = False
                continue
            held.update(dict.fromkeys(loaded))
            if uri is not None:
                found.extend(loaded.get(uri, ()))
        if not self.ok or uri is None:
            return None
        if not found:
            from llgui.utils.names import shown as neutral

            listed = ", ".join(neutral(h) for h in list(held)[:_SHOWN_URIS]) + (
                ", ..." if len(held) > _SHOWN_URIS else "")
            self.add(key, f"{key}: no word for {uri!r} (the files' sessions: {listed})")
            return None
        return tuple(sorted(found, key=lambda w: w.order))

    def add_uri(self, line: int, uri: str, role: str, written: str, turns: dict) -> None:
        self.ok = False
        if uri in turns:
            self.loader.add(line, f"{role} file {written!r} has no turn of duration > 0 for "
                                  f"{uri!r}")
            return
        held = list(turns)
        shown = ", ".join(held[:_SHOWN_URIS]) + (", ..." if len(held) > _SHOWN_URIS else "")
        self.loader.add(line, f"uri {uri!r} is not in {role} file {written!r} (its file "
                              f"fields: {shown})")
