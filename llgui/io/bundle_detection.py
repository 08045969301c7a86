"""The detection and classification tables of a bundle: `[detection]` score files (one system
each, or target / non-target pairs) joined to the key, `[classification]` decisions files,
and the interaction log's label steps checked against them. A mixin of the bundle's
`_Loader` (`llgui.io.bundle`), whose reporting and file reading it uses."""
from __future__ import annotations

from pathlib import Path

from llgui.core.errors import LoadError
from llgui.io.bundle_settings import _show


class _DetectionTables:
    """`_Loader`'s methods for [detection] and [classification]."""

    def detection_log(self, trials: list, steps, log_file: str) -> tuple[list, list]:
        """Systems as documents and the log's label steps checked against their trials
        (`llgui.io.det_log`); adapted score files are read with the bundle's key."""
        from llgui.io import det_log
        from llgui.io import detection as det

        key = self.detection_key
        keyed = key is not None
        try:
            documents = det_log.det_documents(trials, keyed)
        except LoadError as exc:
            self.extend(exc.problems)
            return [], []
        if key is False:
            return documents, []   # the key's problems are reported; nothing to join to
        checked, problems = det_log.check_label_steps(
            steps, documents, lambda path: self.read(det._load_scores, path, key), log_file,
            keyed)
        self.extend(problems)
        return documents, checked

    def classification(self, table: dict | None, steps, log_file: str | None
                       ) -> tuple[list, list]:
        """Systems (decisions files) as documents, and the log's label steps checked against
        the key and the classes (`llgui.io.classification`)."""
        from llgui.io import classification as cls

        if table is None or "key" not in table or "decisions" not in table:
            line = (self.pos.table_line(("classification",)) if table is not None
                    else self.key_line("bundle", "task"))
            self.add(line, "a classification bundle needs [classification] key = the true "
                           "classes and decisions = [decisions files]")
            return [], []
        key = self.resolve(table["key"], "key", self.key_line("classification", "key"))
        files = table["decisions"]
        files = [files] if isinstance(files, str) else files
        line = self.key_line("classification", "decisions")
        if not isinstance(files, list) or not files:
            self.add(line, f"decisions must be an array of files, not {_show(table['decisions'])}")
            return [], []
        resolved = []
        for i, written in enumerate(files):
            found = self.resolve(written, "decisions",
                                 self.pos.element_line(("classification",), "decisions", i))
            if found is not None:
                resolved.append(found)
        classes = table.get("classes")
        if classes is not None and (not isinstance(classes, list) or not classes or not all(
                isinstance(c, str) and c.strip() and len(c.split()) == 1 for c in classes)
                or len(set(classes)) != len(classes)):
            self.add(self.key_line("classification", "classes"),
                     "classes must be a non-empty array of distinct class names (no "
                     "spaces)")
            return [], []
        if key is None or len(resolved) != len(files):
            return [], []
        problems: list = []
        read = lambda path: self.read_or_raise(cls.load_labels, path)  # noqa: E731
        documents = cls.class_documents(key, resolved, classes, problems, read)
        self.extend(problems)
        if not steps or log_file is None or len(documents) != len(files):
            return documents, []
        checked, problems = cls.check_class_steps(steps, documents, log_file, read)
        self.extend(problems)
        return documents, checked

    def read_or_raise(self, loader, path):
        """`loader(path)` once per file; raises its LoadError again on later calls."""
        key = ("raise", loader.__name__, path)
        if key not in self.cache:
            try:
                self.cache[key] = loader(path)
            except LoadError as exc:
                self.cache[key] = exc
        found = self.cache[key]
        if isinstance(found, LoadError):
            raise LoadError(found.problems)
        return found

    def detection(self, table: dict | None, task: str) -> list:
        if table is not None and ("targets" in table or "nontargets" in table):
            pairs = self.detection_pairs(table, {})
            if "scores" not in table:
                return pairs
            trials = self.detection_scores(table)
            taken = {t.name for t in trials}
            for t in pairs:
                if t.name in taken:
                    self.add(self.key_line("detection", "targets"),
                             f"system name {t.name!r} is also a scores file's stem; set names "
                             f"= [...] to tell them apart")
            return trials + [t for t in pairs if t.name not in taken]
        if table is None or "scores" not in table:
            if task == "detection":
                line = (self.pos.table_line(("detection",)) if table is not None
                        else self.key_line("bundle", "task"))
                self.add(line, "a detection bundle needs [detection] scores = [score files], "
                               "or targets = [...] and nontargets = [...]")
            return []
        return self.detection_scores(table)

    def detection_pairs(self, table: dict, names: dict[str, tuple[str, int]]) -> list:
        """Systems given as separate target / non-target score files (bob.measure, pyeer):
        `targets` and `nontargets` are arrays (or single names) paired by position; `names`,
        optional, names the systems (default: the common start of each pair's file stems)."""
        from llgui.io.detection import load_score_pair, pair_name

        lists = {}
        for key in ("targets", "nontargets", "names"):
            if key not in table:
                continue
            value = table[key]
            value = [value] if isinstance(value, str) else value
            if not isinstance(value, list) or not value:
                self.add(self.key_line("detection", key),
                         f"{key} must be an array of {'names' if key == 'names' else 'files'}, "
                         f"not {'an empty array' if value == [] else _show(table[key])}")
                return []
            lists[key] = value
        for key, other in (("targets", "nontargets"), ("nontargets", "targets")):
            if key in lists and other not in lists:
                self.add(self.key_line("detection", key),
                         f"{key} needs {other} = [...] (one file of each per system)")
                return []
        n = len(lists["targets"])
        for key in ("nontargets", "names"):
            if key in lists and len(lists[key]) != n:
                self.add(self.key_line("detection", key),
                         f"{key} has {len(lists[key])} entries but targets has {n} (paired "
                         f"by position)")
                return []
        trials = []
        for i in range(n):
            resolved = []
            for key in ("targets", "nontargets"):
                where = self.pos.element_line(("detection",), key, i)
                resolved.append(self.resolve(lists[key][i], key, where))
            where = self.pos.element_line(("detection",), "targets", i)
            if "names" in lists:
                name = lists["names"][i]
                where = self.pos.element_line(("detection",), "names", i)
                if not isinstance(name, str) or not name.strip():
                    self.add(where, f"names[{i}] must be a non-empty string, not {_show(name)}")
                    continue
            elif None not in resolved:
                name = pair_name(*resolved)
            else:
                continue
            if name in names:
                self.add(where, f"system name {name!r} is given twice (first at line "
                                f"{names[name][1]}); set names = [...] to tell them apart")
                continue
            names[name] = (name, where)
            if None in resolved:
                continue
            loaded = self.read(load_score_pair, resolved[0], resolved[1], name)
            if loaded is not None:
                trials.append(loaded)
        return trials

    def detection_scores(self, table: dict) -> list:
        from llgui.io import detection as det

        key = None
        self.detection_key = None
        if "key" in table:
            resolved_key = self.resolve(table["key"], "key", self.key_line("detection", "key"))
            if resolved_key is None:
                key = False
            else:
                key = self.read(det.load_key, resolved_key)
                if key is None:
                    key = False  # its problems are collected; score files are still checked
            self.detection_key = key
        files = table["scores"]
        line = self.key_line("detection", "scores")
        if isinstance(files, str):
            files = [files]
        if not isinstance(files, list) or not files:
            self.add(line, f"scores must be an array of score files, not {_show(table['scores'])}")
            return []
        trials = []
        names: dict[str, tuple[str, int]] = {}
        for i, written in enumerate(files):
            where = self.pos.element_line(("detection",), "scores", i)
            resolved = self.resolve(written, "scores", where)
            if resolved is None:
                continue
            name = Path(resolved).stem
            if name in names:
                self.add(where, f"scores file {written!r} has the same system name {name!r} as "
                                f"{names[name][0]!r} (line {names[name][1]}); names come from "
                                f"file stems")
                continue
            names[name] = (written, where)
            loaded = self.read(det._load_scores, resolved, key)
            if loaded is not None:
                trials.append(loaded)
        return trials
