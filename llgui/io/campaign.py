"""The campaign file (DESIGN.md section 3b): systems x model versions x time-stamped batches.

```toml
[campaign]
name = "LLMT dry run"             # optional (default: the file's stem)
task = "mt"                       # "mt" | "diarization"
metrics = ["bleu", "chrf", "ter"] # optional (default: the task's)
[settings]                        # as in a bundle
[[batches]]
id = "2014-01"
time = "2014-01-15"
references = ["ref/2014-01.de"]   # MT: text file(s); diarization: one RTTM/MDTM (+ uem, uri)
lines = "1-500"                   # MT, optional: the lines of the references (and of whole
                                  # hypothesis files) this batch takes; or docids = "FILE"
                                  # (+ docid, default the id), as in a bundle's document
[[systems]]
name = "sysA"
models = [{id = "M00", time = "2014-01-01"}, {id = "M01", time = "2014-02-01"}]
hypotheses = "sysA/{model}/{batch}.de"
bundle = "sysA/online/bundle.toml"  # optional: the online run
```

Relative paths resolve against the campaign's folder. Unlike a bundle, a campaign is scored as
far as it can be: `load_campaign` never raises; it returns a `Campaign` holding what is usable
and every problem found (`FILE:LINE: reason`, at the campaign's line, or at the line of a named
file), and the caller scores the rest and marks its report partial. A batch or a system with a
problem is left out; a missing hypothesis file is a gap (`Campaign.gaps`), not a problem.

Decisions: ids of batches and models are used in file names, so they are letters, digits, `.`,
`_` and `-` (not starting with `.`); `hypotheses` holds `{model}` and `{batch}` and no other
field (`{model}` may be left out when the system has a single model version: the path is
that version's output; `{batch}` may be left out when every batch has `lines` or `docids`:
then each model version's file is a whole system output, cut by each batch's selection when its cell is
scored, with the same length checks as a bundle's); all times (batches and models) are of one kind, numbers or ISO dates; batches and
a system's models are sorted by time (then id), as the lifelong table is.
"""
from __future__ import annotations

import os
import re
import string
from pathlib import Path

from llgui.core.reports.campaign import Batch, Campaign, Cell, ModelVersion, SystemSpec
from llgui.core.errors import LoadError, Problem
from llgui.core.jobs import check, report
from llgui.core.metrics import WORD_METRICS, default_metrics
from llgui.core.types import Stamp
from llgui.io.bundle import SETTINGS, _Doc, _Loader, _show, missing_tokenizer_packages
from llgui.io.text import selection_problem
from llgui.utils.names import unknown_key

TABLES = ("campaign", "settings", "batches", "systems", "human")
CAMPAIGN_KEYS = ("name", "task", "metrics")
CAMPAIGN_TASKS = ("mt", "diarization")
BATCH_KEYS = {"mt": ("id", "time", "references", "lines", "docids", "docid"),
              "diarization": ("id", "time", "references", "uem", "uri")}
SYSTEM_KEYS = ("name", "models", "hypotheses", "bundle", "replicates")
MODEL_KEYS = ("id", "time")
HUMAN_KEYS = ("scores", "pair")
_ID = re.compile(r"[A-Za-z0-9_\-][A-Za-z0-9_.\-]*", re.ASCII)
MAX_ID = 100
"""The longest batch or model id (ids name files; a file name has at most 255 bytes)."""
MAX_SYSTEMS = 1000
MAX_BATCHES = 10_000
MAX_MODELS = 1000
MAX_CELLS = 250_000
"""Counts of a campaign file: beyond these a campaign is a typo or an attack (10,000
systems took 7.5 minutes before any output), and its cells would not fit a report."""


_CAMPAIGN_TABLE = re.compile(r"^[ \t]*\[[ \t]*campaign[ \t]*\][ \t]*(#.*)?$", re.MULTILINE)


def is_campaign_file(path: str | Path) -> bool:
    """Whether `path` is a campaign file rather than a bundle: a TOML file with a [campaign]
    table (read as text, at most 10 MB: no TOML parse needed to tell)."""
    from llgui.utils.regular import read_regular

    try:
        data = read_regular(path, 10_000_000)
    except (OSError, ValueError):
        return False
    return _CAMPAIGN_TABLE.search(data.decode("utf-8", "replace")) is not None


