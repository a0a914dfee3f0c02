"""The machine matrix: rprof's counting path on the machines users bring, reproduced on whatever
machine runs the suite (issue 35). A machine here is a PAPI state times a PMU state:

PAPI states, set through PAPI's and libpfm4's own environment variables:
  this-papi        nothing forced: this machine's PAPI as it is
  no-presets       PAPI_CSV_EVENT_FILE=<empty>: the CPU component active, no preset defined
                   (PAPI 7.0 on a Sapphire Rapids guest that libpfm4 reads as icl)
  component-off    LIBPFM_DISABLED_PMUS=<this CPU's core PMU>: libpfm4 does not know the CPU, so
                   PAPI switches its CPU component off (Debian's libpfm4 on Zen 5)
PMU states, set with the suite's fake PMU (tests/fake_pmu, LD_PRELOAD):
  no-pmu           hardware, cache and raw events refused with ENOENT: a KVM guest without a
                   vPMU, whatever this machine has
  pmu              hardware events answered by software clocks: a machine with a PMU (values
                   are no measurement, and every run says so; tests assert flow, not values)

So "no-presets/no-pmu" is the Intel Xeon guest where every kernel run failed, and
"component-off/no-pmu" the Zen 5 guest where the suite was green. Two more machines refuse one
thing: "no-presets/pmu-without-cycles" (one event the PMU lacks) and "this-papi/no-attach" (a
machine that forbids counting another process: a container's seccomp, Yama's ptrace_scope 3).

Each machine runs a kernel under every --counters choice, a program that forks a child, the
events a user names, and doctor.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rprof_harness  # noqa: E402
from rprof_harness import RprofTestCase  # noqa: E402

FAKE_PMU = os.environ.get("RPROF_FAKE_PMU_LIBRARY", "")
KERNEL = ["triad", "-p", "n=20000", "--repeat", "3"]
# A program that forks: a subshell does its work in a child process.
PROGRAM = ["/bin/sh", "-c", "(i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done); echo forked"]
FAKE_NOTE = "librprof-fake-pmu.so answers hardware events"
# A program of some 25 ms in one process: enough cpu-clock samples (0.5 ms apart) to decode.
BUSY_PROGRAM = ["/bin/sh", "-c", "i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done"]


def papi_cpu_component():
    """(active, core PMU names, presets defined) of PAPI's perf_event component here, from
    papi_component_avail; None when the tool is missing. PAPI defines presets for the CPUs its
    papi_events.csv knows: none for a guest that libpfm4 reads as a core it has no table for
    (the Intel Xeon guest, model 0xa7, read as icl: 'Preset: 0')."""
    tool = shutil.which("papi_component_avail")
    if not tool:
        return None
    out = subprocess.run([tool], capture_output=True, text=True, timeout=60).stdout
    active = out.split("Active components:", 1)[1] if "Active components:" in out else ""
    match = re.search(r"Name:\s+perf_event\s.*?Preset:\s*(\d+).*?PMUs supported:\s*([^\n]*)",
                      active, re.S)
    if not match:
        return (False, [], 0)
    pmus = [p.strip() for p in match.group(2).split(",")]
    return (True, [p for p in pmus if p and p not in ("perf", "perf_raw")], int(match.group(1)))


PAPI_HERE = papi_cpu_component()


class Machine:
    """One machine of the matrix: its name, the environment that makes this one look like it,
    and what it has."""

    def __init__(self, papi, pmu):
        self.papi = papi  # "this-papi", "no-presets", "component-off"
        self.pmu = pmu    # "no-pmu", "pmu", "pmu-without-cycles", "no-attach"
        self.name = f"{papi}/{pmu}"

    @property
    def has_pmu(self):
        return self.pmu != "no-pmu"

    def environment(self, base, tmp):
        env = dict(base)
        if self.papi == "no-presets":
            empty = os.path.join(tmp, "no-presets.csv")
            open(empty, "w").close()
            env["PAPI_CSV_EVENT_FILE"] = empty
        elif self.papi == "component-off":
            env["LIBPFM_DISABLED_PMUS"] = ",".join(PAPI_HERE[1])
        rules = {"no-pmu": "refuse=counters:ENOENT", "pmu": "",
                 "pmu-without-cycles": "refuse=cycles:ENOENT",
                 "no-attach": "refuse=attach:EACCES"}[self.pmu]
        env["LD_PRELOAD"] = FAKE_PMU
        env["RPROF_FAKE_PMU"] = rules
        env["RPROF_FAKE_PMU_LOG"] = os.path.join(tmp, "fake-pmu.log")
        # An ASan rprof with a preloaded library that is not ASan's (sanitized builds).
        if "ASAN_OPTIONS" in env:
            env["ASAN_OPTIONS"] += ":verify_asan_link_order=0"
        return env

    def skip_reason(self):
        if not FAKE_PMU or not os.path.exists(FAKE_PMU):
            return "the fake PMU library is not built (RPROF_FAKE_PMU_LIBRARY)"
        if PAPI_HERE is None:
            return "papi_component_avail (Debian papi-tools) is missing: PAPI's state is unknown"
        if self.papi in ("this-papi", "no-presets") and not PAPI_HERE[0]:
            # Forcing a PMU would switch it on, but libpfm4 then drops its generic perf:: events,
            # which the machines this state stands for have: it would test another machine.
            return ("PAPI's CPU component is off on this machine (libpfm4 does not know its CPU); "
                    "this machine is itself the component-off case")
        if self.papi == "component-off" and not PAPI_HERE[1]:
            return "PAPI names no core PMU here to disable"
        return ""


class MatrixCase(RprofTestCase):
    machine = None  # set by the subclasses below

    def setUp(self):
        super().setUp()
        why = self.machine.skip_reason()
        if why:
            self.skipTest(why)
        self.env = self.machine.environment(self.env, self.tmp)

    def run_stored(self, *args):
        """`rprof run ARGS --format json`: the result and the run it printed (None when not 0)."""
        # rprof's options first: after a program's name every word is the program's.
        result = self.rprof("run", "--format", "json", "-o", self.path("run.json"), *args)
        run = None
        if result.returncode == 0:
            with open(self.path("run.json")) as f:
                run = json.load(f)
        return result, run

    def pmu_values(self, run):
        return {name: by_source["pmu"] for name, by_source in run["metrics"].items()
                if "pmu" in by_source}

    def assertOkRun(self, result, run):
        self.assertEqual(result.returncode, 0, f"{self.machine.name}: {result}")
        self.assertNotIn("rprof: error", result.stderr, result)
        self.assertEqual(run["status"], "ok", run)

    def assertFakeSaid(self, run):
        """Under the fake, a run with pmu values says they are no measurement."""
        if "pmu" in run["sources"]:
            self.assertIn(FAKE_NOTE, run["note"] or "", run)

    # --- kernels, every --counters choice ---------------------------------------------------

    def test_kernel_auto(self):
        result, run = self.run_stored(*KERNEL)
        self.assertOkRun(result, run)
        pmu = self.pmu_values(run)
        if self.machine.pmu == "no-attach":
            # Nobody asked for these counts: absent with the reason, and the run goes on.
            self.assertTrue(pmu, run)
            for name, value in pmu.items():
                self.assertIsNone(value["value"], (name, value))
                self.assertIn("not counted", value["note"], (name, value))
            return
        self.assertGreater(pmu["perf::TASK-CLOCK"]["value"], 0, pmu)
        for preset in ("PAPI_TOT_INS", "PAPI_TOT_CYC"):
            counted = self.machine.has_pmu and not (
                preset == "PAPI_TOT_CYC" and self.machine.pmu == "pmu-without-cycles")
            value = pmu[preset]
            if counted:
                self.assertGreater(value["value"], 0, (preset, value))
            else:
                self.assertIsNone(value["value"], (preset, value))
                self.assertTrue(value["note"], (preset, value))
        self.assertFakeSaid(run)

    def test_kernel_sim(self):
        if rprof_harness.SANITIZED:
            self.skipTest(rprof_harness.SANITIZED_SKIP)
        if not shutil.which("valgrind"):
            self.skipTest("valgrind is missing")
        result, run = self.run_stored(*KERNEL, "--counters", "sim")
        self.assertOkRun(result, run)
        self.assertIn("sim", run["sources"], run)
        self.assertEqual(run["metrics"]["flops"]["sim"]["value"], 2 * 20000, run["metrics"]["flops"])

    def test_program_sim_expected_from_its_code(self):
        # Before a replay of its own, a program is expected from its sampled code (its CPU time
        # at the decoded mix's slowdown), or, where nothing was sampled (no-attach: the sampler's
        # perf_event_open refused too), from its native time at callgrind's typical slowdown.
        if rprof_harness.SANITIZED:
            self.skipTest(rprof_harness.SANITIZED_SKIP)
        if not shutil.which("valgrind"):
            self.skipTest("valgrind is missing")
        if self.machine.pmu in ("pmu", "pmu-without-cycles"):
            # The path with counted instructions (their count at the mix's cost per
            # instruction) is sim_estimate's unit test: the fake's "instructions" are its task
            # clock, which the replay's count never matches, so the replay's counts and time are
            # dropped as other work.
            self.skipTest("the fake PMU's instruction count is its task clock")
        result, run = self.run_stored("--counters", "sim", *BUSY_PROGRAM)
        self.assertOkRun(result, run)
        note = run["metrics"]["sim_replay_s"]["clock"]["note"]
        sampled = self.machine.pmu != "no-attach"
        self.assertIn("x the native CPU time" if sampled else "the reference cost of the work",
                      note, self.machine.name)

    def test_kernel_pmu(self):
        result, run = self.run_stored(*KERNEL, "--counters", "pmu")
        if self.machine.pmu == "no-attach":
            # Chosen by name: it must count or say why, and nothing is stored.
            self.assertError(result, 3, "rprof: error: counters: ")
            self.assertEqual(self.scalar("SELECT count(*) FROM runs"), 0)
            return
        self.assertOkRun(result, run)
        self.assertIn("pmu", run["sources"], run)
        self.assertFakeSaid(run)

    def test_kernel_model(self):
        result, run = self.run_stored(*KERNEL, "--counters", "model")
        self.assertOkRun(result, run)
        self.assertEqual(run["sources"], ["clock", "model"], run)

    def test_kernel_named_presets(self):
        """-e PAPI_TOT_INS,PAPI_TOT_CYC: both counted where the PMU has them (through their
        generic stand-ins where PAPI defines no preset: no-presets, and this-papi on a CPU PAPI
        has no table for), else the run fails naming the first."""
        result, run = self.run_stored(*KERNEL, "--counters", "pmu",
                                      "-e", "PAPI_TOT_INS,PAPI_TOT_CYC")
        if self.machine.pmu in ("no-pmu", "pmu-without-cycles", "no-attach"):
            self.assertError(result, 3, "cannot" if self.machine.pmu != "no-attach" else "")
            return
        self.assertOkRun(result, run)
        pmu = self.pmu_values(run)
        for preset, generic in (("PAPI_TOT_INS", "perf::INSTRUCTIONS"),
                                ("PAPI_TOT_CYC", "perf::CYCLES")):
            self.assertGreater(pmu[preset]["value"], 0, pmu)
            stand_in = f"its stand-in {generic} (PAPI defines no {preset}"
            if self.machine.papi == "this-papi" and PAPI_HERE[2] > 0:
                self.assertNotIn(stand_in, pmu[preset].get("note") or "", pmu)
            else:
                self.assertIn(stand_in, pmu[preset]["note"], pmu)
        self.assertFakeSaid(run)

    def test_perf_names(self):
        """perf's own names, as `perf stat -e instructions,cycles` takes them."""
        result, run = self.run_stored(*KERNEL, "--counters", "pmu", "-e", "instructions,cycles",
                                      "--allow-missing-events")
        if self.machine.pmu == "no-attach":
            self.assertError(result, 3)
            return
        self.assertOkRun(result, run)
        pmu = self.pmu_values(run)
        self.assertEqual(pmu["PAPI_TOT_INS"]["value"] is not None, self.machine.has_pmu, pmu)

    # --- programs ---------------------------------------------------------------------------

    def test_program_forking(self):
        result, run = self.run_stored("--counters", "pmu", "-e", "PAPI_TOT_INS", *PROGRAM)
        if self.machine.pmu in ("no-pmu", "no-attach"):
            self.assertError(result, 3, "cannot open event PAPI_TOT_INS")
            return
        self.assertOkRun(result, run)
        self.assertIn("forked", result.stdout)
        self.assertGreater(self.pmu_values(run)["PAPI_TOT_INS"]["value"], 0, run)
        self.assertFakeSaid(run)

    def test_program_auto(self):
        result, run = self.run_stored("--counters", "pmu", *PROGRAM)
        self.assertOkRun(result, run)
        task_clock = self.pmu_values(run)["perf::TASK-CLOCK"]
        if self.machine.pmu == "no-attach":
            self.assertIsNone(task_clock["value"], task_clock)
        else:
            self.assertGreater(task_clock["value"], 0, task_clock)

    # --- doctor -------------------------------------------------------------------------------

    def test_doctor(self):
        result = self.rprof("doctor", "--format", "json", db=False)
        doc = json.loads(result.stdout)
        checks = {c["name"]: c for c in doc["checks"]}
        counting = checks["software_events"]
        if self.machine.pmu == "no-attach":
            # A kernel cannot count here: doctor must not call the machine fit for its job.
            self.assertEqual(counting["status"], "missing", counting)
            self.assertIn("kernels: ", counting["detail"])
            self.assertFalse(doc["basic_job"], doc)
            self.assertEqual(result.returncode, 3, result)
            return
        self.assertEqual(counting["status"], "ok", counting)
        self.assertEqual(checks["pmu"]["status"], "limited" if self.machine.has_pmu else "missing",
                         checks["pmu"])
        # PAPI counts kernels only where it can attach to the worker: with its CPU component on
        # and a PMU for its attach's own hardware event.
        papi = self.machine.has_pmu and self.machine.papi != "component-off"
        self.assertIn("through PAPI" if papi else "through perf_event_open", counting["detail"])

    def test_papi_attaches_to_the_worker(self):
        """Where PAPI counts, its event sets are opened on the measuring worker: the fake's log
        shows opens on a process other than rprof (its attach's own instructions event first)."""
        if not self.machine.has_pmu or self.machine.papi == "component-off":
            self.skipTest("rprof counts this machine through perf_event_open")
        if self.machine.pmu == "no-attach":
            self.skipTest("nothing can be opened on the worker here (test_kernel_pmu)")
        result, run = self.run_stored(*KERNEL, "--counters", "pmu")
        self.assertOkRun(result, run)
        with open(self.env["RPROF_FAKE_PMU_LOG"]) as f:
            log = f.read().splitlines()
        on_worker = [line for line in log
                     if re.search(r"target=(\d+)", line) and
                     re.search(r"target=(\d+)", line).group(1) not in ("0",) and
                     re.search(r"pid=(\d+)", line).group(1) !=
                     re.search(r"target=(\d+)", line).group(1)]
        self.assertTrue(any("type=0 config=0x1 " in line for line in on_worker), log)


MACHINES = [Machine(papi, pmu) for papi in ("this-papi", "no-presets", "component-off")
            for pmu in ("no-pmu", "pmu")]
MACHINES += [Machine("no-presets", "pmu-without-cycles"), Machine("this-papi", "no-attach")]

for machine in MACHINES:
    name = "Test_" + re.sub(r"\W", "_", machine.name)
    globals()[name] = type(name, (MatrixCase,), {"machine": machine})
del MatrixCase  # the base class holds no machine: unittest must not run it

if __name__ == "__main__":
    rprof_harness.main()
