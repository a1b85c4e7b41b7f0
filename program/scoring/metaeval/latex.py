"""The paper's LaTeX tables: booktabs `table` floats with a caption and a label, that a
proceedings volume takes as is (Springer's LNCS class, llncs, for the ICDAR proceedings;
IEEE's conference class, IEEEtran), and a one-file example document that inputs them.

The width of a table is not known before TeX sets it, so it is estimated from the
characters' widths in Computer Modern at 10 pt (Knuth, Computer Modern Typefaces; the
widths of cmr10's tfm file) to decide where a table splits: a wide table's columns go to
several tables, each at most LNCS's text width (FIT, with a margin), and a long one's rows to tables of at
most ROWS rows. Every table is also set in a box that shrinks it to the line width where
it is still wider (a long name, IEEE's narrower column), so that no box is overfull.
"""

from ..errors import printable

LNCS_TEXTWIDTH = 347.0  # pt: llncs.cls's \textwidth, 12.2 cm
FIT = 0.95 * LNCS_TEXTWIDTH  # what a split table's estimate may reach: TeX sets a few percent wider
IEEE_COLUMNWIDTH = 252.0  # pt: IEEEtran's \columnwidth in a conference paper (two columns)
ROWS = 40  # rows of one table at most: a longer one continues in the next
TABCOLSEP = 4.0  # pt, set in every table (LaTeX's default is 6 pt)

_ESCAPES = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
            "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}

# cmr10's widths in pt at 10 pt, of the characters tables hold most.
_WIDTHS = dict(zip("0123456789", [5.0] * 10))
_WIDTHS.update({".": 2.78, ",": 2.78, " ": 3.33, "[": 2.78, "]": 2.78, "(": 3.89, ")": 3.89, "-": 3.33, "+": 7.78,
                "%": 8.33, "&": 7.78, "_": 5.0, ":": 2.78, "/": 5.0, "'": 2.78, "=": 7.78})
_WIDTHS.update(zip("abcdefghijklmnopqrstuvwxyz", [5.0, 5.56, 4.44, 5.56, 4.44, 3.06, 5.0, 5.56, 2.78, 3.06, 5.28,
                                                  2.78, 8.33, 5.56, 5.0, 5.56, 5.28, 3.92, 3.94, 3.89, 5.56, 5.28,
                                                  7.22, 5.28, 5.28, 4.44]))
_WIDTHS.update(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", [7.5, 7.08, 7.22, 7.64, 6.81, 6.53, 7.85, 7.5, 3.61, 5.14, 7.78,
                                                  6.25, 9.17, 7.5, 7.78, 6.81, 7.78, 7.36, 5.56, 7.22, 7.5, 7.5,
                                                  10.28, 7.5, 7.5, 6.11]))
_OTHER = 7.5  # any other character: as wide as a capital


def escape(text):
    """Text for a LaTeX table cell (UTF-8 kept; control, bidirectional and invisible
    characters written as escapes, errors.printable; LaTeX's special characters escaped)."""
    return "".join(_ESCAPES.get(c, c) for c in printable(str(text)))


def width(text):
    """The estimated width in pt of plain `text` (not escaped) set in cmr10."""
    return sum(_WIDTHS.get(c, _OTHER) for c in str(text))


def table_width(header, rows):
    """The estimated natural width in pt of a tabular of these cells (plain text): each
    column as wide as its widest cell, TABCOLSEP on either side of every column."""
    columns = list(zip(header, *rows))
    return sum(max(width(cell) for cell in column) + 2 * TABCOLSEP for column in columns)


def column_groups(first, others, rows, limit=FIT):
    """Split the columns `others` (indices into each row after the first column) into
    consecutive groups whose table with the first column fits `limit` (at least one
    column a group). first: (header, cells); others: [(header, cells)]."""
    first_width = max(width(c) for c in [first[0]] + list(first[1])) + 2 * TABCOLSEP
    groups, current, used = [], [], first_width
    for index, (head, cells) in enumerate(others):
        column = max(width(c) for c in [head] + list(cells)) + 2 * TABCOLSEP
        if current and used + column > limit:
            groups.append(current)
            current, used = [], first_width
        current.append(index)
        used += column
    if current:
        groups.append(current)
    return groups


def tables(label, caption, header, rows, align, comment):
    """One `table` float (booktabs) of plain-text cells, or several where the rows are
    more than ROWS: the later ones captioned as its continuation, labelled label-2, ...
    Returns the LaTeX text (needs booktabs and graphicx)."""
    chunks = [rows[start:start + ROWS] for start in range(0, max(len(rows), 1), ROWS)]
    out = ["% " + comment + "; needs \\usepackage{booktabs,graphicx}"]
    for number, chunk in enumerate(chunks):
        text = caption if number == 0 else "%s (continued, part %d of %d)" % (caption, number + 1, len(chunks))
        out += ["\\begin{table}[tbp]", "\\centering", "\\setlength{\\tabcolsep}{%gpt}" % TABCOLSEP,
                "\\caption{%s}" % escape(text),
                "\\label{%s}" % (label if number == 0 else "%s-%d" % (label, number + 1)),
                "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%",
                "\\begin{tabular}{%s}" % align, "\\toprule",
                " & ".join(escape(h) for h in header) + " \\\\", "\\midrule"]
        out += [" & ".join(escape(c) for c in row) + " \\\\" for row in chunk]
        out += ["\\bottomrule", "\\end{tabular}}", "\\end{table}"]
    return "\n".join(out) + "\n"


EXAMPLE = r"""%% The paper's tables of compare.py in one document: pdflatex example.tex (here, in latex/).
%% Springer's LNCS (the ICDAR proceedings); for IEEE's conference class use instead
%% \documentclass[conference]{IEEEtran}. Names beyond the Latin, Greek and Cyrillic
%% scripts need lualatex or xelatex with a font that has them.
\documentclass{llncs}
\usepackage[T1]{fontenc}
\usepackage[utf8]{inputenc}
\usepackage{booktabs,graphicx}
\begin{document}
\title{The results of the competition}
\author{The organizers}
\maketitle
%(body)s
\end{document}
"""


def example(inputs):
    """The example document: for each (section title, [(file name, label)]), a section
    that refers to its tables and inputs them, then a page break (floats placed)."""
    body = []
    for title, files in inputs:
        body.append("\\section{%s}" % escape(title))
        body.append("Tables %s." % ", ".join("\\ref{%s}" % label for _, label in files))
        body += ["\\input{%s}" % name for name, _ in files]
        body.append("\\clearpage")
    return EXAMPLE % {"body": "\n".join(body)}
