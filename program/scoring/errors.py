"""The two kinds of failure a participant or an organizer can fix, and nothing else.

Everything raised from a reader or a track is one of these, carrying one sentence
addressed to whoever can fix it (which file, which line, expected vs. found). The
entry point turns them into the exit status and the last line of stderr; any other
exception is a bug in the scoring program itself.
"""

import re
import unicodedata

#: Characters that reorder or hide text: the Unicode bidirectional controls (embeddings,
#: overrides, isolates, marks; `Cat_\u202eA.txt` shows reordered) and the invisible ones
#: (zero-width space and joiners, word joiner and invisible operators, BOM, soft hyphen,
#: Hangul fillers, tag characters), after the Unicode Technical Report #36 and #39 lists of
#: characters used to spoof names (https://www.unicode.org/reports/tr36/, tr39/).
HIDDEN = ("\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064"
           "\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\U000e0000-\U000e007f")
#: What `visible` escapes: the above, and the control characters but tab and line ends.
_INVISIBLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f%s]" % HIDDEN)
#: What `printable` escapes: the above, the C0 and C1 controls, DEL (a terminal's escape
#: sequences start with ESC) and the line and paragraph separators.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029%s]" % HIDDEN)
#: The zero-width non-joiner and joiner: part of the spelling between two letters of the
#: scripts that write them (Persian, Arabic, the Indic scripts; emoji sequences), kept there.
_JOINERS = "\u200c\u200d"


def _escaped(match):
    char = match.group()
    if char in _JOINERS and _joins(match.string, match.start()):
        return char
    return char.encode("unicode_escape").decode("ascii")


def _joins(text, i):
    """Whether the joiner at text[i] sits between two letters, marks or symbols of a script
    beyond Latin, Greek, Cyrillic and Armenian (whose words never hold one)."""
    if i == 0 or i + 1 >= len(text):
        return False
    for char in (text[i - 1], text[i + 1]):
        code = ord(char)
        if code < 0x0590 or 0x1e00 <= code < 0x2000 or unicodedata.category(char)[0] not in "LMS":
            return False
    return True


def visible(text):
    """`text` with every bidirectional control, invisible character and control
    character written as an escape (U+202E as \\u202e, ESC as \\x1b), so that two names
    that differ by one never look alike and none reorders the text around it; tabs and
    line breaks kept (pages)."""
    return _INVISIBLE.sub(_escaped, text)


def printable(text):
    """`text` as one inert line: visible(), and every control character written as an
    escape (a newline as \\n, ESC as \\x1b), so that a name holding one never splits or
    garbles the line that names it, nor drives a terminal. For sentences, terminals and
    the cells of CSV files people open."""
    return _UNPRINTABLE.sub(_escaped, text)


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
