"""The manual from the code (issue 39): `rprof help COMMAND|TOPIC`, the topics of
profiler/manual/, and that what they say of options matches the command table.

- every topic prints with `rprof help TOPIC` (exit 0); `rprof help` lists every command and topic;
  a name that is neither is a usage error with a "did you mean";
- `rprof help COMMAND` is `rprof COMMAND --help`, for every command and subcommand;
- every option has help text (the man pages and --help print it: an option without it is
  invisible);
- every `--option` the topics and the README name exists: in an `rprof` shell line, among that
  command's options; in prose, among any command's, or is another tool's, listed below with why;
- the Layout of `rprof help internals` names every folder of the source.

Usage: manual_test.py PATH/TO/rprof
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import rprof_harness

SOURCE = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MANUAL = os.path.join(SOURCE, "profiler", "manual")

# Options the manual names that belong to other programs, not to rprof.
FOREIGN_OPTIONS = {
    "D1": "cachegrind's --D1", "LL": "cachegrind's --LL",
    "benchmark": "meson test --benchmark", "suite": "meson test --suite",
    "benchmark_": "Google Benchmark's --benchmark_* options",
    "benchmark_filter": "Google Benchmark", "benchmark_list_tests": "Google Benchmark",
    "benchmark_min_time": "Google Benchmark", "benchmark_out": "Google Benchmark",
    "benchmark_repetitions": "Google Benchmark",
    "cflags": "pkg-config", "libs": "pkg-config",
    "fuzz": "scripts/bootstrap --fuzz", "sanitize": "scripts/test --sanitize",
    "mca": "Open MPI's mpirun", "mpi": "srun --mpi=pmix",
    "allow-run-as-root": "Open MPI's mpirun", "oversubscribe": "Open MPI's mpirun",
    "python": "scripts/labs/lab00 --python",
    "rprofsim-functions": "rprofsim's own option, set by rprof",
    "vgdb": "valgrind --vgdb=no", "sort": "perf report --sort",
}
OPTION_TOKEN = re.compile(r"(?<![\w-])--([a-zA-Z][\w-]*)")


def topic_files():
    return sorted(f for f in os.listdir(MANUAL) if f.endswith(".md"))


def shell_lines(text):
    """(line, marked illustrative) of every line of the ```sh blocks of a Markdown text."""
    lines, in_sh, block_marked, marked_next = [], False, False, False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            if in_sh:
                in_sh = False
            elif stripped in ("```sh", "```bash", "```shell"):
                in_sh, block_marked = True, marked_next
            marked_next = False
            continue
        if in_sh:
            if stripped and not stripped.startswith("#"):
                lines.append((line, block_marked or "# illustrative" in line))
        elif stripped:
            marked_next = stripped.startswith("<!--") and "illustrative" in stripped
    return lines


