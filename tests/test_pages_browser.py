"""The pages in a real browser: headless Chromium at a phone's width (400 px) and a
desktop's (1280 px).

The test drives Chromium through its DevTools protocol over a pipe (--remote-debugging-pipe:
JSON messages on file descriptors 3 and 4, no driver or websocket package needed): the
viewport is emulated at each width (as a phone for 400 px, so the page's viewport meta tag
counts), the page is loaded, and a small probe script measures the laid-out page. The test
fails on horizontal overflow of the page itself (wide tables and charts must scroll in
their own box), a chart without axis text (or with text too small to read), or a ranking
score (an element marked data-primary="<key>") outside the first screen. Screenshots of
the first screen and of the whole page are kept under output/browser/ for review.

The browser is Debian's `chromium` package; the test installs nothing. Without a browser
it is skipped, except under CI=true (.ci/run installs the package), where it fails.
"""

import base64
import fcntl
import json
import os
import re
import select
import shutil
import subprocess
import time

import compare_scenario
import pytest
from conftest import ROOT, run_compare, run_scorer
from scoring.tracks.events import CHARTED

SAMPLE = os.path.join(ROOT, "input")
SHOTS = os.path.join(ROOT, "output", "browser")
WIDTHS = (400, 1280)
FIRST_SCREEN = 800  # px: the height of the window, a phone's or a laptop's first screen
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

PROBE = """(function () {
  var out = {width: window.innerWidth, height: window.innerHeight,
             scrollWidth: document.documentElement.scrollWidth,
             pageHeight: document.documentElement.scrollHeight, charts: [], primary: {}, wide: []};
  document.querySelectorAll("svg").forEach(function (svg, i) {
    var texts = Array.prototype.filter.call(svg.querySelectorAll("text"), function (t) {
      return t.textContent.trim() && t.getBoundingClientRect().width > 0; });
    var heights = texts.map(function (t) { return t.getBoundingClientRect().height; });
    var title = svg.querySelector("title");
    var box = svg.parentElement, scrolls = false;
    for (; box && box !== document.body; box = box.parentElement) {
      var overflow = getComputedStyle(box).overflowX;
      if (overflow === "auto" || overflow === "scroll") { scrolls = true; break; }
    }
    out.charts.push({index: i, title: title ? title.textContent : "", texts: texts.length,
                     smallest: heights.length ? Math.min.apply(null, heights) : 0,
                     width: svg.getBoundingClientRect().width, scrolls: scrolls});
  });
  document.querySelectorAll("[data-primary]").forEach(function (e) {
    var r = e.getBoundingClientRect(), key = e.getAttribute("data-primary");
    if (!(key in out.primary) || r.bottom < out.primary[key]) { out.primary[key] = r.bottom; }
  });
  document.querySelectorAll("body *").forEach(function (e) {
    var r = e.getBoundingClientRect();
    if (r.right > window.innerWidth + 1 && !e.closest(".scroll") && !e.closest("svg")) {
      out.wide.push(e.tagName + " " + (e.id || "") + " " + (e.getAttribute("class") || ""));
    }
  });
  return JSON.stringify(out);
})()"""


def find_browser():
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    path = find_browser()
    if path is None:
        message = "no headless browser (apt-get install chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(message + ": CI must run the browser test")
        pytest.skip(message)
    chromium = Chromium(path, str(tmp_path_factory.mktemp("chromium-profile")))
    yield chromium
    chromium.close()


