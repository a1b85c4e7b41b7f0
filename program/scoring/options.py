"""One declarative schema for the YAML files of settings: a track's track.yaml (every
kind's OPTIONS, runner.COMMON_OPTIONS) and the competition's source.yaml (the build's
SOURCE_SCHEMA, tools/make_bundle.py).

A schema is a mapping name -> (default, check). A check turns the raw YAML value into the
value used, or returns None when it is not valid, and carries a short description of what
is expected for the message; a Section is a check whose value is a mapping validated by a
schema of its own (its defaults filled in), and an Each one whose every value is. What a
file gets wrong is one sentence, worded by the file's Words.
"""

from .errors import ReferenceDataError


class Check(object):
    """expected: what a valid value is, for the sentence; convert: value -> the value used,
    or None; sentence: the refusal's own words (%(file)s, %(name)s, %(names)s), if not the
    file's."""

    def __init__(self, expected, convert, sentence=None):
        self.expected = expected
        self.convert = convert
        self.sentence = sentence


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


class Words(object):
    """How a file's refusals are worded: `value` for a value that is not valid (%(file)s,
    %(name)s, %(value)s: brief(value), %(expected)s), `unknown` for a name the schema does
    not declare (%(file)s, %(name)s, %(names)s: the declared names)."""

    def __init__(self, value, unknown):
        self.value = value
        self.unknown = unknown


#: The words of track.yaml.
TRACK_WORDS = Words("%(file)s sets %(name)s to %(value)s; expected %(expected)s.",
                    "%(file)s has the unknown option %(name)s; the options of this track are %(names)s.")


class Section(Check):
    """A mapping whose names and values are checked against the schema `spec`; unknown:
    the refusal of a name it does not declare (%(file)s, %(name)s: its place, %(key)s: the
    name alone, %(names)s: the declared ones), if not its file's."""

    def __init__(self, spec, expected="a mapping", unknown=None):
        Check.__init__(self, expected, None)
        self.spec = spec
        self.unknown = unknown


class Each(Check):
    """A mapping of names the organizer chooses (track folders), each value a Section."""

    def __init__(self, spec, expected="a mapping"):
        Check.__init__(self, expected, None)
        self.section = Section(spec)


def removed(sentence):
    """A name no longer read: refused with its own sentence, whatever its value."""
    return Check(None, lambda value: None, sentence)


def parse_options(config, spec, label, error=ReferenceDataError, words=TRACK_WORDS, ignored=("track",)):
    """The mapping `config` checked against the schema `spec`, defaults filled in;
    error(sentence) for the first name it does not declare (but `ignored`) or value it
    refuses."""
    return _section(config, Section(spec), label, error, words, "", ignored)


def _section(config, schema, label, error, words, where, ignored=()):
    """where: the names of the sections around it, as sentences name them ('tracks: lines: ')."""
    unknown = sorted((k for k in config if k not in schema.spec and k not in ignored), key=str)
    if unknown:
        names = ", ".join(sorted(n for n, (_, check) in schema.spec.items() if check.sentence is None))
        raise error((schema.unknown or words.unknown) % {"file": label, "name": where + brief(unknown[0]),
                                                         "key": brief(unknown[0]), "names": names})
    options = {}
    for name in sorted(schema.spec):
        default, check = schema.spec[name]
        if name not in config:
            options[name] = _section({}, check, label, error, words, where + name + ": ") \
                if isinstance(check, Section) else default
        else:
            options[name] = _value(config[name], check, label, error, words, where + name)
    return options


def _value(value, check, label, error, words, name):
    if isinstance(check, Section):
        if not isinstance(value, dict):
            _refuse(value, check, label, error, words.value, name)
        return _section(value, check, label, error, words, name + ": ")
    if isinstance(check, Each):
        if not isinstance(value, dict):
            _refuse(value, check, label, error, words.value, name)
        return dict((key, _value({} if settings is None else settings, check.section, label, error, words,
                                 "%s: %s" % (name, key))) for key, settings in value.items())
    converted = check.convert(value)
    if converted is None:
        _refuse(value, check, label, error, words.value, name)
    return converted


def _refuse(value, check, label, error, wording, name):
    raise error((check.sentence or wording) % {"file": label, "name": name, "value": brief(value),
                                               "expected": check.expected})
