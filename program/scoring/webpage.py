"""The one stylesheet and table writer of every HTML page the program writes: the
participant's detailed results (report.py), compare.py's report (metaeval/page.py) and
the starting kit's evaluation page (tools/pages.py)."""

import html

import numpy as np

from . import __version__, bidi

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
.panel{border:1px solid #cfd8e3;border-radius:10px;padding:.2rem 1rem .6rem;margin:.8rem 0;background:#fafbfc}
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
table.wrap td.txt{white-space:normal;min-width:8em}
table.ranking td,table.ranking th{white-space:normal}table.ranking td.txt{overflow-wrap:anywhere}
p.narrow{display:none;font-size:.9em;color:#444}
@media (max-width:40em){table.ranking .extra{display:none}p.narrow{display:block}}
caption{text-align:left;font-style:italic;padding:.35rem .6rem;color:#4a5560;white-space:normal}
.groups{display:flex;flex-wrap:wrap;gap:0 2rem}.group{max-width:100%}.group p{max-width:22rem}
.figures{display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-start}
figure{margin:.8rem 0;max-width:100%;overflow-x:auto}.figures figure{margin:0;overflow:visible}
svg.chart,figure svg{max-width:100%;height:auto;display:block}
figure img{max-width:100%;height:auto}
figcaption{font-size:.85rem;color:#4a5560;max-width:60rem}
p.reading{background:#f3f7fb;border-left:4px solid #1f77b4;padding:.4rem .7rem;max-width:60rem}
.card p.reading{background:none;border:0;padding:0}
.glance{list-style:none;padding:0}.glance li{margin:.3rem 0}
.files li{font-family:ui-monospace,Menlo,Consolas,monospace}
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
.scroll{overflow:visible;max-height:none;border:0}td,th{white-space:normal}th{position:static}
figure,tr,.card{break-inside:avoid}
a{color:inherit;text-decoration:none}.map:target{position:static;background:none}}
"""


def head(title, extra_style=""):
    """The opening of every page: doctype, charset, viewport, the stylesheet (and a page's
    own additions, extra_style)."""
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            "<title>%s</title><style>%s%s</style></head><body>" % (attribute(title), STYLE, extra_style))


def footer():
    """The closing lines of every page the program writes: the program's version."""
    return '<footer class="version">Scoring program %s</footer></body></html>\n' % html.escape(__version__)


def text(value):
    """Text for the page, escaped, every name written right to left isolated (<bdi>, so
    that it keeps its own direction and its neighbours theirs: bidi.py)."""
    return bidi.html_text(str(value))


def attribute(value):
    """Text for an attribute (alt, title): escaped, right-to-left runs isolated with
    FSI ... PDI, as an attribute holds no element."""
    return html.escape(bidi.plain(str(value)))


class Markup(str):
    """A table heading already written in HTML (a colour swatch and its name), not escaped."""


def is_number(value):
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def table(columns, rows, caption="", cell=str, numeric=is_number, wrap=False, narrow=None):
    """A table in a box that scrolls, not the page (wide tables stay readable on a phone).
    cell(value): the text of a cell; numeric(value): whether it is a number (aligned
    right, in tabular figures); wrap: text cells wrap (a table of sentences) instead of
    scrolling sideways; narrow: a ranking table whose first `narrow` columns are all a
    phone shows (their cells wrap), the others hidden on a narrow screen."""
    def extra(k):
        return narrow is not None and k >= narrow
    head_cells = "".join("<th%s>%s</th>" % (' class="extra"' if extra(k) else "",
                                            c if isinstance(c, Markup) else text(c))
                         for k, c in enumerate(columns))
    body = "".join(
        "<tr>%s</tr>" % "".join(
            '<td class="%s%s">%s</td>' % ("num" if numeric(v) else "txt", " extra" if extra(k) else "", text(cell(v)))
            for k, v in enumerate(row))
        for row in rows)
    caption = "<caption>%s</caption>" % text(caption) if caption else ""
    kind = "wrap" if wrap else "ranking" if narrow is not None else ""
    return ('<div class="scroll" tabindex="0"><table%s>%s<thead><tr>%s</tr></thead><tbody>%s</tbody></table></div>'
            % (' class="%s"' % kind if kind else "", caption, head_cells, body))
