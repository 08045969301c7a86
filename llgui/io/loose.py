"""Single files opened without a bundle (File › Open files…, drag and drop).

`bundle_from_files` builds the same `Bundle` a one-document bundle file would give: MT text
files (one or more references and a hypothesis) make one document named after the hypothesis;
RTTM/MDTM files make one document per recording (file field) of the reference. An optional
interaction log and UEM are checked against them as a bundle's would be.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from llgui.core.cost import CostModel
from llgui.core.errors import LoadError, Problem
from llgui.core.metrics import default_metrics
from llgui.core.types import Bundle, DiarDocument, MTDocument, Stamp

DIARIZATION_SUFFIXES = (".rttm", ".mdtm")


def guess_task(path: str | Path) -> str:
    return "diarization" if Path(path).suffix.lower() in DIARIZATION_SUFFIXES else "mt"


def bundle_from_files(references: Sequence[str | Path], hypothesis: str | Path,
                      log: str | Path | None = None, uem: str | Path | None = None,
                      task: str | None = None, source: str | Path | None = None,
                      log_base: str | Path | None = None) -> Bundle:
    """A bundle of loose files; raises LoadError with every problem of every file. `source`
    (MT only) is the source text, line-aligned with the hypothesis; `uem` diarization only;
    `log_base` is where the log's `adapted` files are (default: the log's folder)."""
    from llgui.io.interactions import load_log

    references = [Path(p) for p in references]
    hypothesis = Path(hypothesis)
    if not references:
        raise LoadError([Problem(str(hypothesis), 0, "no reference file given")])
    task = task or guess_task(hypothesis)
    if task not in ("mt", "diarization"):
        raise LoadError([Problem(str(hypothesis), 0, f"task {task!r}: plain files are MT text "
                                                     "or diarization RTTM/MDTM")])
    problems: list[Problem] = []
    if source is not None and task != "mt":
        problems.append(Problem(str(source), 0, "a source text belongs to MT, not diarization"))
    if uem is not None and task != "diarization":
        problems.append(Problem(str(uem), 0, "a UEM belongs to diarization, not MT"))
    documents: list = []
    extra: list = []
    try:
        if task == "mt":
            documents = [_mt_document(references, hypothesis, source)]
        else:
            documents, extra = _diar_documents(references[0], hypothesis, uem)
    except LoadError as error:
        problems.extend(error.problems)
    steps = ()
    if log is not None:
        try:
            uris = {d.id: d.uri for d in documents if isinstance(d, DiarDocument)}
            steps = load_log(log, task=task, base_dir=log_base, uris=uris or None)
        except LoadError as error:
            problems.extend(error.problems)
    if problems:
        raise LoadError(problems)
    warnings = (_diar_warnings(references[0], hypothesis, documents, extra)
                if task == "diarization" else [])
    bundle = Bundle(path=None, task=task, name=hypothesis.name,
                    metrics=default_metrics(task), settings={}, cost=CostModel(),
                    documents=tuple(documents), steps=tuple(steps), warnings=tuple(warnings))
    if steps:
        from llgui.io.bundle import check_steps

        found = check_steps(bundle, str(log))
        if found:
            raise LoadError(found)
    return bundle


def _mt_document(references: list[Path], hypothesis: Path,
                 source: str | Path | None = None) -> MTDocument:
    from llgui.io.text import blank_tail, load_segments, unmatched_line

    problems: list[Problem] = []
    streams = []
    paths = references + [hypothesis] + ([Path(source)] if source is not None else [])
    for path in paths:
        try:
            streams.append(load_segments(path))
        except LoadError as error:
            problems.extend(error.problems)
    if problems:
        raise LoadError(problems)
    refs, hyp = streams[:len(references)], streams[len(references)]
    src = streams[len(references) + 1] if source is not None else None
    others = list(zip(references, refs)) + ([(Path(source), src)] if src is not None else [])
    for path, stream in others:   # the hypothesis named, where it parts from the others
        if len(stream) != len(hyp):
            what = "reference" if path in references else "source"
            problems.append(Problem(str(hypothesis), unmatched_line(len(hyp), len(stream)),
                                    f"has {len(hyp)} lines but the {what} {path} has "
                                    f"{len(stream)}" + blank_tail(hyp, len(stream))))
    if problems:
        raise LoadError(problems)
    return MTDocument(id=hypothesis.stem, time=Stamp(0.0, "0"), hypothesis=hyp,
                      references=tuple(refs), source=src)


def _diar_documents(reference: Path, hypothesis: Path,
                    uem: str | Path | None) -> tuple[list[DiarDocument], list[str]]:
    """One document per recording of the reference, and the hypothesis's recordings that
    are not in it."""
    from llgui.io.rttm import load_turns, load_uem

    problems: list[Problem] = []
    loaded = {}
    for name, path, loader in (("reference", reference, load_turns),
                               ("hypothesis", hypothesis, load_turns),
                               ("uem", uem, load_uem)):
        if path is None:
            continue
        try:
            loaded[name] = loader(path)
        except LoadError as error:
            problems.extend(error.problems)
    if problems:
        raise LoadError(problems)
    uems = loaded.get("uem", {})
    documents = []
    # in the reference's order (its recordings' first lines): the order they are timed in
    for i, uri in enumerate(loaded["reference"]):
        if uem is not None and uri not in uems:
            problems.append(Problem(str(uem), 0, f"no UEM line for recording {uri!r}"))
            continue
        documents.append(DiarDocument(
            id=uri, time=Stamp(float(i), str(i)), uri=uri,
            reference=loaded["reference"][uri], hypothesis=loaded["hypothesis"].get(uri, ()),
            uem=uems.get(uri)))
    if problems:
        raise LoadError(problems)
    return documents, [uri for uri in loaded["hypothesis"] if uri not in loaded["reference"]]


def _diar_warnings(reference: Path, hypothesis: Path, documents, extra) -> list[Problem]:
    """What a plain-file diarization scores without a word otherwise: a recording of the
    reference the hypothesis has no turn for (all missed speech), one of the hypothesis the
    reference does not have (left out)."""
    def named(uris) -> str:
        return ", ".join(repr(u) for u in uris[:5]) + (f" and {len(uris) - 5} more"
                                                       if len(uris) > 5 else "")

    found = []
    empty = [d.uri for d in documents if not d.hypothesis]
    if empty:
        found.append(Problem(str(hypothesis), 0, f"no turns for {len(empty)} recording(s) of "
                                                 f"the reference ({named(empty)}): each is "
                                                 "scored as all speech missed"))
    if extra:
        found.append(Problem(str(hypothesis), 0, f"{len(extra)} recording(s) not in the "
                                                 f"reference {reference} ({named(extra)}): "
                                                 "left out"))
    return found
