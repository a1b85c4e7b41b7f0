"""YAML files of settings (track.yaml, source.yaml, a platform's metadata), read inert.

YAML can make a small file expensive: aliases (`*name`) repeat a node, so that a 1 KB
file expands into gigabytes once its values are written out (a "billion laughs"); nesting
100,000 levels deep exhausts Python's recursion; and the pure-Python parser that every
stack has takes seconds per megabyte. A file of settings needs none of that, so this
loader refuses, each in one sentence naming the file and the line:

- a file larger than SIZE_LIMIT bytes, before it is parsed;
- any anchor (`&name`) or alias (`*name`), from the parser's events, before any node is
  built (an unused anchor too: it has no use but to be repeated);
- nesting deeper than DEPTH_LIMIT, before the composer recurses;
- a key written twice in one mapping (PyYAML would silently keep the last), naming the
  key and both lines.

The safe loader of PyYAML (5.1 to 6.x) does the rest; what it refuses is one sentence too.
"""

import os
import stat

import yaml

#: The largest YAML file of settings (bytes): a track.yaml is a few lines and the demo's
#: source.yaml under 3 KB; the pure-Python parser reads this much well within a second.
SIZE_LIMIT = 64 * 1024
#: The deepest nesting of mappings and lists: source.yaml's labels sit four levels down.
DEPTH_LIMIT = 32


class Refused(Exception):
    """What the loader refuses: a sentence to follow the file's name."""


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing anchors, aliases, deep nesting and repeated keys."""

    depth = 0

    def compose_node(self, parent, index):
        event = self.peek_event()
        line = event.start_mark.line + 1
        if isinstance(event, yaml.AliasEvent):
            raise Refused("uses a YAML alias (*%s) at line %d; write the value out instead (aliases are refused: a "
                          "few of them can expand into gigabytes)." % (event.anchor, line))
        if getattr(event, "anchor", None) is not None:
            raise Refused("defines a YAML anchor (&%s) at line %d; write the value out instead (anchors and aliases "
                          "are refused: a few of them can expand into gigabytes)." % (event.anchor, line))
        if self.depth >= DEPTH_LIMIT:
            raise Refused("nests its values more than %d levels deep at line %d; expected a few levels of mappings "
                          "and lists." % (DEPTH_LIMIT, line))
        self.depth += 1
        try:
            return super(_Loader, self).compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.setdefault(key, key_node.start_mark.line + 1)
                except TypeError:  # an unhashable key: the safe loader refuses it
                    continue
                if first != key_node.start_mark.line + 1:
                    raise Refused("line %d repeats the key %s (first on line %d); keep one."
                                  % (key_node.start_mark.line + 1, _shown_key(key), first))
        return super(_Loader, self).construct_mapping(node, deep=deep)


def _shown_key(key):
    text = str(key)
    return text if len(text) <= 60 else text[:57] + "..."


def load(data, shown, error, invalid):
    """The value of the YAML text `data` (bytes: UTF-8, or UTF-16 with a BOM), or
    error(sentence) naming `shown`.

    invalid: the sentence for what is not YAML at all, with %(file)s and %(where)s
    (' at line N', or '') and %(problem)s (PyYAML's own words).
    """
    if len(data) > SIZE_LIMIT:
        raise error("%s is larger than the %d bytes a YAML file of settings may hold; keep long texts in their "
                    "own files." % (shown, SIZE_LIMIT))
    loader = None
    try:
        loader = _Loader(data)  # reads the first characters: a ReaderError for what is not UTF-8
        return loader.get_single_data()
    except Refused as refused:
        raise error("%s %s" % (shown, refused))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = "" if mark is None else " at line %d" % (mark.line + 1)
        problem = str(getattr(exc, "problem", None) or exc).splitlines()[0]
        raise error(invalid % {"file": shown, "where": where, "problem": problem})
    finally:
        if loader is not None:
            loader.dispose()


def read(path, shown, error, invalid):
    """load() of the file at `path`, of which at most SIZE_LIMIT + 1 bytes are read; a
    path that is not a regular file (a named pipe would block) is refused unread."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(descriptor, "rb") as stream:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                raise error("%s is not a regular file; expected a YAML file." % shown)
            data = stream.read(SIZE_LIMIT + 1)
    except (OSError, IOError) as exc:
        raise error("%s cannot be read (%s)." % (shown, exc.strerror or exc))
    return load(data, shown, error, invalid)
