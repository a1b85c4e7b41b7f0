"""The standard library's html.escape for the pages, with every bidirectional control and
invisible character written visibly (errors.visible: U+202E as \\u202e), so that a name
cannot reorder the text around it nor pass for another. bidi.py escapes every part of a
page's text through it; report.py and metaeval/page.py import it as `html`."""

import html

from .errors import visible


def escape(text, quote=True):
    return html.escape(visible(text), quote=quote)
