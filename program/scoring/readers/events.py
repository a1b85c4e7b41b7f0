"""Reader of the events track (ChaLearn cultural events): one file per category.

Reference: `<Category>.txt`, lines `<image id> <label>` (1 positive, 0 or -1 negative).
Submission: `<Category>.txt`, lines `<image id> <confidence>`. Whitespace-separated
(spaces or tabs), UTF-8 with or without a BOM, LF or CRLF, blank lines ignored.

Files are parsed in one pass over the whole text (one str.split; numbers and ids of one
width converted and matched from their bytes, others by float() and a dictionary); only
when something is wrong is the file re-read line by line to name the line in the message.
"""

import difflib
import operator
import os

import numpy as np

from ..errors import ReferenceDataError, SubmissionError
from .text import decode_lines, fixed_width_rows, floats, read_bytes

LABELS = {"1": True, "+1": True, "0": False, "-1": False}
#: Put in place of every newline before splitting: a token no text file holds (NUL is refused).
_MARK = "\x00"


class Category(object):
    """The reference of one category: image ids in file order and who is positive.

    Categories listing the same ids (as ChaLearn's files do) share `ids` and `lookup`:
    the id -> index map, built on first use, and the last submitted order matched.
    """

    def __init__(self, name, ids, positive, lookup=None):
        self.name = name
        self.ids = ids
        self.positive = positive  # (n,) bool
        self.lookup = lookup if lookup is not None else {}

    @property
    def positives(self):
        return int(np.count_nonzero(self.positive))

    def position(self):
        if "position" not in self.lookup:
            self.lookup["position"] = dict(zip(self.ids, range(len(self.ids))))
        return self.lookup["position"]


