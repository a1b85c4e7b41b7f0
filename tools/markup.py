"""The small text format of the kinds' page texts, and its HTML.

A kind writes its texts once (tracks/<kind>.py: submission_format, metrics_text, privacy,
TASK); the participant manual (MANUAL.md) uses them as they are, Markdown, and the pages
(evaluation.html...) as HTML, through html():

  - blocks are separated by blank lines;
  - a block of lines starting with "- " is a list (a line starting with two spaces
    continues the item above);
  - a block between two lines of three backticks is code, kept as written;
  - any other block is a paragraph; in lists and paragraphs `code` and **strong** are
    marked, and everything else is text (no raw HTML).
"""

import re

from scoring import bidi

INLINE = re.compile(r"`([^`]+)`|\*\*([^*]+)\*\*")


def blocks(text):
    """[(kind, lines)] of a text: kind is 'code', 'list' or 'paragraph'."""
    found, current, code = [], [], None
    for line in text.strip("\n").split("\n"):
        if code is not None:
            if line.strip() == "```":
                found.append(("code", code))
                code = None
            else:
                code.append(line)
        elif line.strip().startswith("```"):
            if current:
                found.append(_block(current))
                current = []
            code = []
        elif not line.strip():
            if current:
                found.append(_block(current))
                current = []
        else:
            current.append(line)
    if code is not None:
        raise ValueError("a code block is not closed: %r" % text[:80])
    if current:
        found.append(_block(current))
    return found


def _block(lines):
    if lines[0].startswith("- "):
        items = []
        for line in lines:
            if line.startswith("- "):
                items.append(line[2:].strip())
            elif line.startswith("  ") and items:
                items[-1] += " " + line.strip()
            else:
                raise ValueError("a list line must start with '- ' or two spaces: %r" % line)
        return "list", items
    return "paragraph", [" ".join(line.strip() for line in lines)]


def inline(text):
    """HTML of a line: `code` and **strong** marked, the rest escaped."""
    out, position = [], 0
    for match in INLINE.finditer(text):
        out.append(bidi.html_text(text[position:match.start()], quote=False))
        if match.group(1) is not None:
            out.append("<code>%s</code>" % bidi.html_text(match.group(1), quote=False))
        else:
            out.append("<strong>%s</strong>" % bidi.html_text(match.group(2), quote=False))
        position = match.end()
    out.append(bidi.html_text(text[position:], quote=False))
    return "".join(out)


def html(text):
    """The HTML of a text of this format."""
    parts = []
    for kind, lines in blocks(text):
        if kind == "code":
            parts.append("<pre>%s</pre>\n" % bidi.html_text("\n".join(lines), quote=False))
        elif kind == "list":
            parts.append("<ul>\n%s</ul>\n" % "".join("<li>%s</li>\n" % inline(item) for item in lines))
        else:
            parts.append("<p>%s</p>\n" % inline(lines[0]))
    return "".join(parts)


def code(text, language=""):
    """A code block of this format (and of Markdown) holding `text`."""
    return "```%s\n%s\n```" % (language, text.rstrip("\n"))


def literal(text):
    """`text` as inline code, whatever backticks it holds (Markdown's longer fence)."""
    if "`" not in text:
        return "`%s`" % text
    return "`` %s ``" % text


#: A Markdown code span: a run of backticks, then anything up to the same run.
_CODE_SPAN = re.compile(r"(`+)(?!`).*?[^`]\1(?!`)")
#: A pipe that separates the cells of a Markdown table row (one escaped as \| does not).
_CELL = re.compile(r"(?<!\\)\|")


def isolated(markdown):
    """`markdown` with each right-to-left run of its sentences and table cells between FSI
    and PDI (scoring.bidi.plain's runs), as pages isolate them in <bdi>: Markdown is read
    both as plain text and rendered, and a name set into an English sentence unisolated is
    reordered with its neighbours (UAX #9). A code span holding right-to-left text is
    isolated whole, the marks outside its backticks, so that a name copied from it is the
    name as written; code blocks are kept as written (what people copy and run)."""
    out, fenced = [], False
    for line in markdown.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced or line.lstrip().startswith("```") or not bidi.has_rtl(line):
            out.append(line)
        elif line.startswith("|"):
            out.append("|".join(_isolated_line(cell) for cell in _CELL.split(line)))
        else:
            out.append(_isolated_line(line))
    return "\n".join(out)


def _isolated_line(text):
    parts, last = [], 0
    for match in _CODE_SPAN.finditer(text):
        parts.append(_isolated_runs(text[last:match.start()]))
        parts.append(bidi.isolated(match.group()) if bidi.has_rtl(match.group()) else match.group())
        last = match.end()
    parts.append(_isolated_runs(text[last:]))
    return "".join(parts)


def _isolated_runs(text):
    parts, last = [], 0
    for start, end, marked in bidi.spans(text):
        parts.append(text[last:start])
        parts.append(text[start:end] if marked else bidi.isolated(text[start:end]))
        last = end
    parts.append(text[last:])
    return "".join(parts)
