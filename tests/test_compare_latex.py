"""The paper's LaTeX (metaeval/latex.py): every table a booktabs `table` float with a
caption and a label, split where it would be wider than LNCS's text width (columns) or
longer than latex.ROWS (rows), and an example document that inputs them all. The
compilation in LNCS and IEEEtran, without an overfull box, runs where pdflatex is
installed (Debian: texlive-latex-base, texlive-latex-extra, texlive-publishers)."""

import os
import re
import shutil
import subprocess

import numpy as np
import pytest
from scoring.itemview import ItemView, Ratio, Score
from scoring.metaeval import analysis, latex, page

CATEGORIES = ["Ati_Atihan", "Carnival_Rio", "Chinese_New_Year", "Dia_de_los_Muertos", "Diwali_Festival",
              "Holi_Festival", "La_Tomatina", "Oktoberfest", "Pflasterspektakel", "Sapporo_Snow_Festival",
              "Songkran_Water_Festival", "Up_Helly_Aa"]


def views(count, strata, per=4, seed=3):
    random = np.random.RandomState(seed)
    out = []
    for k in range(count):
        x = np.clip(0.3 + 0.01 * k + random.normal(0, 0.1, len(strata) * per), 0, 1)
        out.append(ItemView(strata, [per] * len(strata), [str(i) for i in range(len(strata) * per)],
                            {"x": x, "one": np.ones(x.shape)}, [("map", Score(Ratio(("x", "one")), ranked=True))],
                            "map", ["one"], unit="image"))
    return out


@pytest.fixture(scope="module")
def files():
    """Two tracks: 6 submissions over the demo's 12 event categories (a wide strata table),
    and 45 over 2 strata with long names holding LaTeX's special characters (a long one)."""
    options = analysis.Options(resamples=20, permutations=100)
    wide = analysis.analyse("events", ["Team %s" % c for c in "ABCDEF"], views(6, CATEGORIES), options)
    names = ["Équipe n°%d & co_%d {50%%}" % (k, k) for k in range(45)]  # %% is one %
    long = analysis.analyse("lines (two)", names, views(45, ["m1", "m2"]), options)
    _, found = page.report_html([wide, long], [])
    return dict((k[len("latex/"):], v) for k, v in found.items() if k.startswith("latex/"))


def floats(text):
    return re.findall(r"\\begin\{table\}\[tbp\]\n(.*?)\\end\{table\}", text, re.S)


def cells(block):
    """The plain cells of a table's header and rows (unescaped enough to measure)."""
    body = block[block.index("\\toprule") + len("\\toprule"):block.index("\\bottomrule")]
    rows = [line[:-3] for line in body.split("\n") if line.endswith(" \\\\")]
    unescape = dict((v, k) for k, v in latex._ESCAPES.items())
    pattern = re.compile("|".join(re.escape(v) for v in sorted(unescape, key=len, reverse=True)))
    return [[pattern.sub(lambda m: unescape[m.group(0)], c) for c in row.split(" & ")] for row in rows]


def test_every_table_is_a_captioned_labelled_booktabs_float(files):
    assert sorted(files) == ["events-ranking.tex", "events-strata.tex", "example.tex", "lines-two-ranking.tex",
                             "lines-two-strata.tex"]
    labels = []
    for name, text in files.items():
        if name == "example.tex":
            continue
        blocks = floats(text)
        assert blocks and text.count("\\begin{table}") == len(blocks) == text.count("\\end{table}"), name
        for block in blocks:
            assert block.count("\\caption{") == 1 and block.count("\\label{") == 1, name
            assert all(rule in block for rule in ("\\toprule", "\\midrule", "\\bottomrule")), name
            assert "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%" in block
            labels.append(re.search(r"\\label\{([^}]*)\}", block).group(1))
            assert len(cells(block)) - 1 <= latex.ROWS
    assert len(labels) == len(set(labels))
    example = files["example.tex"]
    for name in files:
        if name != "example.tex":
            assert "\\input{%s}" % name in example
    assert example.count("\\ref{") == 4 and "\\documentclass{llncs}" in example