def load_campaign(path: str | Path, progress=None, should_stop=None) -> Campaign:
    """The campaign at `path` and every problem found in it (see the module docstring).
    `progress(fraction)` hears how far the reading is (batches' references, then the cells'
    files); `should_stop()` makes it raise `llgui.core.jobs.Cancelled`."""
    return _CampaignLoader(path, progress, should_stop).load()


class _Selection(_Doc):
    """A [[batches]] table read by the bundle's `lines` / `docids` code (`_Doc.mt_selection`):
    the same syntax, checks and messages as an MT document's selection."""

    def __init__(self, loader: _Loader, table: dict, line):
        self.loader, self.task, self.table, self.ok, self._line = loader, "mt", table, True, line

    def line(self, key: str | None = None, element: int | None = None) -> int:
        return self._line(key, element)


class _CampaignLoader(_Loader):
    tables = TABLES

    def __init__(self, path: str | Path, progress=None, should_stop=None):
        super().__init__(path, progress, should_stop)
        # the files a campaign names are sent to worker processes, maybe on other machines
        # and in other working directories: absolute paths, whatever the driver's folder
        self.base = Path(path).parent.absolute()

    def table(self, data: dict, name: str, required: bool = False) -> dict | None:
        if name not in data:
            if required:
                self.add(0, f"missing table [{name}]")
            return None
        value = data[name]
        if not isinstance(value, dict):
            self.add(self.pos.key_line((), name), f"{name} must be a table [{name}], "
                                                  f"not {_show(value)}")
            return None
        known = {"campaign": CAMPAIGN_KEYS, "settings": tuple(SETTINGS),
                 "human": HUMAN_KEYS}[name]
        for key in value:
            if key not in known:
                self.add(self.key_line(name, key),
                         unknown_key(key, f"[{name}]", known))
        return value

    def empty(self, name: str = "", task: str = "") -> Campaign:
        return Campaign(self.file, name or Path(self.file).stem, task, (), {}, (), (), (),
                        problems=self._problems())

    def _problems(self) -> tuple:
        """The problems found, and past the limit a last one saying how many more."""
        items = list(self.problems.items)
        if self.problems.dropped:
            items.append(Problem(self.file, 0,
                                 f"... and {self.problems.dropped} more problems"))
        return tuple(items)

    def load(self) -> Campaign:
        try:
            data = self.parse()
        except LoadError:
            return self.empty()
        head = self.table(data, "campaign", required=True) or {}
        task = self.task(head)
        name = head.get("name", Path(self.file).stem)
        if not isinstance(name, str) or not name.strip():
            self.add(self.key_line("campaign", "name"),
                     f"name must be a non-empty string, not {_show(name)}")
            name = Path(self.file).stem
        metrics = self.metric_names(head.get("metrics"), task) if "metrics" in head \
            else default_metrics(task)
        settings = self.settings(self.table(data, "settings"), metrics)
        words = [m for m in metrics if m in WORD_METRICS]
        if words:   # a campaign's documents are turn files: no words to score
            self.add(self.key_line("campaign", "metrics"),
                     f"metric {words[0]} scores words, which campaign documents do not carry "
                     f"(score them per bundle: llgui score BUNDLE --metric {words[0]})")
            metrics = tuple(m for m in metrics if m not in WORD_METRICS)
        if "bleu" in metrics and missing_tokenizer_packages(settings):
            # reported by settings() (the report is marked partial); BLEU itself is left out,
            # never scored with another tokenizer (13a on Japanese is not WMT's BLEU)
            tokenizer = missing_tokenizer_packages(settings)[0]
            self.add(self.key_line("campaign", "metrics") or self.key_line("settings", "tokenize")
                     or self.key_line("settings", "trg_lang"),
                     f"BLEU is left out of this campaign: its tokenizer {tokenizer!r} cannot "
                     "load here, and BLEU with another tokenizer would be another number")
            metrics = tuple(m for m in metrics if m != "bleu")
        if not task:
            return self.empty(name)
        self.kind: tuple[bool, str, int] | None = None  # first time's kind, for mixing checks
        batches = self.batches(data.get("batches"), task)
        systems = self.systems(data.get("systems"), batches)
        cells, gaps = [], []
        n_cells = sum(len(system.models) for system in systems) * len(batches)
        if n_cells > MAX_CELLS:
            self.add(0, f"{n_cells} cells (systems x model versions x batches): a campaign has "
                        f"at most {MAX_CELLS}; split it into several campaigns")
            systems = []
        seen = 0
        for s, system in enumerate(systems):
            for m, model in enumerate(system.models):
                check(self.should_stop)
                report(self.progress, 0.5 + 0.5 * seen / max(n_cells, 1))
                seen += len(batches)
                for b, batch in enumerate(batches):
                    written = system.hypotheses.format(model=model.id, batch=batch.id)
                    target = self.base / written
                    cell = Cell(s, m, b, str(target))
                    try:
                        present = target.is_file()
                    except (OSError, ValueError) as exc:   # a name too long, a NUL
                        self.add(self.pos.key_line(("systems",), "hypotheses", s),
                                 f"hypotheses {_show_path(written)}: not a usable path "
                                 f"({getattr(exc, 'strerror', None) or exc})")
                        continue
                    if present:
                        cells.append(cell)
                    elif os.path.lexists(target):   # a FIFO, a folder, a link to nothing:
                        # not a missing output, and never opened (a FIFO would block)
                        self.add(self.pos.key_line(("systems",), "hypotheses", s),
                                 f"hypotheses {_show_path(str(written))} "
                                 f"{_not_regular(target)}: cell {system.name}/{model.id}/"
                                 f"{batch.id} left out")
                    else:
                        gaps.append(cell)
        human, pair = self.human(self.table(data, "human"))
        return Campaign(self.file, name, task, metrics, settings, tuple(batches), tuple(systems),
                        tuple(cells), tuple(gaps), self._problems(), human=human,
                        human_pair=pair, warnings=tuple(self.warnings))

    def human(self, table: dict | None) -> tuple[str | None, str | None]:
        """[human] scores = FILE (pair = "deu-eng"): read now, so a bad file is a problem at
        its own line (llgui.io.human); the path and pair are kept."""
        if not table:
            return None, None
        scores, pair = table.get("scores"), table.get("pair")
        if not isinstance(scores, str) or not scores.strip():
            self.add(self.key_line("human", "scores") if "scores" in table else
                     self.pos.key_line((), "human"),
                     f"[human] scores must name a file of human scores, not {_show(scores)}")
            return None, None
        if pair is not None and not isinstance(pair, str):
            self.add(self.key_line("human", "pair"), f"pair must be a string such as "
                                                     f"\"deu-eng\", not {_show(pair)}")
            return None, None
        from llgui.io.human import read_human_scores

        path = str(self.base / scores)
        try:
            read_human_scores(path, pair)
        except LoadError as error:   # FILE:LINE in the human-score file itself
            self.extend(error.problems)
            return None, None
        return path, pair

    # --- [campaign] ------------------------------------------------------------------------
    def task(self, head: dict) -> str:
        if "task" not in head:
            self.add(self.pos.table_line(("campaign",)),
                     f"[campaign] needs task = one of: {', '.join(CAMPAIGN_TASKS)}")
            return ""
        task = head["task"]
        if not isinstance(task, str) or task not in CAMPAIGN_TASKS:
            self.add(self.key_line("campaign", "task"),
                     f"task must be one of: {', '.join(CAMPAIGN_TASKS)}, not {_show(task)}")
            return ""
        return task

    def metric_names(self, value: object, task: str) -> tuple[str, ...]:
        line = self.key_line("campaign", "metrics")
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value:
            self.add(line, f"metrics must be a non-empty array of metric names, not "
                           f"{'an empty array' if value == [] else _show(value)}")
            return default_metrics(task)
        return (tuple(self.check_metric_list(value, "campaign", task))
                or default_metrics(task))

    # --- shared checks ---------------------------------------------------------------------
    def ident(self, value: object, what: str, line: int) -> str | None:
        if not isinstance(value, str) or not _ID.fullmatch(value) or len(value) > MAX_ID:
            self.add(line, f"{what} must be at most {MAX_ID} letters, digits, '.', '_' or "
                           f"'-' (it names files), not {_show(value)}")
            return None
        return value

    def stamp(self, value: object, line: int, owner: str) -> Stamp | None:
        try:
            stamp = Stamp.parse(value)
        except ValueError as exc:
            self.add(line, str(exc))
            return None
        if self.kind is None:
            self.kind = (stamp.is_date, owner, line)
        elif stamp.is_date != self.kind[0]:
            this, other = ("an ISO date", "a number") if stamp.is_date else ("a number",
                                                                               "an ISO date")
            self.add(line, f"time {_show(value)} is {this}, but {self.kind[1]} (line "
                           f"{self.kind[2]}) has {other} (times must not mix numbers and dates)")
            return None
        return stamp

    def array_of_tables(self, value: object, name: str) -> list[dict]:
        if value is None:
            self.add(0, f"a campaign needs at least one [[{name}]] table")
            return []
        if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
            self.add(self.pos.key_line((), name) or self.pos.table_line((name,)),
                     f"{name} must be [[{name}]] tables")
            return []
        limit = MAX_SYSTEMS if name == "systems" else MAX_BATCHES
        if len(value) > limit:
            self.add(self.pos.table_line((name,), limit),
                     f"a campaign has at most {limit} [[{name}]] tables, not {len(value)}")
            return []
        return value

    # --- [[batches]] -------------------------------------------------------------------------
    def batches(self, value: object, task: str) -> list[Batch]:
        out: list[tuple[Stamp, str, Batch]] = []
        first: dict[str, int] = {}
        tables = self.array_of_tables(value, "batches")
        for index, table in enumerate(tables):
            check(self.should_stop)
            report(self.progress, 0.5 * index / len(tables))

            def line(key=None, element=None, index=index):
                if key is None:
                    return self.pos.table_line(("batches",), index)
                if element is not None:
                    return self.pos.element_line(("batches",), key, element, index)
                return self.pos.key_line(("batches",), key, index)

            count = self.problems.count
            for key in table:
                if key not in BATCH_KEYS[task]:
                    self.add(line(key), unknown_key(key, "[[batches]]", BATCH_KEYS[task]))
            batch_id = stamp = None
            for key in ("id", "time", "references"):
                if key not in table:
                    self.add(line(), f"[[batches]] number {index + 1} has no {key}")
            if "id" in table:
                batch_id = self.ident(table["id"], "batch id", line("id"))
                if batch_id is not None and batch_id in first:
                    self.add(line("id"), f"duplicate batch id {batch_id!r} (first at line "
                                         f"{first[batch_id]})")
                elif batch_id is not None:
                    first[batch_id] = line("id")
            if "time" in table:
                stamp = self.stamp(table["time"], line("time"), f"batch {batch_id or '?'!s}")
            selection = None
            if task == "mt" and any(k in table for k in ("lines", "docids", "docid")):
                selection = _Selection(self, table, line).mt_selection()
            refs = (self.references(table, task, line, selection) if "references" in table
                    else None)
            uem = uri = None
            if task == "diarization" and refs:
                uri = table.get("uri", batch_id)
                if not isinstance(uri, str) or not uri.strip():
                    self.add(line("uri"), f"uri must be a non-empty string, not {_show(uri)}")
                    uri = None
                elif refs:
                    self.check_turns(refs[0], uri, line("uri") if "uri" in table
                                     else line("references"))
                if "uem" in table and uri is not None:
                    uem = self.resolve(table["uem"], "uem", line("uem"))
                    if uem is not None:
                        from llgui.io.rttm import load_uem

                        spans = self.read(load_uem, uem)
                        if spans is not None and uri not in spans:
                            self.add(line("uem"), f"uem file {table['uem']!r} has no line for "
                                                  f"{uri!r}")
            if self.problems.count == count and batch_id and stamp and refs:
                cut = {}
                if selection is not None:
                    rows, exact, least, what = selection
                    cut = dict(rows=tuple(rows), exact=exact, least=least, what=what)
                out.append((stamp, batch_id, Batch(batch_id, stamp, tuple(refs), uem, uri,
                                                   **cut)))
        return [b for _, _, b in sorted(out, key=lambda x: (x[0].value, x[1]))]

    def references(self, table: dict, task: str, line, selection=None) -> list[str] | None:
        value = table["references"]
        entries = [(value, line("references"))] if isinstance(value, str) else None
        if entries is None:
            if not isinstance(value, list) or not value:
                self.add(line("references"), f"references must be a file name or an array of "
                                             f"file names, not {_show(value)}")
                return None
            entries = [(v, line("references", i)) for i, v in enumerate(value)]
        if task == "diarization" and len(entries) != 1:
            self.add(line("references"), f"a diarization batch takes one references file "
                                         f"(RTTM or MDTM), not {len(entries)}")
            return None
        resolved = [self.resolve(v, "references", where) for v, where in entries]
        if any(r is None for r in resolved):
            return None
        if task == "mt":
            from llgui.io.text import load_segments

            lengths = []
            for r, (written, where) in zip(resolved, entries):
                segments = self.read(load_segments, r)
                if segments is None:
                    return None
                if selection is not None:
                    rows, exact, least, what = selection
                    if not rows:   # the selection's own problem was reported
                        return None
                    problem = selection_problem(len(segments), exact, least, what)
                    if problem is not None:
                        self.add(where, f"references file {written!r} {problem}")
                        return None
                lengths.append(len(segments))
            if selection is None and len(set(lengths)) > 1:
                self.add(line("references"), f"the references have different numbers of lines "
                                             f"({', '.join(map(str, lengths))})")
                return None
        return resolved  # type: ignore[return-value]

    def check_turns(self, resolved: str, uri: str, line: int) -> None:
        from llgui.io.rttm import load_turns

        turns = self.read(load_turns, resolved)
        if turns is not None and not turns.get(uri):
            held = ", ".join(list(turns)[:5]) + (", ..." if len(turns) > 5 else "")
            self.add(line, f"uri {uri!r} has no turn in references file "
                           f"{Path(resolved).name!r} (its file fields: {held})")

    # --- [[systems]] -------------------------------------------------------------------------
    def systems(self, value: object, batches: list[Batch] = ()) -> list[SystemSpec]:
        out: list[SystemSpec] = []
        first: dict[str, int] = {}
        for index, table in enumerate(self.array_of_tables(value, "systems")):
            def line(key=None, element=None, index=index):
                if key is None:
                    return self.pos.table_line(("systems",), index)
                if element is not None:
                    return self.pos.element_line(("systems",), key, element, index)
                return self.pos.key_line(("systems",), key, index)

            count = self.problems.count
            for key in table:
                if key not in SYSTEM_KEYS:
                    self.add(line(key), f"unknown key {key!r} in [[systems]] (known: "
                                        f"{', '.join(SYSTEM_KEYS)})")
            for key in ("name", "models", "hypotheses"):
                if key not in table:
                    self.add(line(), f"[[systems]] number {index + 1} has no {key}")
            name = table.get("name")
            if "name" in table:
                if not isinstance(name, str) or not name.strip():
                    self.add(line("name"), f"name must be a non-empty string, not {_show(name)}")
                elif name in first:
                    self.add(line("name"), f"duplicate system name {name!r} (first at line "
                                           f"{first[name]})")
                else:
                    first[name] = line("name")
            models = self.models(table["models"], line) if "models" in table else []
            template = table.get("hypotheses")
            replicates = self.replicates(table, line) if "replicates" in table else None
            if "hypotheses" in table:
                self.template(template, line("hypotheses"), batches,
                              replicate=replicates is not None, n_models=len(models))
            if replicates is not None:   # one run per replicate, named NAME@REPLICATE
                if self.problems.count == count and models:
                    for rep in replicates:
                        bundle = None
                        if "bundle" in table and isinstance(table["bundle"], str):
                            bundle = self.resolve(table["bundle"].replace("{replicate}", rep),
                                                  "bundle", line("bundle"))
                        out.append(SystemSpec(f"{name}@{rep}", tuple(models),
                                              template.replace("{replicate}", rep), bundle,
                                              replicate_of=name, replicate=rep))
                continue
            # a bundle that cannot be read is said at its line, and the system's cells are
            # still scored, without its online run (it vanished from every leaderboard)
            scored = self.problems.count == count
            bundle = None
            if "bundle" in table:
                bundle = self.resolve(table["bundle"], "bundle", line("bundle"))
            if scored and models:
                out.append(SystemSpec(name, tuple(models), template, bundle))
        return out

    def replicates(self, table: dict, line) -> list[str] | None:
        """The `replicates` ids of a system (ids as batches' and models'), or None."""
        value = table["replicates"]
        if not isinstance(value, list) or not value:
            self.add(line("replicates"), f"replicates must be a non-empty array of ids "
                                         f"(e.g. [\"seed1\", \"seed2\", \"seed3\"]), "
                                         f"not {_show(value)}")
            return None
        out = []
        for i, item in enumerate(value):
            rep = self.ident(item, "replicate id", line("replicates", i))
            if rep is not None and rep in out:
                self.add(line("replicates", i), f"duplicate replicate id {rep!r}")
            elif rep is not None:
                out.append(rep)
        return out if len(out) == len(value) else None

    def models(self, value: object, line) -> list[ModelVersion]:
        if not isinstance(value, list) or not value:
            self.add(line("models"), f"models must be a non-empty array of {{id, time}} tables, "
                                     f"not {'an empty array' if value == [] else _show(value)}")
            return []
        if len(value) > MAX_MODELS:
            self.add(line("models"), f"a system has at most {MAX_MODELS} models, not "
                                     f"{len(value)}")
            return []
        out, seen = [], {}
        for i, item in enumerate(value):
            where = line("models", i)
            if not isinstance(item, dict):
                self.add(where, f"models[{i}] must be a table {{id = ..., time = ...}}, "
                                f"not {_show(item)}")
                continue
            unknown = [k for k in item if k not in MODEL_KEYS]
            if unknown:
                self.add(where, f"unknown key {unknown[0]!r} in models[{i}] (known: id, time)")
            if "id" not in item or "time" not in item:
                self.add(where, f"models[{i}] needs id and time")
                continue
            model_id = self.ident(item["id"], "model id", where)
            stamp = self.stamp(item["time"], where, f"model {model_id or '?'}")
            if model_id is not None and model_id in seen:
                self.add(where, f"duplicate model id {model_id!r} (first at line "
                                f"{seen[model_id]})")
                continue
            if model_id is not None and stamp is not None:
                seen[model_id] = where
                out.append(ModelVersion(model_id, stamp))
        return sorted(out, key=lambda m: (m.time.value, m.id))

    def template(self, value: object, line: int, batches: list[Batch] = (),
                 replicate: bool = False, n_models: int = 2) -> None:
        if not isinstance(value, str) or not value.strip():
            self.add(line, f"hypotheses must be a path template with {{model}} and {{batch}}, "
                           f"not {_show(value)}")
            return
        try:
            parsed = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(value)
                      if f is not None]
        except ValueError as exc:
            self.add(line, f"hypotheses {_show_path(value)} is not a valid template ({exc})")
            return
        fields = [f for f, _, _ in parsed]
        for field, spec, conv in parsed:
            if spec or conv:   # {model:>1000000000} would build a 1 GB file name
                self.add(line, f"hypotheses: {{{field}}} takes no format spec or conversion "
                               f"(write {{model}} and {{batch}} only)")
                return
        known = ("model", "batch", "replicate") if replicate else ("model", "batch")
        unknown = [f for f in fields if f not in known]
        if unknown:
            self.add(line, f"hypotheses has an unknown field {{{unknown[0]}}} (known: "
                           f"{', '.join('{' + k + '}' for k in known)}"
                           f"{'' if replicate else '; {replicate} needs replicates = [...]'})")
        if replicate and "replicate" not in fields:
            self.add(line, f"hypotheses {_show_path(value)} has no {{replicate}}: every "
                           f"replicate needs its own files")
        if "model" not in fields and n_models != 1:   # one version: the path is its output
            self.add(line, f"hypotheses {_show_path(value)} has no {{model}}: every model "
                           f"version needs its own file (only a single model version may "
                           f"leave it out)")
        whole = [b.id for b in batches if b.rows is None]
        if "batch" not in fields and whole:
            # one file per model version, cut by each batch's lines or docids
            self.add(line, f"hypotheses {_show_path(value)} has no {{batch}}: a whole system "
                           f"file is cut by each batch's lines or docids, and batch "
                           f"{whole[0]!r} has neither (give it lines or docids, or write "
                           f"{{batch}} in the template)")


def _not_regular(path: Path) -> str:
    """Why `path`, which exists, is not read: `is not a regular file (a FIFO) ...`, `is a
    directory`, `is a link to nothing`."""
    from llgui.utils.regular import check_regular

    try:
        check_regular(path)
    except FileNotFoundError:
        return "is a link to nothing"
    except OSError as exc:
        return getattr(exc, "strerror", None) or str(exc)
    return "cannot be read"


def _show_path(value: object, limit: int = 60) -> str:
    """A path for a message, shortened at its START so the file name stays readable
    (`'.../sysA/hyp.ONLINE-A.en'`); anything else as `_show` writes it."""
    if not isinstance(value, str):
        return _show(value)
    if len(value) <= limit:
        return repr(value)
    return repr("..." + value[-(limit - 3):])