class Chromium(object):
    """One headless Chromium driven over --remote-debugging-pipe (fd 3: commands in,
    fd 4: replies and events out, each message JSON ended by a NUL byte)."""

    def __init__(self, path, profile):
        to_browser, self._commands = os.pipe()
        self._replies, from_browser = os.pipe()

        def plumb():  # in the child: the pipe ends on fds 3 and 4, whatever their numbers were
            read_end = fcntl.fcntl(to_browser, fcntl.F_DUPFD, 10)
            write_end = fcntl.fcntl(from_browser, fcntl.F_DUPFD, 10)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self.process = subprocess.Popen(
            [path, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
             "--disable-dev-shm-usage", "--remote-debugging-pipe", "--user-data-dir=" + profile, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4), preexec_fn=plumb)
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next = 0
        self.events = []
        self.width = 0
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable", session=self.session)

    def close(self):
        try:
            self.call("Browser.close")
        except (OSError, AssertionError):
            pass
        os.close(self._commands)
        os.close(self._replies)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def _send(self, method, params, session):
        self._next += 1
        message = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode("utf-8") + b"\0")
        return self._next

    def _read(self, deadline):
        while b"\0" not in self._buffer:
            left = deadline - time.time()
            assert left > 0, "the browser did not answer in time"
            ready, _, _ = select.select([self._replies], [], [], left)
            if ready:
                chunk = os.read(self._replies, 1 << 20)
                assert chunk, "the browser closed its pipe"
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message.decode("utf-8"))

    def call(self, method, params=None, session=None, timeout=120):
        wanted = self._send(method, params, session)
        deadline = time.time() + timeout
        while True:
            message = self._read(deadline)
            if message.get("id") == wanted:
                assert "error" not in message, (method, message["error"])
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, event, timeout=120):
        deadline = time.time() + timeout
        while True:
            for i, message in enumerate(self.events):
                if message.get("method") == event:
                    del self.events[:i + 1]
                    return message
            self.events.append(self._read(deadline))

    def load(self, path, width):
        """The page laid out in a viewport of width x FIRST_SCREEN (a phone's below 600 px)."""
        self.call("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": FIRST_SCREEN, "deviceScaleFactor": 1, "mobile": width < 600},
            session=self.session)
        self.events = []
        self.call("Page.navigate", {"url": "file://" + path}, session=self.session)
        self.wait_for("Page.loadEventFired")

    def probe(self):
        result = self.call("Runtime.evaluate", {"expression": PROBE, "returnByValue": True}, session=self.session)
        return json.loads(result["result"]["value"])

    def screenshot(self, target, height=None):
        params = {"format": "png"}
        if height:
            params.update({"captureBeyondViewport": True,
                           "clip": {"x": 0, "y": 0, "width": self.width, "height": height, "scale": 1}})
        data = self.call("Page.captureScreenshot", params, session=self.session)["data"]
        with open(target, "wb") as stream:
            stream.write(base64.b64decode(data))


def check_page(browser, page_path, name, primary_keys, min_charts):
    if not os.path.isdir(SHOTS):
        os.makedirs(SHOTS)
    for width in WIDTHS:
        browser.load(page_path, width)
        seen = browser.probe()
        assert seen["width"] == width, seen["width"]
        browser.width = width
        browser.screenshot(os.path.join(SHOTS, "%s-%d.png" % (name, width)))
        browser.screenshot(os.path.join(SHOTS, "%s-%d-full.png" % (name, width)), min(seen["pageHeight"], 16000))
        where = "%s at %d px" % (name, width)
        assert seen["scrollWidth"] <= width, "%s: the page overflows (%d px wide): %s" % (
            where, seen["scrollWidth"], seen["wide"][:10])
        assert len(seen["charts"]) >= min_charts, where
        for chart in seen["charts"]:
            assert chart["texts"] >= 3, "%s: chart %r has no axis text" % (where, chart["title"])
            assert chart["smallest"] >= 7, "%s: chart %r text %.1f px high" % (where, chart["title"],
                                                                             chart["smallest"])
            # A chart wider than the window (a large matrix) scrolls in its own box, as tables do.
            assert chart["width"] <= width or chart["scrolls"], "%s: chart %r is %d px wide" % (
                where, chart["title"], chart["width"])
        for key in primary_keys:
            assert key in seen["primary"], "%s: no ranking score %s shown" % (where, key)
            assert seen["primary"][key] <= FIRST_SCREEN, "%s: %s is below the first screen (%d px)" % (
                where, key, seen["primary"][key])


