"""The hw suite: what only a machine with a hardware PMU can check. Exits 77 (skip) with the reason
everywhere else. On a PMU machine: a metric group's FLOPs against the kernel's exact count, many
events taking turns on few counters and still agreeing with a run that counts one, and the pmu
calibration of this machine, printed (its table belongs in a closing note).

    meson test -C build --suite hw -v
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import rprof_harness  # noqa: E402
from rprof_harness import RprofTestCase  # noqa: E402


def pmu_or_skip():
    """Exits 77 unless rprof's doctor finds hardware counters here."""
    import subprocess
    out = subprocess.run([rprof_harness.RPROF, "doctor", "--format", "json"], capture_output=True,
                         text=True, check=False)
    checks = {c["name"]: c for c in json.loads(out.stdout)["checks"]}
    pmu = checks["pmu"]
    if pmu["status"] != "ok":
        print(f"skipped: no hardware counters here: {pmu['detail']}; {pmu['remedy']}")
        sys.exit(77)


class HardwareCounters(RprofTestCase):
    def pmu_value(self, run, name):
        metric = run["metrics"].get(name, {}).get("pmu")
        return metric["value"] if metric else None

    def test_flops_group_counts_triad_exactly(self):
        n = 64 * 1000  # 1.5 MiB: the count must not depend on where the data lives
        run = self.run_json("triad", "-p", f"n={n}", "--group", "FLOPS_DP", "--counters", "pmu")
        value = self.pmu_value(run, "flops_dp")
        if value is None:  # AMD Zen: no split by precision, the group gives the total
            value = self.pmu_value(run, "flops")
        self.assertIsNotNone(value, run["metrics"])
        print(f"triad n={n}: pmu FLOPs per call {value:.0f}, exact {2 * n}")
        self.assertAlmostEqual(value / (2 * n), 1, delta=0.05)

    def test_events_taking_turns_agree_with_one_event_alone(self):
        events = json.loads(self.rprof_ok("events", "--format", "json", db=False).stdout)
        presets = [e["name"] for e in events["events"]
                   if e["kind"] == "preset" and e["available"]][:16]
        self.assertIn("PAPI_TOT_INS", presets)
        args = ["triad", "-p", "n=64000", "--counters", "pmu", "--min-time", "1"]
        alone = self.run_json(*args, "--events", "PAPI_TOT_INS")
        many = self.run_json(*args, "--events", ",".join(presets), "--allow-missing-events")
        single = self.pmu_value(alone, "PAPI_TOT_INS")
        shared = many["metrics"]["PAPI_TOT_INS"]["pmu"]
        print(f"PAPI_TOT_INS per call: alone {single:.0f}; with {len(presets)} presets "
              f"{shared['value']:.0f} (coverage {shared.get('coverage', 1):.2f})")
        self.assertAlmostEqual(shared["value"] / single, 1, delta=0.05)
        partial = [name for name, by in many["metrics"].items()
                   if "pmu" in by and by["pmu"].get("coverage") is not None]
        if partial:
            kinds = [note["kind"] for note in many["trust"]]
            self.assertIn("multiplexed", kinds, many["trust"])

    def test_calibrate_this_machine(self):
        result = self.rprof("calibrate", "--levels", "l1,l2", timeout=600)
        print(result.stdout)
        self.assertEqual(result.returncode, 0, result)
        self.assertGreater(self.scalar("select count(*) from calibration_points "
                                       "where measured is not null"), 0)
        for metric, trusted in self.query("select metric, trusted from metric_trust "
                                          "where source = 'pmu'"):
            print(f"{metric}: {'trusted' if trusted else 'UNTRUSTED'}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(f"usage: {sys.argv[0]} PATH/TO/rprof")
    rprof_harness.RPROF = os.path.abspath(sys.argv[1])
    pmu_or_skip()
    rprof_harness.main()
