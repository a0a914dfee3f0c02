"""Every shell line of README.md and of the manual's topics (profiler/manual/*.md) runs as
printed (issue 39), against this build, except the lines marked illustrative in the text itself:
a line with a `# illustrative` comment, or every line of a block after
`<!-- illustrative: why -->`.

Each document runs in a scratch folder of its own, line by line in its order (a line may use
what an earlier one made), each line in `bash -c` with:
- `rprof` on PATH (this build's), `RPROF_DB` a database of the folder's own, HOME and the XDG
  folders inside it;
- the checkout's `kernels/`, `profiler/` and `scripts/` and the build as `build/` linked into it,
  so `kernels/examples/marker_example.c` and `build/profiler/rprof` are where a checkout has them;
- `pkg-config` finding the build's marker library (meson-uninstalled), the loader finding it,
  and `import rprof` the build's module.
README.md runs first on an empty database: its tour measures the machine; each topic then starts
from a copy of that database (the profile, the tour's runs), not from the user's.

A line that exits non-zero fails the test, with its document and line. Lines that need what this
machine lacks (valgrind for `--counters sim`) are skipped with the reason.

Usage: readme_test.py PATH/TO/rprof
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

import rprof_harness

SOURCE = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MANUAL = os.path.join(SOURCE, "profiler", "manual")
LINE_TIMEOUT_S = 120


def shell_lines(text):
    """(line number, line, marked illustrative) of every command line in the ```sh blocks of a
    Markdown text; a line ending in a backslash is joined with the next."""
    lines, in_sh, block_marked, marked_next, pending = [], False, False, False, None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            if in_sh:
                in_sh = False
            elif stripped in ("```sh", "```bash", "```shell"):
                in_sh, block_marked = True, marked_next
            marked_next = False
            continue
        if in_sh:
            if pending:
                pending = (pending[0], pending[1][:-1] + " " + stripped, pending[2])
            elif stripped and not stripped.startswith("#"):
                pending = (number, line, block_marked)
            else:
                continue
            if not pending[1].rstrip().endswith("\\"):
                first, joined, marked = pending
                lines.append((first, joined, marked or "# illustrative" in joined))
                pending = None
        elif stripped:
            marked_next = stripped.startswith("<!--") and "illustrative" in stripped
    return lines


def documents():
    """(name, text) of README.md, then of each topic."""
    names = [os.path.join(SOURCE, "README.md")] + sorted(
        os.path.join(MANUAL, f) for f in os.listdir(MANUAL) if f.endswith(".md"))
    for path in names:
        with open(path, encoding="utf-8") as f:
            yield os.path.relpath(path, SOURCE), f.read()


def skip_reason(line):
    """Why this machine or build cannot run a line, or None."""
    if "--counters sim" in line and not shutil.which("valgrind"):
        return "valgrind is not installed"
    # A sanitizer build's marker library carries ASan, which a program built without it (cc in
    # the line) cannot load first, and valgrind cannot run; nor is there then its report
    # (app.json) to read.
    if rprof_harness.SANITIZED and any(p in line for p in ("rprof-marker", "./app",
                                                           "marker_example", "app.json")):
        return "a program linking the sanitized marker library"
    return None


