"""The two kinds of failure a participant or an organizer can fix, and nothing else.

Everything raised from a reader or a track is one of these, carrying one sentence
addressed to whoever can fix it (which file, which line, expected vs. found). The
entry point turns them into the exit status and the last line of stderr; any other
exception is a bug in the scoring program itself.
"""


class ScoringError(Exception):
    """Base class: an error with a sentence meant for a person, and an exit status."""

    exit_status = 3
    audience = "error"

    def __init__(self, sentence):
        super(ScoringError, self).__init__(sentence)
        self.sentence = sentence


class SubmissionError(ScoringError):
    """The participant's submission is invalid (exit status 1)."""

    exit_status = 1
    audience = "Submission error"


class ReferenceDataError(ScoringError):
    """The organizer's reference data or its track.yaml is invalid (exit status 2)."""

    exit_status = 2
    audience = "Reference data error (for the organizers)"
