"""How fast rprof lets go when asked (issue 14): the median and worst of N tries, each a ratio-free
wall time measured in one sitting.

  sim_sigint   SIGINT to rprof's process group during the sim step of triad n=5e6, until rprof
               exits (status 1, the run stored interrupted)
  kill9        kill -9 of rprof profiling a long program, until that program is gone
  sigterm      SIGTERM to rprof whose program ignores it, until rprof exits (the 2 s grace)

Usage: signal_latency.py PATH/TO/rprof PATH/TO/cli_targets [N]   (meson test --benchmark)
"""

import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

# The /proc helpers the end-to-end tests watch processes with: one copy, in tests/cli/fixtures.py.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from fixtures import alive, children  # noqa: E402


def main():
    rprof, targets = sys.argv[1], sys.argv[2]
    tries = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    tmp = tempfile.mkdtemp(prefix="rprof-bench-")
    env = dict(os.environ, RPROF_DB=os.path.join(tmp, "runs.db"), TMPDIR=tmp)
    stubborn = [rprof, "run", "--counters", "model", os.path.join(targets, "stubborn")]
    times = {"sim_sigint": [], "kill9": [], "sigterm": []}
    sim = shutil.which("valgrind") and not os.environ.get("RPROF_SANITIZED")
    for _ in range(tries):
        if sim:
            p = subprocess.Popen([rprof, "run", "triad", "-p", "n=5000000"], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=True)
            while not children(p.pid) and p.poll() is None:
                time.sleep(0.01)
            time.sleep(0.5)
            start = time.monotonic()
            os.killpg(p.pid, signal.SIGINT)
            p.wait()
            times["sim_sigint"].append(time.monotonic() - start)
        for case in ("kill9", "sigterm"):
            p = subprocess.Popen(stubborn, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, start_new_session=True, text=True)
            p.stdout.readline()
            program = children(p.pid)[0]
            start = time.monotonic()
            if case == "kill9":
                p.kill()
                p.wait()
                while alive(program):
                    time.sleep(0.001)
            else:
                p.send_signal(signal.SIGTERM)
                p.wait()
            times[case].append(time.monotonic() - start)
    for case, values in times.items():
        if values:
            print(f"{case:11} median {statistics.median(values):.3f} s  max {max(values):.3f} s"
                  f"  ({len(values)} tries)")
    left = [n for n in os.listdir(tmp) if n.startswith("rprof-")]
    print("temporary directories left:", left or "none")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
