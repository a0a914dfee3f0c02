"""profiler/layer_includes.py, the build's check that no include goes from a lower layer into a
higher one: the real tree passes, and a tree with one wrong-way include fails, naming it."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CHECK = os.path.join(ROOT, "profiler", "layer_includes.py")


def check(profiler):
    with tempfile.TemporaryDirectory() as tmp:
        return subprocess.run([sys.executable, CHECK, profiler, os.path.join(tmp, "stamp")],
                              capture_output=True, text=True)


class LayerIncludes(unittest.TestCase):
    def test_the_tree_has_no_wrong_way_include(self):
        r = check(os.path.join(ROOT, "profiler"))
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_an_include_from_core_into_store_fails(self):
        with tempfile.TemporaryDirectory() as tmp:
            cli = '#include "report/render.h"\n#include "rprof/kernel.h"\n'
            for folder, text in (("core", '#include "store/run_store.h"\n'),
                                 ("store", '#include "core/run.h"\n'), ("cli", cli)):
                os.mkdir(os.path.join(tmp, folder))
                with open(os.path.join(tmp, folder, "x.h"), "w") as f:
                    f.write("// a line\n" + text)
            r = check(tmp)
            self.assertEqual(r.returncode, 1)
            self.assertEqual(r.stderr.strip().splitlines(), [
                "layer_includes: core/x.h:2: core/ includes store/, a layer core/ may not use "
                '(#include "store/run_store.h")'])

    def test_a_folder_without_a_layer_is_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.mkdir(os.path.join(tmp, "newpart"))
            with open(os.path.join(tmp, "newpart", "a.cc"), "w") as f:
                f.write('#include "core/run.h"\n')
            r = check(tmp)
            self.assertEqual(r.returncode, 1)
            self.assertIn("folder newpart/ has no layer", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