def test_sample_phase_page(browser, tmp_path):
    run = run_scorer(SAMPLE, tmp_path / "out")
    assert run.status == 0, run.stderr
    check_page(browser, os.path.join(run.output, "detailed_results.html"), "sample", ("uar", "map", "line_iu"),
               min_charts=15)


def test_refusal_page(browser, tmp_path):
    phase = tmp_path / "input"
    shutil.copytree(SAMPLE, str(phase))
    os.remove(str(phase / "res" / "events" / "La_Tomatina.txt"))
    run = run_scorer(phase, tmp_path / "out")
    assert run.status == 1
    check_page(browser, os.path.join(run.output, "detailed_results.html"), "refused", ("refusal",), min_charts=0)


def test_fest_scale_lines_page(browser, fest_scale_output):
    check_page(browser, os.path.join(fest_scale_output.output, "detailed_results.html"), "fest-scale-lines",
               ("line_iu",), min_charts=0)


def test_events_scale_page(browser, events_scale_output):
    """100 categories: the precision/recall charts of the 12 of lowest AP (events.CHARTED)."""
    check_page(browser, os.path.join(events_scale_output.output, "detailed_results.html"), "events-scale",
               ("map",), min_charts=CHARTED)


REPORT_PROBE = """(function () {
  var out = {clipped: [], charts: [], unread: [], sections: 0, rankings: []};
  document.querySelectorAll("table.ranking").forEach(function (table) {
    var box = table.parentElement, shown = [];
    table.querySelectorAll("thead th").forEach(function (th) {
      if (th.getBoundingClientRect().width > 0) { shown.push(th.textContent); } });
    out.rankings.push({caption: table.caption ? table.caption.textContent : "", width: table.scrollWidth,
                       box: box.clientWidth, shown: shown});
  });
  document.querySelectorAll("svg").forEach(function (svg) {
    var box = svg.getBoundingClientRect();
    var title = svg.querySelector("title");
    title = title ? title.textContent : "";
    svg.querySelectorAll("text").forEach(function (t) {
      var r = t.getBoundingClientRect();
      if (r.width === 0 || !t.textContent.trim()) { return; }
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) {
        out.clipped.push(title + ": " + t.textContent);
      }
    });
    var styles = Array.prototype.map.call(svg.querySelectorAll("[data-style]"), function (e) {
      return [e.getAttribute("data-series"), e.getAttribute("data-style")]; });
    var heights = Array.prototype.filter.call(svg.querySelectorAll("text"), function (t) {
      return t.textContent.trim() && t.getBoundingClientRect().width > 0; }).map(function (t) {
      return t.getBoundingClientRect().height; });
    out.charts.push({title: title, width: box.width, styles: styles,
                     smallest: heights.length ? Math.min.apply(null, heights) : 0});
  });
  document.querySelectorAll("h3").forEach(function (h) {
    out.sections += 1;
    for (var e = h.nextElementSibling; e && !/^H[23]$/.test(e.tagName); e = e.nextElementSibling) {
      if (e.matches("p.reading") || e.querySelector("p.reading")) { return; }
    }
    out.unread.push(h.textContent);
  });
  return JSON.stringify(out);
})()"""


def check_report(browser, page_path, name, min_series=0):
    """The meta-evaluation's report: no text cut by its chart's frame, every chart at least
    a third of a desktop window wide, a distinct colour or marker for each series of a
    chart, and a sentence saying what each analysis shows; at both widths."""
    widest = 0
    for width in WIDTHS:
        browser.load(page_path, width)
        seen = json.loads(browser.call("Runtime.evaluate", {"expression": REPORT_PROBE, "returnByValue": True},
                                       session=browser.session)["result"]["value"])
        where = "%s at %d px" % (name, width)
        assert not seen["clipped"], "%s: text cut by its chart: %s" % (where, seen["clipped"][:5])
        assert seen["charts"] and not seen["unread"], "%s: analyses without a reading: %s" % (where, seen["unread"])
        # The ranking tables: rank, submission and the score with its interval without
        # scrolling sideways (the other columns hidden on a phone).
        assert seen["rankings"], where
        for table in seen["rankings"]:
            assert table["width"] <= table["box"] + 1, "%s: %r scrolls sideways" % (where, table["caption"])
            assert table["shown"][:2] == ["rank", "submission"] and "[95%]" in table["shown"][2], (where, table)
        for chart in seen["charts"]:
            # Chart text at least 80% of its 11-12 px (a text box of 10 px or more).
            assert chart["smallest"] >= 9.99, "%s: chart %r text %.1f px" % (where, chart["title"], chart["smallest"])
            if width >= 1000:
                assert chart["width"] >= width / 3.0, "%s: chart %r is %d px wide" % (where, chart["title"],
                                                                                      chart["width"])
            styles = [style for _, style in chart["styles"]]
            assert len(set(styles)) == len(set(series for series, _ in chart["styles"])) == len(styles), (
                "%s: chart %r repeats a colour and marker: %s" % (where, chart["title"], chart["styles"]))
            widest = max(widest, len(styles))
    assert widest >= min_series


