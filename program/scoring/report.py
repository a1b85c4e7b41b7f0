"""Writers: scores.txt, scores.json, detailed_results.html and private/.

They know nothing of tracks: they render TrackResult objects. Every file is written whole
under a temporary name and renamed into place, the scores last, so a failed run never
leaves a partial scores file behind. Two runs writing to one OUTPUT (a re-run on the same
worker, scripts scoring side by side) take turns (output_lock): each run's files are
placed together, never mixed with the other's.
"""

import contextlib
from . import htmltext as html
import json
import math
import os
import re
import shutil
import tempfile

import numpy as np

from . import charts, platform, webpage
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


def _column(column):
    if isinstance(column, Outcome):
        return webpage.Markup('<span class="swatch" style="background:%s"></span>%s' % (
            charts.outcome_colour(column.code), webpage.text(charts.outcome_name(column.code))))
    return column


def render_table(block):
    return webpage.table([_column(c) for c in block.columns], block.rows, block.caption, cell=format_cell)


def render_error_map(block, anchor, back):
    """The map at a readable size; following its link shows the same image enlarged (no
    second copy of the image in the page); `back` is where 'close' returns."""
    return ('<figure class="map" id="%s"><a class="open" href="#%s" title="enlarge">'
            '<img src="%s" width="%d" height="%d" alt="error map of %s"></a>'
            '<figcaption>%s <a class="close" href="#%s">close</a></figcaption></figure>'
            % (anchor, anchor, charts.data_uri(block.png), block.width, block.height,
               webpage.attribute(block.caption), webpage.text(block.caption), back))


def error_map_legend(codes):
    items = "".join(
        '<li><span class="swatch" style="background:%s"></span><b>%s</b>: %s</li>'
        % (charts.outcome_colour(code), webpage.text(name), webpage.text(meaning))
        for code, name, _, meaning in charts.ERROR_MAP_OUTCOMES if code in codes)
    return '<ul class="legend">%s</ul>' % items


def render_block(block, anchor="figure", back="top"):
    if isinstance(block, Paragraph):
        return "<p>%s</p>" % webpage.text(block.text)
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
            charts.data_uri(block.png), webpage.attribute(block.alt), webpage.text(block.caption))
    raise TypeError("unknown block %r" % (block,))


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
                '</section>' % (anchor, webpage.text(result.title), webpage.text(result.pending)))
    highlights = "".join("<div><dt>%s</dt><dd>%s</dd></div>" % (webpage.text(label), webpage.text(format_cell(v)))
                         for label, v in result.highlights)
    warnings = ('<p class="warn"><a href="#%s">%d warning%s</a> below.</p>'
                % (anchor, len(result.warnings), "" if len(result.warnings) == 1 else "s")) if result.warnings else ""
    return ('<section class="card"><h2><a href="#%s">%s</a></h2><div class="key">%s</div>'
            '<div class="score" data-primary="%s" title="%s">%s</div>%s<p>%s</p>%s%s</section>'
            % (anchor, webpage.text(result.title), webpage.text(result.key_prefix + key),
               html.escape(result.key_prefix + key), format_score(value),
               charts.number(value), interval_lines(result), webpage.text(result.meaning),
               "<dl>%s</dl>" % highlights if highlights else "", warnings))


