"""detailed_results.html as a participant reads it: what matters first, names in any
script, a page that explains a refusal, and a page weight that a browser opens at once."""

import hashlib
import html
import os
import re
import shutil

import pytest
from conftest import ROOT, assert_clean_failure, run_scorer

SAMPLE = os.path.join(ROOT, "input")


def copy_sample(tmp_path):
    target = tmp_path / "input"
    shutil.copytree(SAMPLE, str(target))
    return target


def read_page(run):
    with open(os.path.join(run.output, "detailed_results.html"), encoding="utf-8") as stream:
        return stream.read()


@pytest.fixture(scope="module")
def sample_page(tmp_path_factory):
    run = run_scorer(SAMPLE, tmp_path_factory.mktemp("out"))
    assert run.status == 0, run.stderr
    return run, read_page(run)


def test_page_opens_with_each_ranking_score_then_contents_then_every_key(sample_page):
    run, page = sample_page
    scores = run.scores()
    assert '<meta name="viewport"' in page
    contents = page.index('<nav class="toc">')
    for key in ("uar", "map", "line_iu"):
        card = page.index('class="score" data-primary="%s"' % key)
        assert card < contents
        shown = re.search(r'data-primary="%s"[^>]*>([^<]*)<' % key, page[card - 40:]).group(1)
        assert shown == "%.4f" % scores[key]  # 4 decimals on screen
    keys_table = page.index('id="keys"')
    assert page.index('id="log"') < keys_table
    with open(os.path.join(run.output, "scores.txt")) as stream:
        written = [line.rstrip("\n").split(": ") for line in stream]
    for key, value in written:  # every key, its full value (as in scores.txt) a hover away
        assert '<td class="txt">%s</td><td class="num" title="%s">' % (key, value) in page[keys_table:]


def test_wide_tables_scroll_in_their_own_box(sample_page):
    _, page = sample_page
    assert page.count("<table") == page.count('<div class="scroll" tabindex="0"><table')


def test_charts_are_svg_with_axis_text_and_pictures_only_for_maps(sample_page):
    _, page = sample_page
    assert page.count("<svg") >= 12 + 3  # a precision/recall chart per category, a matrix per subset
    assert "recall (fraction of positives found)" in page and "predicted class" in page
    for source in re.findall(r'src="([^"]*)"', page):
        assert source.startswith("data:image/png;base64,")
    assert page.count("data:image/png") == page.count('<figure class="map"')


def rename(path, old, new):
    os.rename(str(path / old), str(path / new))


def test_names_outside_latin1_are_drawn(tmp_path):
    # Pillow 6's bitmap font crashed on such names; the charts are text in SVG now.
    phase = copy_sample(tmp_path)
    subset, category = "Pizan_Ελληνικά", "Праздник_огня"
    rename(phase / "ref" / "authentication", "Pizan.csv", subset + ".csv")
    for suffix in ("_labels.csv", "_distances.csv"):
        rename(phase / "res" / "authentication", "Pizan" + suffix, subset + suffix)
    for side in ("ref", "res"):
        rename(phase / side / "events", "La_Tomatina.txt", category + ".txt")
    run = run_scorer(phase, tmp_path / "out")
    assert run.status == 0, run.stderr
    page = read_page(run)
    assert "Confusion matrix of %s" % subset in page
    assert ">%s</text>" % category in page  # the precision/recall chart's title
    # The key: the Latin part, then 'u' and six hex digits of the name's SHA-1 (docs/organizers.md)
    digest = hashlib.sha1(subset.encode("utf-8")).hexdigest()[:6]
    assert "pizan_u%s_accuracy" % digest in run.scores()


def test_refused_submission_leaves_a_page_with_the_sentence_and_no_score(tmp_path):
    phase = copy_sample(tmp_path)
    os.remove(str(phase / "res" / "events" / "La_Tomatina.txt"))
    out = tmp_path / "out"
    out.mkdir()
    (out / "scores.txt").write_text("uar: 1.0\n")  # from an earlier run: must go
    run = run_scorer(phase, out)
    assert_clean_failure(run, 1, "La_Tomatina.txt")
    assert not (out / "scores.json").exists()
    page = read_page(run)
    assert "Submission refused" in page
    assert html.escape(run.last_line) in page  # the participant's own words, as on stderr
    assert '<meta name="viewport"' in page


def test_reference_error_page_says_it_is_for_the_organizers(tmp_path):
    phase = copy_sample(tmp_path)
    (phase / "ref" / "events" / "track.yaml").write_text("track: events\nmissing: sometimes\n")
    run = run_scorer(phase, tmp_path / "out")
    assert_clean_failure(run, 2)
    page = read_page(run)
    assert html.escape(run.last_line) in page
    assert "not your submission" in page


def test_fest_scale_page_weighs_under_2_mb_with_every_map(fest_scale_output):
    page = read_page(fest_scale_output)
    size = len(page.encode("utf-8"))
    assert page.count('<figure class="map"') == 45
    assert size < 2 * 1000 * 1000, size