def many_strata_report(directory):
    """A report of 13 submissions over 14 strata (one series per stratum in the podium, 13
    violins), one score lower-is-better: written with compare.py's own functions."""
    import numpy as np
    from scoring.itemview import ItemView, Ratio, Score
    from scoring.metaeval import analysis, page

    rng = np.random.RandomState(2)
    # names in both directions: Latin with accents, Arabic (a name and a count after it)
    strata = [("Manuscrit %02d \u00e9t\u00e9" if h % 2 else "\u0643\u062a\u0627\u0628 %02d") % h for h in range(14)]
    views = []
    for k in range(13):
        x = np.clip(0.4 + 0.04 * k + rng.normal(0, 0.1, 14 * 6), 0, None)
        views.append(ItemView(strata, [6] * 14, [str(i) for i in range(14 * 6)], {"x": x, "one": np.ones(x.shape)},
                              [("error", Score(Ratio(("x", "one")), ranked=True, lower_is_better=True,
                                               bounds=(0.0, None)))], "error", ["one"], unit="page"))
    names = ["submission number %d with a long name" % k for k in range(13)]
    found = analysis.analyse("errors", names, views, analysis.Options(resamples=100, permutations=200))
    report, files = page.report_html([found], page.closing_note([found]))
    os.makedirs(directory)
    target = os.path.join(directory, "report.html")
    with open(target, "w", encoding="utf-8") as stream:
        stream.write(report)
    return target, files


def test_compare_report_with_many_series(browser, tmp_path):
    target, files = many_strata_report(str(tmp_path / "many"))
    check_page(browser, target, "compare-many", ["error"], min_charts=10)
    check_report(browser, target, "compare-many", min_series=13)
    check_directions(browser, target, "compare-many-directions")
    assert any(name.startswith("latex/") for name in files) and any(name.startswith("svg/") for name in files)


def test_starting_kit_pages(browser, tmp_path):
    """The evaluation page of each demo track's starting kit, a whole document opened from
    the kit's folder (format, example, metrics, the table of columns)."""
    import zipfile

    import make_bundle

    dist = str(tmp_path / "dist")
    make_bundle.build(dist)
    for track in ("authentication", "events", "lines"):
        with zipfile.ZipFile(os.path.join(dist, track, "starting_kit_%s.zip" % track)) as kit:
            kit.extract("evaluation.html", str(tmp_path / track))
        check_page(browser, str(tmp_path / track / "evaluation.html"), "kit-evaluation-" + track, (), min_charts=0)


def test_compare_report(browser, tmp_path):
    ref, dirs, _ = compare_scenario.make(str(tmp_path / "scenario"), 8)
    out = tmp_path / "compare"
    done = run_compare("--ref", ref, "--out", out, "--resamples", 200, *dirs)
    assert done.returncode == 0, done.stderr
    page = os.path.join(str(out), "report.html")
    with open(page, encoding="utf-8") as stream:
        text = stream.read()
    # The ranking scores the report names (metaeval marks them data-primary once rebuilt).
    primary = sorted(set(re.findall(r'data-primary="([^"]+)"', text)))
    check_page(browser, page, "compare-report", primary, min_charts=20)
    check_report(browser, page, "compare-report")


