"""`rprof report` in a real browser: headless Chromium (Debian package chromium) opens the report
from a temporary directory with the network cut off (every proxy a closed port, DevTools'
offline mode) and a Chrome DevTools Protocol client (cdp_client.py) reads the DOM: one series
per run drawn, a table row per run selected, the details a click on a point shows equal to
`rprof show --format json`, the tooltip on hover, sorting, filtering, the print layout, a PDF.
Any console error, uncaught exception or error log entry (a Content-Security-Policy violation, a
load that failed) fails the test, and so does any request for a URL that is not the report
itself. The screenshot is left in $RPROF_SCREENSHOT_DIR (the build directory's tests/), and its
path printed. Exit 77 with the reason when Chromium cannot start here.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp_client  # noqa: E402
import rprof_harness  # noqa: E402
from fixtures import RUN as MODEL, insert_profile  # noqa: E402
from rprof_harness import RprofTestCase, copy_database  # noqa: E402

# Twelve runs, as `rprof report --last 12` shows them: kernels of both precisions, a sweep, a
# copy (no FLOPs: in the table, not on the roofline), a before/after pair, and sim runs (bytes
# at every level) where valgrind can run.
MODEL_RUNS = [
    ["copy", "-p", "n=1000"],
    ["triad", "-p", "n=1000", "--tag", "before-after=before"],
    ["triad", "-p", "n=3000", "--tag", "before-after=after"],
    ["dot", "-p", "n=1000"],
    ["dot-fp32", "-p", "n=1000"],
    ["matmul-naive", "-p", "n=48"],
    ["matmul-ikj", "-p", "n=64"],
    ["matmul-ikj-fp32", "-p", "n=64"],
    ["gemv", "-p", "m=128", "-p", "k=128"],
    ["softmax", "-p", "rows=64", "-p", "cols=64"],
]
SIM_RUNS = [["triad", "-p", "n=20000"], ["matmul-ikj", "-p", "n=32"]]
SCREENSHOT_NAME = "report-screenshot.png"


class ReportInChromium(RprofTestCase):
    @classmethod
    def setUpClass(cls):
        cls.chromium = cdp_client.find_chromium()
        cls.class_tmp = tempfile.mkdtemp(prefix="rprof-report-")
        cls.db_path = os.path.join(cls.class_tmp, "runs.db")
        env = dict(os.environ, HOME=cls.class_tmp, XDG_DATA_HOME=cls.class_tmp, LC_ALL="C")
        env.pop("RPROF_DB", None)
        cls.sim_note = ""
        for args in MODEL_RUNS:
            subprocess.run([rprof_harness.RPROF, "--db", cls.db_path, "run"] + args + MODEL,
                           env=env, check=True, capture_output=True, timeout=120)
        for args in SIM_RUNS:
            r = subprocess.run([rprof_harness.RPROF, "--db", cls.db_path, "run"] + args +
                               ["--counters", "sim", "-q"], env=env, capture_output=True,
                               text=True, timeout=300)
            if r.returncode != 0:
                # Model runs stand in: the report is the same page, sim or not.
                cls.sim_note = r.stderr.strip()[-200:]
                subprocess.run([rprof_harness.RPROF, "--db", cls.db_path, "run"] + args + MODEL,
                               env=env, check=True, capture_output=True, timeout=120)
        insert_profile(cls.db_path)
        cls.env = env
        cls.browser = None
        try:
            cls.browser = cdp_client.Browser(cls.chromium, os.path.join(cls.class_tmp, "chromium"))
        except (cdp_client.CdpError, OSError) as e:
            cls.start_error = str(e)

    @classmethod
    def tearDownClass(cls):
        if cls.browser:
            cls.browser.quit()
        shutil.rmtree(cls.class_tmp, ignore_errors=True)

    def setUp(self):
        if self.browser is None:
            self.fail("Chromium started for the probe but not for the tests: " +
                      self.start_error)
        super().setUp()
        # Each test on its own copy: one adds runs.
        copy_database(self.db_path, self.db)
        self.b = self.browser
        self.b.events.clear()

    def show(self, run_id):
        return json.loads(self.rprof_ok("show", str(run_id), "--format", "json").stdout)

    def open_report(self, *args):
        out = os.path.join(self.tmp, "report.html")
        r = self.rprof("report", *args, "-o", out)
        self.assertEqual(r.returncode, 0, r)
        b = self.b
        for domain in ["Runtime", "Log", "Page", "Network"]:
            b.call(domain + ".enable")
        b.call("Network.emulateNetworkConditions", offline=True, latency=0,
               downloadThroughput=0, uploadThroughput=0)
        b.call("Emulation.setDeviceMetricsOverride", width=1280, height=1600,
               deviceScaleFactor=1, mobile=False)
        b.events.clear()
        url = "file://" + out
        b.call("Page.navigate", url=url)
        b.wait_event("Page.loadEventFired")
        self.assertEqual(b.evaluate("document.readyState"), "complete")
        return url

    def assertNoErrors(self, url):
        self.assertEqual(self.b.errors(), [])
        self.assertEqual([u for u in self.b.requests() if u != url], [])

    def click(self, selector):
        """A real mouse click at the middle of the element (scrolled into view), or, when
        another element lies on top there, a click event on the element itself."""
        b = self.b
        spot = b.evaluate(f"""(() => {{
            const e = document.querySelector({json.dumps(selector)});
            e.scrollIntoView({{block: 'center'}});
            const r = e.getBoundingClientRect();
            const x = r.left + r.width / 2, y = r.top + r.height / 2;
            const top = document.elementFromPoint(x, y);
            return {{x, y, own: top === e || e.contains(top)}};
        }})()""")
        if spot["own"]:
            b.call("Input.dispatchMouseEvent", type="mouseMoved", x=spot["x"], y=spot["y"])
            # What hovering shows, read before the click: the details the click opens may move
            # the page under a still mouse (on a busy machine the tooltip was hidden again).
            spot["tooltip"] = b.evaluate("[document.getElementById('tooltip')?.hidden, "
                                         "document.getElementById('tooltip')?.textContent]")
            for kind in ["mousePressed", "mouseReleased"]:
                b.call("Input.dispatchMouseEvent", type=kind, x=spot["x"], y=spot["y"],
                       button="left", clickCount=1)
        else:
            b.evaluate(f"document.querySelector({json.dumps(selector)}).dispatchEvent("
                       "new MouseEvent('click', {bubbles: true}))")
        return spot

    def test_last_12(self):
        url = self.open_report("--last", "12")
        b = self.b
        shows = {s["run_id"]: s for s in (self.show(i) for i in range(1, 13))}
        drawn = {i for i, s in shows.items()
                 if s["placement"]["placed"] and s["placement"].get("levels")}
        self.assertEqual(len(drawn), 11, "every run but the copy has FLOPs")
        # A series per run drawn, a table row per run selected.
        series = b.evaluate("Array.from(document.querySelectorAll('#plot .series'))"
                            ".filter(g => g.dataset.region === '').map(g => Number(g.dataset.run))")
        self.assertEqual(sorted(series), sorted(drawn))
        rows = b.evaluate("Array.from(document.querySelectorAll('#run-table tbody tr'))"
                          ".map(r => Number(r.dataset.run))")
        self.assertEqual(sorted(rows), list(range(1, 13)))
        # Each series' binding and % of roof are show's.
        attrs = b.evaluate("Array.from(document.querySelectorAll('#plot .series')).map(g => "
                           "[Number(g.dataset.run), g.dataset.binding, g.dataset.percentOfRoof])")
        for run_id, binding, percent in attrs:
            p = shows[run_id]["placement"]
            self.assertEqual(binding, p["binding"])
            self.assertEqual(float(percent), p["percent_of_roof"])

        # Nothing drawn to annotate a point (a label, a before → after arrow or a leader line,
        # both ending at a point's centre, or a line joining another run's levels) takes the mouse from it: the centre of every point is
        # a point's. A leader there made the hover below flicker (mouseenter, then mouseleave to
        # the line) when a label landed far from its point.
        covered = b.evaluate("""Array.from(document.querySelectorAll('#plot .point')).map(p => {
            p.scrollIntoView({block: 'center'});
            const r = p.getBoundingClientRect();
            const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return top && top.closest('.point') ? null : top ? top.outerHTML.slice(0, 120) : 'none';
        }).filter(x => x)""")
        self.assertEqual(covered, [])
        # Where the points happen not to cross, the same holds by construction: a join crossing
        # another run's point (CI's sim run, its levels at one height) took the mouse from it.
        joins = b.evaluate("Array.from(document.querySelectorAll('#plot .join'))"
                           ".map(j => getComputedStyle(j).pointerEvents)")
        self.assertTrue(joins, "a sim run or the profile draws its levels joined")
        self.assertEqual(set(joins), {"none"})

        # Hover a point: the tooltip shows its summary and its run's verdict.
        target = max(drawn)  # a sim run when sim can run: a point per level
        point = f'#plot .series[data-run="{target}"] .point[data-binding="true"]'
        spot = self.click(point)
        if spot["own"]:
            tip = spot["tooltip"]
            self.assertFalse(tip[0], "the tooltip shows on hover")
            self.assertIn(shows[target]["placement"]["verdict"], tip[1])
        # The click shows the run's details: show's values.
        detail = b.evaluate("""(() => {
            const d = document.getElementById('detail');
            const text = s => { const e = d.querySelector(s); return e ? e.textContent : null; };
            const metrics = Array.from(d.querySelectorAll('table.metrics tr')).slice(1)
                .map(r => Array.from(r.cells).map(c => c.textContent));
            return {run: d.dataset.run, title: text('.run-title'), verdict: text('.verdict'),
                    binding: text('td.binding'), percent: text('td.percent-of-roof'),
                    achieved: text('td.achieved'), source: text('td.achieved-source'),
                    metrics: metrics,
                    trust: Array.from(d.querySelectorAll('ul.trust li')).map(l => l.textContent)};
        })()""")
        show = shows[target]
        p = show["placement"]
        self.assertEqual(detail["run"], str(target))
        self.assertEqual(detail["title"], f"#{target} {show['target']}")
        self.assertEqual(detail["verdict"], p["verdict"])
        self.assertEqual(detail["binding"], p["binding"])
        self.assertEqual(float(detail["percent"]), p["percent_of_roof"])
        self.assertEqual(float(detail["achieved"]), p["achieved_gflops"])
        self.assertEqual(detail["source"], p["achieved_source"])
        want = sorted((name, source) for name, by_source in show["metrics"].items()
                      for source in by_source)
        self.assertEqual(sorted((m[0], m[1]) for m in detail["metrics"]), want)
        gflops = [m for m in detail["metrics"] if m[0] == "gflops"
                  and m[1] == p["achieved_source"]]
        self.assertEqual(len(gflops), 1)
        self.assertEqual(float(gflops[0][2]),
                         show["metrics"]["gflops"][p["achieved_source"]]["value"])
        self.assertEqual(len(detail["trust"]), max(1, len(show["trust"])))
        # A click on a table row selects the same run.
        self.click('#run-table tbody tr[data-run="1"]')
        self.assertEqual(b.evaluate("document.getElementById('detail').dataset.run"), "1")
        self.assertEqual(b.evaluate("document.querySelector('#detail .verdict').textContent"),
                         "not placed: " + shows[1]["placement"].get("reason", "")
                         if not shows[1]["placement"]["placed"] else shows[1]["placement"]["verdict"])

        # The before/after pair: an arrow from run 2 to run 3 with the speed-up in wall time.
        arrows = b.evaluate("Array.from(document.querySelectorAll('#plot line.arrow'))"
                            ".map(a => [a.dataset.from, a.dataset.to])")
        self.assertEqual(arrows, [["2", "3"]])
        speedup = shows[2]["metrics"]["time_s"]["clock"]["value"] / \
            shows[3]["metrics"]["time_s"]["clock"]["value"]
        label = b.evaluate("document.querySelector('#plot .arrow-label')?.textContent ?? "
                           "document.querySelector('#arrows li').textContent")
        self.assertIn("\u00d7" + f"{speedup:.3g}", label)

        # Sorting by % of roof, then filtering by a word.
        self.click('#run-table th[data-key="percent"]')
        order = b.evaluate("Array.from(document.querySelectorAll('#run-table tbody tr'))"
                           ".map(r => r.cells[6].dataset.sort)")
        numbers = [float(v) if v else float("-inf") for v in order]
        self.assertEqual(numbers, sorted(numbers))
        b.evaluate("(() => { const f = document.getElementById('filter'); f.value = 'matmul';"
                   " f.dispatchEvent(new Event('input')); })()")
        visible = b.evaluate("Array.from(document.querySelectorAll('#run-table tbody tr'))"
                             ".filter(r => !r.hidden).map(r => r.cells[1].textContent)")
        self.assertEqual(len(visible), sum(1 for s in shows.values() if "matmul" in s["target"]))
        self.assertTrue(all("matmul" in t for t in visible), visible)
        b.evaluate("(() => { const f = document.getElementById('filter'); f.value = '';"
                   " f.dispatchEvent(new Event('input')); })()")

        # The screenshot, for people to look at; then the print layout and a PDF.
        self.click(point)
        shot = b.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        import base64
        data = base64.b64decode(shot["data"])
        self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n")
        out_dir = os.environ.get("RPROF_SCREENSHOT_DIR", self.tmp)
        os.makedirs(out_dir, exist_ok=True)
        path = os.path.join(out_dir, SCREENSHOT_NAME)
        with open(path, "wb") as f:
            f.write(data)
        print(f"\nscreenshot: {path}", file=sys.stderr)
        b.call("Emulation.setEmulatedMedia", media="print")
        self.assertEqual(b.evaluate("getComputedStyle(document.getElementById('filter')).display"),
                         "none")
        b.call("Emulation.setEmulatedMedia", media="")
        pdf = base64.b64decode(b.call("Page.printToPDF", printBackground=True)["data"])
        self.assertEqual(pdf[:5], b"%PDF-")
        self.assertNoErrors(url)

    def test_first_screen_shows_the_roofline(self):
        # 1400 x 900, a laptop's window: the roofline's frame (the plot itself) whole on the
        # first screen, with no scrolling, and the runs' table begun; the screenshot kept for
        # people to look at.
        url = self.open_report("--last", "12")
        b = self.b
        b.call("Emulation.setDeviceMetricsOverride", width=1400, height=900,
               deviceScaleFactor=1, mobile=False)
        b.evaluate("window.scrollTo(0, 0)")
        rect = b.evaluate("(() => { const r = document.querySelector('#plot svg #frame')"
                          ".getBoundingClientRect(); return [r.top, r.bottom, r.left, r.right];"
                          " })()")
        top, bottom, left, right = rect
        self.assertGreaterEqual(top, 0)
        self.assertLessEqual(bottom, 900, "the roofline's frame ends below the first screen")
        self.assertLessEqual(right, 1400)
        # And the runs' table starts there too: its first run's row begins on the first screen.
        row_top = b.evaluate("document.querySelector('#run-table tbody tr')"
                             ".getBoundingClientRect().top")
        self.assertLess(row_top, 900, "the runs' table starts below the first screen")
        self.assertTrue(b.evaluate("!document.getElementById('ceilings-details').open"))
        shot = b.call("Page.captureScreenshot", format="png")
        import base64
        data = base64.b64decode(shot["data"])
        self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n")
        out_dir = os.environ.get("RPROF_SCREENSHOT_DIR", self.tmp)
        os.makedirs(out_dir, exist_ok=True)
        path = os.path.join(out_dir, "report-first-screen.png")
        with open(path, "wb") as f:
            f.write(data)
        print(f"\nfirst screen: {path}", file=sys.stderr)
        self.assertNoErrors(url)

    def test_compare_and_a_hostile_run_name(self):
        # A tag whose value would end the data's <script> element, were "<" not escaped.
        hostile = "</script><script>console.error('escaped the JSON')</script>"
        self.rprof_ok("run", "triad", "-p", "n=1500", "--tag", "note=" + hostile, *MODEL)
        url = self.open_report("--last", "3", "--compare", "4", "13")
        b = self.b
        self.assertEqual(b.evaluate("document.querySelectorAll('script').length"), 2)
        tags = b.evaluate("JSON.parse(document.getElementById('rprof-data').textContent)"
                          ".runs.find(r => r.id === 13).show.tags.note")
        self.assertEqual(tags, hostile)
        arrows = b.evaluate("Array.from(document.querySelectorAll('#plot line.arrow'))"
                            ".map(a => [a.dataset.from, a.dataset.to])")
        self.assertEqual(arrows, [["4", "13"]])
        rows = b.evaluate("document.querySelectorAll('#run-table tbody tr').length")
        self.assertEqual(rows, 4, "the last 3 and run 4, which --compare adds")
        self.assertNoErrors(url)


def main():
    if len(sys.argv) < 2:
        sys.exit(f"usage: {sys.argv[0]} PATH/TO/rprof")
    rprof_harness.RPROF = os.path.abspath(sys.argv.pop(1))
    chromium = cdp_client.find_chromium()
    if not chromium:
        print("SKIP: no Chromium on PATH (Debian package chromium; scripts/bootstrap installs "
              "it), or set RPROF_CHROMIUM")
        sys.exit(77)
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(ReportInChromium)
    # Chromium is started once, in setUpClass: when it cannot start here, skip with its words.
    probe_dir = tempfile.mkdtemp(prefix="rprof-chromium-probe-")
    try:
        cdp_client.Browser(chromium, probe_dir).quit()
    except (cdp_client.CdpError, OSError) as e:
        print(f"SKIP: Chromium ({chromium}) cannot start here: {e}")
        sys.exit(77)
    finally:
        shutil.rmtree(probe_dir, ignore_errors=True)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
