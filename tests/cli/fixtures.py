"""The fixtures the end-to-end tests share: the states they start from, the programs they run and
the /proc helpers they watch processes with. Every test script imports what it shares from here
(or from rprof_harness, which runs rprof and reads back what it stored); no script imports
another test script.

State is built through rprof's own commands wherever one makes it: runs with `rprof run` (a fast
built-in kernel: RUN, rprof_harness.FAST_RUN) or `rprof import` of a run's JSON, edited where a
test needs a run no measurement gives (import_run_json); databases from others with `rprof merge`;
a state without some rows is a copy taken before they were stored (rprof_harness.copy_database),
not a DELETE. A machine profile with chosen ceilings has no command, by design: rprof stores only
profiles it measured, and `rprof machine measure --quick` takes seconds of busy cores and gives
ceilings no test can know. So a profile's rows are written here with SQL, one function per table
(machine_profiles, ceilings, memory_levels), each saying why; test scripts hold no INSERT or UPDATE
of their own but where the store itself is under test (store safety, schema migration, corruption).
"""

import glob
import json
import os
import re
import shutil
import signal
import sqlite3
import unittest

import rprof_harness

# Runs of the model (no counters needed, deterministic FLOPs and bytes), two repetitions, quiet.
RUN = ["--counters", "model", "--repeat", "2", "-q"]
PMU = ["--counters", "pmu"]

# (kind, name, level, isa, precision, pattern, threads, value): the profile plot_test draws,
# with a best pattern and others per level, and ceilings on 2 threads.
CEILINGS = [
    ("compute", "fp64_scalar_add", "", "scalar", "fp64", "add", 1, 4.5),
    ("compute", "fp64_scalar_fma", "", "scalar", "fp64", "fma", 1, 7.6),
    ("compute", "fp64_avx2_fma", "", "avx2", "fp64", "fma", 1, 55.5),
    ("compute", "fp64_avx2_add", "", "avx2", "fp64", "add", 1, 27.5),
    ("compute", "fp32_avx2_fma", "", "avx2", "fp32", "fma", 1, 111),
    ("compute", "fp64_avx2_fma", "", "avx2", "fp64", "fma", 2, 222),
    ("bandwidth", "l1_load", "l1", "avx2", "fp64", "load", 1, 436),
    ("bandwidth", "l2_load", "l2", "avx2", "fp64", "load", 1, 157),
    ("bandwidth", "l3_load", "l3", "avx2", "fp64", "load", 1, 90),
    ("bandwidth", "dram_load", "dram", "avx2", "fp64", "load", 1, 13.4),
    ("bandwidth", "dram_triad", "dram", "avx2", "fp64", "triad", 1, 25),
    ("bandwidth", "dram_copy_nt", "dram", "avx2", "fp64", "copy_nt", 1, 50),
    ("bandwidth", "l1_load", "l1", "avx2", "fp64", "load", 2, 872),
    ("bandwidth", "dram_triad", "dram", "avx2", "fp64", "triad", 2, 27.7),
]

# Known ceilings on 1 and 2 threads for the roofs of programs (precision and thread count from
# their own work): programs_test.py and code_roof_test.py.
ROOF_CEILINGS = [
    ("compute", "fp64_scalar_fma", "", "scalar", "fp64", "fma", 1, 7.5),
    ("compute", "fp64_avx2_fma", "", "avx2", "fp64", "fma", 1, 50),
    ("compute", "fp32_scalar_fma", "", "scalar", "fp32", "fma", 1, 7.5),
    ("compute", "fp32_avx2_fma", "", "avx2", "fp32", "fma", 1, 100),
    ("compute", "fp64_scalar_fma", "", "scalar", "fp64", "fma", 2, 15),
    ("compute", "fp64_avx2_fma", "", "avx2", "fp64", "fma", 2, 95),
    ("compute", "fp32_avx2_fma", "", "avx2", "fp32", "fma", 2, 190),
    ("bandwidth", "l1_load", "l1", "avx2", "fp64", "load", 1, 400),
    ("bandwidth", "l2_load", "l2", "avx2", "fp64", "load", 1, 150),
    ("bandwidth", "dram_triad", "dram", "avx2", "fp64", "triad", 1, 20),
    ("bandwidth", "l1_load", "l1", "avx2", "fp64", "load", 2, 800),
    ("bandwidth", "l2_load", "l2", "avx2", "fp64", "load", 2, 300),
    ("bandwidth", "dram_triad", "dram", "avx2", "fp64", "triad", 2, 30),
]


# --- Machine profiles: SQL, as no command stores a profile rprof did not measure -------------

def _write(db, write):
    """Runs write(con) in one transaction on db."""
    con = sqlite3.connect(db)
    try:
        with con:
            return write(con)
    finally:
        con.close()


def _machine_profiles_row(con, threads, noisy, noisy_reasons):
    """The machine_profiles row for the machine of the runs in the database (the one machine
    row `rprof run` stored); returns its id. SQL: `rprof machine measure` is the only writer of
    this table and measures (seconds of busy cores, ceilings no test can know)."""
    (machine_id,) = con.execute("select id from machines").fetchone()
    return con.execute(
        "insert into machine_profiles (machine_id, mode, threads, isa, nominal_ghz,"
        " clock_ghz_scalar, clock_ghz_vector, load_average_before, seconds, warnings,"
        " created_at, rprof_version, noisy, noisy_reasons) values (?, 'quick', ?,"
        " 'sse2 avx avx2 fma', 2.6, 3.8, 3.45, 0.1, 9.5, '',"
        " '2026-01-01T00:00:00.000Z', '0.1.0', ?, ?)",
        (machine_id, threads, 1 if noisy else 0, noisy_reasons)).lastrowid


