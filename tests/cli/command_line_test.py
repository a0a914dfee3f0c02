"""The command line as users type it (issue 15), each item as a user reproduced it: where rprof's
options end and a program's begin, perf's event names, "did you mean" for options, events and
groups, programs found or not, filters and comparisons that say what is wrong instead of
answering something else, the help on repetitions under sim, and --cpu-list."""

import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rprof_harness  # noqa: E402
from fixtures import PMU, import_run_json  # noqa: E402
from rprof_harness import FAST_RUN, RprofTestCase  # noqa: E402

ECHO = shutil.which("echo")


def words(text):
    """Text with every run of whitespace as one space: Boost wraps --help at 80 columns."""
    return re.sub(r"\s+", " ", text)


class CommandLineTestCase(RprofTestCase):
    """rprof_in (rprof_harness) runs rprof from a folder of the test's."""


class OptionsComeBeforeTheProgram(CommandLineTestCase):
    def run_report(self, *args):
        """`rprof ARGS` whose options include -o REPORT --format json, asserted ok; the report."""
        r = self.rprof(*args)
        self.assertEqual(r.returncode, 0, r)
        with open(self.path("report.json")) as f:
            return json.load(f), r

    def test_help_says_the_rule(self):
        r = self.rprof_ok("help", "run", db=False)
        self.assertIn("usage: rprof run [options] [--] KERNEL|PLUGIN.so|PROGRAM "
                      "[PROGRAM ARGS...]\n", r.stdout)
        self.assertIn("rprof's options come before the program; everything after it is the "
                      "program's", words(r.stdout))
        r = self.rprof_ok("--help", db=False)
        self.assertIn("rprof [--db PATH] [run options] [--] KERNEL|PLUGIN.so|PROGRAM",
                      r.stdout)

    def test_help_of_a_command_with_subcommands_says_what_each_does(self):
        # Issue 38: `help machine` showed only the usage lines.
        text = words(self.rprof_ok("help", "machine", db=False).stdout)
        self.assertIn("measure peak FLOP/s per precision and ISA", text)
        self.assertIn("list every stored profile", text)
        self.assertIn("rprof machine SUBCOMMAND --help gives its options", text)

    def test_run_options_without_the_word_run(self):
        # Once exit 2: a leading option was taken for a global one.
        report = self.path("report.json")
        run, r = self.run_report("--format", "json", "-o", report, "-r", "2", *PMU, ECHO, "hi",
                                 "-r", "5")
        self.assertEqual(r.stdout, "hi -r 5\n" * 2, "the program's -r is its own")
        self.assertEqual(run["repetitions"], 2)
        self.assertEqual(run["command"], [ECHO, "hi", "-r", "5"])

    def test_dashes_end_rprofs_options(self):
        # Once the whole help and "unknown option --".
        r = self.rprof("--", "/bin/true")
        self.assertEqual(r.returncode, 0, r)
        self.assertNotIn("usage:", r.stdout + r.stderr)
        report = self.path("report.json")
        run, r = self.run_report("run", "--format", "json", "-o", report, *PMU, "--", ECHO, "-x")
        self.assertEqual(r.stdout, "-x\n")
        self.assertEqual(run["command"], [ECHO, "-x"])

    def test_options_may_follow_a_kernel(self):
        run = json.loads(self.rprof_ok("triad", *FAST_RUN, "--format", "json").stdout)
        self.assertEqual((run["target"], run["params"], run["repetitions"]),
                         ("triad", {"n": 1000}, 3))

    def test_a_kernel_takes_no_arguments(self):
        self.assertError(self.rprof("run", "triad", *FAST_RUN, "extra"), 2,
                         "run: 'extra' after triad: only a program takes arguments")
        self.assertError(self.rprof("run", *FAST_RUN, "--", "triad", "-q"), 2,
                         "run: '-q' after triad", "rprof's options go before --")
        self.assertFalse(os.path.exists(self.db))

    def test_a_command_after_run_options(self):
        r = self.rprof("--format", "json", "history")
        self.assertError(r, 2, "'history' is a command, not something to run; a command's "
                         "options go after its name (rprof history --help)")

    def test_unknown_options_get_a_did_you_mean(self):
        self.assertError(self.rprof("run", "triad", "--repeats", "3"), 2,
                         "run: unknown option '--repeats'; did you mean '--repeat'?")
        self.assertError(self.rprof("--repeats", "3", "triad"), 2,
                         "run: unknown option '--repeats'; did you mean '--repeat'?")
        self.assertError(self.rprof("history", "--limt", "3"), 2,
                         "history: unknown option '--limt'; did you mean '--limit'? "
                         "(`rprof help history` lists the options)")
        self.assertError(self.rprof("--verison", db=False), 2,
                         "unknown option '--verison'; did you mean '--version'?")
        self.assertFalse(os.path.exists(self.db))