# -- names written right to left ---------------------------------------------------------

ARABIC_SUBSET = "\u0627\u0628\u0646 \u0645\u0642\u0644\u0629"  # ابن مقلة
HEBREW_SUBSET = "\u05e8\u05e9\u05f4\u05d9"  # רש״י
ARABIC_BOOK = "\u0643\u062a\u0627\u0628 \u0627\u0644\u0623\u063a\u0627\u0646\u064a"  # كتاب الأغاني
ARABIC_PAGE = "\u0648\u0631\u0642\u0629 %s.png"  # ورقة ١.png ... with Arabic-Indic digits
HEBREW_CATEGORY = "\u05d7\u05d2 \u05d4\u05d0\u05d5\u05e8\u05d9\u05dd"  # חג האורים


def right_to_left_phase(root):
    """The sample phase with names written right to left: two subsets (Arabic, Hebrew), a
    manuscript and its pages (Arabic, Arabic-Indic digits) and a category (Hebrew)."""
    shutil.copytree(SAMPLE, root)
    renames = [("authentication", "ref", "Pizan.csv", ARABIC_SUBSET + ".csv"),
               ("authentication", "ref", "Yaqut.csv", HEBREW_SUBSET + ".csv")]
    for suffix in ("_labels.csv", "_distances.csv"):
        renames += [("authentication", "res", "Pizan" + suffix, ARABIC_SUBSET + suffix),
                    ("authentication", "res", "Yaqut" + suffix, HEBREW_SUBSET + suffix)]
    for side in ("ref", "res"):
        renames += [("events", side, "La_Tomatina.txt", HEBREW_CATEGORY + ".txt"),
                    ("lines", side, "Latin2", ARABIC_BOOK)]
        renames += [("lines", side, "%s/latin2_%03d.png" % (ARABIC_BOOK, n), "%s/%s" % (
            ARABIC_BOOK, ARABIC_PAGE % chr(0x660 + n))) for n in range(1, 5)]
    for track, side, old, new in renames:
        os.rename(os.path.join(root, side, track, old), os.path.join(root, side, track, new))
    return root


BIDI_PROBE = r"""(function () {
  var RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe]/;
  var out = {bare: [], order: [], svgOrder: [], cut: [], isolated: 0};
  var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), node;
  function charRect(textNode, i) {
    var range = document.createRange(); range.setStart(textNode, i); range.setEnd(textNode, i + 1);
    return range.getBoundingClientRect();
  }
  while ((node = walker.nextNode())) {
    if (!RTL.test(node.data)) { continue; }
    var parent = node.parentElement;
    if (parent.closest("svg")) {  // SVG text: every right-to-left run between FSI and PDI
      if (RTL.test(node.data.replace(/\u2068[^\u2069]*\u2069/g, ""))) { out.bare.push(node.data); }
    } else if (!parent.closest("bdi,[dir]")) {
      out.bare.push(node.data);
    }
  }
  // Around each isolated name, the sentence keeps its order: what precedes it ends to its
  // left, what follows it ("/" of a path, " (2)", ": line_iu") starts to its right.
  document.querySelectorAll("bdi").forEach(function (bdi) {
    var boxes = bdi.getClientRects(), before = bdi.previousSibling, after = bdi.nextSibling;
    if (!boxes.length) { return; }
    var first = boxes[0], last = boxes[boxes.length - 1];
    out.isolated += 1;
    if (after && after.nodeType === 3 && after.data.trim()) {
      var r = charRect(after, after.data.search(/\S/));
      if (Math.abs(r.top - last.top) < 2 && r.left < last.right - 1) {
        out.order.push(bdi.textContent + " | " + after.data.slice(0, 20));
      }
    }
    if (before && before.nodeType === 3 && before.data.trim()) {
      var q = charRect(before, before.data.replace(/\s+$/, "").length - 1);
      if (Math.abs(q.top - first.top) < 2 && q.right > first.left + 1) {
        out.order.push(before.data.slice(-20) + " | " + bdi.textContent);
      }
    }
  });
  document.querySelectorAll("svg text").forEach(function (t) {
    var text = t.textContent, close = text.indexOf("\u2069");
    // A name's isolate ends left of what follows it in the same line of text.
    if (close > 0 && close + 1 < text.length && t.getNumberOfChars() === text.length && t.getComputedTextLength()) {
      var xs = [];
      for (var k = text.indexOf("\u2068") + 1; k < close; k++) {
        xs.push(t.getExtentOfChar(k).x + t.getExtentOfChar(k).width);
      }
      var next = close + 1 + text.slice(close + 1).search(/\S/);
      if (next > close && t.getExtentOfChar(next).x < Math.max.apply(null, xs) - 1) { out.svgOrder.push(text); }
    }
    // A chart's title cut with an ellipsis did not fit whole in its chart.
    var tip = t.querySelector("title"), svg = t.ownerSVGElement, own = svg.querySelector(":scope > title");
    if (tip && own && tip.textContent === own.textContent && /\u2026$/.test(text.replace(tip.textContent, ""))) {
      var whole = document.createElementNS("http://www.w3.org/2000/svg", "text");
      whole.setAttribute("font-size", t.getAttribute("font-size"));
      whole.setAttribute("font-weight", t.getAttribute("font-weight") || "normal");
      whole.textContent = tip.textContent;
      svg.appendChild(whole);
      var room = svg.viewBox.baseVal.width - 8;
      if (whole.getComputedTextLength() <= room && !t.getAttribute("transform")) { out.cut.push(tip.textContent); }
      svg.removeChild(whole);
    }
  });
  return JSON.stringify(out);
})()"""


