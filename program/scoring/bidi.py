"""Names in their own direction on pages that read left to right.

A name written right to left (Arabic, Hebrew, Syriac...) set into an English sentence
without isolation is reordered with its neighbours by the Unicode Bidirectional Algorithm
(UAX #9): "Confusion matrix of ابن مقلة (12 imag..." shows "12) ابن مقلة", and the path
"كتاب الأغاني/ورقة ١.png" shows its page before its folder. UAX #9 section 2.7 and HTML's
<bdi> element isolate a span: inside, the span takes the direction of its first strong
character; outside, it is one neutral character.

The writers isolate every run of right-to-left text they show: a run starts and ends with
a right-to-left letter, spans what lies between that is not a left-to-right letter, a
path separator or a line end, and takes in the digits and closing brackets that follow it
directly ("ورقة 12", "(ابن مقلة)"); so the folders of a path stay left to right, each
part in its own direction, and a count or suffix written after a name ("كتاب الأغاني (2)")
stays outside it. A span already isolated with FSI (U+2068) ... PDI (U+2069), as a
caller marks a name whose edges the rule above would misjudge (isolated()), is kept whole.
"""

import re
import unicodedata

from . import htmltext
from .errors import printable, visible

FSI, PDI = "\u2068", "\u2069"
_BREAKS = frozenset("/\\\n\r")
_CLOSING = {")": "(", "]": "[", "}": "{"}
#: The blocks holding every right-to-left letter (bidirectional class R or AL) and FSI: a
#: text without any is returned escaped at once, as most of a page is.
_MAYBE = re.compile("[\u0590-\u08ff\u200f\u2068\ufb1d-\ufdff\ufe70-\ufefe\U00010800-\U00010fff"
                    "\U0001e800-\U0001efff]")


def isolated(name):
    """`name` marked as one isolated span for a sentence (FSI ... PDI)."""
    return FSI + str(name) + PDI


def _rtl(char):
    return unicodedata.bidirectional(char) in ("R", "AL")


def spans(text):
    """[(start, end, marked)] of the spans of `text` to isolate: marked spans (FSI ... PDI,
    the marks included) and the runs of right-to-left text (the rule above)."""
    out = []
    start = end = None  # the open run, end just past its last character kept
    chained = False  # whether digits and closing brackets may still extend the run
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == FSI:
            if start is not None:
                out.append((start, end, False))
                start = None
            depth, j = 1, i + 1
            while j < n and depth:
                depth += {FSI: 1, PDI: -1}.get(text[j], 0)
                j += 1
            out.append((i, j, True))
            i = j
            continue
        kind = unicodedata.bidirectional(char)
        if kind in ("R", "AL"):
            if start is None:
                start = i
            end, chained = i + 1, True
        elif start is not None:
            if char in _BREAKS or kind in ("L", "LRE", "LRO", "RLE", "RLO", "LRI", "RLI", "PDI", "PDF", "B"):
                out.append((start, end, False))
                start = None
            elif chained and kind in ("EN", "AN", "NSM"):
                end = i + 1
            elif chained and char in _CLOSING and text.count(_CLOSING[char], start, end) > text.count(char, start, end):
                end = i + 1
            elif kind != "WS":
                chained = False
        i += 1
    if start is not None:
        out.append((start, end, False))
    return out


def _apply(text, wrap, quote=True):
    text = str(text)
    if not _MAYBE.search(text):
        return htmltext.escape(text, quote)
    parts, last = [], 0
    for start, end, marked in spans(text):
        parts.append((text[last:start], False))
        parts.append((text[start + 1:end - (text[end - 1] == PDI)] if marked else text[start:end], True))
        last = end
    parts.append((text[last:], False))
    return "".join(wrap(htmltext.escape(part, quote)) if isolate else htmltext.escape(part, quote)
                   for part, isolate in parts if part)


def html_text(text, quote=True):
    """`text` for an HTML page, escaped (quotes too unless quote is False), bidirectional
    controls and invisible characters written visibly (errors.visible), its right-to-left
    runs and marked names in <bdi>."""
    return _apply(text, lambda escaped: "<bdi>%s</bdi>" % escaped, quote)


def plain(text):
    """`text` with its right-to-left runs between FSI and PDI (for SVG text, an attribute,
    a plain-text sentence); marked names kept so."""
    text = str(text)
    if not _MAYBE.search(text):
        return visible(text)
    parts, last = [], 0
    for start, end, marked in spans(text):
        parts.append(visible(text[last:start]))
        inner = text[start + 1:end - (text[end - 1] == PDI)] if marked else text[start:end]
        parts.append(FSI + visible(inner) + PDI)
        last = end
    parts.append(visible(text[last:]))
    return "".join(parts)


def terminal(text):
    """`text` as one line for a terminal or a platform's log viewer: printable (every control
    of the text's own, FSI and PDI too, written as an escape such as \\u2068), then its
    right-to-left runs between FSI and PDI. The viewers that lay text out by UAX #9 (the
    platforms' log pages in a browser, terminals with bidi support) then keep the sentence in
    order; the others draw FSI and PDI as nothing. The isolates are the line's only raw
    controls: no name's own can pass for one."""
    return plain(printable(str(text)))


def has_rtl(text):
    return any(_rtl(char) for char in str(text))