class Manual(rprof_harness.RprofTestCase):
    @classmethod
    def setUpClass(cls):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "options.json")
            subprocess.run([rprof_harness.RPROF, "--write-manual", path], check=True)
            with open(path) as f:
                cls.usages = json.load(f)
        cls.options = {u["command"]: {o["long"]: o for o in u["options"]} for u in cls.usages}
        cls.commands = sorted({u["command"].split()[0] for u in cls.usages})
        cls.topics = [f[:-3] for f in topic_files()]
        kernels = subprocess.run([rprof_harness.RPROF, "kernels", "--format", "json"],
                                 capture_output=True, text=True, check=True).stdout
        cls.kernels = {k["name"] for k in json.loads(kernels)}

    def test_every_topic_prints(self):
        for topic in self.topics + ["json", "regions"]:
            r = self.rprof_ok("help", topic, db=False)
            if topic in self.commands:
                # A command's options come first (kernels, machine), then the topic.
                self.assertIn(f"\nrprof help {topic}: ", r.stdout)
            else:
                self.assertTrue(r.stdout.startswith(f"rprof help {topic}: "), r)
            self.assertNotIn("<!--", r.stdout, r)
        for required in ["regions", "programs", "sim", "functions", "json", "database", "mpi",
                         "kernels", "verdicts", "machine", "internals"]:
            self.assertIn(required, self.topics)

    def test_topics_fit_the_terminal(self):
        env = dict(self.env, COLUMNS="80")
        for topic in self.topics:
            text = self.rprof_ok("help", topic, db=False, env=env).stdout
            for line in text.splitlines():
                # Code and SQL (indented, as written) may be wider; prose is wrapped.
                if not line.startswith("  "):
                    self.assertLessEqual(len(line), 80, f"help {topic}: {line}")
        wide = self.rprof_ok("help", "verdicts", db=False, env=dict(self.env, COLUMNS="0"))
        self.assertTrue(any(len(line) > 200 for line in wide.stdout.splitlines()))

    def test_help_lists_every_command_and_topic(self):
        text = self.rprof_ok("help", db=False).stdout
        self.assertEqual(text, self.rprof_ok("--help", db=False).stdout)
        for name in self.commands + self.topics:
            self.assertRegex(text, rf"(?m)^  {re.escape(name)} ")

    def test_an_unknown_name_gets_a_did_you_mean(self):
        r = self.rprof("help", "jsno", db=False)
        self.assertError(r, 2, "help: no command 'jsno'; did you mean 'json'?")
        r = self.rprof("help", "regoins", db=False)
        self.assertError(r, 2, "did you mean 'regions'?")

    def test_help_command_is_the_command_help(self):
        for usage in self.usages:
            words = usage["command"].split()
            by_help = self.rprof_ok("help", *words, db=False).stdout
            by_option = self.rprof_ok(*words, "--help", db=False).stdout
            if words[0] in self.topics and len(words) == 1:  # then the topic of that name
                self.assertTrue(by_help.startswith(by_option + "\nrprof help "), by_help)
            else:
                self.assertEqual(by_help, by_option)
            for name in usage["options"]:
                self.assertIn("--" + name["long"], by_help)

    def test_the_built_man_pages_show_each_commands_options(self):
        # The pages the build wrote beside rprof (profiler/manual/): each command's page lists
        # the options its --help does, rendered by man where it is installed.
        pages = os.path.join(os.path.dirname(rprof_harness.RPROF), "manual")
        for usage in self.usages:
            command = usage["command"].split()[0]
            with open(os.path.join(pages, f"rprof-{command}.1"), encoding="utf-8") as f:
                page = f.read()
            for option in usage["options"]:
                escaped = "\\-\\-" + option["long"].replace("-", "\\-")
                self.assertIn(f"\\fB{escaped}\\fR", page, f"rprof-{command}.1")
        for topic in self.topics:
            self.assertTrue(os.path.isfile(os.path.join(pages, f"rprof-{topic}.7")), topic)
        if not shutil.which("man"):
            self.skipTest("man is not installed (Debian package man-db)")
        env = dict(self.env, MANWIDTH="80", MANPAGER="cat", PAGER="cat")
        shown = subprocess.run(["man", "-l", os.path.join(pages, "rprof-run.1")], env=env,
                               capture_output=True, text=True)
        self.assertEqual(shown.returncode, 0, shown.stderr)
        in_man = set(re.findall(r"^ {7}(?:-\w, )?--([a-z][a-z0-9-]*)", shown.stdout, re.M))
        self.assertEqual(in_man, set(self.options["run"]))

    def test_every_option_has_help_text(self):
        self.assertIn("param", self.options["run"])
        for usage in self.usages:
            for option in usage["options"]:
                self.assertTrue(option["description"].strip(),
                                f"rprof {usage['command']} --{option['long']} has no help text")

    def documents(self):
        docs = {"README.md": os.path.join(SOURCE, "README.md")}
        docs.update({f: os.path.join(MANUAL, f) for f in topic_files()})
        for name, path in docs.items():
            with open(path, encoding="utf-8") as f:
                yield name, f.read()

    def test_the_manual_names_only_options_that_exist(self):
        every = {"db", "help", "version"}
        for options in self.options.values():
            every |= set(options)
        for name, text in self.documents():
            for m in OPTION_TOKEN.finditer(text):
                option = m.group(1)
                line = text.count("\n", 0, m.start()) + 1
                self.assertTrue(option in every or option in FOREIGN_OPTIONS,
                                f"{name}:{line}: --{option} is no option of rprof's")

    def rprof_line_errors(self, line):
        """The options of the rprof command in one shell line that its command does not take."""
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            return []
        starts = [i for i, w in enumerate(words) if w == "rprof" or w.endswith("/rprof")]
        if not starts:
            return []
        words = words[starts[0] + 1:]
        while words and words[0].startswith("--db"):
            words = words[1 if "=" in words[0] else 2:]
        command = "run"
        if words and words[0] in self.commands:
            command = words.pop(0)
            if command == "machine" and words and f"machine {words[0]}" in self.options:
                command = "machine " + words.pop(0)
            elif command == "help":
                return []
        options = self.options[command]
        shorts = {o["short"]: o for o in options.values() if o["short"]}
        errors, i = [], 0
        while i < len(words):
            word = words[i]
            i += 1
            if word == "--":
                break
            if word.startswith("--"):
                option = options.get(word[2:].split("=")[0])
            elif word.startswith("-") and len(word) > 1 and not word[1].isdigit():
                option = shorts.get(word[1])
            else:
                # After a program, the words are its own; after a kernel or plugin, rprof's.
                if command == "run" and word not in self.kernels and not word.endswith(".so"):
                    break
                continue
            if option is None:
                errors.append(f"rprof {command} has no option {word}")
            elif option["argument"] and "=" not in word and not (
                    not word.startswith("--") and len(word) > 2):
                i += 1
        return errors

    def test_rprof_lines_use_their_commands_options(self):
        checked = 0
        for name, text in self.documents():
            for line, _ in shell_lines(text):
                checked += 1
                errors = self.rprof_line_errors(line)
                self.assertEqual(errors, [], f"{name}: {line.strip()}")
        self.assertGreater(checked, 20)
        # The check itself: a misspelled option is caught.
        self.assertEqual(self.rprof_line_errors("rprof run triad --repaet 3"),
                         ["rprof run has no option --repaet"])
        self.assertEqual(self.rprof_line_errors("rprof ./app --repaet 3"), [])

    def test_internals_names_every_folder(self):
        with open(os.path.join(MANUAL, "internals.md"), encoding="utf-8") as f:
            text = f.read()
        layout = text[text.index("## Layout"):]
        layout = layout[:layout.index("\n## ", 1)]
        ignored = {"demo-output"}
        top = [d for d in os.listdir(SOURCE) if os.path.isdir(os.path.join(SOURCE, d))
               and not d.startswith(".") and not d.startswith("build") and d not in ignored]
        for folder in top:
            self.assertIn(f"`{folder}/`", layout, folder)
        for parent in ["profiler", "tests"]:
            for d in os.listdir(os.path.join(SOURCE, parent)):
                if os.path.isdir(os.path.join(SOURCE, parent, d)) and d != "__pycache__":
                    self.assertIn(f"`{d}/`", layout, f"{parent}/{d}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: manual_test.py PATH/TO/rprof")
    rprof_harness.main()
