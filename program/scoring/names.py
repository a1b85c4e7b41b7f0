"""Names as data: how a name becomes a key, how names are matched, how they are shown.

Names come from people (subsets, manuscripts, pages, categories, track folders, the
participant's files): any script, spaces, accents written composed (NFC) or decomposed
(NFD, as macOS writes them), and mangled by zip tools on the way. This module is the one
place that decides

- the key of a name (key_name): ASCII, lower case, readable from the name;
- when two names are the same (canonical: Unicode's NFC form), what a zip tool meant
  by a member's name (meant: `\\` as a folder separator, UTF-8 bytes decoded as cp437
  repaired), and which names are archive litter (is_litter);
- which submitted name was probably meant for an expected one (NameIndex, "did you
  mean") and where a list repeats a name (first_repeat).

Sentences and pages show a name as it was written; only keys and comparisons use the
forms made here.
"""

import difflib
import hashlib
import re
import unicodedata

from .errors import ReferenceDataError

# ---------------------------------------------------------------- litter

#: Debris that archivers and file managers leave beside the files: macOS's __MACOSX/ folder
#: and .DS_Store, Windows' Thumbs.db and desktop.ini, and AppleDouble files (._<name>).
LITTER = frozenset(["__MACOSX", ".DS_Store", "Thumbs.db", "desktop.ini"])


def is_litter(name):
    """Whether a file or folder name is archive litter, never part of the data."""
    return name in LITTER or name.startswith("._")


# ---------------------------------------------------------------- keys

#: Latin letters that Unicode does not decompose into a base letter and accents, with
#: their usual ASCII spelling (keys of lower-cased names).
LATIN_LETTERS = {"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "đ": "d", "ð": "d", "þ": "th", "ł": "l",
                 "ı": "i", "ħ": "h", "ŧ": "t", "ŋ": "ng"}

_SEPARATORS = re.compile(r"[^0-9a-z]+")


def key_name(name):
    """The part of a scores key that a name gives: ASCII, lower case, '_' between words.

    The name is lower-cased and decomposed (NFKD), accents are dropped and the few Latin
    letters that do not decompose are spelled out (LATIN_LETTERS): Sévigné -> sevigne,
    Carnaval_de_Río -> carnaval_de_rio, Straße -> strasse. Every other character that
    is not an ASCII letter or digit separates words. A name holding letters or digits of
    another script (東京, Syriaque ܐܪܡܝܐ), or nothing left at all, keeps its Latin part
    and ends with 'u' and the first six hexadecimal digits of the SHA-1 of the name in
    NFC as UTF-8 (東京 -> u681ee3, Syriaque ܐܪܡܝܐ -> syriaque_u...): stable on every
    system, and distinct for distinct names but for chance (which the collision check
    of the phase's keys then refuses, naming both names).
    """
    text = canonical(name)
    readable, foreign = [], False
    for char in unicodedata.normalize("NFKD", text.lower()):
        if char < "\x80":
            readable.append(char)
        elif unicodedata.category(char)[0] == "M":  # accents and other marks
            continue
        elif char in LATIN_LETTERS:
            readable.append(LATIN_LETTERS[char])
        else:
            foreign = foreign or unicodedata.category(char)[0] in "LN"
            readable.append(" ")
    key = _SEPARATORS.sub("_", "".join(readable)).strip("_")
    if foreign or not key:
        digest = "u" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:6]
        key = key + "_" + digest if key else digest
    return key


def name_keys(names, what, where):
    """{name: key_name(name)} of a list of names (a track's subsets, manuscripts...), or
    a collision refused naming both names. where(name): how an organizer's sentence names
    the file or folder of a name."""
    keys, owner = {}, {}
    for name in names:
        key = key_name(name)
        if key in owner:
            raise ReferenceDataError(
                "The %ss %s and %s both give the key %s (keys are ASCII in lower case, accents dropped and other "
                "characters as '_'); rename one of %s and %s so that every key is distinct."
                % (what, owner[key], name, key, where(owner[key]), where(name)))
        owner[key] = name
        keys[name] = key
    return keys


# ---------------------------------------------------------------- matching


def canonical(name):
    """The form in which two names are compared: Unicode's NFC (composed), so that a
    name written decomposed (NFD, as macOS writes it) equals the same name composed."""
    return unicodedata.normalize("NFC", name)


def cp437_repaired(name):
    """The name a zip member's UTF-8 bytes spelled, when a zip tool stored them without
    the zip's UTF-8 flag (Info-ZIP's zip does) and Python's zipfile, as the platforms'
    workers use it, decoded them as cp437 (Sévigné -> S├⌐vign├⌐); None for any other
    name. Only a name whose cp437 bytes are valid UTF-8 with some multi-byte character
    is repaired: a name really written in cp437 characters almost never is."""
    try:
        raw = name.encode("cp437")
    except UnicodeEncodeError:
        return None
    if max(bytearray(raw) or [0]) < 0x80:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


#: How a member name was read, in the words of the log.
REPAIRS = {
    "backslash": "names with '\\' between folders (old Windows zip tools) are read as folders",
    "cp437": "names stored without the zip's UTF-8 flag (Info-ZIP's zip, for one) and unpacked as cp437 are read "
             "as UTF-8",
    "nfd": "names written decomposed (Unicode NFD, as macOS writes them) are matched with the phase's names",
}


