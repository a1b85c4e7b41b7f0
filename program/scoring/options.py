"""Validation of a track's options in track.yaml, shared by every track.

A track declares its options as a mapping name -> (default, check). A check turns the
raw YAML value into the value the track uses, or returns None when it is not valid,
and carries a short description of what is expected for the message.
"""

from .errors import ReferenceDataError


class Check(object):
    def __init__(self, expected, convert):
        self.expected = expected
        self.convert = convert


def choice(*values):
    def convert(value):
        return value if value in values else None

    return Check("one of " + ", ".join(repr(v) for v in values), convert)


def number(low, high):
    def convert(value):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        return float(value) if low <= value <= high else None

    return Check("a number from %g to %g" % (low, high), convert)


def integer_in(*values):
    def convert(value):
        return value if (not isinstance(value, bool) and value in values) else None

    return Check("one of " + ", ".join(str(v) for v in values), convert)


def positive_int_list():
    def convert(value):
        if not isinstance(value, list) or not value:
            return None
        if any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in value):
            return None
        if len(set(value)) != len(value):
            return None
        return sorted(value)

    return Check("a list of distinct positive integers, e.g. [1, 3, 5]", convert)


def boolean():
    def convert(value):
        return value if isinstance(value, bool) else None

    return Check("true or false", convert)


def text():
    """A line of text: a title (a string, or a number YAML read as one, as written)."""
    def convert(value):
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            return None
        value = str(value).strip()
        return value if value and "\n" not in value else None

    return Check("a title on one line, e.g. 'My competition'", convert)


def brief(value, limit=80):
    """repr(value), cut to `limit` characters: a message quotes a value, never a whole structure."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def parse_options(config, spec, label):
    """Options of track.yaml checked against `spec`, defaults filled in."""
    unknown = sorted((k for k in config if k not in spec and k != "track"), key=str)
    if unknown:
        raise ReferenceDataError(
            "%s has the unknown option %s; the options of this track are %s."
            % (label, brief(unknown[0]), ", ".join(sorted(spec)))
        )
    options = {}
    for name in sorted(spec):
        default, check = spec[name]
        if name not in config:
            options[name] = default
            continue
        value = check.convert(config[name])
        if value is None:
            raise ReferenceDataError(
                "%s sets %s to %s; expected %s." % (label, name, brief(config[name]), check.expected)
            )
        options[name] = value
    return options
