"""A 20-speaker VoxConverse clip as a bundle (issue 35), outside the repository.

    python docs/realdata/make_voxconverse.py [OUT]      # default OUT: /tmp/realdata

Writes OUT/vox/bundle.toml: VoxConverse dev clip kdfqk (a 20-speaker broadcast; reference
RTTM in tests/data/voxconverse, CC BY 4.0), its reference as the hypothesis too (no system
output is published: the picture is about telling 20 speakers apart, not about a system's
errors). It has no interaction log: with the reference as the hypothesis there is no error for
an expert to correct, so the window shows step 0 of 0 (the lanes, the 20 speakers' colours and
the legend are what it is for).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CLIP = Path(__file__).resolve().parents[2] / "tests" / "data" / "voxconverse" / "kdfqk.rttm"


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/realdata") / "vox"
    out.mkdir(parents=True, exist_ok=True)
    bundle = out / "bundle.toml"
    bundle.write_text(f'''[bundle]
task = "diarization"
name = "VoxConverse kdfqk (20 speakers)"
metrics = ["der"]

[[documents]]
id = "kdfqk"
time = "1"
references = ["{CLIP}"]
hypothesis = "{CLIP}"
''', encoding="utf-8")
    print(bundle)


if __name__ == "__main__":
    main()
