"""Plain log lines on stderr (right-to-left names isolated, bidi.terminal), also kept for the
detailed results page (which isolates them its own way)."""

import sys

from .bidi import terminal
from .errors import printable


class Log(object):
    def __init__(self, stream=None):
        self.stream = stream if stream is not None else sys.stderr
        self.lines = []

    def info(self, message):
        self._emit(message)

    def warn(self, message):
        self._emit("WARNING: " + message)

    def _emit(self, line):
        line = printable(line)
        self.lines.append(line)
        self.stream.write(terminal(line) + "\n")
        self.stream.flush()
