"""The marker library a program links is light (issue 15): librprof-marker.so.1 needs libc alone,
exports the API of rprof/marker.h and nothing else, and loads its backend (PAPI, libstdc++) only
when rprof started the program, from rprof/ beside itself once installed -- and when it cannot,
the run says why. The static archive librprof-marker.a adds no library to the program at all,
and loads the backend rprof names (RPROF_MARKER_BACKEND).

Started by meson as `python3 marker_light_test.py PATH/TO/rprof`; the files come through the
environment (tests/meson.build): RPROF_MARKER_LIBRARY, RPROF_MARKER_BACKEND_LIBRARY and
RPROF_MARKER_BACKEND_DIR (the private folder configured at build time), RPROF_MARKER_EXAMPLE and
RPROF_CLI_TARGETS. The copies of the library that play an installed one are loaded through
LD_LIBRARY_PATH, which the dynamic loader searches before the program's RUNPATH. The program
linked to the archive is marker_example_static, in RPROF_CLI_TARGETS.
"""

import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from elf_file import ElfFile  # noqa: E402
import rprof_harness  # noqa: E402
from rprof_harness import RprofTestCase, main  # noqa: E402

API = {"rprof_region_begin", "rprof_region_end", "rprof_region_declare", "rprof_markers_active",
       # Symbol version RPROF_MARKER_2 (issue 24): declarations with a precision.
       "rprof_region_declare_fp64", "rprof_region_declare_fp32"}
# The only libraries it may need: glibc's (libdl and libpthread are separate before glibc 2.34).
GLIBC = {"libc.so.6", "libdl.so.2", "libpthread.so.0"}
BACKEND = "librprof-marker-backend.so"


def required(variable):
    value = os.environ.get(variable)
    if not value:
        raise unittest.SkipTest(f"{variable} not set (meson sets it)")
    return value


# Why a sanitizer build cannot check what the marker library and its programs link and load.
SANITIZED_LINKS = ("the sanitizer build links libasan and libubsan (and through it libstdc++) into "
                   "the marker library and its programs: what they need and load is the release "
                   "build's to check")


class ShippedLibrary(unittest.TestCase):
    def test_needs_libc_alone(self):
        if rprof_harness.SANITIZED:
            self.skipTest(SANITIZED_LINKS)
        needed = ElfFile(required("RPROF_MARKER_LIBRARY")).needed()
        for heavy in ("libpapi", "libpfm", "libstdc++", "libgcc_s", "libm."):
            self.assertFalse([n for n in needed if n.startswith(heavy)], needed)
        self.assertLessEqual(set(needed), GLIBC, needed)

    def test_same_soname_same_api(self):
        library = ElfFile(required("RPROF_MARKER_LIBRARY"))
        self.assertEqual(library.soname(), "librprof-marker.so.1")
        self.assertEqual(library.exported_functions(), API)

    def test_the_backend_exports_its_table_only(self):
        # Version 2's table, and version 1's name for it (an older static archive asks for it).
        backend = ElfFile(required("RPROF_MARKER_BACKEND_LIBRARY"))
        self.assertEqual(backend.exported_functions(),
                         {"rprof_marker_backend_1", "rprof_marker_backend_2"})


