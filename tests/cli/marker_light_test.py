"""The marker library a program links is light (issue 15): librprof-marker.so.1 needs libc alone,
exports the API of rprof/marker.h and nothing else, and loads its backend (PAPI, libstdc++) only
when rprof started the program, from rprof/ beside itself once installed -- and when it cannot,
the run says why.

Started by meson as `python3 marker_light_test.py PATH/TO/rprof`; the files come through the
environment (tests/meson.build): RPROF_MARKER_LIBRARY, RPROF_MARKER_BACKEND_LIBRARY and
RPROF_MARKER_BACKEND_DIR (the private folder configured at build time), RPROF_MARKER_EXAMPLE and
RPROF_CLI_TARGETS. The copies of the library that play an installed one are loaded through
LD_LIBRARY_PATH, which the dynamic loader searches before the program's RUNPATH.
"""

import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from elf_file import ElfFile  # noqa: E402
from rprof_harness import RprofTestCase, main  # noqa: E402

API = {"rprof_region_begin", "rprof_region_end", "rprof_region_declare", "rprof_markers_active"}
# The only libraries it may need: glibc's (libdl and libpthread are separate before glibc 2.34).
GLIBC = {"libc.so.6", "libdl.so.2", "libpthread.so.0"}
BACKEND = "librprof-marker-backend.so"


def required(variable):
    value = os.environ.get(variable)
    if not value:
        raise unittest.SkipTest(f"{variable} not set (meson sets it)")
    return value


class ShippedLibrary(unittest.TestCase):
    def test_needs_libc_alone(self):
        needed = ElfFile(required("RPROF_MARKER_LIBRARY")).needed()
        for heavy in ("libpapi", "libpfm", "libstdc++", "libgcc_s", "libm."):
            self.assertFalse([n for n in needed if n.startswith(heavy)], needed)
        self.assertLessEqual(set(needed), GLIBC, needed)

    def test_same_soname_same_api(self):
        library = ElfFile(required("RPROF_MARKER_LIBRARY"))
        self.assertEqual(library.soname(), "librprof-marker.so.1")
        self.assertEqual(library.exported_functions(), API)

    def test_the_backend_exports_its_table_only(self):
        backend = ElfFile(required("RPROF_MARKER_BACKEND_LIBRARY"))
        self.assertEqual(backend.exported_functions(), {"rprof_marker_backend_1"})


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
                      "rprof_marker_backend_1: another version of rprof); reinstall rprof", note)


if __name__ == "__main__":
    main()
