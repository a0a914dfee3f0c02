"""`rprof plot` end to end: runs on the roofline of their machine, the SVG and the terminal
drawn by rprof, PNG and PDF by the real gnuplot.

The machine profile is fixtures.insert_profile's (known ceilings, so every label is known and the
test is deterministic and fast; `machine_test.py` covers a measured profile). Its machine row is the
one `rprof run` created, so the plot finds it by the runs' fingerprint. The SVG must parse as XML,
hold every ceiling and run label, no two of its texts may overlap and no label may leave the
frame (boxes computed as rprof's placer computes them: svg_boxes.py); each run's binding level
and % of roof in the SVG must be those `rprof show --format json` gives. The terminal plot fits
80 columns with its labels inside the frame, each whole with a blank on either side (or named
under the frame). A point far beyond the others (a program declaring one FLOP) does not stretch
the axes: it is an edge marker with its value, in the SVG and the terminal. PNG and PDF files start with their magic bytes; the
script `--gnuplot` writes runs in gnuplot as it is. Without gnuplot on PATH: exit 3 naming the
Debian package (the SVG needs no gnuplot).
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import json
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rprof_harness  # noqa: E402
import svg_boxes  # noqa: E402
from fixtures import RUN, import_run_json, insert_profile  # noqa: E402
from rprof_harness import RprofTestCase, copy_database  # noqa: E402

# Every 1-thread roof drawn: compute per precision and ISA (its best pattern), bandwidth per
# level (its best pattern other than the non-temporal copy).
CEILING_LABELS = ["fp64 scalar fma 7.6 GFLOP/s", "fp64 avx2 fma 55.5 GFLOP/s",
                  "fp32 avx2 fma 111 GFLOP/s", "L1 436 GB/s", "L2 157 GB/s", "L3 90 GB/s",
                  "DRAM 25 GB/s"]
NOT_DRAWN = ["fp64 scalar add", "fp64 avx2 add", "222 GFLOP/s", "872 GB/s", "DRAM 50",
             "DRAM 13.4", "DRAM 27.7"]
# Runs 2-4 have FLOPs and bytes (model); run 1, a copy, has no FLOPs and is left out.
RUN_LABELS = ["#2 triad", "#3 dot", "#4 matmul-ikj"]
# The gnuplot script (PNG, PDF, --gnuplot) labels a point per source.
SCRIPT_LABELS = ["#2 triad (model)", "#3 dot (model)", "#4 matmul-ikj (model)"]


class PlotTestCase(RprofTestCase):
    """Four runs and a profile of known ceilings (fixtures.CEILINGS), seeded once per class; each
    test gets a copy. The runs without the profile are kept too (no_profile_db)."""

    @classmethod
    def setUpClass(cls):
        cls.class_tmp = tempfile.mkdtemp(prefix="rprof-plot-")
        cls.seeded_db = os.path.join(cls.class_tmp, "seeded.db")
        env = dict(os.environ, HOME=cls.class_tmp, XDG_DATA_HOME=cls.class_tmp, LC_ALL="C")
        env.pop("RPROF_DB", None)
        for args in [["copy", "-p", "n=1000", "--tag", "lab=00"],
                     ["triad", "-p", "n=1000", "--tag", "lab=01"],
                     ["dot", "-p", "n=1000", "--tag", "lab=01"],
                     ["matmul-ikj", "-p", "n=64", "--tag", "lab=02"]]:
            subprocess.run([rprof_harness.RPROF, "--db", cls.seeded_db, "run"] + args + RUN,
                           env=env, check=True, capture_output=True, timeout=120)
        cls.no_profile_db = os.path.join(cls.class_tmp, "no-profile.db")
        copy_database(cls.seeded_db, cls.no_profile_db)
        cls.profile_id = insert_profile(cls.seeded_db)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.class_tmp, ignore_errors=True)

    def setUp(self):
        super().setUp()
        copy_database(self.seeded_db, self.db)

    def script(self, *args):
        """The gnuplot script `rprof plot ARGS --gnuplot FILE` writes."""
        path = self.path("roofline.gp")
        r = self.rprof("plot", *args, "--gnuplot", path)
        self.assertEqual(r.returncode, 0, r)
        self.assertEqual(r.stdout, "", r)
        with open(path) as f:
            return f.read()

    def assertLabels(self, text, ceilings, runs):
        for label in ceilings + runs:
            self.assertIn(label, text)


class Rendering(PlotTestCase):
    def svg(self, *args):
        out = self.path("x.svg")
        r = self.rprof("plot", *args, "-o", out)
        self.assertEqual(r.returncode, 0, r)
        self.assertEqual(r.stdout, f"wrote {out}\n")
        with open(out) as f:
            return svg_boxes.parse(f.read()), r

    def test_svg_parses_and_holds_every_label(self):
        root, r = self.svg("--last", "3", "--all-roofs")
        self.assertEqual(r.stderr, "", r)
        texts = [t for _, t, _ in svg_boxes.texts(root)]
        for label in CEILING_LABELS + RUN_LABELS:
            self.assertIn(label, texts, f"{label!r} is not a text of the SVG: {texts}")
        joined = "\n".join(texts)
        for part in NOT_DRAWN:
            self.assertNotIn(part, joined)
        self.assertNotIn("#1 copy", joined)
        self.assertTrue(any(t.startswith("roofline of ") and t.endswith(
            f"1 thread, profile {self.profile_id}") for t in texts), texts)
        self.assertIn("performance (GFLOP/s)", texts)
        self.assertTrue(any(t.startswith("arithmetic intensity (FLOP/byte)") for t in texts))
        # A legend for levels, precisions and sources.
        for entry in ["L1", "L2", "L3", "DRAM", "fp64", "fp32", "measured (sim, pmu)",
                      "model (compulsory bytes)", "the binding level"]:
            self.assertIn(entry, texts)

    def test_only_the_roofs_that_matter_by_default(self):
        # Three fp64 runs of the model (no ISA measured): the fp64 best roof and every memory
        # level in compulsory bytes; fp32's and scalar code's roofs only with --all-roofs.
        root, _ = self.svg("--last", "3")
        drawn = sorted(c for c, _ in svg_boxes.roof_lines(root))
        self.assertEqual(drawn, sorted(["fp64_avx2_fma", "l1_load", "l2_load", "l3_load",
                                        "dram_triad"]))
        texts = [t for _, t, _ in svg_boxes.texts(root)]
        self.assertIn("2 other roofs: --all-roofs", texts)
        for hidden in ["fp32 avx2 fma 111 GFLOP/s", "fp64 scalar fma 7.6 GFLOP/s"]:
            self.assertNotIn(hidden, texts)
        root, _ = self.svg("--last", "3", "--all-roofs")
        self.assertEqual(len(svg_boxes.roof_lines(root)), 7)

    def test_no_text_overlaps_and_labels_stay_in_the_frame(self):
        root, _ = self.svg("--last", "3")
        self.assertEqual(svg_boxes.overlapping_texts(root), [])
        self.assertEqual(svg_boxes.labels_outside_frame(root), [])
        self.assertEqual(svg_boxes.labels_on_roof_lines(root), [])
        root, _ = self.svg("--last", "3", "--all-roofs")
        self.assertEqual(svg_boxes.overlapping_texts(root), [])
        self.assertEqual(svg_boxes.labels_on_roof_lines(root), [])
        labels = [t for cls, t, _ in svg_boxes.texts(root) if cls == "run-label"]
        self.assertEqual(sorted(labels), sorted(RUN_LABELS))

    def test_model_points_hollow_binding_marked(self):
        root, _ = self.svg("--last", "3")
        drawn = svg_boxes.series(root)
        self.assertEqual(sorted(int(s["run"]) for s in drawn), [2, 3, 4])
        for s in drawn:
            # Model runs: one point, DRAM (the model's bytes), the binding one.
            self.assertEqual([(p["level"], p["source"], p["binding"]) for p in s["points"]],
                             [("dram", "model", "true")], s)
        for e in root.iter():
            if svg_boxes.local(e.tag) == "path" and e.get("class") == "point":
                self.assertEqual(e.get("fill"), "#ffffff", "a model point is hollow")

    def test_binding_and_percent_agree_with_show(self):
        root, _ = self.svg("--last", "3")
        for s in svg_boxes.series(root):
            show = json.loads(self.rprof_ok("show", s["run"], "--format", "json").stdout)
            p = show["placement"]
            self.assertEqual(s["binding"], p["binding"], s)
            self.assertEqual(s["verdict"], p["verdict"], s)
            self.assertEqual(float(s["percent-of-roof"]), p["percent_of_roof"], s)

    def test_left_out_runs_are_listed_under_the_plot_and_on_stderr(self):
        # The seeded runs again, through `rprof import`, with #3 as a run that crashed (a
        # kernel of rprof's own cannot crash).
        for path in [self.db + suffix for suffix in ("", "-wal", "-shm")]:
            if os.path.exists(path):
                os.remove(path)
        for run in range(1, 5):
            crashed = {"status": "crashed", "signal": 11} if run == 3 else {}
            self.assertEqual(import_run_json(self, run, self.db, source=self.no_profile_db,
                                             **crashed), run)
        insert_profile(self.db)
        root, r = self.svg("--last", "4")
        self.assertIn("rprof: note: plot: left out #1 copy n=1000: no floating-point work",
                      r.stderr)
        self.assertIn("rprof: note: plot: left out #3 dot n=1000: crashed (signal 11)", r.stderr)
        # Under the plot, one line with the count (issue 38: a line each took three quarters
        # of a PNG's height); the notes above say why.
        left = [t for cls, t, _ in svg_boxes.texts(root) if "left-out" in cls.split()]
        self.assertEqual(len(left), 1, left)
        self.assertTrue(left[0].startswith("left out (2; the notes say why): "), left)
        self.assertIn("#1 copy n=1000", left[0])
        self.assertIn("#3 dot n=1000", left[0])
        self.assertEqual(sorted(int(s["run"]) for s in svg_boxes.series(root)), [2, 4])

    def test_other_threads_roofs_are_warned(self):
        root, r = self.svg("--last", "3", "--threads", "2")
        self.assertIn("rprof: warning: plot: #2 triad n=1000: placed against its own 1-thread "
                      "roofs", r.stderr)
        self.assertIn("--threads 1 draws its own", r.stderr)
        texts = [t for _, t, _ in svg_boxes.texts(root)]
        self.assertTrue(any(t.startswith("warning: #2 triad n=1000") for t in texts), texts)

    def test_sweeps_are_labelled_by_their_parameter(self):
        for n in ["2000", "4000"]:
            self.rprof_ok("run", "triad", "-p", "n=" + n, *RUN)
        root, _ = self.svg("--kernel", "triad")
        labels = sorted(t for cls, t, _ in svg_boxes.texts(root) if cls == "run-label")
        self.assertEqual(labels, ["triad n=1000", "triad n=2000", "triad n=4000"])
        texts = [t for _, t, _ in svg_boxes.texts(root)]
        self.assertTrue(any(t.startswith("triad n=2000 = #") for t in texts), texts)

    def test_many_runs_no_overlap(self):
        # A dense picture: a sweep of one kernel and several others, close together.
        for n in ["1500", "2000", "3000", "5000", "8000", "12000"]:
            self.rprof_ok("run", "triad", "-p", "n=" + n, *RUN)
        for k in ["dot", "copy"]:
            self.rprof_ok("run", k, "-p", "n=3000", *RUN)
        root, _ = self.svg("--last", "20")
        self.assertEqual(svg_boxes.overlapping_texts(root), [])
        self.assertEqual(svg_boxes.labels_outside_frame(root), [])
        self.assertEqual(svg_boxes.labels_on_roof_lines(root), [])
        self.assertGreaterEqual(len(svg_boxes.series(root)), 10)
        # Labels pushed away from their points are joined to them by a leader line.
        self.assertEqual(svg_boxes.leaders_off_their_label(root), [])

    def test_two_programs_under_one_long_folder(self):
        # Two programs of one project, deep in its folders, and a run with a long verdict: each
        # label names its program (not the folders they share); every line under the plot is
        # whole, wrapped rather than cut.
        folder = self.path(os.path.join("a-rather-long-project-folder", "build-release-x86_64",
                                        "src", "kernels"))
        os.makedirs(folder)
        programs = []
        for name in ["solver_alpha", "stencil_beta"]:
            programs.append(os.path.join(folder, name))
            shutil.copy("/bin/true", programs[-1])
            # A program's report (here its id) goes to stderr, as perf stat's does.
            r = self.rprof("run", "-q", "--flops", "1e6", "--bytes", "1e6", programs[-1])
            self.assertEqual(r.returncode, 0, r)
        root, _ = self.svg("--last", "2")
        labels = sorted(t for cls, t, _ in svg_boxes.texts(root) if cls == "run-label")
        self.assertEqual(len(labels), 2, labels)
        self.assertIn("solver_alpha", labels[0])
        self.assertIn("stencil_beta", labels[1])
        for label in labels:
            self.assertNotIn("a-rather", label)
            self.assertNotIn("\u2026", label)
        below = [t for cls, t, _ in svg_boxes.texts(root) if "below" in cls.split()]
        self.assertTrue(below)
        for line in below:
            self.assertFalse(line.endswith("\u2026"), line)
        # Each program's verdict is there in full, over one or more lines.
        joined = " ".join(t.strip() for t in below)
        for program in programs:
            show = json.loads(self.rprof_ok("show", "--format", "json",
                                            str(self.last_run_of(program))).stdout)
            for word in show["placement"]["verdict"].split():
                self.assertIn(word, joined)
        self.assertEqual(svg_boxes.overlapping_texts(root), [])
        self.assertEqual(svg_boxes.labels_on_roof_lines(root), [])
        self.assertEqual(svg_boxes.labels_outside_frame(root), [])

    def last_run_of(self, program):
        runs = json.loads(self.rprof_ok("history", "--format", "json", "--kernel",
                                        program).stdout)
        return runs[0]["run_id"]

    def test_png_and_pdf(self):
        for name, magic in [("x.png", b"\x89PNG\r\n\x1a\n"), ("x.pdf", b"%PDF-")]:
            with self.subTest(name=name):
                out = self.path(name)
                r = self.rprof_ok("plot", "--last", "3", "-o", out)
                self.assertEqual(r.stdout, f"wrote {out}\n")
                with open(out, "rb") as f:
                    data = f.read()
                self.assertGreater(len(data), 1000)
                self.assertEqual(data[:len(magic)], magic)

    def terminal(self, *args, env=None):
        r = self.rprof("plot", "--last", "3", "--terminal", *args, env=env)
        self.assertEqual(r.returncode, 0, r)
        return r.stdout.splitlines()

    def assertReadable(self, lines, width):
        for line in lines:
            self.assertLessEqual(len(line), width, line)
        top = next(i for i, line in enumerate(lines) if "+----" in line)
        bottom = next(i for i in range(top + 1, len(lines)) if "+----" in lines[i])
        left = lines[top].index("+")
        right = lines[top].rindex("+")
        for line in lines[top + 1:bottom]:
            # The frame is whole: no label or point overwrote it.
            self.assertIn(line[left], "|+", line)
            self.assertEqual(line[right:right + 1], "|", line)
        inner = "\n".join(line[left + 1:right] for line in lines[top + 1:bottom])
        for label in RUN_LABELS:
            self.assertIn(label, inner)  # inside the frame
        self.assertIn("d", inner)  # model DRAM points
        self.assertIn("*", inner)  # bandwidth roofs
        self.assertIn("=", inner)  # compute roofs

    def test_terminal_fits_80_columns(self):
        lines = self.terminal("--size", "80x24")
        self.assertEqual(sum(1 for line in lines if line.rstrip().endswith("|")
                             or line.rstrip().endswith("+")), 24, "\n".join(lines))
        self.assertReadable(lines, 80)
        text = "\n".join(lines)
        self.assertIn(f"1 thread, profile {self.profile_id}", text)
        self.assertIn("arithmetic intensity", text)
        self.assertIn("#2 triad = #2 triad n=1000: DRAM-bandwidth-bound", text)
        self.assertFalse(os.path.exists(self.path("x.svg")))

    def test_terminal_roofs_leave_the_cells_to_points_and_labels(self):
        # 100 x 30: the roofs take under a quarter of the frame's cells, with every roof drawn
        # too; each run's label is there whole, and no point sits between roof characters.
        for extra in [[], ["--all-roofs"]]:
            with self.subTest(extra=extra):
                lines = self.terminal("--size", "100x30", *extra)
                self.assertReadable(lines, 100)
                top = next(i for i, line in enumerate(lines) if "+----" in line)
                bottom = next(i for i in range(top + 1, len(lines)) if "+----" in lines[i])
                left, right = lines[top].index("+"), lines[top].rindex("+")
                inner = [line[left + 1:right].ljust(right - left - 1)
                         for line in lines[top + 1:bottom]]
                cells = sum(len(line) for line in inner)
                roof = sum(line.count(c) for line in inner for c in "*.=~")
                self.assertLess(roof, cells / 4, "\n".join(inner))
                for line in inner:
                    for i in range(1, len(line) - 1):
                        if line[i] in "123Dabcd" and line[i - 1] in "*.=~" and \
                                line[i + 1] in "*.=~":
                            self.fail(f"a point between roof characters: {line!r}")

    def test_terminal_size_from_the_environment(self):
        env = dict(self.env, COLUMNS="100", LINES="40")
        lines = self.terminal(env=env)
        self.assertReadable(lines, 100)
        top = next(line for line in lines if "+----" in line)
        self.assertEqual(len(top), 100)

    def test_terminal_size_errors(self):
        for bad in ["80", "80x", "x24", "10x5", "axb"]:
            with self.subTest(size=bad):
                r = self.rprof("plot", "--last", "3", "--terminal", "--size", bad)
                self.assertError(r, 2, "--size " + bad, "WIDTHxHEIGHT")
        r = self.rprof("plot", "--last", "3", "-o", self.path("x.svg"), "--size", "80x24")
        self.assertError(r, 2, "--size is for --terminal")

    def test_gnuplot_script_runs_in_gnuplot(self):
        text = self.script("--last", "3")
        self.assertTrue(text.startswith("# rprof roofline: gnuplot script"), text[:200])
        self.assertLabels(text, CEILING_LABELS, SCRIPT_LABELS)
        self.assertNotIn("set output", text, "without -o, gnuplot writes to stdout")
        gp = subprocess.run(["gnuplot", self.path("roofline.gp")], capture_output=True,
                            timeout=60, cwd=self.tmp)
        self.assertEqual(gp.returncode, 0, gp.stderr)
        root = ET.fromstring(gp.stdout)
        self.assertTrue(root.tag.endswith("svg"), root.tag)

    def test_gnuplot_script_with_output_file(self):
        out = self.path("both.svg")
        script = self.path("both.gp")
        r = self.rprof_ok("plot", "--last", "3", "-o", out, "--gnuplot", script)
        self.assertEqual(r.stdout, f"wrote {out}\n")
        self.assertTrue(os.path.getsize(out) > 0)
        with open(script) as f:
            self.assertIn(f'set output "{out}"', f.read())

    def test_left_out_runs_are_listed_in_the_script(self):
        text = self.script("--last", "4")
        self.assertIn("# left out (no FLOPs or no bytes): #1 copy\n", text)
        self.assertLabels(text, CEILING_LABELS, SCRIPT_LABELS)
        self.assertNotIn('"#1 copy', text)

    def test_choosing_runs(self):
        text = self.script("2", "4")
        self.assertIn("#2 triad (model)", text)
        self.assertIn("#4 matmul-ikj (model)", text)
        self.assertNotIn("#3 dot", text)
        text = self.script("--kernel", "dot")
        self.assertIn("#3 dot (model)", text)
        self.assertNotIn("#2 triad", text)
        text = self.script("--tag", "lab=01")
        self.assertIn("#2 triad (model)", text)
        self.assertIn("#3 dot (model)", text)
        self.assertNotIn("#4 matmul", text)
        text = self.script("--last", "1")
        self.assertIn("#4 matmul-ikj (model)", text)
        self.assertNotIn("#3 dot", text)

    def test_two_thread_ceilings(self):
        text = self.script("--last", "3", "--threads", "2")
        for label in ["fp64 avx2 fma 222 GFLOP/s", "L1 872 GB/s", "DRAM 27.7 GB/s"]:
            self.assertIn(label, text)
        self.assertNotIn("L2 157", text)

    def test_profile_by_id(self):
        text = self.script("--last", "3", "--profile", str(self.profile_id))
        self.assertLabels(text, CEILING_LABELS, SCRIPT_LABELS)
        r = self.rprof("plot", "--last", "3", "--profile", "999", "-o", self.path("x.svg"))
        self.assertError(r, 2, "machine profile 999: no such profile")


def frame_rows(lines):
    """The rows inside a terminal plot's frame, without the frame's columns, and where the
    frame starts and ends: (rows, top, bottom)."""
    top = next(i for i, line in enumerate(lines) if "+----" in line)
    bottom = next(i for i in range(top + 1, len(lines)) if "+----" in lines[i])
    left, right = lines[top].index("+"), lines[top].rindex("+")
    rows = [line[left + 1:right].ljust(right - left - 1) for line in lines[top + 1:bottom]]
    return rows, top, bottom


def joined_line(lines, prefix):
    """The line under a terminal plot that starts with `prefix`, its wrapped continuations
    (indented) joined again; "" when there is none."""
    for i, line in enumerate(lines):
        if line.startswith(prefix):
            out = line
            for more in lines[i + 1:]:
                if not more.startswith("  "):
                    break
                out += " " + more.strip()
            return out
    return ""


def labels_not_whole(lines):
    """Every run label of a terminal plot (the lines under it: "LABEL = #ID ...") that is
    neither whole inside the frame, a blank or the frame on either side (nothing written over
    it, nothing run into it), nor, short, its run's id so, nor named in the line under the
    frame that lists the labels with no room: [label]. Longest first, each found one blanked,
    so a label that is part of a longer one must be found on its own."""
    rows, _, bottom = frame_rows(lines)
    rows = ["|" + row + "|" for row in rows]
    labels = []
    for line in lines[bottom:]:
        m = re.match(r"^(.+?) = (#\d+)( |$)", line)
        if m:
            labels.append((m.group(1), m.group(2)))
    unplaced = joined_line(lines, "no room on the plot for the label of:")

    def take(text):
        for i, row in enumerate(rows):
            at = row.find(text)
            while at >= 0:
                if row[at - 1] in " |" and row[at + len(text)] in " |":
                    rows[i] = row[:at] + "@" * len(text) + row[at + len(text):]
                    return True
                at = row.find(text, at + 1)
        return False
    bad = []
    for label, ref in sorted(labels, key=lambda lr: -len(lr[0])):
        if not (take(label) or take(ref) or label in unplaced):
            bad.append(label)
    return bad, len(labels)


class FarPointsAndManyLabels(PlotTestCase):
    """A program whose rate is 6 decades under everything else (a run of /bin/true declaring one
    FLOP), and a dozen runs close together: the axes are not stretched to the far point, which is
    an edge marker with its value; the terminal's labels are whole and apart."""

    def setUp(self):
        super().setUp()
        self.tiny = self.path("tiny")
        shutil.copy("/bin/true", self.tiny)
        self.far_run = self.run_program(self.tiny, "1", "1")
        self.far_gflops = json.loads(self.rprof_ok(
            "show", str(self.far_run), "--format", "json").stdout)["placement"]["achieved_gflops"]

    def run_program(self, program, flops, nbytes):
        """A run of `program` declaring its FLOPs and bytes; its id (a program's report, here
        its id, goes to stderr)."""
        r = self.rprof("run", "-q", "--flops", flops, "--bytes", nbytes, program)
        self.assertEqual(r.returncode, 0, r)
        return int(r.stderr.split()[-1])

    def plot(self, *args):
        """`rprof plot ARGS`' output; its notes (a sampled program's functions left out) may
        vary."""
        r = self.rprof("plot", *args)
        self.assertEqual(r.returncode, 0, r)
        return r.stdout

    def test_svg_axis_is_not_stretched_and_the_far_point_is_an_edge_marker(self):
        self.assertLess(self.far_gflops, 1e-4)
        out = self.path("x.svg")
        self.plot("--last", "4", "-o", out)
        with open(out) as f:
            root = svg_boxes.parse(f.read())
        left = svg_boxes.frame(root)[0]
        ticks = [float(t) for cls, t, box in svg_boxes.texts(root)  # the y axis' ticks
                 if cls == "tick" and box[0] + box[2] <= left]
        # The roofs' region goes down to 25 GB/s x 1/32 FLOP/B = 0.78 GFLOP/s; the kernels'
        # points a factor 3 under theirs. Before, the y axis went down to the far point's 1e-06.
        self.assertGreaterEqual(min(ticks), 0.1, ticks)
        far = [s for s in svg_boxes.series(root) if s["run"] == str(self.far_run)]
        self.assertEqual(len(far), 1)
        self.assertEqual([p.get("edge") for p in far[0]["points"]], ["below"])
        for s in svg_boxes.series(root):
            if s["run"] != str(self.far_run):
                self.assertEqual([p.get("edge") for p in s["points"]], [None] * len(s["points"]))
        labels = [t for cls, t, _ in svg_boxes.texts(root) if cls == "edge-label"]
        self.assertEqual(labels, [f"#{self.far_run} tiny: {self.far_gflops:.2g} GFLOP/s"])
        self.assertEqual(svg_boxes.overlapping_texts(root), [])
        self.assertEqual(svg_boxes.labels_outside_frame(root), [])
        self.assertEqual(svg_boxes.labels_on_roof_lines(root), [])

    def test_terminal_draws_the_far_point_on_the_frames_edge(self):
        for size in ["80x24", "100x30"]:
            with self.subTest(size=size):
                lines = self.plot("--last", "4", "--terminal", "--size", size).splitlines()
                rows, top, bottom = frame_rows(lines)
                self.assertIn(f"v #{self.far_run} tiny: {self.far_gflops:.2g} GFLOP/s", rows[-1])
                ticks = [line[:7].strip() for line in lines[top:bottom + 1]
                         if line[7:8] == "+" and line[:7].strip()]
                self.assertGreaterEqual(min(float(t) for t in ticks), 0.1, ticks)
                self.assertIn("v ^ < > a point beyond the axes", "\n".join(lines))

    def test_terminal_labels_of_twelve_runs_are_whole_and_apart(self):
        # Twelve runs drawn: kernels of several sizes and programs declaring their work, close
        # together, and the far one.
        for args in [["triad", "-p", "n=2000"], ["triad", "-p", "n=50000"],
                     ["dot", "-p", "n=4000"], ["matmul-ikj", "-p", "n=32"],
                     ["matmul-ikj", "-p", "n=96"]]:
            self.rprof_ok("run", *args, *RUN)
        for name, flops, nbytes in [("solver", "3e6", "1e6"), ("stencil_long_name", "2e6", "4e6"),
                                    ("fft", "5e6", "1e6")]:
            program = self.path(name)
            shutil.copy("/bin/true", program)
            self.run_program(program, flops, nbytes)
        for size, width in [("80x24", 80), ("100x30", 100)]:
            with self.subTest(size=size):
                lines = self.plot("--last", "12", "--terminal", "--size", size).splitlines()
                bad, labels = labels_not_whole(lines)
                self.assertEqual(labels, 12, "\n".join(lines))
                self.assertEqual(bad, [], "\n".join(lines))
                for line in lines:
                    self.assertLessEqual(len(line), width, line)
                rows, _, _ = frame_rows(lines)
                roof = sum(row.count(c) for row in rows for c in "*.=~")
                self.assertLess(roof, sum(len(row) for row in rows) / 4, "\n".join(rows))