class EventAndGroupNames(CommandLineTestCase):
    def test_perf_names_count_what_rprof_counts(self):
        run = json.loads(self.rprof_ok("run", "triad", *FAST_RUN, "-e", "task-clock,page-faults",
                                       "-e", "context-switches", "--format", "json").stdout)
        for event in ["perf::TASK-CLOCK", "perf::PAGE-FAULTS", "perf::CONTEXT-SWITCHES"]:
            self.assertIn(event, run["metrics"])
        self.assertGreater(run["metrics"]["perf::TASK-CLOCK"]["pmu"]["value"], 0)
        self.assertEqual(self.scalar("select count(*) from metrics where name = 'task-clock'"), 0)

    def test_cycles_is_the_default_sets_cycles(self):
        # Stored as PAPI_TOT_CYC, the default set's name, countable here or not.
        run = json.loads(self.rprof_ok("run", "triad", *FAST_RUN, "-e", "cycles,instructions",
                                       "--allow-missing-events", "--format", "json").stdout)
        self.assertIn("PAPI_TOT_CYC", run["metrics"])
        self.assertIn("PAPI_TOT_INS", run["metrics"])

    def test_event_typos_are_usage_errors_with_a_suggestion(self):
        self.assertError(self.rprof("run", "triad", *FAST_RUN, "--events", "PAPI_TOT_INZ"), 2,
                         "--events PAPI_TOT_INZ: PAPI has no such preset; did you mean "
                         "'PAPI_TOT_INS'?")
        self.assertError(self.rprof("run", "triad", *FAST_RUN, "-e", "cache-mises"), 2,
                         "did you mean 'cache-misses'?")
        self.assertError(self.rprof("run", "triad", *FAST_RUN, "-e", "perf::TASK-CLOCKS"), 2,
                         "did you mean 'TASK-CLOCK'?")
        self.assertError(self.rprof("run", "triad", *FAST_RUN, "-e", "cycles,PAPI_TOT_CYC"), 2,
                         "--events names PAPI_TOT_CYC twice, as cycles and PAPI_TOT_CYC")
        self.assertFalse(os.path.exists(self.db))

    def test_group_typo_suggests(self):
        self.assertError(self.rprof("run", "triad", *FAST_RUN, "--group", "FLOPS_DPP"), 2,
                         "--group FLOPS_DPP (", "did you mean 'FLOPS_DP'?")

    def test_group_list(self):
        # LIKWID's -g list: the groups of this machine's PMU, nothing run, nothing stored.
        r = self.rprof_ok("--group", "list")
        self.assertRegex(r.stdout, r"^metric groups for \S+ ")
        self.assertRegex(r.stdout, r"\nFLOPS_DP +\S")
        listed = json.loads(self.rprof_ok("run", "--group", "list", "--format", "json").stdout)
        self.assertIn("FLOPS_DP", [g["group"] for g in listed["groups"]])
        self.assertTrue(all(g["description"] for g in listed["groups"]), listed)
        self.assertIn("pmu", listed)
        self.assertFalse(os.path.exists(self.db))


