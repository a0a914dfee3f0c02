"""`rprof report` without a browser: the file is one self-contained page (a Content-Security-
Policy that forbids loads, no URL to fetch, every script inline, the data as JSON that parses
and that a run's name cannot break out of), its roofline agrees with `rprof show`, and the
command's mistakes are usage errors that say what to do. The page in a real browser:
report_browser_test.py (suite browser).
"""

import html.parser
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rprof_harness  # noqa: E402
import svg_boxes  # noqa: E402
from fixtures import RUN, insert_profile  # noqa: E402
from rprof_harness import RprofTestCase, copy_database  # noqa: E402


class Elements(html.parser.HTMLParser):
    """Every start tag with its attributes, and the text of each <script> and <svg>."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.tags, self.scripts, self.svg = [], [], None
        self._script = None
        self._svg_start = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._script = [dict(attrs), ""]

    def handle_data(self, data):
        if self._script is not None:
            self._script[1] += data

    def handle_endtag(self, tag):
        if tag == "script" and self._script is not None:
            self.scripts.append(tuple(self._script))
            self._script = None


class Report(RprofTestCase):
    def setUp(self):
        super().setUp()
        for args in [["copy", "-p", "n=1000"], ["triad", "-p", "n=1000", "--tag",
                                                "before-after=before:t"],
                     ["triad", "-p", "n=4000", "--tag", "before-after=after:t"],
                     ["dot", "-p", "n=1000", "--tag", "note=</script><b>x</b>"]]:
            self.rprof_ok("run", *args, *RUN)
        self.runs_only = self.path("runs-only.db")
        copy_database(self.db, self.runs_only)
        insert_profile(self.db)

    def report(self, *args):
        out = self.path("r.html")
        r = self.rprof("report", *args, "-o", out)
        self.assertEqual(r.returncode, 0, r)
        self.assertEqual(r.stdout, f"wrote {out}\n")
        with open(out, encoding="utf-8") as f:
            return f.read(), r

    def test_self_contained(self):
        text, r = self.report("--last", "4")
        self.assertIn("rprof: note: report: left out of the roofline #1 copy n=1000", r.stderr)
        p = Elements()
        p.feed(text)
        csp = [a["content"] for t, a in p.tags
               if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
        self.assertEqual(len(csp), 1)
        self.assertIn("default-src 'none'", csp[0])
        self.assertIn("connect-src 'none'", csp[0])
        for tag, attrs in p.tags:
            for key in ("src", "href", "xlink:href", "action", "data"):
                if key in attrs:
                    self.assertTrue(attrs[key].startswith("#") or attrs[key].startswith("url(#"),
                                    f"<{tag} {key}={attrs[key]!r}> loads something")
        self.assertFalse(re.search(r"https?://", text), "no URL anywhere in the page")
        self.assertNotIn("@import", text)
        # Two scripts: the data (JSON) and the page's own code, both inline.
        self.assertEqual([a.get("type") for a, _ in p.scripts], ["application/json", None])
        data = json.loads(p.scripts[0][1])
        self.assertEqual(sorted(r["id"] for r in data["runs"]), [1, 2, 3, 4])
        # The tag that holds "</script>" is in the data, escaped, and did not end the element.
        dot = next(r for r in data["runs"] if r["id"] == 4)
        self.assertEqual(dot["show"]["tags"]["note"], "</script><b>x</b>")
        self.assertNotIn("</script><b>", text)

    def test_roofline_agrees_with_show(self):
        text, _ = self.report("--last", "4")
        svg = text[text.index("<svg"):text.index("</svg>") + len("</svg>")]
        root = svg_boxes.parse(svg)
        drawn = svg_boxes.series(root)
        self.assertEqual(sorted(int(s["run"]) for s in drawn), [2, 3, 4])
        for s in drawn:
            show = json.loads(self.rprof_ok("show", s["run"], "--format", "json").stdout)
            self.assertEqual(s["binding"], show["placement"]["binding"])
            self.assertEqual(float(s["percent-of-roof"]), show["placement"]["percent_of_roof"])
        self.assertEqual(svg_boxes.overlapping_texts(root), [])
        self.assertEqual(svg_boxes.labels_outside_frame(root), [])
        # The before/after pair by its tags, labelled with the speed-up in wall time.
        arrows = [(e.get("data-from"), e.get("data-to")) for e in root.iter()
                  if svg_boxes.local(e.tag) == "line" and e.get("class") == "arrow"]
        self.assertEqual(arrows, [("2", "3")])
        t2 = self.scalar("select value from metrics where run_id = 2 and name = 'time_s' and "
                         "source = 'clock' and region = ''")
        t3 = self.scalar("select value from metrics where run_id = 3 and name = 'time_s' and "
                         "source = 'clock' and region = ''")
        self.assertIn(f"#2 \u2192 #3: \u00d7{t2 / t3:.3g} in wall time", text)

    def test_machine_section(self):
        text, _ = self.report("2")
        self.assertIn('<section id="machine">', text)
        for ceiling in ["fp64_avx2_fma", "dram_triad", "l1_load"]:
            self.assertIn(f"<td>{ceiling}</td>", text)
        self.assertIn("3.8 GHz one core scalar", text)

    def test_the_runs_come_first(self):
        # The roofline and the runs' table before the machine; the ceilings collapsed; the
        # profile's warnings one line under the title, with a link to them in full.
        text, _ = self.report("--last", "3")
        svg, runs = text.index("<svg"), text.index('<table id="run-table"')
        machine, ceilings = text.index('<section id="machine">'), text.index('<table id="ceilings"')
        self.assertLess(svg, runs)
        self.assertLess(runs, machine)
        self.assertLess(machine, ceilings)
        self.assertLess(text.index('<details id="ceilings-details">'), ceilings)
        self.assertNotIn('id="warnings-summary"', text)
        # The same profile, marked noisy.
        copy_database(self.runs_only, self.db)
        insert_profile(self.db, noisy_reasons="load average 1.9 before measuring")
        text, _ = self.report("--last", "3")
        summary = re.search(r'<p id="warnings-summary"[^>]*>(.*?)</p>', text)
        self.assertIsNotNone(summary)
        self.assertIn('href="#machine-warnings"', summary.group(1))
        self.assertLess(summary.start(), text.index("<svg"))
        self.assertIn('<div id="machine-warnings">', text)
        self.assertIn("load average 1.9 before measuring", text[text.index('id="machine-warnings"'):])

    def test_usage_errors(self):
        self.assertError(self.rprof("report", "--last", "2"), 2, "-o FILE.html")
        self.assertError(self.rprof("report", "-o", self.path("r.txt")), 2,
                         "use a .html file name")
        self.assertError(self.rprof("report", "--compare", "2", "-o", self.path("r.html")), 2,
                         "--compare takes two run ids")
        self.assertError(self.rprof("report", "--compare", "2", "99", "-o", self.path("r.html")),
                         2, "run 99")
        self.assertError(self.rprof("report", "--kernel", "nothing", "-o", self.path("r.html")),
                         2, "no stored run matches")
        self.assertFalse(os.path.exists(self.path("r.html")))
        copy_database(self.runs_only, self.db)  # the runs without a profile
        self.assertError(self.rprof("report", "--last", "2", "-o", self.path("r.html")), 3,
                         "no machine profile")


if __name__ == "__main__":
    rprof_harness.main()
