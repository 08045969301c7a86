"""Gate 11: Verify (Tools > Verify, Ctrl+R) of a 1.5-hour meeting with 15 steps, against
pyannote.metrics recomputing every score on the whole meeting.

The meeting is `benchmarks.synthetic.diar_bundle(1.5, 15)` (1,500 reference turns by 12
speakers, a hypothesis with shifted boundaries and swapped labels, 15 `boundary` steps), DER
with a 0.5-s collar and the UEM given, as on AMI. `llgui.core.verify.verify_walkthrough` is
timed once (it checks S_base and every step's S_cor, S_imp and S_adapt: 46 scores). The
recomputation it replaced, one `pyannote_der_components` call per score on the whole meeting,
is timed on SAMPLE of those scores in the same run and scaled to all of them (the whole set
takes minutes); those calls are also compared with verify's numbers to 1e-9. PASS iff verify
takes <= 60 s, finds every score equal, and agrees with the whole-meeting calls.
"""
from __future__ import annotations

import time

from benchmarks.common import GateResult

NAME = "verify"
LIMIT_S = 60.0
HOURS, STEPS = 1.5, 15
SAMPLE = 3


def run() -> GateResult:
    from benchmarks.synthetic import diar_bundle
    from llgui.core.diarization.reference import pyannote_der_components, pyannote_version
    from llgui.core.verify import verify_walkthrough
    from llgui.core.walkthrough import walk

    bundle = diar_bundle(HOURS, STEPS)
    doc = bundle.documents[0]
    end = max(t.end for t in (*doc.reference, *doc.hypothesis))
    doc = type(doc)(doc.id, doc.time, doc.uri, doc.reference, doc.hypothesis,
                    uem=((0.0, round(end + 1.0, 3)),))
    settings = {"collar": 0.5}
    walkthrough = walk(doc, bundle.steps_of(doc.id), "der", settings, bundle.cost)
    t0 = time.perf_counter()
    verification = verify_walkthrough(walkthrough, settings)
    ours = time.perf_counter() - t0
    checks = verification.compared
    # the recomputation it replaces: pyannote on the whole meeting for each score
    hypotheses = {(0, "s_base"): walkthrough.base}
    for i, view in enumerate(walkthrough.steps, 1):
        hypotheses[(i, "s_cor")] = view.corrected
        hypotheses[(i, "s_adapt")] = view.adapted
    sample = [c for c in checks if (c.step, c.quantity) in hypotheses][:: max(1, len(checks)
                                                                              // SAMPLE)][:SAMPLE]
    whole_s, worst = 0.0, 0.0
    for c in sample:
        t0 = time.perf_counter()
        lib = pyannote_der_components(doc.reference, hypotheses[(c.step, c.quantity)],
                                      uem=doc.uem, collar=0.5).der
        whole_s += time.perf_counter() - t0
        worst = max(worst, abs(lib - c.library))
    per_score = whole_s / len(sample)
    whole = per_score * len(checks)
    ratio = whole / ours
    agree = worst <= 1e-9
    passed = ours <= LIMIT_S and verification.ok and agree
    details = [
        f"verify: {ours:.1f} s for {len(checks)} scores ({len(walkthrough.steps)} steps, "
        f"{len(doc.reference)} + {len(doc.hypothesis)} turns over {end / 60:.0f} min), "
        f"{'all equal' if verification.ok else 'NOT EQUAL'} (largest difference "
        f"{verification.max_difference:.1e})",
        f"pyannote on the whole meeting: {per_score:.2f} s per score (mean of {len(sample)}), "
        f"{whole:.0f} s for all {len(checks)}; verify's numbers equal to them within {worst:.1e}",
        f"limits: verify <= {LIMIT_S:g} s, every score equal to 1e-9",
    ]
    return GateResult(figure=f"{ours:.1f} s for {len(walkthrough.steps)} steps", ratio=ratio,
                      library=f"pyannote.metrics {pyannote_version()} recomputation",
                      passed=passed, details=details)
