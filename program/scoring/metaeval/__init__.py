"""Meta-evaluation for organizers (program/compare.py; SPEC section 6): confidence
intervals, paired significance, ranking without ground truth, comparing protocols.

submissions.py  unpack and score each submission with the track scorers
adapters.py     per track: a TrackResult's items -> per-item arrays (track-agnostic from there)
analysis.py     the statistics of one track over all submissions (its intervals: ..bootstrap,
                the core's, which gives evaluate.py's page the same interval)
charts.py       the report's pictures; page.py: ranking.csv and report.html
"""
