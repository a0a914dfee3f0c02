"""A hot function's time is the CPU time it had (issue 38), through the rprof binary without sim:
its cpu-clock samples x the sampling period per execution, never its share of the samples x the
run's wall time. The fixture (tests/cli_targets/off_cpu.c) computes in work() inside marker region
"work" for a known CPU time, about half of its wall time, and sleeps 40 % of it: work()'s time is
that CPU time and the region's, where share x wall overstated it by about 5/3. A program about
10 % on the CPU says so once, for the run (off_cpu_share), with its utilization; a region with
declared bytes and no FLOPs is not placed ("no FLOPs counted", and how to declare them), never
"bandwidth-bound at 0 %". Skips where perf_event_open refuses cpu-clock sampling."""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rprof_harness import SANITIZED, SANITIZED_SKIP, RprofTestCase, main  # noqa: E402
from fixtures import insert_profile  # noqa: E402

TARGETS = os.environ.get("RPROF_CLI_TARGETS", "")
WORK_S = 0.150  # off_cpu.c's default: work() computes 150 ms of its thread's CPU time


class SampledTime(RprofTestCase):
    def setUp(self):
        super().setUp()
        if SANITIZED:
            self.skipTest(SANITIZED_SKIP)
        self.program = os.path.join(TARGETS, "off_cpu")
        if not os.path.exists(self.program):
            self.skipTest("off_cpu was not built (tests/cli_targets/meson.build)")
        # A machine profile to place against, on the machine row a first run stores.
        self.rprof_program_ok("run", "--counters", "model", "--functions", "off", "/bin/true")
        insert_profile(self.db, threads=1)

    def run_json(self, name, *argv, repeat="3"):
        out_path = self.path(name + ".json")
        result = self.rprof_program_ok("run", "--counters", "auto", "--repeat", repeat,
                                       "--format", "json", "-o", out_path, self.program, *argv)
        with open(out_path) as f:
            out = json.load(f)
        if "sampling failed" in (out.get("note") or ""):
            self.skipTest("cpu-clock sampling refused here: " + out["note"])
        return out, result

    def test_a_functions_time_is_its_cpu_time_not_a_share_of_the_wall_time(self):
        out, _ = self.run_json("default")
        work = out["functions"]["work"]
        time = work["time_s"]["clock"]
        self.assertIn("cpu-clock samples", time["note"])
        self.assertIn("each thread's counted", time["note"])
        self.assertIn("not a share of the wall time", time["note"])
        # The CPU time work() computed for, by construction (it spins on its thread's CPU clock).
        self.assertAlmostEqual(time["value"] / WORK_S, 1, delta=0.15,
                               msg=f"sampled {time['value']} s ({time['note']})")
        # The fixture is one where share x wall time is wrong: it sleeps 40 % of its wall time.
        share_x_wall = work["time_share"]["clock"]["value"] * out["metrics"]["time_s"]["clock"][
            "value"]
        self.assertGreater(share_x_wall / time["value"], 1.3,
                           f"share x wall {share_x_wall} s, CPU time {time['value']} s")
        # The region around the same call: its CPU time (the pmu's task clock, where it counted
        # the region), and its wall time where the machine gave the thread a CPU throughout (on
        # a loaded one it also waited for a CPU inside the region).
        region = out["regions"]["work"]
        task_clock = region.get("perf::TASK-CLOCK", {}).get("pmu", {}).get("value")
        if task_clock:
            self.assertAlmostEqual(time["value"] / (task_clock / 1e9), 1, delta=0.15,
                                   msg=f"sampled {time['value']} s, region CPU {task_clock} ns")
        wall = region["time_s"]["clock"]["value"]
        if wall <= 1.15 * WORK_S:
            self.assertAlmostEqual(time["value"] / wall, 1, delta=0.15,
                                   msg=f"sampled {time['value']} s, region {wall} s")
        else:
            print(f"note: region work took {wall} s of wall time for {WORK_S} s of CPU time: "
                  "a loaded machine; held against the region's CPU time only")

    def test_a_region_with_bytes_and_no_flops_is_not_placed(self):
        out, _ = self.run_json("default", repeat="1")
        placement = out["regions"]["bytes_only"]["placement"]
        self.assertFalse(placement["placed"], placement)
        self.assertIsNone(placement["percent_of_roof"], placement)
        self.assertIn("no FLOPs counted", placement["reason"])
        self.assertIn('rprof_region_declare("bytes_only", flops, bytes)', placement["reason"])

    def test_a_program_mostly_off_the_cpu_says_so_once(self):
        # 20 ms of CPU time and 200 ms asleep: about 10 % utilized.
        out, result = self.run_json("idle", "20", "200", "0", repeat="1")
        off = out["metrics"]["off_cpu_share"]["clock"]
        self.assertGreater(off["value"], 0.7, off)
        self.assertIn("mostly off the CPU", off["note"])
        # About 0.1; a loaded machine's start-up adds CPU time, never past the threshold.
        self.assertRegex(off["note"], r"0\.[0-4]\d CPUs utilized")
        # Once, for the run: no function's note says it.
        for name, function in out["functions"].items():
            for metric in function.values():
                if isinstance(metric, dict) and "clock" in metric:
                    self.assertNotIn("off the CPU", metric["clock"].get("note") or "", name)
        # The text report says it too, once: the one-screen one, and among the run's metrics
        # (show -v lists them all).
        text = self.rprof_program_ok("run", "--counters", "auto", self.program, "20", "200", "0")
        run_id = re.match(r"run (\d+) ", text.stderr)
        self.assertIsNotNone(run_id, text.stderr)
        self.assertEqual(text.stderr.count("mostly off the CPU"), 1, text.stderr)
        shown = self.rprof("show", run_id.group(1), "-v")
        self.assertEqual(shown.returncode, 0, shown)
        self.assertEqual(shown.stdout.count("mostly off the CPU"), 1, shown.stdout)
        # A program that computes most of its time does not (on a loaded machine it may wait
        # for a CPU half of its time: then it does, with the run's own CPUs utilized).
        busy, _ = self.run_json("busy", "150", "0", "30", repeat="1")
        utilized = busy["metrics"]["cpus_utilized"]["clock"]["value"]
        self.assertEqual("off_cpu_share" in busy["metrics"], utilized < 0.5, busy["metrics"])

    def test_processes_one_after_another_are_not_threads_side_by_side(self):
        # A shell script running the program 4 times, one after the other, asleep between:
        # every process had samples, but one ran at a time. Counting each thread id made a
        # shell wrapper of 35 short processes "36 threads, off the CPU 99 %".
        script = self.path("one_after_another.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\nfor i in 1 2 3 4; do\n  " + self.program +
                    " 20 100 0 > /dev/null\ndone\n")
        os.chmod(script, 0o755)
        out_path = self.path("chain.json")
        self.rprof_program_ok("run", "--counters", "auto", "--format", "json", "-o", out_path,
                              script)
        with open(out_path) as f:
            out = json.load(f)
        if "sampling failed" in (out.get("note") or ""):
            self.skipTest("cpu-clock sampling refused here: " + out["note"])
        off = out["metrics"]["off_cpu_share"]["clock"]
        self.assertIn("with 1 thread sampled", off["note"])


if __name__ == "__main__":
    main()