class ProgramsByName(CommandLineTestCase):
    def test_a_name_found_nowhere(self):
        # Once "neither a command nor a kernel" for what was meant as a program.
        self.assertError(self.rprof("nonexist_prog"), 2,
                         "'nonexist_prog': not found on PATH, and not a kernel")
        self.assertError(self.rprof("./nonexist_prog"), 2,
                         "./nonexist_prog: No such file or directory; check the path")
        # A near miss of a command or a kernel is still said as one.
        self.assertError(self.rprof("histroy"), 2, "did you mean 'history'?")
        self.assertError(self.rprof("run", "tirad"), 2, "did you mean 'triad'?")
        self.assertFalse(os.path.exists(self.db))

    def test_one_program_however_it_is_named(self):
        folder = os.path.join(self.tmp, "bin")
        os.mkdir(folder)
        app = os.path.join(folder, "app")
        shutil.copy("/bin/true", app)
        os.symlink("app", os.path.join(folder, "link"))
        canonical = os.path.realpath(app)
        for typed in ["./app", "./link", app]:
            r = self.rprof_in(folder, "run", *PMU, "-q", typed)
            self.assertEqual(r.returncode, 0, r)
        # One target, the file's canonical path; the name typed is the command's argv[0].
        self.assertEqual([(target, json.loads(command)) for target, command in
                          self.query("select target, command from runs order by id")],
                         [(canonical, [typed]) for typed in ["./app", "./link", app]])
        # Each spelling finds all three, from anywhere the spelling names the file.
        for cwd, typed in [(folder, "./app"), (folder, "link"), (self.tmp, "bin/app"),
                           ("/", canonical)]:
            with self.subTest(typed=typed):
                if "/" not in typed:
                    typed = "./" + typed
                r = self.rprof_in(cwd, "history", "--kernel", typed, "--format", "json")
                self.assertEqual(r.returncode, 0, r)
                self.assertEqual([run["run_id"] for run in json.loads(r.stdout)], [3, 2, 1])

    def test_runs_stored_before_targets_were_canonical(self):
        folder = os.path.join(self.tmp, "old")
        os.mkdir(folder)
        app = os.path.join(folder, "app")
        shutil.copy("/bin/true", app)
        made = self.path("made.db")
        r = self.rprof_in(folder, "run", *PMU, "-q", "./app", db=made)
        self.assertEqual(r.returncode, 0, r)
        # As an older rprof stored it: the path as typed, relative to the run's cwd.
        self.assertEqual(import_run_json(self, 1, self.db, source=made, target="./app"), 1)
        self.assertEqual(self.query("select target, cwd from runs"), [("./app", folder)])
        for cwd, typed in [(folder, "./app"), ("/", os.path.realpath(app)), (self.tmp, "old/app")]:
            with self.subTest(typed=typed):
                r = self.rprof_in(cwd, "history", "--kernel", typed, "--format", "json")
                self.assertEqual([run["run_id"] for run in json.loads(r.stdout)], [1], r)

    def test_a_name_on_path(self):
        r = self.rprof("run", *PMU, "-q", "true")
        self.assertEqual((r.returncode, r.stderr), (0, "1\n"), r)  # a program's id: on stderr
        self.assertEqual(self.scalar("select target from runs"),
                         os.path.realpath(shutil.which("true")))
        r = self.rprof_ok("history", "--kernel", "true", "--format", "json")
        self.assertEqual(len(json.loads(r.stdout)), 1)


class FiltersAndComparisonsThatSayWhatIsWrong(CommandLineTestCase):
    def test_since(self):
        self.rprof_ok("run", "triad", *FAST_RUN, "-q")
        for since, count in [("yesterday", 1), ("today", 1), ("2h", 1), ("3d", 1), ("1w", 1),
                             ("2000-01-01", 1), ("2000-01-01T00:00Z", 1), ("9999", 0),
                             ("9999-01-01T00:00:00+02:00", 0)]:
            with self.subTest(since=since):
                r = self.rprof_ok("history", "--since", since, "--format", "json")
                self.assertEqual(len(json.loads(r.stdout)), count)
        for since in ["tomorrow", "last week", "2026-02-30", "2 days"]:
            with self.subTest(since=since):
                self.assertError(self.rprof("history", "--since", since), 2,
                                 f"--since {since}: ", "today, yesterday, or a span back from now")

    def test_a_parameter_given_twice(self):
        # Once the last one silently won.
        self.assertError(self.rprof("run", "triad", "-p", "n=1", "--param", "n=2"), 2,
                         "kernel triad: parameter n given twice (n=1, n=2)")
        self.assertFalse(os.path.exists(self.db))

    def test_an_output_directory_that_does_not_exist(self):
        # Once gnuplot's own message; for run, once found only after measuring.
        self.assertError(self.rprof("plot", "-o", "/nonexistent/dir/x.png"), 3,
                         "plot: -o /nonexistent/dir/x.png: directory /nonexistent/dir does not "
                         "exist; create it or write elsewhere")
        self.assertError(self.rprof("plot", "--gnuplot", "/nonexistent/x.gp"), 3,
                         "directory /nonexistent does not exist")
        self.assertError(self.rprof("run", "triad", *FAST_RUN, "-o", "/nonexistent/r.txt"), 3,
                         "--output /nonexistent/r.txt: directory /nonexistent does not exist")
        self.assertFalse(os.path.exists(self.db), "nothing measured, nothing stored")

    def test_compare_of_different_work(self):
        for args in (["triad", "-p", "n=1000"], ["triad", "-p", "n=2000"], ["dot", "-p", "n=1000"],
                     ["triad", "-p", "n=1000"]):
            self.rprof_ok("run", *args, "--repeat", "2", "--counters", "model", "-q")
        self.rprof_ok("compare", "1", "4")
        self.assertError(self.rprof("compare", "1", "2"), 2,
                         "compare: different parameters: run 1 measured triad n=1000, run 2 "
                         "triad n=2000; compare runs of one target and its parameters, or add "
                         "--force")
        self.assertError(self.rprof("compare", "1", "3"), 2, "compare: different targets")
        r = self.rprof("compare", "1", "3", "--force")
        self.assertEqual(r.returncode, 0, r)
        self.assertEqual(r.stderr, "rprof: warning: compare: different targets (--force): run 1 "
                         "measured triad n=1000, run 3 dot n=1000\n")

    def test_compare_of_program_arguments(self):
        for arg in ["a", "b"]:
            self.rprof_ok("run", *PMU, "-q", "-o", os.devnull, ECHO, arg)
        self.assertError(self.rprof("compare", "1", "2"), 2, "different program arguments")


