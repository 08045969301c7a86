"""What the expert's time bought (DESIGN.md section 1.9): question value, human vs oracle.

- `question`: the value of each question a system asked (active steps): the errors inside
  what was asked against a random question and the best question of the same cost; request
  precision, gain over random selection (Baram et al., JMLR 2004), regret against the best.
  Pure arithmetic on per-unit error and cost arrays.
- `units`: those arrays from a task's track at the hypothesis the expert saw (MT: TER edits
  per sentence; diarization: DER error seconds per second of the UEM; classification: wrong
  labels), walked through a document's log.
- `human`: a live expert against the oracle: agreement with an exact or Wilson interval (the
  `noisy:P` it implies), the cost model fitted to logged effort (least squares, t intervals),
  Kendall's tau between rankings.
"""