class CacheAwareAgreesWithShow(PlotTestCase):
    """Runs counted by sim (bytes at every level) beside model runs, as the demo makes them: every
    point's binding level and % of roof in the SVG, the HTML report's data and `rprof show`
    agree, and the sim runs have a point per level."""

    def setUp(self):
        super().setUp()
        for args in [["triad", "-p", "n=20000"], ["matmul-ikj", "-p", "n=32"],
                     ["dot", "-p", "n=50000"]]:
            r = self.rprof("run", *args, "--counters", "sim", "-q", timeout=300)
            if r.returncode != 0:
                self.skipTest("--counters sim cannot run here: " + r.stderr.strip()[-300:])

    def test_every_series_agrees_with_show(self):
        out = self.path("x.svg")
        r = self.rprof("plot", "--last", "7", "-o", out)
        self.assertEqual(r.returncode, 0, r)
        with open(out) as f:
            root = svg_boxes.parse(f.read())
        drawn = svg_boxes.series(root)
        self.assertEqual(len(drawn), 6, drawn)  # the copy has no FLOPs
        levels_seen = set()
        for s in drawn:
            show = json.loads(self.rprof_ok("show", s["run"], "--format", "json").stdout)
            p = show["placement"]
            self.assertEqual(s["binding"], p["binding"], s)
            self.assertEqual(float(s["percent-of-roof"]), p["percent_of_roof"], s)
            binding = [pt for pt in s["points"] if pt["binding"] == "true"]
            self.assertEqual(len(binding), 1, s)
            self.assertEqual(binding[0]["level"], s["binding-level"])
            self.assertEqual(binding[0]["source"], s["binding-source"])
            # A bandwidth bound names the binding point's level, unless the run's time said
            # those bytes came from another level (roofline/time_check.h: sim's L3 bytes at
            # DRAM's rate, where a busy machine's run was slow enough), which the verdict says.
            if (p["binding"].endswith(")") and "bandwidth" in p["binding"] and
                    "the time says they came from" not in p["verdict"]):
                self.assertTrue(p["binding"].startswith(binding[0]["level"] + " bandwidth"), s)
            # Every level and source placement has is a point, at its AI.
            got = {(pt["level"], pt["source"]): float(pt["ai"]) for pt in s["points"]}
            want = {(lv["level"], lv["source"]): lv["ai"] for lv in p["levels"]}
            self.assertEqual(got, want)
            if show["sources"] and "sim" in show["sources"]:
                levels_seen |= {lv for lv, src in got if src == "sim"}
        # Cache-aware: sim's bytes put runs at more than one level's intensity.
        self.assertTrue({"l1", "l2"} <= levels_seen, levels_seen)
        self.assertEqual(svg_boxes.overlapping_texts(root), [])
        self.assertEqual(svg_boxes.labels_outside_frame(root), [])
        # Measured points are filled, model points hollow.
        for e in root.iter():
            if svg_boxes.local(e.tag) == "path" and e.get("class") == "point":
                hollow = e.get("fill") == "#ffffff"
                self.assertEqual(hollow, e.get("data-source") == "model", e.attrib)

    def test_terminal_labels_are_whole_and_apart(self):
        # A point per level of each sim run, and the model runs': the labels stay whole, a blank
        # between any two and between a label and a point, or are named under the frame.
        for size in ["80x24", "100x30"]:
            with self.subTest(size=size):
                r = self.rprof("plot", "--last", "7", "--terminal", "--size", size)
                self.assertEqual(r.returncode, 0, r)
                lines = r.stdout.splitlines()
                bad, labels = labels_not_whole(lines)
                self.assertEqual(labels, 6, r.stdout)
                self.assertEqual(bad, [], r.stdout)


