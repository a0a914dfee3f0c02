"""rprof calibrate through the real binary: the pmu source refused here with the reason when the
machine has no PMU, the sim source calibrated for real under valgrind (with rprofsim every level's
traffic trusted; with the callgrind fallback exact FLOPs trusted, the L1 write-backs it does not
simulate found and marked untrusted), the result stored whole,
and later runs carrying the verdict in their trust notes."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rprof_harness import RprofTestCase, main, make_database  # noqa: E402
from fixtures import insert_memory_levels, insert_profile  # noqa: E402


def has_pmu(test):
    out = json.loads(test.rprof_ok("doctor", "--format", "json", db=False).stdout)
    return any(c["name"] == "pmu" and c["status"] == "ok" for c in out["checks"])


class CalibrateUsage(RprofTestCase):
    def test_bad_options_are_usage_errors(self):
        self.assertError(self.rprof("calibrate", "--levels", "l1,l4"), 2, "--levels l4")
        self.assertError(self.rprof("calibrate", "--counters", "model"), 2, "--counters model")
        self.assertError(self.rprof("calibrate", "--counters", "sim", "--group", "MEM"), 2,
                         "--group applies to the pmu source")
        self.assertError(self.rprof("calibrate", "--tolerance", "0"), 2, "--tolerance")
        self.assertFalse(os.path.exists(self.db), "a usage error must not create the database")

    def test_pmu_without_hardware_counters_is_an_environment_error(self):
        if has_pmu(self):
            self.skipTest("this machine has hardware counters: the hw suite calibrates them")
        result = self.rprof("calibrate")
        self.assertError(result, 3, "hardware counters cannot be opened",
                         "rprof calibrate --counters sim")
        self.assertEqual(self.scalar("select count(*) from calibrations"), 0)

    def test_show_before_any_calibration(self):
        make_database(self.db)  # --show only reads: it never creates one
        out = self.rprof_ok("calibrate", "--show").stdout
        self.assertIn("never calibrated", out)
        self.assertEqual(json.loads(self.rprof_ok("calibrate", "--show", "-f", "json").stdout), [])


class CalibrateSim(RprofTestCase):
    def calibrate(self):
        out = self.rprof("calibrate", "--counters", "sim", "--levels", "l1,l2", "-f", "json",
                         timeout=300)
        self.assertEqual(out.returncode, 0, out)
        return json.loads(out.stdout)

    def test_rprofsim_traffic_trusted_at_every_level(self):
        doctor = json.loads(self.rprof_ok("doctor", "--format", "json", db=False).stdout)
        sim = next(c for c in doctor["checks"] if c["name"] == "sim")
        if "tool: rprofsim" not in sim["detail"]:
            self.skipTest("sim uses the callgrind fallback here: " + sim["detail"])
        # Small effective sizes from a profile, so that L3 and DRAM working sets stay quick to
        # simulate (DRAM: 64 MiB); calibrate simulates the very sizes it sizes the kernels by.
        self.rprof_ok("run", "triad", "-p", "n=1000", "-r", "1", "--counters", "model", "-q")
        profile = insert_profile(self.db)
        insert_memory_levels(self.db, profile, l1=(49152, 32768), l2=(2 << 20, 256 << 10),
                             l3=(32 << 20, 2 << 20))
        out = self.rprof("calibrate", "--counters", "sim", "-f", "json", timeout=600)
        self.assertEqual(out.returncode, 0, out)
        result = json.loads(out.stdout)
        l3 = [p for p in result["points"] if p["level"] == "l3" and p["kernel"] == "triad"]
        self.assertTrue(l3 and abs(l3[0]["working_set_bytes"] - (1 << 20)) < 4096, l3)
        metrics = result["metrics"]
        for name in ("flops_dp", "bytes_l1", "bytes_l2", "bytes_l3", "bytes_dram", "l1d_misses",
                     "llc_misses"):
            self.assertIn(name, metrics)
            self.assertTrue(metrics[name]["trusted"], (name, metrics[name]))
        # The cache levels' traffic, stores included, within 1 % at every size.
        for p in result["points"]:
            if p["metric"] in ("bytes_l2", "bytes_l3", "bytes_dram", "l1d_misses", "llc_misses"):
                self.assertAlmostEqual(p["ratio"], 1.0, delta=0.01, msg=p)
        levels = {p["level"] for p in result["points"] if p["metric"] == "bytes_l3"}
        self.assertEqual(levels, {"l3", "dram"})

    def test_exact_counts_trusted_and_missing_write_backs_found(self):
        # callgrind, the fallback where rprofsim is not built, has a known gap to find.
        self.env["RPROF_SIMTOOL"] = "none"
        result = self.calibrate()
        self.assertEqual(result["source"], "sim")
        metrics = result["metrics"]
        # FLOPs are exact in the simulator: ratio 1, trusted.
        for name in ("flops_dp", "flops_sp"):
            self.assertTrue(metrics[name]["trusted"], metrics[name])
            self.assertEqual(metrics[name]["min_ratio"], 1.0)
            self.assertEqual(metrics[name]["max_ratio"], 1.0)
        # callgrind does not simulate write-backs of dirty L1 lines: triad's L1<->L2 traffic is 3
        # line fills of the 4 lines' worth it moves per 8 elements.
        points = [p for p in result["points"]
                  if p["metric"] == "bytes_l2" and p["kernel"] == "triad"]
        self.assertEqual(len(points), 1, result["points"])
        self.assertAlmostEqual(points[0]["ratio"], 0.75, delta=0.01)
        self.assertFalse(metrics["bytes_l2"]["trusted"])
        self.assertNotIn("bytes_l3", metrics)  # checked in l3 and dram only

        # Stored whole: every point, with the machine and the tolerance.
        calibration = result["calibration_id"]
        self.assertEqual(self.scalar("select count(*) from calibration_points "
                                     "where calibration_id = ?", (calibration,)),
                         len(result["points"]))
        self.assertEqual(self.query("select source, tolerance_pct from calibrations"),
                         [("sim", 5.0)])
        self.assertEqual(self.query("select trusted from metric_trust where source = 'sim' "
                                    "and metric = 'bytes_l2'"), [(0,)])

        shown = self.rprof_ok("calibrate", "--show").stdout
        self.assertRegex(shown,
                         r"sim\s+callgrind\s+bytes_l2\s+\d+\s+0\.75\d* to 1\.0\d*\s+UNTRUSTED")
        self.assertEqual(self.query("select pmu from calibrations"), [("callgrind",)])

        doctor = json.loads(self.rprof_ok("doctor", "--format", "json").stdout)
        check = next(c for c in doctor["checks"] if c["name"] == "calibration")
        self.assertIn("sim (callgrind) untrusted: bytes_l2", check["detail"])
        if not has_pmu(self):
            self.assertEqual(check["status"], "limited")

        # A sim run of triad now says its bytes_l2 is untrusted here, stored with the run.
        run = self.run_json("triad", "-p", "n=20000", "--repeat", "1", "--counters", "sim")
        kinds = {note["kind"]: note["detail"] for note in run["trust"]}
        self.assertIn("untrusted", kinds, run["trust"])
        self.assertTrue(kinds["untrusted"].startswith("bytes_l2 (sim) is untrusted"), kinds)
        self.assertNotIn("flops_dp", kinds["untrusted"])
        self.assertEqual(self.scalar("select count(*) from run_trust where run_id = ? "
                                     "and kind = 'untrusted'", (run["run_id"],)), 1)
        table = self.rprof_ok("show", str(run["run_id"])).stdout
        self.assertIn("trust:\n", table)
        self.assertIn("untrusted: bytes_l2 (sim)", table)

        # callgrind's verdict is not rprofsim's: a run rprofsim counted does not carry it.
        del self.env["RPROF_SIMTOOL"]
        doctor = json.loads(self.rprof_ok("doctor", "--format", "json").stdout)
        if "tool: rprofsim" in next(c for c in doctor["checks"] if c["name"] == "sim")["detail"]:
            run = self.run_json("triad", "-p", "n=20000", "--repeat", "1", "--counters", "sim")
            self.assertNotIn("untrusted", {note["kind"] for note in run["trust"]}, run["trust"])


if __name__ == "__main__":
    main()