def split_pairs(data, shown, error):
    """The two columns of a whitespace-separated file: (first, second, lines).

    lines is None when entry i sits on line i + 1 (the fast path), else the list of
    line numbers. Any line without exactly two fields is an error naming it.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and _MARK not in text:
        if not text.endswith("\n"):
            text += "\n"
        tokens = text.replace("\n", " %s " % _MARK).split()
        marks = text.count("\n")
        while len(tokens) > 1 and tokens[-1] == _MARK and tokens[-2] == _MARK:
            tokens.pop()  # trailing blank lines
            marks -= 1
        count = len(tokens) // 3
        # Exactly one mark after every second field and none elsewhere: two fields per line.
        if len(tokens) == 3 * count and marks == count and tokens[2::3] == [_MARK] * count:
            return tokens[0::3], tokens[1::3], None
    return _split_pairs_by_line(data, shown, error)


def _split_pairs_by_line(data, shown, error):
    """The slow, exact pass: line by line, blank lines skipped, errors with their line."""
    first, second, lines = [], [], []
    for number, line in enumerate(decode_lines(data, shown, error), start=1):
        cells = line.split()
        if not cells:
            continue
        if len(cells) != 2:
            raise error("%s line %d has %d fields (%r); expected two, '<image id> <value>', separated by "
                        "spaces or a tab." % (shown, number, len(cells), line.strip()[:60]))
        first.append(cells[0])
        second.append(cells[1])
        lines.append(number)
    return first, second, lines


def line_number(lines, index):
    return index + 1 if lines is None else lines[int(index)]


# ---------------------------------------------------------------- reference


def category_names(track_path):
    return sorted(os.path.splitext(name)[0] for name in os.listdir(track_path)
                  if name.endswith(".txt") and os.path.isfile(os.path.join(track_path, name)))


def read_reference(track):
    names = category_names(track.path)
    if not names:
        raise ReferenceDataError("%s holds no <Category>.txt file; expected e.g. La_Tomatina.txt with lines "
                                 "'<image id> <label>'." % track.label)
    categories = []
    for name in names:
        shown = track.ref_name(name + ".txt")
        data = read_bytes(os.path.join(track.path, name + ".txt"), shown, ReferenceDataError)
        ids, texts, lines = split_pairs(data, shown, ReferenceDataError)
        if not ids:
            raise ReferenceDataError("%s lists no image; expected lines '<image id> <label>'." % shown)
        positive = _positive_mask(texts, lines, shown)
        previous = categories[-1] if categories else None
        if previous is not None and ids == previous.ids:
            category = Category(name, previous.ids, positive, previous.lookup)
        else:
            _refuse_duplicates(ids, lines, shown, ReferenceDataError)
            category = Category(name, ids, positive)
        categories.append(category)
    return categories


def _positive_mask(texts, lines, shown):
    """True for label 1, False for 0 or -1; any other label is an organizer error."""
    found = set(texts)
    if not found <= set(LABELS):
        i = next(i for i, text in enumerate(texts) if text not in LABELS)
        raise ReferenceDataError("%s line %d has the label %r; expected 1 (positive), 0 or -1 (negative)."
                                 % (shown, line_number(lines, i), texts[i]))
    # Each label holds one digit, its last character: positive where it is 1, not after a '-'.
    chars = np.frombuffer("".join(texts).encode("ascii"), dtype=np.uint8)
    one = chars == 49
    one[1:] &= chars[:-1] != 45
    return one[chars >= 48]


def _refuse_duplicates(ids, lines, shown, error):
    if len(set(ids)) == len(ids):
        return
    first = {}
    for i, image in enumerate(ids):
        if image in first:
            raise error("%s line %d repeats the image %s (first on line %d); list each image once."
                        % (shown, line_number(lines, i), image, line_number(lines, first[image])))
        first[image] = i


# ---------------------------------------------------------------- submission


def normalized(name):
    """A file name as a participant may have mangled it: case, spaces, dashes, no .txt."""
    stem = name[:-4] if name.lower().endswith(".txt") else name
    return "_".join(stem.lower().replace("-", " ").replace("_", " ").split())


#: At most this many submitted names are compared in full with a missing one (the
#: nearest in length): the "did you mean" search stays fast among 40,000 decoy names.
NEAR_CANDIDATES = 200


class NameIndex(object):
    """The submitted file names by their normalized form, built once for every lookup."""

    def __init__(self, available):
        self.by_key = {}
        for name in available:
            self.by_key.setdefault(normalized(name), name)

    def near(self, expected):
        """The submitted file most likely meant for `expected`, or None."""
        target = normalized(expected)
        if target in self.by_key:
            return self.by_key[target]
        # difflib's ratio 2M/(a+b) reaches 0.8 only if the shorter is at least 2/3 of the longer.
        keys = [k for k in self.by_key if 3 * min(len(k), len(target)) >= 2 * max(len(k), len(target))]
        keys = sorted(keys, key=lambda k: (abs(len(k) - len(target)), k))[:NEAR_CANDIDATES]
        close = difflib.get_close_matches(target, keys, n=1, cutoff=0.8)
        return self.by_key[close[0]] if close else None


def near_name(expected, available):
    """The submitted file most likely meant for `expected`, or None."""
    return NameIndex(available).near(expected)


def check_files(submission, categories, log):
    """Every category has its file; near names are pointed out, unknown files ignored."""
    entries = submission.entries()
    expected = [c.name + ".txt" for c in categories]
    wanted, present = set(expected), set(entries)
    absent = [name for name in expected if name not in present]
    if absent:
        unused = [e for e in entries if e not in wanted and submission.isfile(e)]
        more = ""
        if len(absent) > 1:
            more = " (%d category files are missing in all, e.g. %s)" % (len(absent), ", ".join(absent[:3]))
        index = NameIndex(unused)
        for name in absent:
            guess = index.near(name)
            if guess is not None:
                raise SubmissionError("The submission has no %s; did you mean %s? Name each file exactly as its "
                                      "category%s." % (submission.name(name), submission.name(guess), more))
        error = submission.missing(absent[0], "one <Category>.txt per category, e.g. %s, with lines "
                                   "'<image id> <confidence>'" % expected[0])
        raise SubmissionError(error.sentence[:-1] + more + ".")
    extra = [e for e in entries if e not in wanted and e.lower().endswith(".txt")]
    if extra:
        log.warn("The submission holds %d .txt files that name no category (ignored), e.g. %s."
                 % (len(extra), ", ".join(extra[:3])))


def read_confidences(path, shown, category, missing):
    """Confidences aligned on the category's ids, and the number of ids not submitted.

    missing: 'error' (a missing id is an error) or 'last' (missing ids get -inf:
    ranked below every submitted one, tied together).
    """
    ids, texts, lines = split_pairs(read_bytes(path, shown), shown, SubmissionError)
    if not ids:
        raise SubmissionError("%s is empty; expected one line '<image id> <confidence>' per image of category %s."
                              % (shown, category.name))
    confidences = _to_floats(texts, lines, shown)
    bad = np.flatnonzero(~np.isfinite(confidences))
    if bad.size:
        i = bad[0]
        raise SubmissionError("%s line %d has the confidence %r; expected a finite number."
                              % (shown, line_number(lines, i), texts[i]))
    n = len(category.ids)
    if ids == category.ids:
        return confidences, 0
    matched = category.lookup.get("matched")
    if matched is not None and ids == matched[0]:
        index, counts = matched[1], matched[2]  # the same order as the previous file
    else:
        index, counts = _match_ids(ids, lines, shown, category)
        category.lookup["matched"] = (ids, index, counts)
    aligned = np.full(n, -np.inf)
    aligned[index] = confidences
    absent = int(np.count_nonzero(counts == 0))
    if absent and missing == "error":
        examples = [category.ids[j] for j in np.flatnonzero(counts == 0)[:3]]
        raise SubmissionError("%s lacks %d of the %d images of category %s, e.g. %s; list every image with a "
                              "confidence." % (shown, absent, n, category.name, ", ".join(examples)))
    return aligned, absent


def _match_ids(ids, lines, shown, category):
    """The reference index of every submitted id, and how often each is submitted."""
    n = len(category.ids)
    index = _match_fixed_width(ids, category)
    if index is None:
        index = _match_by_dictionary(ids, lines, shown, category)
    counts = np.bincount(index, minlength=n)
    if (counts > 1).any():
        _refuse_duplicates(ids, lines, shown, SubmissionError)
    return index, counts


def _match_by_dictionary(ids, lines, shown, category):
    position = category.position()
    try:
        return np.array(operator.itemgetter(*ids)(position) if len(ids) > 1 else [position[ids[0]]],
                        dtype=np.int64)
    except KeyError:
        i = next(i for i, image in enumerate(ids) if image not in position)
        raise SubmissionError("%s line %d names the image %s, which is not among the %d images of category %s; "
                              "list only the images of the test set." % (shown, line_number(lines, i), ids[i],
                                                                       len(category.ids), category.name))


_PRIME = np.uint64(1099511628211)


def _row_keys(rows):
    """A 64-bit hash of each row of bytes (wrapping arithmetic, as FNV's multiplier)."""
    keys = np.zeros(rows.shape[0], dtype=np.uint64)
    for column in rows.T:
        keys *= _PRIME
        keys += column
    return keys


def _match_fixed_width(ids, category):
    """The reference index of every submitted id when all ids, submitted and reference,
    are ASCII of one width (as ChaLearn's '000123.jpg'): by hashing each id's bytes,
    a binary search among the reference's sorted hashes and a byte-for-byte check of
    every match. None when that does not apply or an id is unknown or repeated (the
    dictionary then finds the line to name)."""
    if "rows" not in category.lookup:
        rows = fixed_width_rows(category.ids)
        if rows is not None:
            keys = _row_keys(rows)
            order = np.argsort(keys, kind="stable")
            category.lookup["rows"] = (rows, keys[order], order)
        else:
            category.lookup["rows"] = None
    reference = category.lookup["rows"]
    rows = fixed_width_rows(ids) if reference is not None else None
    if rows is None or rows.shape[1] != reference[0].shape[1]:
        return None
    ref_rows, sorted_keys, order = reference
    index = order[np.minimum(np.searchsorted(sorted_keys, _row_keys(rows)), sorted_keys.size - 1)]
    if not (ref_rows[index] == rows).all():
        return None
    return index


def _to_floats(texts, lines, shown):
    try:
        return floats(texts)
    except ValueError:
        pass
    values = []
    for i, text in enumerate(texts):
        try:
            values.append(float(text))
        except ValueError:
            raise SubmissionError("%s line %d has the confidence %r; expected a number such as 0.127031."
                                  % (shown, line_number(lines, i), text[:30]))
    return np.array(values, dtype=np.float64)
