"""`rprof events` and `rprof doctor` on the real binary: every format parses, availability is found
by trying (a perf software event counts; on a machine without hardware counters PAPI_TOT_INS is
refused with the PMU named as the reason), events of another CPU's PMU are "not on this
machine", and doctor reports each check with a status and a remedy without creating the
database."""

import csv
import io
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rprof_harness  # noqa: E402
from rprof_harness import RprofTestCase  # noqa: E402

DOCTOR_CHECKS = ["perf_event_paranoid", "container", "pmu", "core_pmu", "hybrid", "uncore",
                 "rdpmc", "papi", "software_events", "metric_groups", "sim", "model", "gnuplot",
                 "database", "machine_profile", "calibration"]
STATUSES = {"ok", "limited", "missing"}

_hardware_pmu = None


def has_hardware_pmu(case):
    """Whether PAPI_TOT_INS counts here, asked of rprof itself (as errors_test does); once."""
    global _hardware_pmu
    if _hardware_pmu is None:
        r = case.rprof("run", "triad", "-p", "n=1000", "--repeat", "1", "--events",
                       "PAPI_TOT_INS", "--format", "json", db=case.path("probe.db"))
        _hardware_pmu = r.returncode == 0
        if _hardware_pmu:
            value = json.loads(r.stdout)["metrics"]["PAPI_TOT_INS"]["pmu"]["value"]
            case.assertGreater(value, 0, r)
    return _hardware_pmu


