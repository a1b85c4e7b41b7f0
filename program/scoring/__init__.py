"""Scoring program for document-analysis competitions on Codalab and Codabench.

Flow: layout (find tracks, resolve the submission) -> tracks (reader -> metric kernels
-> aggregation) -> TrackResult -> report (scores.txt, scores.json,
detailed_results.html, private/).
"""

__version__ = "0.1.0"