def interval_lines(result):
    """The 95% interval of the ranking score and how to read it (result.interval, from
    runner.add_interval), with the prediction interval for a second test set of the same
    size, or nothing. The sentences say what bench/coverage.py measured: the interval
    holds the expected score, not the score of another test set, which varies about that
    expectation as well and needs the wider prediction interval."""
    if result.interval is None:
        return ""
    low, high = result.interval
    unit = result.view.unit if result.view is not None else "item"
    key = html.escape(result.key_prefix + next(iter(result.scores)))
    ratio = result.view is None or result.view.scores[result.view.primary].statistic.kind == "ratio"
    # A mean over items is what an unlimited test set would give; an average precision of
    # a test set with few positives runs above a larger one's, so its target is the
    # expectation at this size.
    target = ("Where your score on an unlimited test set of this kind would lie" if ratio else
              "Where your expected score on test sets of this size lies (with few positives, average precision "
              "runs above a larger test set's)")
    method = "a bootstrap over the test %ss" if ratio else "the variance of a bootstrap over the test %ss"
    lines = ('<p class="interval" data-interval="%s">95%% interval: <b>%s</b> to <b>%s</b></p>'
             '<p class="reading">%s, at least 93 times in 100 as measured by simulation (%s).</p>'
             % (key, charts.number(low), charts.number(high), target, method % webpage.text(unit)))
    if result.prediction is not None:
        p_low, p_high = result.prediction
        measured = ("90 times in 100 or more (measured by simulation)" if ratio else
                    "94 times in 100 or more (measured by simulation)")
        lines += ('<p class="interval" data-prediction="%s">On one more test set of the same size: <b>%s</b> to '
                  '<b>%s</b></p><p class="reading">Your score there falls in this range %s; submissions whose '
                  'ranges overlap much may swap places.</p>'
                  % (key, charts.number(p_low), charts.number(p_high), measured))
    return lines


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
        part = ['<h4 id="%s">%s</h4>' % (section_id, webpage.text(section.title))]
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
    parts = [webpage.head("Detailed results" + (": " + competition if competition else "")),
             '<h1 id="top">Detailed results</h1>']
    if competition:
        parts.append('<p class="competition">%s</p>' % webpage.text(competition))
    if len(results) > 1:  # every ranking score on the first screen, even on a phone
        parts.append('<p class="scoreline">%s</p>' % " ".join(
            '<a href="#%s"><span class="key">%s</span> <b data-primary="%s">%s</b></a>' % (
                a, webpage.text(r.key_prefix + next(iter(r.scores))), html.escape(r.key_prefix + next(iter(r.scores))),
                "not scored yet" if r.pending else charts.number(next(iter(r.scores.values()))))
            for r, a in zip(results, track_ids)))
    parts.append('<div class="cards">')
    parts += [headline_card(r, a) for r, a in zip(results, track_ids)]
    parts.append("</div>")
    toc, body = [], []
    for result, track_id in zip(results, track_ids):
        entries = []
        body.append('<h2 id="%s">%s</h2>' % (track_id, webpage.text(result.title)))
        for warning in result.warnings:
            body.append('<p class="warn">Warning: %s</p>' % webpage.text(warning))
        figure_parts = []
        for section in result.sections:
            text, figures = _split(section)
            if text:
                section_id = anchor(section.title)
                entries.append((section_id, section.title))
                body.append('<h3 id="%s">%s</h3>' % (section_id, webpage.text(section.title)))
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
        body.append('<h2 id="log">Log</h2><pre class="log">%s</pre>' % webpage.text("\n".join(log_lines)))
    toc.append(("keys", "All keys of scores.txt", []))
    body.append('<h2 id="keys">All keys of scores.txt</h2>')
    body.append("<p>Shown with 4 decimals; scores.txt holds the full values (hover a value to see it).</p>")
    if any(r.pending for r in results):
        body.append("<p>The keys of a track not scored yet are 0 until its phase is scored against the hidden "
                    "test set.</p>")
    body.append('<div class="scroll" tabindex="0"><table><thead><tr><th>key</th><th>value</th></tr></thead>'
                "<tbody>%s</tbody></table></div>" % "".join(
                    '<tr><td class="txt">%s</td><td class="num" title="%s">%s</td></tr>'
                    % (webpage.text(k), format_score(v), charts.number(v)) for k, v in scores.items()))
    parts.append('<nav class="toc"><b>Contents</b><ul>%s</ul></nav>' % "".join(
        '<li><a href="#%s">%s</a>%s</li>' % (
            track_id, webpage.text(title),
            "<ul>%s</ul>" % "".join('<li><a href="#%s">%s</a></li>' % (i, webpage.text(t)) for i, t in entries)
            if entries else "")
        for track_id, title, entries in toc))
    parts.extend(body)
    parts.append(webpage.footer())
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
    parts = [webpage.head("Detailed results: " + (competition + ": " if competition else "") + title),
             '<h1 id="top">Detailed results</h1>']
    if competition:
        parts.append('<p class="competition">%s</p>' % webpage.text(competition))
    if tracks:
        parts.append("<h2>%s</h2>" % webpage.text(", ".join(tracks)))
    parts.append('<section class="card refused"><h2>%s</h2><p class="sentence" data-primary="refusal">%s</p>'
                 '<p>%s</p></section>' % (webpage.text(title), webpage.text(sentence), webpage.text(advice)))
    if log_lines:
        parts.append('<h2 id="log">Log</h2><pre class="log">%s</pre>' % webpage.text("\n".join(log_lines)))
    parts.append(webpage.footer())
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