class Events(RprofTestCase):
    def events_json(self, *args):
        return json.loads(self.rprof_ok("events", *args, "--format", "json", db=False).stdout)

    def by_name(self, doc):
        return {e["name"]: e for e in doc["events"]}

    def test_help(self):
        r = self.rprof_ok("events", "--help", db=False)
        self.assertIn("usage: rprof events", r.stdout)
        self.assertIn("--all", r.stdout)

    def test_json_parses_and_task_clock_counts(self):
        doc = self.events_json()
        for key in ["host_pmu", "cpuid_pmu", "group_set", "hardware_counters", "events"]:
            self.assertIn(key, doc)
        self.assertTrue(doc["events"])
        for e in doc["events"]:
            self.assertEqual(set(e), {"name", "kind", "pmu", "status", "available", "reason",
                                      "remedy", "description", "groups"}, e)
            self.assertIn(e["status"], {"available", "unavailable", "not_on_this_machine"}, e)
            self.assertEqual(e["available"], e["status"] == "available", e)
            # A reason exactly when the event cannot be counted.
            self.assertEqual(e["reason"] is None, e["available"], e)
        names = [e["name"] for e in doc["events"]]
        self.assertEqual(len(names), len(set(names)), "each event once")
        task_clock = self.by_name(doc)["perf::TASK-CLOCK"]
        self.assertEqual(task_clock["kind"], "software")
        self.assertTrue(task_clock["available"], task_clock)

    def test_default_lists_the_group_events(self):
        doc = self.events_json()
        grouped = [e for e in doc["events"] if e["groups"]]
        self.assertTrue(grouped, "the events of this CPU's metric groups are listed")
        self.assertTrue(any(g.startswith(doc["group_set"] + "/") for e in grouped
                            for g in e["groups"]), doc["group_set"])

    def test_csv_parses(self):
        r = self.rprof_ok("events", "--format", "csv", db=False)
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        self.assertEqual(list(rows[0]), ["event", "kind", "pmu", "status", "reason", "remedy",
                                         "groups", "description"])
        task_clock = [row for row in rows if row["event"] == "perf::TASK-CLOCK"]
        self.assertEqual(len(task_clock), 1, r)
        self.assertEqual(task_clock[0]["status"], "available")
        self.assertEqual(task_clock[0]["reason"], "")

    def test_table(self):
        r = self.rprof_ok("events", db=False)
        lines = r.stdout.splitlines()
        header = next(line for line in lines if line.startswith("event "))
        self.assertEqual(header.split()[:3], ["event", "kind", "here"])
        row = next(line for line in lines if line.startswith("perf::TASK-CLOCK "))
        self.assertEqual(row.split()[1:3], ["software", "yes"])
        self.assertRegex(r.stdout, r"\n\d+ of \d+ events can be counted here\.\n")

    def test_event_names_whole_at_80_columns(self):
        # Issue 38: names were broken mid-token at 80 columns ("…::RETIRED_" / "SSE_…"); a
        # name is what --events takes. The groups column gives way first.
        names = [e["name"] for e in self.events_json()["events"]]
        env = dict(self.env, COLUMNS="80")
        text = self.rprof_ok("events", db=False, env=env).stdout
        firsts = {line.split()[0] for line in text.splitlines() if line and line[0] != " "}
        fits = [n for n in names if len(n) <= 60]  # past the line, a name has to wrap
        self.assertTrue(fits)
        self.assertEqual([n for n in fits if n not in firsts], [])

    def test_uncountable_hardware_event_names_the_pmu(self):
        if has_hardware_pmu(self):
            doc = self.events_json()
            self.assertTrue(self.by_name(doc)["PAPI_TOT_INS"]["available"])
            self.skipTest("this machine counts PAPI_TOT_INS: nothing to explain")
        doc = self.events_json()
        self.assertFalse(doc["hardware_counters"])
        self.assertIn("PAPI_TOT_INS", self.by_name(doc), "PAPI defines it for this CPU")
        tot_ins = self.by_name(doc)["PAPI_TOT_INS"]
        self.assertEqual(tot_ins["kind"], "preset")
        self.assertEqual(tot_ins["status"], "unavailable", tot_ins)
        self.assertIn("PMU", tot_ins["reason"], tot_ins)
        self.assertTrue(tot_ins["remedy"], tot_ins)
        with open("/proc/cpuinfo") as cpuinfo:
            if " hypervisor" in cpuinfo.read():
                self.assertIn("no hardware PMU in this virtual machine", tot_ins["reason"])
        # The table gives the remedy once, below the rows.
        table = self.rprof_ok("events", db=False).stdout
        self.assertEqual(table.count(tot_ins["remedy"]), 1, table)

    def test_other_cpu_pmu_is_not_on_this_machine(self):
        doc = self.events_json("--pmu", "icx", "--all")
        if doc["cpuid_pmu"] == "icx":
            self.skipTest("this CPU is an icx")
        fp = [e for e in doc["events"] if "::FP_ARITH_INST_RETIRED:" in e["name"]]
        names = {e["name"] for e in fp}
        for umask in ["SCALAR_DOUBLE", "128B_PACKED_DOUBLE", "256B_PACKED_DOUBLE",
                      "512B_PACKED_DOUBLE", "SCALAR_SINGLE"]:
            self.assertIn("icx::FP_ARITH_INST_RETIRED:" + umask, names)
        for e in fp:
            self.assertEqual(e["status"], "not_on_this_machine", e)
            self.assertEqual(e["pmu"], "icx")
            self.assertIn("on this machine", e["reason"])
            self.assertIn("icx", e["reason"], e)
        scalar = self.by_name(doc)["icx::FP_ARITH_INST_RETIRED:SCALAR_DOUBLE"]
        self.assertIn("icx/FLOPS_DP", scalar["groups"], "the icx groups that read it are named")
        table = self.rprof_ok("events", "--pmu", "icx", "--all", db=False).stdout
        row = next(line for line in table.splitlines()
                   if line.startswith("icx::FP_ARITH_INST_RETIRED:SCALAR_DOUBLE "))
        self.assertIn("not on this machine", row)

    def test_all_lists_more(self):
        default = self.events_json()["events"]
        everything = self.events_json("--all")["events"]
        self.assertGreater(len(everything), len(default))
        self.assertLessEqual({e["name"] for e in default}, {e["name"] for e in everything})

    def test_unknown_pmu_is_a_usage_error(self):
        r = self.rprof("events", "--pmu", "icxx", db=False)
        self.assertError(r, 2, "icxx", "did you mean 'icx'")

    def test_bad_format(self):
        self.assertError(self.rprof("events", "--format", "xml", db=False), 2, "--format xml")


