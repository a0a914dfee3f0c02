"""The format check: every C++ file git tracks (.cc, .h) is as clang-format writes it with the
project's .clang-format (Google base, 100 columns), so a diff is never about layout. The C
programs under tests/ are targets whose lines some tests read, laid out as they are on purpose. Exits 77 where
clang-format or git is missing (scripts/bootstrap installs clang-format).

To fix what it names: clang-format -i FILE... (the same clang-format: Debian 12's, version 14,
since another version may lay out the same code differently)."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FOLDERS = ("profiler", "kernels", "tests")
SUFFIXES = (".cc", ".h")


def tracked_sources():
    r = subprocess.run(["git", "-C", ROOT, "ls-files", "--", *FOLDERS], capture_output=True,
                       text=True, check=True)
    return [p for p in r.stdout.splitlines() if p.endswith(SUFFIXES)]


def unformatted(paths, cwd):
    """The files among `paths` (relative to cwd) that clang-format would change."""
    r = subprocess.run(["clang-format", "--dry-run", "--Werror", "--style=file", *paths],
                       cwd=cwd, capture_output=True, text=True)
    files = []
    for line in r.stderr.splitlines():
        if ": error: code should be clang-formatted" in line:
            path = line.split(":", 1)[0]
            if path not in files:
                files.append(path)
    return r.returncode, files


class Format(unittest.TestCase):
    def test_every_tracked_source_is_formatted(self):
        paths = tracked_sources()
        self.assertGreater(len(paths), 100, "git ls-files found too few sources")
        code, files = unformatted(paths, ROOT)
        self.assertEqual(files, [], "not as clang-format writes them (clang-format -i FILE)")
        self.assertEqual(code, 0)

    def test_a_misformatted_file_is_named(self):
        # The check can fail: a file laid out by hand against the style is found and named.
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copy(os.path.join(ROOT, ".clang-format"), tmp)
            with open(os.path.join(tmp, "bad.cc"), "w") as f:
                f.write("int  f( int x ){return x+1;}\n")
            with open(os.path.join(tmp, "good.cc"), "w") as f:
                f.write("int f(int x) { return x + 1; }\n")
            code, files = unformatted(["bad.cc", "good.cc"], tmp)
            self.assertNotEqual(code, 0)
            self.assertEqual(files, ["bad.cc"])


if __name__ == "__main__":
    missing = [tool for tool in ("clang-format", "git") if shutil.which(tool) is None]
    if missing:
        print(f"format: skipped: {' and '.join(missing)} not installed "
              "(Debian: apt-get install clang-format; scripts/bootstrap does)")
        sys.exit(77)
    if not os.path.exists(os.path.join(ROOT, ".git")):
        print("format: skipped: not a git checkout (the check reads git's list of files)")
        sys.exit(77)
    unittest.main()