class BackendLoading(RprofTestCase):
    def setUp(self):
        super().setUp()
        self.library = required("RPROF_MARKER_LIBRARY")
        self.backend = required("RPROF_MARKER_BACKEND_LIBRARY")
        self.example = required("RPROF_MARKER_EXAMPLE")

    def installed(self, backend=None):
        """A folder laid out like $libdir: the library, and `backend` (a file) as
        rprof/librprof-marker-backend.so; returns the folder."""
        lib = self.path("lib")
        os.makedirs(os.path.join(lib, "rprof"))
        shutil.copy(self.library, os.path.join(lib, "librprof-marker.so.1"))
        if backend:
            shutil.copy(backend, os.path.join(lib, "rprof", BACKEND))
        return lib

    def run_example(self, lib):
        env = dict(self.env, LD_LIBRARY_PATH=lib)
        r = self.rprof("run", "--counters", "pmu", "--format", "json", self.example, "1000", "1",
                       env=env)
        self.assertExit(r, 0)
        first, _, report = r.stdout.partition("\n")
        return first, self.query("select note from runs")[0][0], report

    def test_outside_rprof_the_backend_is_never_loaded(self):
        if rprof_harness.SANITIZED:
            self.skipTest(SANITIZED_LINKS)
        env = {k: v for k, v in self.env.items() if not k.startswith("RPROF_")}
        env["LD_DEBUG"] = "files"
        proc = subprocess.run([self.example, "1000", "1"], env=env, capture_output=True,
                              text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc)
        self.assertIn("librprof-marker.so.1", proc.stderr, "LD_DEBUG=files names what loads")
        for heavy in (BACKEND, "libpapi", "libstdc++"):
            self.assertNotIn(heavy, proc.stderr)
        # Set the way rprof sets it, the backend comes in (with dlopen, at the first call).
        env["RPROF_MARKER_OUT"] = self.path("markers.txt")
        proc = subprocess.run([self.example, "1000", "1"], env=env, capture_output=True,
                              text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc)
        self.assertIn(BACKEND, proc.stderr)

    def test_installed_layout_finds_the_backend_in_rprof_folder(self):
        first, note, _ = self.run_example(self.installed(backend=self.backend))
        self.assertTrue(first.endswith("markers active"), first)
        self.assertIsNone(note)
        calls = self.query("select value from metrics where region = 'triad' and name = 'calls'"
                           " and source = 'clock'")
        self.assertEqual(calls, [(2,)], "two threads, one pass each")

    def test_a_missing_backend_is_said_with_the_run(self):
        configured = required("RPROF_MARKER_BACKEND_DIR")
        if os.path.exists(os.path.join(configured, BACKEND)):
            self.skipTest(f"an installed backend in {configured} would be found")
        lib = self.installed()
        first, note, _ = self.run_example(lib)
        self.assertTrue(first.endswith("markers off"), first)
        self.assertIn("markers: the marker backend is not loaded (" + BACKEND + " not found in "
                      + lib + "/rprof, " + lib + " or " + configured + "; reinstall rprof); "
                      "no region was measured", note)
        self.assertEqual(self.query("select count(*) from metrics where region != ''"), [(0,)])

    def test_a_foreign_backend_is_refused(self):
        # A shared object of that name without the versioned table: another build of rprof.
        foreign = os.path.join(required("RPROF_CLI_TARGETS"), "libno_abi_plugin.so")
        lib = self.installed(backend=foreign)
        first, note, _ = self.run_example(lib)
        self.assertTrue(first.endswith("markers off"), first)
        self.assertIn(f"{lib}/rprof/{BACKEND} is not the backend of this librprof-marker (no "
                      "rprof_marker_backend_2: another version of rprof); reinstall rprof", note)