def meant(name):
    """(the parts of the path a member name meant, the repairs that made them): a name
    holding '\\' is a path whose folders an old Windows zip tool separated so, and each
    part is repaired (cp437_repaired). Parts are kept as written otherwise."""
    repairs = []
    parts = name.split("\\") if "\\" in name else [name]
    if len(parts) > 1 and any(parts):
        parts = [part for part in parts if part]
        repairs.append("backslash")
    else:
        parts = [name]
    out = []
    for part in parts:
        repaired = cp437_repaired(part)
        if repaired is not None:
            part = repaired
            if "cp437" not in repairs:
                repairs.append("cp437")
        if "nfd" not in repairs and part != canonical(part):
            repairs.append("nfd")
        out.append(part)
    return out, repairs


# ---------------------------------------------------------------- did you mean


def loose(name):
    """A name as a person may have mangled it: case, form (NFC/NFD), and spaces, dashes
    and underscores taken as one separator."""
    return "_".join(canonical(name).lower().replace("-", " ").replace("_", " ").split())


def stem(name):
    """The name without its extension."""
    dot = name.rfind(".")
    return name[:dot] if dot > 0 else name


#: At most this many submitted names are compared in full with a missing one (the
#: nearest in length): the "did you mean" search stays fast among 40,000 decoy names.
NEAR_CANDIDATES = 200


class NameIndex(object):
    """Names by their loose form (and that of their stem), built once for every lookup."""

    def __init__(self, available):
        self.by_key, self.by_stem = {}, {}
        for name in available:
            self.by_key.setdefault(loose(name), name)
            self.by_stem.setdefault(loose(stem(name)), name)

    def near(self, expected, fuzzy=True):
        """The available name most likely meant for `expected`, or None. fuzzy=False:
        only a name equal to it but for case, form and separators (or extension), a
        lookup of constant cost."""
        target = loose(expected)
        if target in self.by_key:
            return self.by_key[target]
        if loose(stem(expected)) in self.by_stem:
            return self.by_stem[loose(stem(expected))]
        if not fuzzy:
            return None
        # difflib's ratio 2M/(a+b) reaches 0.8 only if the shorter is at least 2/3 of the longer.
        keys = [k for k in self.by_key if 3 * min(len(k), len(target)) >= 2 * max(len(k), len(target))]
        keys = sorted(keys, key=lambda k: (abs(len(k) - len(target)), k))[:NEAR_CANDIDATES]
        close = difflib.get_close_matches(target, keys, n=1, cutoff=0.8)
        return self.by_key[close[0]] if close else None


def _plain(name):
    """A name without its accents (NFD, combining marks dropped)."""
    return "".join(c for c in unicodedata.normalize("NFD", name) if not unicodedata.combining(c))


def how_it_differs(found, expected):
    """How a name found differs from the one expected, as a sentence's clause: 'differs only
    in case', 'in its accents', 'in its spaces, dashes or underscores', 'in its extension',
    else 'is named almost so'."""
    if canonical(found).lower() == canonical(expected).lower():
        return "which differs only in case (names are case-sensitive)"
    if _plain(found) == _plain(expected):
        return "which differs only in its accents"
    if _plain(found).lower() == _plain(expected).lower():
        return "which differs only in its accents and case"
    if loose(found) == loose(expected):
        return "which differs only in its spaces, dashes, underscores or case"
    if loose(stem(found)) == loose(stem(expected)):
        return "which differs in its extension"
    return CLOSE


#: how_it_differs of a name that is not the expected one but for spelling: maybe another file.
CLOSE = "a name close to it"


def near_name(expected, available):
    """The available name most likely meant for `expected`, or None."""
    return NameIndex(available).near(expected)


# ---------------------------------------------------------------- repeats


def first_repeat(names):
    """(index of the first occurrence, index of the repeat) of the first name listed
    twice, or None when every name is listed once."""
    if len(set(names)) == len(names):
        return None
    first = {}
    for i, name in enumerate(names):
        if name in first:
            return first[name], i
        first[name] = i
    return None


def refuse_repeats(names, shown, error, lines=None, what="image"):
    """Refuse a list in which a name repeats: '<shown> line L repeats the <what> N
    (first on line F); list each <what> once.' lines: the line number of each entry
    (None: entry i is on line i + 1)."""
    found = first_repeat(names)
    if found is not None:
        first, repeat = found
        line = (lambda i: i + 1) if lines is None else (lambda i: lines[i])
        raise error("%s line %d repeats the %s %s (first on line %d); list each %s once."
                    % (shown, line(repeat), what, names[repeat], line(first), what))


def counted(number, noun, plural=None):
    """'1 field', '3 fields': a count with its noun in the right number."""
    return "%d %s" % (number, noun if number == 1 else (plural or noun + "s"))


def shown_list(names, limit=5):
    """'a, b, c' of at most `limit` names, then 'and N more'."""
    names = list(names)
    text = ", ".join(names[:limit])
    if len(names) > limit:
        text += " and %d more" % (len(names) - limit)
    return text
