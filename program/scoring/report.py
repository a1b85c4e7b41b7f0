"""Writers: scores.txt, scores.json, detailed_results.html and private/.

They know nothing of tracks: they render TrackResult objects. Scores are written last
and atomically, so a failed run never leaves a partial scores file behind.
"""

import html
import json
import math
import os
import tempfile

from .plots import data_uri
from .result import Paragraph, Picture, Table

SCORE_FILES = ("scores.txt", "scores.json")


def format_score(value):
    """Fixed-point decimal with at most 10 decimals (Codalab v1.5 stores no more).

    Never 'nan', 'inf' or scientific notation: Codalab parses with float() after
    split(':') and Codabench with YAML, which reads '1e-3' as a string.
    """
    value = float(value)
    if not math.isfinite(value):
        raise ValueError("a score to write is %r" % value)
    text = "%.10f" % value
    text = text.rstrip("0")
    if text.endswith("."):
        text += "0"
    if text == "-0.0":
        text = "0.0"
    return text


def remove_stale_scores(output):
    """Before scoring: no scores file from an earlier run may survive a failure."""
    for name in SCORE_FILES:
        path = os.path.join(output, name)
        if os.path.isfile(path):
            os.remove(path)


def _write_atomically(path, data):
    os.replace(_write_temporary(os.path.dirname(path), data), path)


def write_scores(output, scores):
    """scores.json and scores.txt, the same keys and numbers, both or neither: each is
    written in full to a temporary file first (a full disk fails there, with no score file
    in place), then both are renamed into place; if the second rename fails, the first
    file is removed again."""
    lines = ["%s: %s\n" % (key, format_score(value)) for key, value in scores.items()]
    numbers = [(key, float(format_score(value))) for key, value in scores.items()]
    payload = "{\n" + ",\n".join("  %s: %s" % (json.dumps(k), json.dumps(v)) for k, v in numbers) + "\n}\n"
    contents = [("scores.json", payload.encode("utf-8")), ("scores.txt", "".join(lines).encode("utf-8"))]
    temporaries = []
    placed = []
    try:
        for name, data in contents:
            temporaries.append((_write_temporary(output, data), os.path.join(output, name)))
        for temporary, final in temporaries:
            os.replace(temporary, final)
            placed.append(final)
    except BaseException:
        for temporary, _ in temporaries:
            if os.path.exists(temporary):
                os.remove(temporary)
        for final in placed:
            os.remove(final)
        raise


def _write_temporary(directory, data):
    """A new temporary file in `directory` holding `data`, flushed to the disk."""
    handle, temporary = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
    except BaseException:
        os.remove(temporary)
        raise
    return temporary


def write_private(output, results):
    for result in results:
        for rel, data in result.private:
            path = os.path.join(output, "private", *rel.split("/"))
            if not os.path.isdir(os.path.dirname(path)):
                os.makedirs(os.path.dirname(path))
            with open(path, "wb") as stream:
                stream.write(data)


def format_cell(value):
    if isinstance(value, float):
        return "%.4f" % value
    return str(value)


def render_block(block):
    if isinstance(block, Paragraph):
        return "<p>%s</p>" % html.escape(block.text)
    if isinstance(block, Table):
        head = "".join("<th>%s</th>" % html.escape(c) for c in block.columns)
        body = "".join(
            "<tr>%s</tr>" % "".join(
                '<td class="%s">%s</td>'
                % ("num" if isinstance(v, (int, float)) else "txt", html.escape(format_cell(v)))
                for v in row
            )
            for row in block.rows
        )
        caption = "<caption>%s</caption>" % html.escape(block.caption) if block.caption else ""
        return "<table>%s<thead><tr>%s</tr></thead><tbody>%s</tbody></table>" % (caption, head, body)
    if isinstance(block, Picture):
        return '<figure><img src="%s" alt="%s"><figcaption>%s</figcaption></figure>' % (
            data_uri(block.png),
            html.escape(block.alt),
            html.escape(block.caption),
        )
    raise TypeError("unknown block %r" % (block,))


STYLE = """
body{font-family:sans-serif;margin:1.5em;color:#222;max-width:70em}
h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #ccc}h3{font-size:1.05em}
table{border-collapse:collapse;margin:.6em 0}td,th{border:1px solid #ccc;padding:.2em .5em}
td.num{text-align:right;font-variant-numeric:tabular-nums}caption{text-align:left;font-style:italic}
figure{display:inline-block;margin:.4em}figcaption{font-size:.85em;color:#555}
.warn{color:#8a4b00}
"""


def render_html(scores, results, log_lines):
    parts = [
        "<!DOCTYPE html>",
        '<html><head><meta charset="utf-8"><title>Detailed results</title><style>%s</style></head><body>' % STYLE,
        "<h1>Detailed results</h1>",
        "<h2>Scores</h2>",
        "<table><thead><tr><th>key</th><th>value</th></tr></thead><tbody>%s</tbody></table>"
        % "".join(
            '<tr><td class="txt">%s</td><td class="num">%s</td></tr>' % (html.escape(k), format_score(v))
            for k, v in scores.items()
        ),
    ]
    for result in results:
        parts.append("<h2>%s</h2>" % html.escape(result.title))
        for warning in result.warnings:
            parts.append('<p class="warn">Warning: %s</p>' % html.escape(warning))
        for section in result.sections:
            parts.append("<h3>%s</h3>" % html.escape(section.title))
            parts.extend(render_block(block) for block in section.blocks)
    if log_lines:
        parts.append("<h2>Log</h2><pre>%s</pre>" % html.escape("\n".join(log_lines)))
    parts.append("</body></html>\n")
    return "\n".join(parts)


def write_outputs(output, scores, results, log_lines):
    """Everything but the scores first, then the scores, so a failure leaves none."""
    write_private(output, results)
    page = render_html(scores, results, log_lines)
    _write_atomically(os.path.join(output, "detailed_results.html"), page.encode("utf-8"))
    write_scores(output, scores)