def _ceilings_rows(con, profile_id, ceilings, spread_pct):
    """The profile's ceilings, each (kind, name, level, isa, precision, pattern, threads, value),
    with a spread of 1 % but those named in spread_pct ({name: percent}). SQL: measured only by
    `rprof machine measure`, as the profile is."""
    con.executemany(
        "insert into ceilings (profile_id, kind, name, level, isa, precision, pattern,"
        " threads, working_set_bytes, value, unit, spread_pct, repetitions)"
        " values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 5)",
        [(profile_id, kind, name, level, isa, precision, pattern, threads,
          0 if kind == "compute" else 1 << 20, value,
          "GFLOP/s" if kind == "compute" else "GB/s", spread_pct.get(name, 1.0))
         for kind, name, level, isa, precision, pattern, threads, value in ceilings])


def _memory_levels_rows(con, profile_id, levels):
    """The profile's memory levels, each (level, reported_size, effective_size, size_bytes,
    size_rule). SQL: `rprof machine measure` decides them from measured ladders."""
    con.executemany("insert into memory_levels (profile_id, level, reported_size,"
                    " effective_size, size_bytes, size_rule) values (?, ?, ?, ?, ?, ?)",
                    [(profile_id, *level) for level in levels])


def insert_profile(db, ceilings=None, threads=2, noisy_reasons=None, noisy=None,
                   spread_pct=None):
    """A machine profile with `ceilings` (default CEILINGS) for the machine of the runs in db
    (a run must be stored first), marked noisy when `noisy_reasons` is given (or `noisy` says
    so: noisy=True without reasons is a profile marked noisy in the database by hand); each
    ceiling's spread is 1 % but those `spread_pct` ({ceiling name: percent}) names. Returns its
    id."""
    if noisy is None:
        noisy = bool(noisy_reasons)

    def write(con):
        profile_id = _machine_profiles_row(con, threads, noisy, noisy_reasons)
        _ceilings_rows(con, profile_id, ceilings or CEILINGS, spread_pct or {})
        return profile_id
    return _write(db, write)


def insert_memory_levels(db, profile, l1, l2, l3, rule="measured"):
    """The profile's memory levels, each (reported_size, effective_size) in bytes. With a
    measured `rule` (the default: as if repeated sound profiles had measured them) each level is
    given its effective size, which the sim source then simulates; with rule "reported" (or None:
    a profile stored before rprof decided sizes) sim simulates the reported sizes."""
    def given(sizes):
        if rule is None:
            return (None, None)
        return (sizes[0] if rule == "reported" else sizes[1], rule)
    _write(db, lambda con: _memory_levels_rows(con, profile, [
        ("l1", *l1, *given(l1)), ("l2", *l2, *given(l2)), ("l3", *l3, *given(l3)),
        ("dram", 0, 0, None, None)]))


# --- Runs: through `rprof import`, no SQL ----------------------------------------------------

def import_run_json(test, run_id, into, source=True, **changes):
    """Run run_id as `rprof show --format json` gives it from the test's database (source: a
    path, or True for test.db), with `changes` to its fields, stored in database `into` by
    `rprof import`: a run as an older rprof stored it, a copy of a run that disagrees with the
    original, a kernel's run that crashed (rprof's own kernels cannot crash). Import stores a
    uid once: `into` is another database than the source. Returns the id `import` stored it
    under."""
    shown = json.loads(test.rprof_ok("show", str(run_id), "--format", "json", db=source).stdout)
    shown.update(changes)
    path = test.path(f"run-{run_id}-edited.json")
    with open(path, "w") as f:
        json.dump(shown, f)
    out = test.rprof_ok("import", path, db=into).stdout
    stored = re.search(r"stored as run (\d+)", out)
    test.assertIsNotNone(stored, out)
    return int(stored.group(1))


# --- Programs rprof runs ---------------------------------------------------------------------

def build_dir():
    """The build folder: rprof is BUILD/profiler/rprof."""
    return os.path.dirname(os.path.dirname(rprof_harness.RPROF))


def cli_target(name):
    """A program of tests/cli_targets (meson says where through RPROF_CLI_TARGETS; else the
    build folder's)."""
    folder = os.environ.get("RPROF_CLI_TARGETS") or os.path.join(build_dir(), "tests",
                                                                 "cli_targets")
    return os.path.join(folder, name)


def program(name):
    """An ELF program of the system (echo, sleep, sh, true) by its full path: /bin/NAME, else
    where PATH has it."""
    if os.access(f"/bin/{name}", os.X_OK):
        return f"/bin/{name}"
    found = shutil.which(name)
    if not found:
        raise unittest.SkipTest(f"no {name} on PATH")
    return found


def sim_unavailable():
    """Why sim cannot run here, or None."""
    if os.environ.get("RPROF_SANITIZED"):
        return "valgrind cannot run ASan binaries (sanitizer build)"
    if not shutil.which("valgrind"):
        return "valgrind not found"
    return None


# --- Processes, from /proc -------------------------------------------------------------------

def alive(pid):
    """Whether pid is a live process (a zombie waiting for its reaper is not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def children(pid):
    """The direct children of pid, from /proc."""
    found = []
    for path in glob.glob(f"/proc/{pid}/task/*/children"):
        try:
            with open(path) as f:
                found += [int(p) for p in f.read().split()]
        except OSError:
            pass
    return found


def comm(pid):
    """The process's name, "" once it is gone."""
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def catches_sigint(pid):
    """Whether process pid has a handler installed for SIGINT."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (signal.SIGINT - 1) & 1)
    except OSError:
        pass
    return False