class PlotErrors(PlotTestCase):
    def test_unsupported_extension(self):
        for name in ["x.txt", "x", "x.jpg"]:
            with self.subTest(name=name):
                r = self.rprof("plot", "--last", "3", "-o", self.path(name))
                self.assertError(r, 2, "use a .svg, .png or .pdf file name")
                self.assertFalse(os.path.exists(self.path(name)))

    def test_where_to_is_required_and_single(self):
        self.assertError(self.rprof("plot", "--last", "3"), 2,
                         "-o FILE.svg|.png|.pdf, --terminal, or --gnuplot FILE")
        self.assertError(self.rprof("plot", "--last", "3", "-o", self.path("x.svg"),
                                    "--terminal"), 2, "not both")
        self.assertError(self.rprof("plot", "--terminal", "--threads", "0"), 2,
                         "--threads must be at least 1")

    def test_threads_without_ceilings(self):
        # The profile has 1- and 2-thread ceilings only. A 3-thread plot would have no roof to
        # draw: that must be said (as placement says "measure with --threads N"), not rendered
        # as an empty roofline with exit 0 and gnuplot's "Skipping data file with no valid
        # points" about a temporary file.
        out = self.path("x.svg")
        r = self.rprof("plot", "--last", "3", "--threads", "3", "-o", out)
        self.assertIn(r.returncode, (2, 3), r)
        self.assertEqual(r.stderr.count("rprof: error: "), 1, r)
        self.assertIn("3 thread", r.stderr)
        self.assertNotIn("/tmp/rprof-plot-", r.stderr)
        self.assertFalse(os.path.exists(out))

    def test_no_matching_runs(self):
        r = self.rprof("plot", "--kernel", "nothing", "-o", self.path("x.svg"))
        self.assertError(r, 2, "no stored run matches")
        r = self.rprof("plot", "999", "-o", self.path("x.svg"))
        self.assertError(r, 2, "run 999")

    def test_no_runs_at_all(self):
        empty = self.path("empty.db")
        rprof_harness.make_database(empty)
        r = self.rprof("plot", "--last", "3", "-o", self.path("x.svg"), db=empty)
        self.assertError(r, 2, "no stored run matches")
        self.assertFalse(os.path.exists(self.path("x.svg")))

    def test_no_profile(self):
        copy_database(self.no_profile_db, self.db)
        r = self.rprof("plot", "--last", "3", "-o", self.path("x.svg"))
        self.assertError(r, 3, "no machine profile for machine", "rprof machine measure")
        self.assertFalse(os.path.exists(self.path("x.svg")))

    def path_without(self, *prefixes):
        """A PATH that keeps every program but those whose names start with `prefixes`: each
        other one is linked into a directory of its own."""
        bin_dir = self.path("bin-without-" + "-".join(prefixes))
        os.mkdir(bin_dir)
        for directory in os.environ.get("PATH", "").split(os.pathsep):
            if not os.path.isdir(directory):
                continue
            for name in os.listdir(directory):
                target = os.path.join(directory, name)
                link = os.path.join(bin_dir, name)
                if (not name.startswith(prefixes) and not os.path.lexists(link)
                        and os.path.isfile(target) and os.access(target, os.X_OK)):
                    os.symlink(target, link)
        for p in prefixes:
            self.assertIsNone(shutil.which(p, path=bin_dir))
        return bin_dir

    def test_png_without_rsvg_is_gnuplots_and_says_so(self):
        env = dict(self.env, PATH=self.path_without("rsvg-convert"))
        out = self.path("x.png")
        r = self.rprof("plot", "--last", "3", "-o", out, env=env)
        self.assertEqual(r.returncode, 0, r)
        self.assertIn("rprof: note: plot: rsvg-convert not found (Debian package librsvg2-bin)",
                      r.stderr)
        with open(out, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_png_with_rsvg_is_the_svg(self):
        if not shutil.which("rsvg-convert"):
            self.skipTest("rsvg-convert not installed (Debian package librsvg2-bin)")
        # Neither gnuplot is needed nor any note printed: the PNG is the SVG's picture.
        env = dict(self.env, PATH=self.path_without("gnuplot"))
        for name, magic in [("x.png", b"\x89PNG\r\n\x1a\n"), ("x.pdf", b"%PDF-")]:
            out = self.path(name)
            self.rprof_ok("plot", "--last", "3", "-o", out, env=env)
            with open(out, "rb") as f:
                self.assertEqual(f.read(len(magic)), magic)

    def test_gnuplot_missing(self):
        bin_dir = self.path_without("gnuplot", "rsvg-convert")
        self.assertIsNotNone(shutil.which("sqlite3", path=bin_dir) or shutil.which(
            "sh", path=bin_dir))
        env = dict(self.env, PATH=bin_dir)
        out = self.path("x.png")
        r = self.rprof("plot", "--last", "3", "-o", out, env=env)
        self.assertError(r, 3, "gnuplot not found", "gnuplot-nox", "--gnuplot FILE")
        self.assertFalse(os.path.exists(out))
        # The SVG and the terminal are rprof's own.
        self.rprof_ok("plot", "--last", "3", "-o", self.path("x.svg"), env=env)
        self.assertTrue(os.path.getsize(self.path("x.svg")) > 0)
        self.rprof_ok("plot", "--last", "3", "--terminal", env=env)
        # The script alone needs no gnuplot.
        self.rprof_ok("plot", "--last", "3", "--gnuplot", self.path("s.gp"), env=env)
        self.assertTrue(os.path.getsize(self.path("s.gp")) > 0)


if __name__ == "__main__":
    rprof_harness.main()
