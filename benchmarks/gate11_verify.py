"""Gate 11: Verify (Tools > Verify, Ctrl+R) of a 1.5-hour meeting with 15 steps, against
pyannote.metrics recomputing every score on the whole meeting.

The meeting is `benchmarks.synthetic.diar_bundle(1.5, 15)` (1,500 reference turns by 12
speakers, a hypothesis with shifted boundaries and swapped labels, 15 `boundary` steps), DER
with a 0.5-s collar and the UEM given, as on AMI. Two logs: "local", the system fixing the
turn of each step; "relabelling", where each step's h_n also swaps two clusters throughout
the meeting (every piece of the recording changes: the worst case for verify's reuse of
pieces). `llgui.core.verify.verify_walkthrough` is timed once on each (it checks S_base and
every step's S_cor, S_imp and S_adapt: 46 scores). The recomputation it replaced, one
`pyannote_der_components` call per score on the whole meeting, is timed on SAMPLE of those
scores in the same run and scaled to all of them (the whole set takes minutes); those calls
are also compared with verify's numbers to 1e-9. PASS iff verify takes <= 60 s on both logs,
finds every score equal, and agrees with the whole-meeting calls.
"""
from __future__ import annotations

import dataclasses
import time

from benchmarks.common import GateResult

NAME = "verify"
LIMIT_S = 60.0
HOURS, STEPS = 1.5, 15
SAMPLE = 2


def logs():
    """(document, {name: steps}) of the two scenarios."""
    from benchmarks.synthetic import diar_bundle
    from llgui.core.types import Adapted, Turn

    bundle = diar_bundle(HOURS, STEPS)
    doc = bundle.documents[0]
    end = max(t.end for t in (*doc.reference, *doc.hypothesis))
    doc = dataclasses.replace(doc, uem=((0.0, round(end + 1.0, 3)),))
    relabelled = []
    for k, step in enumerate(bundle.steps, 1):
        a, b = f"h{(2 * k) % 12:02d}", f"h{(2 * k + 1) % 12:02d}"
        swap = {a: b, b: a}
        turns = tuple(Turn(t.start, t.end, swap.get(t.speaker, t.speaker))
                      for t in step.adapted.turns)
        relabelled.append(dataclasses.replace(step, adapted=Adapted(turns=turns)))
    return bundle, doc, {"local": bundle.steps, "relabelling": tuple(relabelled)}


def run() -> GateResult:
    from llgui.core.diarization.reference import pyannote_der_components, pyannote_version
    from llgui.core.verify import verify_walkthrough
    from llgui.core.walkthrough import walk

    bundle, doc, scenarios = logs()
    settings = {"collar": 0.5}
    details, worst_s, worst_ratio, passed = [], 0.0, float("inf"), True
    for name, steps in scenarios.items():
        walkthrough = walk(doc, steps, "der", settings, bundle.cost)
        t0 = time.perf_counter()
        verification = verify_walkthrough(walkthrough, settings)
        ours = time.perf_counter() - t0
        checks = verification.compared
        # the recomputation it replaces: pyannote on the whole meeting for each score
        hypotheses = {(0, "s_base"): walkthrough.base}
        for i, view in enumerate(walkthrough.steps, 1):
            hypotheses[(i, "s_cor")] = view.corrected
            hypotheses[(i, "s_adapt")] = view.adapted
        candidates = [c for c in checks if (c.step, c.quantity) in hypotheses]
        sample = candidates[::max(1, len(candidates) // SAMPLE)][:SAMPLE]
        whole_s, differs = 0.0, 0.0
        for c in sample:
            t0 = time.perf_counter()
            lib = pyannote_der_components(doc.reference, hypotheses[(c.step, c.quantity)],
                                          uem=doc.uem, collar=0.5).der
            whole_s += time.perf_counter() - t0
            differs = max(differs, abs(lib - c.library))
        per_score = whole_s / len(sample)
        ratio = per_score * len(checks) / ours
        ok = ours <= LIMIT_S and verification.ok and differs <= 1e-9
        passed &= ok
        worst_s, worst_ratio = max(worst_s, ours), min(worst_ratio, ratio)
        details.append(
            f"{name}: verify {ours:.1f} s for {len(checks)} scores "
            f"({'all equal' if verification.ok else 'NOT EQUAL'}, largest difference "
            f"{verification.max_difference:.1e}); pyannote on the whole meeting "
            f"{per_score:.2f} s per score (mean of {len(sample)}), {per_score * len(checks):.0f} s "
            f"for all, {ratio:.1f}x; equal to verify's within {differs:.1e}")
    details.append(f"limits: verify <= {LIMIT_S:g} s, every score equal to 1e-9; "
                   f"{len(doc.reference)} + {len(doc.hypothesis)} turns over "
                   f"{doc.uem[0][1] / 60:.0f} min, {STEPS} steps")
    return GateResult(figure=f"{worst_s:.1f} s for {STEPS} steps (worst log)", ratio=worst_ratio,
                      library=f"pyannote.metrics {pyannote_version()} recomputation",
                      passed=passed, details=details)