class StaticArchive(RprofTestCase):
    """librprof-marker.a, linked into the program (marker_example_static in cli_targets/): no
    shared library, and the backend named by rprof itself in RPROF_MARKER_BACKEND."""

    def setUp(self):
        super().setUp()
        self.example = os.path.join(required("RPROF_CLI_TARGETS"), "marker_example_static")
        self.backend = required("RPROF_MARKER_BACKEND_LIBRARY")
        self.configured = required("RPROF_MARKER_BACKEND_DIR")

    def outside_rprof(self, **variables):
        env = {k: v for k, v in self.env.items() if not k.startswith("RPROF_")}
        env.update(variables)
        proc = subprocess.run([self.example, "1000", "1"], env=env, capture_output=True,
                              text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc)
        return proc

    def run_under(self, rprof, env=None):
        """rprof (a path) runs the example under --counters model; its first line and note."""
        proc = subprocess.run([rprof, "--db", self.db, "run", "--counters", "model",
                               "--format", "json", self.example, "1000", "1"],
                              env=env or self.env, capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, 0, proc)
        return proc.stdout.partition("\n")[0], self.query("select note from runs")[0][0]

    def triad_calls(self):
        return self.query("select value from metrics where region = 'triad' and name = 'calls'"
                          " and source = 'clock'")

    def rprof_copy(self, folder):
        """A copy of the rprof binary in `folder` (made): /proc/self/exe names the copy."""
        os.makedirs(folder, exist_ok=True)
        copy = os.path.join(folder, "rprof")
        shutil.copy(rprof_harness.RPROF, copy)
        return copy

    def test_needs_no_marker_library(self):
        if rprof_harness.SANITIZED:
            self.skipTest(SANITIZED_LINKS)
        needed = ElfFile(self.example).needed()
        self.assertLessEqual(set(needed), GLIBC, needed)

    def test_outside_rprof_nothing_is_loaded(self):
        if rprof_harness.SANITIZED:
            self.skipTest(SANITIZED_LINKS)
        proc = self.outside_rprof(LD_DEBUG="files")
        self.assertIn("libc.so.6", proc.stderr, "LD_DEBUG=files names what loads")
        self.assertTrue(proc.stdout.rstrip().endswith("markers off"), proc.stdout)
        for heavy in ("librprof-marker", "libpapi", "libstdc++"):
            self.assertNotIn(heavy, proc.stderr)

    def test_under_rprof_regions_come_through_rprofs_backend(self):
        # A variable of the user's own is never passed on: rprof names its backend itself.
        env = dict(self.env, RPROF_MARKER_BACKEND=self.path("stale.so"), LD_DEBUG="files",
                   LD_DEBUG_OUTPUT=self.path("ld"))
        first, note = self.run_under(rprof_harness.RPROF, env)
        self.assertTrue(first.endswith("markers active"), first)
        self.assertIsNone(note)
        self.assertEqual(self.triad_calls(), [(2,)], "two threads, one pass each")
        loaded = ""
        for name in os.listdir(self.tmp):
            if name.startswith("ld."):  # one file a process: rprof's and the program's
                with open(self.path(name)) as f:
                    loaded += f.read()
        self.assertIn("file=" + os.path.realpath(self.backend), loaded)

    def test_an_installed_rprof_names_the_backend_in_libdir(self):
        # $prefix/bin/rprof finds $prefix/$libdir/rprof/librprof-marker-backend.so; the
        # relative path is the one meson wrote for rprof (marker_backend_layout.h).
        layout = os.path.join(os.path.dirname(self.backend), "marker_backend_layout.h")
        with open(layout) as f:
            installed = re.search(r'RPROF_MARKER_BACKEND_FROM_INSTALLED_RPROF "([^"]*)"',
                                  f.read()).group(1)
        if installed.startswith("/"):
            self.skipTest(f"$bindir or $libdir outside the prefix: {installed}")
        rprof = self.rprof_copy(self.path("prefix/bin"))
        libdir = os.path.normpath(os.path.join(self.path("prefix/bin"), installed))
        os.makedirs(libdir)
        shutil.copy(self.backend, os.path.join(libdir, BACKEND))
        first, note = self.run_under(rprof)
        self.assertTrue(first.endswith("markers active"), first)
        self.assertIsNone(note)
        self.assertEqual(self.triad_calls(), [(2,)])

    def test_no_backend_anywhere_is_said_with_the_run(self):
        if os.path.exists(os.path.join(self.configured, BACKEND)):
            self.skipTest(f"an installed backend in {self.configured} would be found")
        # An rprof with no backend beside it names none; the program looks in the configured
        # folder, finds none there either, and says so.
        first, note = self.run_under(self.rprof_copy(self.path("alone")))
        self.assertTrue(first.endswith("markers off"), first)
        self.assertIn("markers: the marker backend is not loaded (" + BACKEND + " not found: "
                      "RPROF_MARKER_BACKEND not set and none in " + self.configured
                      + "; reinstall rprof); no region was measured", note)
        self.assertEqual(self.query("select count(*) from metrics where region != ''"), [(0,)])

    def test_a_program_may_name_the_backend_itself(self):
        # The protocol of rprof/marker.h, followed by hand: the named file is the one loaded.
        out = self.path("markers.txt")
        proc = self.outside_rprof(RPROF_MARKER_OUT=out, RPROF_MARKER_BACKEND=self.backend,
                                  LD_DEBUG="files")
        self.assertTrue(proc.stdout.rstrip().endswith("markers active"), proc.stdout)
        self.assertIn("file=" + self.backend, proc.stderr)
        with open(out) as f:
            self.assertIn("\nregion\ttriad\t2\t", f.read())


if __name__ == "__main__":
    main()