class Doctor(RprofTestCase):
    def doctor_json(self, *args, db=True, env=None, code=0):
        r = self.rprof("doctor", "--format", "json", *args, db=db, env=env)
        self.assertEqual(r.returncode, code, r)
        doc = json.loads(r.stdout)
        return {c["name"]: c for c in doc["checks"]}, doc, r

    def test_help(self):
        r = self.rprof_ok("help", "doctor", db=False)
        self.assertIn("usage: rprof doctor", r.stdout)

    def test_json_one_entry_per_check(self):
        checks, doc, r = self.doctor_json()
        self.assertEqual(r.stderr, "", r)
        self.assertEqual([c["name"] for c in doc["checks"]], DOCTOR_CHECKS)
        for c in doc["checks"]:
            self.assertEqual(set(c), {"name", "status", "detail", "remedy"}, c)
            self.assertIn(c["status"], STATUSES, c)
            self.assertTrue(c["detail"], c)
            if c["status"] != "ok":
                self.assertTrue(c["remedy"], f"{c['name']} is {c['status']} without a remedy")
        self.assertTrue(doc["basic_job"], doc)
        self.assertIn("can do its job", doc["verdict"])

    def test_pmu_check(self):
        checks, _, _ = self.doctor_json()
        pmu = checks["pmu"]
        if has_hardware_pmu(self):
            self.assertEqual(pmu["status"], "ok", pmu)
            return
        self.assertEqual(pmu["status"], "missing", pmu)
        self.assertIn("PMU", pmu["detail"])
        with open("/proc/cpuinfo") as cpuinfo:
            if " hypervisor" in cpuinfo.read():
                self.assertIn("no hardware PMU", pmu["detail"])
        self.assertTrue(pmu["remedy"])
        self.assertEqual(checks["metric_groups"]["status"], "missing", checks["metric_groups"])

    def test_tools_found_here(self):
        checks, _, _ = self.doctor_json()
        self.assertEqual(checks["software_events"]["status"], "ok", checks["software_events"])
        self.assertEqual(checks["model"]["status"], "ok")
        self.assertEqual(checks["gnuplot"]["status"],
                         "ok" if shutil.which("gnuplot") else "missing", checks["gnuplot"])
        # valgrind 3.19 cannot execute AVX-512: sim is limited on a CPU that has it (each recorded
        # machine's verdict: recorded_machines_test's SimIsaLimit).
        with open("/proc/cpuinfo") as cpuinfo:
            avx512 = " avx512f" in cpuinfo.read()
        want = "missing" if not shutil.which("valgrind") else "limited" if avx512 else "ok"
        self.assertEqual(checks["sim"]["status"], want, checks["sim"])
        if shutil.which("valgrind"):
            self.assertIn("valgrind", checks["sim"]["detail"])
        if want == "limited":
            self.assertIn("this CPU has AVX-512, which valgrind 3.19 cannot execute",
                          checks["sim"]["detail"])
            self.assertIn("-mavx2", checks["sim"]["remedy"])

    def test_table_and_csv(self):
        r = self.rprof_ok("doctor")
        lines = r.stdout.splitlines()
        for name in DOCTOR_CHECKS:
            line = next((line for line in lines if line.split()[:1] == [name]), None)
            self.assertIsNotNone(line, f"{name} missing from\n{r.stdout}")
            self.assertIn(line.split()[1], STATUSES, line)
        self.assertIn("can do its job", lines[-1])
        rows = list(csv.DictReader(io.StringIO(self.rprof_ok("doctor", "--format", "csv").stdout)))
        self.assertEqual([row["name"] for row in rows], DOCTOR_CHECKS)

    def test_does_not_create_the_database(self):
        explicit = self.path("sub/dir/runs.db")
        checks, _, _ = self.doctor_json(db=explicit)
        self.assertFalse(os.path.exists(self.path("sub")))
        self.assertIn("does not exist", checks["database"]["detail"])
        self.assertEqual(checks["machine_profile"]["status"], "missing")
        self.assertIn("rprof machine measure", checks["machine_profile"]["remedy"])
        # The default path ($XDG_DATA_HOME/rprof/rprof.db): neither file nor directory appears.
        checks, _, _ = self.doctor_json(db=False)
        self.assertEqual(checks["database"]["status"], "ok", checks["database"])
        self.assertIn(os.path.join(self.env["XDG_DATA_HOME"], "rprof", "rprof.db"),
                      checks["database"]["detail"])
        self.assertFalse(os.path.exists(self.env["XDG_DATA_HOME"]))
        self.assertFalse(os.path.exists(self.db))

    def test_existing_database_without_profile(self):
        self.rprof_ok("run", "triad", *rprof_harness.FAST_RUN, "-q")
        checks, _, _ = self.doctor_json()
        self.assertEqual(checks["database"]["status"], "ok", checks["database"])
        self.assertIn("writable", checks["database"]["detail"])
        self.assertEqual(checks["machine_profile"]["status"], "missing")
        self.assertIn("no profile for this machine", checks["machine_profile"]["detail"])

    def test_no_flops_anywhere_exits_3(self):
        if has_hardware_pmu(self):
            self.skipTest("this machine counts in hardware: FLOPs without sim")
        env = dict(self.env)
        env["PATH"] = self.path("empty-path")  # no valgrind, no gnuplot
        os.makedirs(env["PATH"])
        checks, doc, r = self.doctor_json(env=env, code=3)
        self.assertFalse(doc["basic_job"])
        self.assertEqual(checks["sim"]["status"], "missing")
        self.assertIn("valgrind", checks["sim"]["remedy"])
        self.assertEqual(checks["gnuplot"]["status"], "missing")
        self.assertIn("apt-get install gnuplot-nox", checks["gnuplot"]["remedy"])
        self.assertError_once(r, "cannot do its basic job", "FLOP", "valgrind")

    def assertError_once(self, result, *parts):
        self.assertEqual(result.stderr.count("rprof: error: "), 1, result)
        for part in parts:
            self.assertIn(part, result.stderr, result)


if __name__ == "__main__":
    rprof_harness.main()
