"""Writers: scores.txt, scores.json, detailed_results.html and private/.

They know nothing of tracks: they render TrackResult objects. Every file is written whole
under a temporary name and renamed into place, the scores last, so a failed run never
leaves a partial scores file behind. Two runs writing to one OUTPUT (a re-run on the same
worker, scripts scoring side by side) take turns (output_lock): each run's files are
placed together, never mixed with the other's.
"""

import contextlib
import html
import json
import math
import os
import re
import shutil
import tempfile

import numpy as np

from . import __version__, charts, platform
from .result import FIGURES, ConfusionMatrix, ErrorMap, Outcome, Paragraph, Picture, PrecisionRecall, Table

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


@contextlib.contextmanager
def output_lock(output):
    """Hold OUTPUT for this run's writes: an exclusive flock on the directory itself (no
    file of ours left in it), which a second run waits for and which the system releases
    when a run ends, however it ends. Where the platform has no flock (Windows) or the
    file system refuses it, the writes go ahead unserialised."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Linux
        fcntl = None
    descriptor = None
    if fcntl is not None:
        try:
            descriptor = os.open(output, os.O_RDONLY)
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        except OSError:
            if descriptor is not None:
                os.close(descriptor)
            descriptor = None
    try:
        yield
    finally:
        if descriptor is not None:
            os.close(descriptor)


def remove_stale_scores(output):
    """Before scoring: no scores file from an earlier run may survive a failure."""
    for name in SCORE_FILES:
        path = os.path.join(output, name)
        if os.path.isfile(path):
            try:
                os.remove(path)
            except FileNotFoundError:  # removed by another run meanwhile
                pass


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
    """A new temporary file in `directory` holding `data`, flushed to the disk, readable as
    a file made by open() is (mkstemp's are the owner's alone: a page or scores.txt served
    or read by another user, as an organizer's web server would, was refused)."""
    handle, temporary = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        with os.fdopen(handle, "wb") as stream:
            os.chmod(temporary, 0o666 & ~_umask())
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
    except BaseException:
        os.remove(temporary)
        raise
    return temporary


def write_private(output, results):
    """OUTPUT/private/, this run's files and nothing else (no folder when the run has none,
    a stand-in's): written in full into a new folder beside it, which then takes the place
    of the old one (removed)."""
    files = [(rel, data) for result in results for rel, data in result.private]
    final = os.path.join(output, "private")
    folder = tempfile.mkdtemp(prefix=".private-", dir=output) if files else None
    try:
        for rel, data in files:
            path = os.path.join(folder, *rel.split("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as stream:
                if callable(data):
                    data(stream)
                else:
                    stream.write(data)
        if folder is not None:
            os.chmod(folder, 0o777 & ~_umask())  # mkdtemp's 0700, as a folder made by makedirs
        old = None
        if os.path.lexists(final):
            old = tempfile.mkdtemp(prefix=".private-old-", dir=output)
            os.rename(final, os.path.join(old, "private"))
        if folder is not None:
            os.rename(folder, final)
            folder = None
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def format_cell(value):
    """A table cell: floats with 4 decimals (the full value is in scores.txt), integers as
    they are, anything else as text."""
    if isinstance(value, (bool, str)):
        return str(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return charts.number(value)
    return str(value)


def _is_number(value):
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def _column(column):
    if isinstance(column, Outcome):
        return '<span class="swatch" style="background:%s"></span>%s' % (
            charts.outcome_colour(column.code), html.escape(charts.outcome_name(column.code)))
    return html.escape(str(column))


def render_table(block):
    head = "".join("<th>%s</th>" % _column(c) for c in block.columns)
    body = "".join(
        "<tr>%s</tr>" % "".join(
            '<td class="%s">%s</td>' % ("num" if _is_number(v) else "txt", html.escape(format_cell(v)))
            for v in row)
        for row in block.rows)
    caption = "<caption>%s</caption>" % html.escape(block.caption) if block.caption else ""
    # The box scrolls, not the page: wide tables stay readable on a phone.
    return ('<div class="scroll" tabindex="0"><table>%s<thead><tr>%s</tr></thead><tbody>%s</tbody></table></div>'
            % (caption, head, body))


def render_error_map(block, anchor, back):
    """The map at a readable size; following its link shows the same image enlarged (no
    second copy of the image in the page); `back` is where 'close' returns."""
    return ('<figure class="map" id="%s"><a class="open" href="#%s" title="enlarge">'
            '<img src="%s" width="%d" height="%d" alt="error map of %s"></a>'
            '<figcaption>%s <a class="close" href="#%s">close</a></figcaption></figure>'
            % (anchor, anchor, charts.data_uri(block.png), block.width, block.height,
               html.escape(block.caption, quote=True), html.escape(block.caption), back))


def error_map_legend(codes):
    items = "".join(
        '<li><span class="swatch" style="background:%s"></span><b>%s</b>: %s</li>'
        % (charts.outcome_colour(code), html.escape(name), html.escape(meaning))
        for code, name, _, meaning in charts.ERROR_MAP_OUTCOMES if code in codes)
    return '<ul class="legend">%s</ul>' % items


def render_block(block, anchor="figure", back="top"):
    if isinstance(block, Paragraph):
        return "<p>%s</p>" % html.escape(block.text)
    if isinstance(block, Table):
        return render_table(block)
    if isinstance(block, PrecisionRecall):
        recall, precision, envelope = block.curves()
        return "<figure>%s</figure>" % charts.precision_recall(recall, precision, envelope, block.title, block.ap)
    if isinstance(block, ConfusionMatrix):
        return "<figure>%s</figure>" % charts.confusion_matrix(
            block.cells, block.row_labels, block.column_labels, block.title)
    if isinstance(block, ErrorMap):
        return render_error_map(block, anchor, back)
    if isinstance(block, Picture):
        return '<figure><img src="%s" alt="%s"><figcaption>%s</figcaption></figure>' % (
            charts.data_uri(block.png), html.escape(block.alt), html.escape(block.caption))
    raise TypeError("unknown block %r" % (block,))


STYLE = """
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans',sans-serif;margin:0 auto;
padding:1rem;max-width:75rem;color:#1d232b;line-height:1.45;background:#fff}
h1{font-size:1.45rem;margin:.2rem 0 .9rem}h2{font-size:1.25rem;margin:2rem 0 .6rem;
border-bottom:2px solid #d5dbe3;padding-bottom:.2rem}h3{font-size:1.05rem;margin:1.4rem 0 .4rem}
h4{font-size:.95rem;margin:1rem 0 .3rem}
p{max-width:48rem}
.competition{margin:-.6rem 0 .9rem;color:#44505c}
a{color:#1f5fbf}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(17rem,1fr));gap:.9rem}
.card{border:1px solid #cfd8e3;border-radius:10px;padding:.8rem 1rem;background:#f6f9fc}
.card h2{font-size:1rem;border:0;margin:0 0 .3rem;padding:0}
.card .score{font-size:2.3rem;font-weight:700;line-height:1.1;font-variant-numeric:tabular-nums}
.card .key{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9rem;color:#44505c}
.card p{margin:.3rem 0;font-size:.9rem;color:#3a444f}
.card .interval{font-variant-numeric:tabular-nums;color:#222}
.card dl{display:grid;grid-template-columns:repeat(auto-fill,minmax(8.5rem,1fr));gap:.35rem .9rem;margin:.5rem 0 0}
.card dt{color:#5a6672;font-size:.78rem;overflow-wrap:anywhere}
.card dd{margin:0;font-weight:600;font-variant-numeric:tabular-nums}
.refused{border-color:#d9a6a0;background:#fdf5f4}
.refused .sentence{font-size:1.1rem;font-weight:600;color:#7a1c12;max-width:none;overflow-wrap:anywhere}
.scoreline{display:flex;flex-wrap:wrap;gap:.4rem .6rem;margin:0 0 .8rem;max-width:none}
.scoreline a{text-decoration:none;color:inherit;border:1px solid #cfd8e3;border-radius:999px;padding:.15rem .7rem;
background:#f6f9fc}.scoreline .key{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85rem;color:#44505c}
nav.toc{margin:1.2rem 0;padding:.6rem 1rem;border-left:3px solid #cfd8e3;background:#fafbfc}
nav.toc ul{margin:.2rem 0;padding-left:1.1rem}nav.toc>ul{padding-left:0;list-style:none}
.warn{color:#8a4b00;overflow-wrap:anywhere}
.scroll{overflow:auto;width:fit-content;max-width:100%;max-height:34rem;margin:.5rem 0 1rem;
border:1px solid #e1e6ec;border-radius:6px}
table{border-collapse:collapse;font-size:.9rem}
td,th{padding:.28rem .6rem;border-bottom:1px solid #e6e9ee;white-space:nowrap;text-align:left}
th{background:#f1f4f8;font-weight:600;position:sticky;top:0;white-space:normal;vertical-align:bottom;
min-width:4rem}
td.num{text-align:right;font-variant-numeric:tabular-nums}
caption{text-align:left;font-style:italic;padding:.35rem .6rem;color:#4a5560;white-space:normal}
.groups{display:flex;flex-wrap:wrap;gap:0 2rem}.group{max-width:100%}.group p{max-width:22rem}
.figures{display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-start}
figure{margin:0;max-width:100%}
svg.chart{max-width:100%;height:auto;display:block}
figure img{max-width:100%;height:auto}
figcaption{font-size:.85rem;color:#4a5560}
.swatch{display:inline-block;width:.9em;height:.9em;border:1px solid rgba(0,0,0,.25);vertical-align:-.1em;
margin-right:.3em;border-radius:2px}
ul.legend{list-style:none;padding:0;margin:.4rem 0 .8rem;font-size:.88rem}ul.legend li{margin:.15rem 0}
.map img{width:13rem;max-width:42vw;image-rendering:pixelated;border:1px solid #8a96a3;background:#fff;display:block}
.map .close{display:none}
.map:target{position:fixed;top:0;left:0;right:0;bottom:0;z-index:10;background:rgba(20,24,30,.88);
display:flex;flex-direction:column;align-items:center;justify-content:center;padding:1rem;margin:0}
.map:target img{width:auto;height:auto;max-width:100%;max-height:90vh}
.map:target figcaption{color:#fff}.map:target .close{display:inline;color:#fff;margin-left:1rem}
pre.log{overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.82rem;background:#f7f8fa;
padding:.6rem;border-radius:6px}
footer.version{margin-top:2rem;color:#666;font-size:.8rem}
@media (max-width:30rem){body{padding:.6rem}.card .score{font-size:2rem}}
@media print{body{max-width:none;padding:0}nav.toc,.map .close{display:none}
.scroll{overflow:visible;max-height:none;border:0}td,th{white-space:normal}th{position:static}figure,tr,.card{break-inside:avoid}
a{color:inherit;text-decoration:none}.map:target{position:static;background:none}}
"""


def page_head(title):
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            "<title>%s</title><style>%s</style></head><body>" % (html.escape(title), STYLE))


def page_footer():
    """The closing lines of every page the program writes: the program's version."""
    return '<footer class="version">Scoring program %s</footer></body></html>\n' % html.escape(__version__)


class _Anchors(object):
    """Unique ASCII ids for the page's headings and figures."""

    def __init__(self):
        self.used = set()
        self.tried = {}  # base -> the last number tried for it (thousands of figures may share a base)

    def __call__(self, text):
        base = re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-")[:40] or "part"
        n = self.tried.get(base, 1)
        anchor = base if n == 1 else "%s-%d" % (base, n)
        while anchor in self.used:
            n += 1
            anchor = "%s-%d" % (base, n)
        self.tried[base] = n
        self.used.add(anchor)
        return anchor


def headline_card(result, anchor):
    """The ranking score of a track, what it means, and the numbers checked first; for a
    result not scored yet (result.pending), the sentence saying so instead of a score."""
    key, value = next(iter(result.scores.items()))
    if result.pending:
        return ('<section class="card"><h2><a href="#%s">%s</a></h2><p class="sentence" data-primary="pending">%s</p>'
                '</section>' % (anchor, html.escape(result.title), html.escape(result.pending)))
    highlights = "".join("<div><dt>%s</dt><dd>%s</dd></div>" % (html.escape(label), html.escape(format_cell(v)))
                         for label, v in result.highlights)
    warnings = ('<p class="warn"><a href="#%s">%d warning%s</a> below.</p>'
                % (anchor, len(result.warnings), "" if len(result.warnings) == 1 else "s")) if result.warnings else ""
    return ('<section class="card"><h2><a href="#%s">%s</a></h2><div class="key">%s</div>'
            '<div class="score" data-primary="%s" title="%s">%s</div>%s<p>%s</p>%s%s</section>'
            % (anchor, html.escape(result.title), html.escape(result.key_prefix + key),
               html.escape(result.key_prefix + key), format_score(value),
               charts.number(value), interval_lines(result), html.escape(result.meaning),
               "<dl>%s</dl>" % highlights if highlights else "", warnings))


def interval_lines(result):
    """The 95% interval of the ranking score and how to read it (result.interval, from
    runner.add_interval), or nothing."""
    if result.interval is None:
        return ""
    low, high = result.interval
    unit = result.view.unit if result.view is not None else "item"
    return ('<p class="interval" data-interval="%s">95%% interval: <b>%s</b> to <b>%s</b></p>'
            '<p class="reading">On another test set drawn like this one, your score would fall in this interval '
            '95 times in 100 (a bootstrap over the test %ss); submissions whose intervals overlap much may swap '
            'places on such a test set.</p>'
            % (html.escape(result.key_prefix + next(iter(result.scores))), charts.number(low), charts.number(high),
               html.escape(unit)))


def _split(section):
    """(text and tables, figures) of a section; a section of figures and paragraphs only
    goes whole with the charts."""
    figures = [b for b in section.blocks if isinstance(b, FIGURES)]
    if figures and not any(isinstance(b, Table) for b in section.blocks):
        return [], section.blocks
    return [b for b in section.blocks if not isinstance(b, FIGURES)], figures


def _chart_sections(figure_parts, anchor):
    """Each section's figures under its title; sections of a single figure (a confusion
    matrix per subset) sit side by side."""
    out, row = [], []
    for section, figures in figure_parts:
        section_id = anchor(section.title + " charts")
        drawn = [b for b in figures if not isinstance(b, Paragraph)]
        part = ['<h4 id="%s">%s</h4>' % (section_id, html.escape(section.title))]
        part += [render_block(b) for b in figures if isinstance(b, Paragraph)]
        part.append('<div class="figures">%s</div>' % "".join(
            render_block(b, anchor("map " + getattr(b, "caption", "figure")), section_id) for b in drawn))
        if len(drawn) == 1:
            row.append('<div class="group">%s</div>' % "".join(part))
            continue
        if row:
            out.append('<div class="groups">%s</div>' % "".join(row))
            row = []
        out.extend(part)
    if row:
        out.append('<div class="groups">%s</div>' % "".join(row))
    return out


def render_html(scores, results, log_lines):
    """The participant's page: a headline card per track, a table of contents, the tables,
    the charts, the log, and every key of scores.txt last."""
    anchor = _Anchors()
    track_ids = [anchor(result.title) for result in results]
    competition = next((r.competition for r in results if r.competition), "")
    parts = [page_head("Detailed results" + (": " + competition if competition else "")),
             '<h1 id="top">Detailed results</h1>']
    if competition:
        parts.append('<p class="competition">%s</p>' % html.escape(competition))
    if len(results) > 1:  # every ranking score on the first screen, even on a phone
        parts.append('<p class="scoreline">%s</p>' % " ".join(
            '<a href="#%s"><span class="key">%s</span> <b data-primary="%s">%s</b></a>' % (
                a, html.escape(r.key_prefix + next(iter(r.scores))), html.escape(r.key_prefix + next(iter(r.scores))),
                "not scored yet" if r.pending else charts.number(next(iter(r.scores.values()))))
            for r, a in zip(results, track_ids)))
    parts.append('<div class="cards">')
    parts += [headline_card(r, a) for r, a in zip(results, track_ids)]
    parts.append("</div>")
    toc, body = [], []
    for result, track_id in zip(results, track_ids):
        entries = []
        body.append('<h2 id="%s">%s</h2>' % (track_id, html.escape(result.title)))
        for warning in result.warnings:
            body.append('<p class="warn">Warning: %s</p>' % html.escape(warning))
        figure_parts = []
        for section in result.sections:
            text, figures = _split(section)
            if text:
                section_id = anchor(section.title)
                entries.append((section_id, section.title))
                body.append('<h3 id="%s">%s</h3>' % (section_id, html.escape(section.title)))
                body.extend(render_block(b) for b in text)
            if figures:
                figure_parts.append((section, figures))
        if figure_parts:
            charts_id = anchor(result.title + " charts")
            entries.append((charts_id, "Charts"))
            body.append('<h3 id="%s">Charts</h3>' % charts_id)
            maps = [b for _, figures in figure_parts for b in figures if isinstance(b, ErrorMap)]
            if maps:
                body.append("<p>Error maps: each ground-truth line in the colour of the outcome the per-page "
                            "tables count; click a map to enlarge it.</p>")
                body.append(error_map_legend(sorted(set(c for m in maps for c in m.outcomes))))
            body.extend(_chart_sections(figure_parts, anchor))
        toc.append((track_id, result.title, entries))
    if log_lines:
        toc.append(("log", "Log", []))
        body.append('<h2 id="log">Log</h2><pre class="log">%s</pre>' % html.escape("\n".join(log_lines)))
    toc.append(("keys", "All keys of scores.txt", []))
    body.append('<h2 id="keys">All keys of scores.txt</h2>')
    body.append("<p>Shown with 4 decimals; scores.txt holds the full values (hover a value to see it).</p>")
    if any(r.pending for r in results):
        body.append("<p>The keys of a track not scored yet are 0 until its phase is scored against the hidden "
                    "test set.</p>")
    body.append('<div class="scroll" tabindex="0"><table><thead><tr><th>key</th><th>value</th></tr></thead>'
                "<tbody>%s</tbody></table></div>" % "".join(
                    '<tr><td class="txt">%s</td><td class="num" title="%s">%s</td></tr>'
                    % (html.escape(k), format_score(v), charts.number(v)) for k, v in scores.items()))
    parts.append('<nav class="toc"><b>Contents</b><ul>%s</ul></nav>' % "".join(
        '<li><a href="#%s">%s</a>%s</li>' % (
            track_id, html.escape(title),
            "<ul>%s</ul>" % "".join('<li><a href="#%s">%s</a></li>' % (i, html.escape(t)) for i, t in entries)
            if entries else "")
        for track_id, title, entries in toc))
    parts.extend(body)
    parts.append(page_footer())
    return "\n".join(parts)


FAILURE_TITLES = {
    1: ("Submission refused", "Nothing was scored. Fix what the sentence above names and submit again; the "
                              "participant pages of the competition describe each file's format."),
    2: ("Scoring stopped: a problem in the reference data (for the organizers)",
        "This is not your submission's fault: the organizers must fix their reference data. Nothing was scored."),
    3: ("Scoring stopped: an internal error of the scoring program",
        "This is not your submission's fault: please report it to the organizers. Nothing was scored."),
}


def render_failure(status, sentence, log_lines, titles=("", ())):
    """The page of a refused run: the same sentence as the last line of stderr, first;
    titled like a scored run's page: titles is (the competition's, [each track's])."""
    title, advice = FAILURE_TITLES.get(status, FAILURE_TITLES[3])
    competition, tracks = titles
    parts = [page_head("Detailed results: " + (competition + ": " if competition else "") + title),
             '<h1 id="top">Detailed results</h1>']
    if competition:
        parts.append('<p class="competition">%s</p>' % html.escape(competition))
    if tracks:
        parts.append("<h2>%s</h2>" % html.escape(", ".join(tracks)))
    parts.append('<section class="card refused"><h2>%s</h2><p class="sentence" data-primary="refusal">%s</p>'
                 '<p>%s</p></section>' % (html.escape(title), html.escape(sentence), html.escape(advice)))
    if log_lines:
        parts.append('<h2 id="log">Log</h2><pre class="log">%s</pre>' % html.escape("\n".join(log_lines)))
    parts.append(page_footer())
    return "\n".join(parts)


def write_page(output, page):
    """The detailed results page where the platform's worker takes it (platform.page_path)."""
    path = platform.page_path(output)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    _write_atomically(path, page.encode("utf-8"))


def write_failure_page(output, status, sentence, log_lines, titles=("", ())):
    """detailed_results.html for a refused run, and no scores file. Best effort: the exit
    status and stderr already tell the platform; an unwritable OUTPUT changes nothing."""
    try:
        os.makedirs(output, exist_ok=True)
        page = render_failure(status, sentence, log_lines, titles)
        with output_lock(output):
            remove_stale_scores(output)
            write_page(output, page)
    except OSError:
        pass


def write_outputs(output, scores, results, log_lines):
    """Everything but the scores first, then the scores, so a failure leaves none; all of
    it while this run holds OUTPUT (output_lock), so that a second run's files never mix
    with these."""
    page = render_html(scores, results, log_lines)
    with output_lock(output):
        write_private(output, results)
        write_page(output, page)
        write_scores(output, scores)