class ReadmeLines(rprof_harness.RprofTestCase):
    def setUp(self):
        super().setUp()
        self.build = os.path.dirname(os.path.dirname(rprof_harness.RPROF))
        self.bin = self.path("bin")
        os.makedirs(self.bin)
        os.symlink(rprof_harness.RPROF, os.path.join(self.bin, "rprof"))

    def folder(self, name, seed_db=None):
        """A scratch folder for one document, and the environment its lines run in."""
        folder = self.path(name.replace("/", "_"))
        os.makedirs(os.path.join(folder, "home"))
        for part in ["kernels", "profiler", "scripts"]:
            os.symlink(os.path.join(SOURCE, part), os.path.join(folder, part))
        os.symlink(self.build, os.path.join(folder, "build"))
        db = os.path.join(folder, "rprof.db")
        if seed_db:
            rprof_harness.copy_database(seed_db, db)
        env = dict(self.env)
        env.update({
            "PATH": self.bin + os.pathsep + env.get("PATH", ""),
            "RPROF_DB": db,
            "HOME": os.path.join(folder, "home"),
            "XDG_DATA_HOME": os.path.join(folder, "home", "data"),
            "XDG_STATE_HOME": os.path.join(folder, "home", "state"),
            "XDG_CONFIG_HOME": os.path.join(folder, "home", "config"),
            "PKG_CONFIG_PATH": os.path.join(self.build, "meson-uninstalled"),
            "LD_LIBRARY_PATH": os.path.join(self.build, "profiler", "marker"),
            "PYTHONPATH": os.path.join(self.build, "profiler", "python"),
            "COLUMNS": "80",
        })
        return folder, db, env

    def run_line(self, line, folder, env):
        """(exit status, output) of one line."""
        try:
            proc = subprocess.run(["bash", "-c", "set -o pipefail\n" + line], cwd=folder, env=env,
                                  capture_output=True, text=True, timeout=LINE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return 124, f"did not end in {LINE_TIMEOUT_S} s"
        return proc.returncode, (proc.stdout + proc.stderr)[-1500:]

    def run_document(self, name, text, seed_db=None):
        """Runs the document's unmarked lines; returns (failures, its database, lines run)."""
        folder, db, env = self.folder(name, seed_db)
        failures, ran = [], 0
        for number, line, illustrative in shell_lines(text):
            if illustrative:
                continue
            reason = skip_reason(line)
            if reason:
                print(f"{name}:{number}: skipped ({reason}): {line.strip()}", file=sys.stderr)
                continue
            start = time.monotonic()
            status, output = self.run_line(line, folder, env)
            took = time.monotonic() - start
            if took > 5:
                print(f"{name}:{number}: {took:.1f} s: {line.strip()}", file=sys.stderr)
            ran += 1
            if status != 0:
                failures.append(f"{name}:{number}: exit {status}: {line.strip()}\n{output}")
        return failures, db, ran

    def test_every_unmarked_line_runs(self):
        failures, seed, total = [], None, 0
        for name, text in documents():
            start = time.monotonic()
            failed, db, ran = self.run_document(name, text, seed)
            print(f"{name}: {ran} lines in {time.monotonic() - start:.1f} s", file=sys.stderr)
            failures += failed
            total += ran
            if seed is None:
                seed = db  # README's: the machine's profile and the tour's runs
        self.assertGreater(total, 15)
        self.assertEqual(failures, [], "\n\n".join(failures))

    def test_a_misspelled_option_fails(self):
        # A copy of the README with one option misspelled: that line fails, with its number.
        with open(os.path.join(SOURCE, "README.md"), encoding="utf-8") as f:
            text = f.read()
        self.assertIn("rprof history --limit 5", text)
        wrong = text.replace("rprof history --limit 5", "rprof history --limti 5")
        lines = [entry for entry in shell_lines(wrong) if "--limti" in entry[1]]
        self.assertEqual(len(lines), 1)
        number, line, illustrative = lines[0]
        self.assertFalse(illustrative)
        # Through the same runner as the real documents, alone (the tour's other lines are
        # checked above): it fails, named with its document and line.
        block = "```sh\n" + line + "\n```\n"
        failures, _, ran = self.run_document("README.md (misspelled)", block)
        self.assertEqual(ran, 1)
        self.assertEqual(len(failures), 1, failures)
        self.assertIn("exit 2: rprof history --limti 5", failures[0])
        self.assertIn("did you mean '--limit'", failures[0])
        # Marked illustrative, the same line is not run.
        marked = wrong.replace("--limti 5", "--limti 5  # illustrative")
        self.assertTrue(all(m for _, l, m in shell_lines(marked) if "--limti" in l))


if __name__ == "__main__":
    rprof_harness.main()
