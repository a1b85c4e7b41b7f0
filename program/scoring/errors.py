"""The two kinds of failure a participant or an organizer can fix, and nothing else.

Everything raised from a reader or a track is one of these, carrying one sentence
addressed to whoever can fix it (which file, which line, expected vs. found). The
entry point turns them into the exit status and the last line of stderr; any other
exception is a bug in the scoring program itself.
"""

import re

#: Characters that would break a sentence's single line or its meaning on a terminal:
#: C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(text):
    """`text` with every control character written as an escape (a newline as \\n), so that
    a file name holding one never splits or garbles the line that names it."""
    return _UNPRINTABLE.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), text)


#: A run of this many characters without a space (a 200,000-character "name") is shortened.
_LONG_WORD = re.compile("[^ ]{241,}")


def shortened(text):
    """`text` with every run of more than 240 characters without a space cut in its middle."""
    return _LONG_WORD.sub(lambda m: "%s...(%d characters)...%s" % (m.group()[:100], len(m.group()), m.group()[-100:]),
                          text)


class ScoringError(Exception):
    """Base class: an error with a sentence meant for a person, and an exit status."""

    exit_status = 3
    audience = "error"

    def __init__(self, sentence):
        sentence = shortened(printable(sentence))
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
