"""Meta-evaluation for organizers (program/compare.py): confidence intervals, paired
significance, rankings as challengeR computes them, ranking without ground truth,
comparing protocols.

cli.py          compare.py's arguments and its run over the tracks
submissions.py  unpack and score each submission with the track scorers
exact.py        exact comparisons (equal rational scores share a rank)
analysis.py     the statistics of one track over all submissions (its intervals: the core's
                bootstrap.py, which gives evaluate.py's page the same interval)
cases.py        challengeR's cases and tasks; challenger.py: its ranking methods
unlabeled.py    reference data without labels; pixels.py: ground-truth-free pixel statistics
charts.py       the report's pictures; page.py: ranking.csv, pairs.csv, report.html, LaTeX
latex.py        the LaTeX tables (floats that fit the text width) and their example document
rexport.py      cases.csv and challenger.R (the cases in challengeR's format, the script)
"""