def check_directions(browser, page_path, name):
    """Every right-to-left run on the page isolated, the order of the sentence around it
    kept, and no chart title cut that fits whole; at both widths."""
    for width in WIDTHS:
        browser.load(page_path, width)
        browser.width = width
        browser.screenshot(os.path.join(SHOTS, "%s-%d.png" % (name, width)))
        seen = json.loads(browser.call("Runtime.evaluate", {"expression": BIDI_PROBE, "returnByValue": True},
                                       session=browser.session)["result"]["value"])
        where = "%s at %d px" % (name, width)
        assert not seen["bare"], "%s: names written right to left, not isolated: %s" % (where, seen["bare"][:5])
        assert seen["isolated"] >= 2, where
        assert not seen["order"], "%s: a sentence reordered around a name: %s" % (where, seen["order"][:5])
        assert not seen["svgOrder"], "%s: a chart's text reordered around a name: %s" % (where, seen["svgOrder"][:5])
        assert not seen["cut"], "%s: titles cut although they fit: %s" % (where, seen["cut"][:5])


def test_names_written_right_to_left(browser, tmp_path):
    """Arabic and Hebrew names on the page of a scored phase and of a refusal naming a path
    ('كتاب الأغاني/ورقة ٢.png': folder, '/', page, left to right)."""
    if not os.path.isdir(SHOTS):
        os.makedirs(SHOTS)
    phase = right_to_left_phase(str(tmp_path / "input"))
    run = run_scorer(phase, tmp_path / "out")
    assert run.status == 0, run.stderr
    page = os.path.join(run.output, "detailed_results.html")
    with open(page, encoding="utf-8") as stream:
        text = stream.read()
    check_directions(browser, page, "right-to-left")
    assert "Confusion matrix of \u2068%s\u2069 (120 images)" % ARABIC_SUBSET in text
    os.remove(os.path.join(phase, "res", "lines", ARABIC_BOOK, ARABIC_PAGE % "\u0662"))
    run = run_scorer(phase, tmp_path / "refused")
    assert run.status == 1
    page = os.path.join(run.output, "detailed_results.html")
    with open(page, encoding="utf-8") as stream:
        assert "lines/<bdi>%s</bdi>/<bdi>" % ARABIC_BOOK in stream.read()
    check_directions(browser, page, "right-to-left-refused")