def test_wide_and_long_tables_are_split_to_fit(files):
    """The 12 categories: each table of them at most LNCS's text width by the character
    widths (latex.width), with as many categories as fit; 45 submissions: two tables of
    the ranking, 40 rows and 5."""
    blocks = floats(files["events-strata.tex"])
    assert len(blocks) > 1
    seen = []
    for block in blocks:
        table = cells(block)
        seen += table[0][1:]
        estimate = latex.table_width(table[0], table[1:])
        assert estimate <= latex.FIT
        # Computed here from the widths: each column as wide as its widest cell, 4 pt either side.
        by_hand = sum(max(sum(latex._WIDTHS.get(ch, latex._OTHER) for ch in c) for c in column) + 8.0
                      for column in zip(*table))
        assert estimate == pytest.approx(by_hand)
    assert seen == CATEGORIES
    # One more category in any table (the next one) would have been wider than the text.
    for block, following in zip(blocks, blocks[1:]):
        table, nxt = cells(block), cells(following)
        wider = [row + [other[1]] for row, other in zip(table, nxt)]
        assert latex.table_width(wider[0], wider[1:]) > latex.FIT
    ranking = floats(files["lines-two-ranking.tex"])
    assert [len(cells(b)) - 1 for b in ranking] == [40, 5]
    assert "(continued, part 2 of 2)" in ranking[1] and "\\label{tab:lines-two-ranking-2}" in ranking[1]
    assert "Équipe n°0 \\& co\\_0 \\{50\\%\\}" in "".join(ranking)


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
@pytest.mark.parametrize("documentclass", ["\\documentclass{llncs}", "\\documentclass[conference]{IEEEtran}"])
def test_the_example_compiles_without_an_overfull_box(files, tmp_path, documentclass):
    for name, text in files.items():
        if name == "example.tex":
            text = text.replace("\\documentclass{llncs}", documentclass)
        with open(str(tmp_path / name), "w", encoding="utf-8") as stream:
            stream.write(text)
    for _ in range(2):  # twice: the references
        run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "example.tex"],
                             cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    log = open(str(tmp_path / "example.log"), encoding="latin-1").read()
    assert run.returncode == 0, log[-3000:]
    assert "Overfull" not in log and "undefined" not in log
    assert os.path.getsize(str(tmp_path / "example.pdf")) > 0


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_split_tables_fit_lncs_as_tex_sets_them(files, tmp_path):
    """TeX's own width of every table of the split strata: at most LNCS's text width, so
    none of them is scaled down there; and the estimate within 8% of it."""
    blocks = re.findall(r"\\begin\{tabular\}.*?\\end\{tabular\}", files["events-strata.tex"], re.S)
    document = ["\\documentclass{llncs}", "\\usepackage[T1]{fontenc}", "\\usepackage{booktabs}",
                "\\begin{document}", "\\setlength{\\tabcolsep}{%gpt}" % latex.TABCOLSEP]
    document += ["\\sbox0{%s}\\typeout{WIDTH \\the\\wd0}" % block for block in blocks] + ["x", "\\end{document}"]
    with open(str(tmp_path / "widths.tex"), "w", encoding="utf-8") as stream:
        stream.write("\n".join(document))
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "widths.tex"], cwd=str(tmp_path),
                   stdout=subprocess.DEVNULL, timeout=120)
    found = [float(w) for w in re.findall(r"WIDTH ([0-9.]+)pt", open(str(tmp_path / "widths.log"),
                                                                    encoding="latin-1").read())]
    assert len(found) == len(blocks) > 1
    for block, width in zip(blocks, found):
        table = cells(block)
        assert width <= latex.LNCS_TEXTWIDTH
        assert latex.table_width(table[0], table[1:]) == pytest.approx(width, rel=0.08)