class RepetitionsUnderSim(CommandLineTestCase):
    def test_help_says_how_often_a_program_runs(self):
        text = words(self.rprof_ok("help", "run", db=False).stdout)
        self.assertIn("with --counters sim a program runs N times natively, then once more "
                      "under valgrind", text)
        self.assertIn("auto never runs it a second time, so sim counts a program only with "
                      "--counters sim", text)


class CpuList(CommandLineTestCase):
    def allowed(self):
        return sorted(os.sched_getaffinity(0))

    def test_a_kernel_pinned_and_stored(self):
        cpu = str(self.allowed()[0])
        run = json.loads(self.rprof_ok("run", "triad", *FAST_RUN, "-C", cpu,
                                       "--format", "json").stdout)
        self.assertEqual(run["cpu_list"], cpu)
        self.assertEqual(self.scalar("select cpu_list from runs"), cpu)
        shown = self.rprof_ok("show", str(run["run_id"]))
        self.assertIn(f"\npinned to CPU list {cpu} (--cpu-list)\n", shown.stdout)
        self.assertEqual(json.loads(self.rprof_ok("show", "1", "--format", "json").stdout)
                         ["cpu_list"], cpu)

    def test_not_pinned_is_null(self):
        run = json.loads(self.rprof_ok("run", "triad", *FAST_RUN, "--format", "json").stdout)
        self.assertIsNone(run["cpu_list"])
        self.assertIsNone(self.scalar("select cpu_list from runs"))

    def test_a_program_runs_on_the_list(self):
        cpu = self.allowed()[-1]
        r = self.rprof("run", *PMU, "--cpu-list", str(cpu), "-o", os.devnull, "grep",
                       "Cpus_allowed_list", "/proc/self/status")
        self.assertEqual(r.returncode, 0, r)
        self.assertEqual(r.stdout, f"Cpus_allowed_list:\t{cpu}\n")

    def test_lists_are_canonical(self):
        allowed = self.allowed()
        if len(allowed) < 2 or allowed[1] != allowed[0] + 1:
            self.skipTest("needs two neighbouring CPUs")
        a, b = allowed[0], allowed[1]
        run = json.loads(self.rprof_ok("run", "triad", *FAST_RUN, "-C", f"{b},{a},{b}",
                                       "--format", "json").stdout)
        self.assertEqual(run["cpu_list"], f"{a}-{b}")

    def test_cpus_this_process_may_not_use(self):
        outside = self.allowed()[-1] + 1
        r = self.rprof("run", "triad", *FAST_RUN, "-C", f"0-{outside}")
        self.assertError(r, 2, f"--cpu-list 0-{outside}: this process may not use CPU",
                         "(it may use ")
        for bad, why in [("3-1", "ends before it starts"), ("a", "is not a CPU number"),
                         ("0,", "an empty item"), ("5000", "past the 1024 CPUs")]:
            with self.subTest(bad=bad):
                self.assertError(self.rprof("run", "triad", *FAST_RUN, "-C", bad), 2,
                                 f"--cpu-list {bad}: ", why)
        self.assertFalse(os.path.exists(self.db))


if __name__ == "__main__":
    rprof_harness.main()
