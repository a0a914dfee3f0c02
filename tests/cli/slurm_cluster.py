"""A one-node Slurm cluster of the test's own, entirely inside a temporary folder: its own munge
key and munged, a slurm.conf on free TCP ports, slurmctld and slurmd in the foreground as child
processes of the test. Nothing of the machine's own Slurm or munge setup (/etc/slurm,
/etc/munge, systemd) is read or touched, so it runs on a developer's machine or in CI as it does
on a cluster's login node, and goes away with the test.

    with SlurmCluster() as cluster:
        subprocess.run(["srun", "-n", "2", "hostname"], env=cluster.env())

Raises Unavailable (a reason, in words) when a binary is missing or the daemons cannot start
here; a test then skips with that reason (exit 77). The daemons run as root (SlurmUser=root):
Slurm needs root to start a job's processes as their user, and that is all this folder is for.
"""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

SLURM_PLUGIN_DIRS = ["/usr/lib/x86_64-linux-gnu/slurm-wlm", "/usr/lib/slurm-wlm",
                     "/usr/lib64/slurm", "/usr/lib/slurm"]
DAEMONS = ["munged", "mungekey", "slurmctld", "slurmd"]
CLIENTS = ["srun", "sbatch", "salloc", "sinfo", "squeue", "scontrol", "scancel"]
INSTALL_HINT = "Debian: slurm-wlm and munge, installed by scripts/bootstrap"
# A start, on a loaded two-core machine, takes a few seconds: slurmd registers, slurmctld marks
# the node idle.
START_TIMEOUT_S = 60


class Unavailable(Exception):
    """Slurm cannot run here: the reason, in words, for a test's SKIP line."""


def _which(name):
    # The daemons are in sbin, which a user's PATH may lack.
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin:/usr/local/sbin")


def _free_port():
    # Chosen by the kernel, then released for the daemon to bind: another process could take it
    # in between, which a start then reports as a failure to bind, with the daemon's log.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _tail(path, lines=25):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError as e:
        return f"({e.strerror})\n"


def plugin_dir():
    """The folder of Slurm's plugins (mpi_pmix.so, select_cons_tres.so ...), or None."""
    for d in SLURM_PLUGIN_DIRS:
        if os.path.exists(os.path.join(d, "select_linear.so")):
            return d
    return None


def check_installed():
    """Raises Unavailable unless every program the cluster and its tests need is installed."""
    if os.geteuid() != 0:
        raise Unavailable("a Slurm cluster of the test's own needs root (slurmd starts jobs "
                          "as their user)")
    missing = [n for n in DAEMONS + CLIENTS if not _which(n)]
    if missing:
        raise Unavailable(f"{', '.join(missing)} not installed ({INSTALL_HINT})")
    if not plugin_dir():
        raise Unavailable(f"Slurm's plugins not found in {', '.join(SLURM_PLUGIN_DIRS)} "
                          f"({INSTALL_HINT})")


class SlurmCluster:
    """One node (this host, all its CPUs), one default partition, the whole cluster in a
    temporary folder removed on exit. `env()` is the environment every Slurm client and every
    program under test gets: SLURM_CONF points at this cluster's slurm.conf."""

    def __init__(self, prefix="rprof-slurm-"):
        self.prefix = prefix
        self.dir = None
        self.conf = None
        self.host = socket.gethostname().split(".")[0]
        self.cpus = os.cpu_count() or 1
        self.mpi_plugins = []  # the --mpi= types this Slurm has (pmix, pmix_v4, pmi2, none ...)
        self.start_s = None    # how long the start took, up to the node idle
        self._procs = {}       # name -> Popen
        self._logs = {}        # name -> log path

    # -- the environment -------------------------------------------------------------------

    def env(self, base=None):
        """base (os.environ by default) with SLURM_CONF set to this cluster's slurm.conf and no
        SLURM_* of an allocation around the test (a test run inside a Slurm job must not talk to
        that job's cluster)."""
        env = {k: v for k, v in (base if base is not None else os.environ).items()
               if not k.startswith("SLURM_")}
        if self.conf:
            env["SLURM_CONF"] = self.conf
        return env

    def has_mpi(self, kind):
        return kind in self.mpi_plugins

    # -- start and stop --------------------------------------------------------------------

    def __enter__(self):
        check_installed()
        self.dir = tempfile.mkdtemp(prefix=self.prefix)
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def _path(self, name):
        return os.path.join(self.dir, name)

    def _start(self):
        started = time.monotonic()
        # munged checks that its socket's folder is reachable by all (execute permission) and
        # writable by its owner alone.
        os.chmod(self.dir, 0o711)
        for d in ("state", "spool"):
            os.mkdir(self._path(d), 0o755)
        self._start_munge()
        self._write_conf()
        self._spawn("slurmctld", [_which("slurmctld"), "-D", "-f", self.conf, "-i"],
                    self._path("slurmctld.log"))
        self._spawn("slurmd", [_which("slurmd"), "-D", "-f", self.conf, "-N", self.host],
                    self._path("slurmd.log"))
        self._wait_idle(started)
        self.start_s = time.monotonic() - started

    def _start_munge(self):
        key = self._path("munge.key")
        made = subprocess.run([_which("mungekey"), "--create", "--bits", "1024", "--keyfile", key],
                              capture_output=True, text=True)
        if made.returncode != 0:
            # Older munge has no mungekey: 1024 random bits are a key too.
            with open("/dev/urandom", "rb") as src, open(key, "wb") as dst:
                dst.write(src.read(128))
        os.chmod(key, 0o600)
        self.munge_socket = self._path("munge.socket")
        # -F: in the foreground, a child of the test; -f: as root, and past its warnings about a
        # folder under /tmp (sticky, world-writable) it would refuse otherwise. In the foreground
        # it logs to stderr, which goes to its log file.
        self._spawn("munged", [_which("munged"), "-F", "-f", f"--socket={self.munge_socket}",
                               f"--key-file={key}", f"--pid-file={self._path('munged.pid')}",
                               f"--log-file={self._path('munged.log')}",
                               f"--seed-file={self._path('munged.seed')}"],
                    self._path("munged.log"))
        deadline = time.monotonic() + 15
        while not os.path.exists(self.munge_socket):
            self._check_alive("munged")
            if time.monotonic() > deadline:
                self._fail("munged made no socket in 15 s")
            time.sleep(0.05)

    def _write_conf(self):
        plugins = plugin_dir()
        self.mpi_plugins = sorted(f[len("mpi_"):-len(".so")] for f in os.listdir(plugins)
                                  if f.startswith("mpi_") and f.endswith(".so"))
        select = ("select/cons_tres" if os.path.exists(os.path.join(plugins, "select_cons_tres.so"))
                  else "select/linear")
        self.conf = self._path("slurm.conf")
        # An empty plugstack.conf and cgroup.conf of its own: the machine's /etc/slurm is not
        # read (SPANK plugins, cgroup settings of another setup).
        open(self._path("plugstack.conf"), "w").close()
        lines = [
            "ClusterName=rproftest",
            f"SlurmctldHost={self.host}",
            "SlurmUser=root",
            "SlurmdUser=root",
            f"SlurmctldPort={_free_port()}",
            f"SlurmdPort={_free_port()}",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={self.munge_socket}",
            f"StateSaveLocation={self._path('state')}",
            f"SlurmdSpoolDir={self._path('spool')}",
            f"SlurmctldPidFile={self._path('slurmctld.pid')}",
            f"SlurmdPidFile={self._path('slurmd.pid')}",
            f"SlurmctldLogFile={self._path('slurmctld.log')}",
            f"SlurmdLogFile={self._path('slurmd.log')}",
            f"PlugStackConfig={self._path('plugstack.conf')}",
            f"PluginDir={plugins}",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none",
            "SchedulerType=sched/builtin",
            f"SelectType={select}",
            "SelectTypeParameters=CR_CPU",
            "MpiDefault=none",
            "MailProg=/bin/true",
            "ReturnToService=2",
            # Ended jobs stay in slurmctld's memory, for squeue -t all and scontrol show job
            # (no accounting: sacct has nothing).
            "MinJobAge=600",
            "SlurmctldDebug=info",
            "SlurmdDebug=info",
            "SlurmctldTimeout=30",
            "SlurmdTimeout=30",
            "InactiveLimit=0",
            "KillWait=5",
            "Waittime=0",
            f"NodeName={self.host} NodeAddr=127.0.0.1 CPUs={self.cpus} RealMemory=256 "
            "State=UNKNOWN",
            f"PartitionName=test Nodes={self.host} Default=YES MaxTime=INFINITE State=UP "
            "OverSubscribe=YES",
        ]
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")

    def _spawn(self, name, argv, log):
        self._logs[name] = log
        with open(log, "ab") as out:
            # A session of its own: a signal to the test's process group (Ctrl-C, meson's
            # timeout) reaches the test, which stops the daemons in order.
            self._procs[name] = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                                 stderr=subprocess.STDOUT, env=self.env(),
                                                 cwd=self.dir, start_new_session=True)

    def _check_alive(self, name):
        proc = self._procs[name]
        if proc.poll() is not None:
            self._fail(f"{name} exited with status {proc.returncode} while starting")

    def _wait_idle(self, started):
        deadline = started + START_TIMEOUT_S
        last = ""
        while time.monotonic() < deadline:
            for name in self._procs:
                self._check_alive(name)
            probe = subprocess.run([_which("sinfo"), "-h", "-N", "-o", "%N %t"],
                                   capture_output=True, text=True, env=self.env(), timeout=30)
            last = (probe.stdout + probe.stderr).strip()
            if probe.returncode == 0 and last.split()[-1:] in (["idle"], ["mix"], ["alloc"]):
                return
            time.sleep(0.25)
        self._fail(f"the node was not idle after {START_TIMEOUT_S} s (sinfo: {last!r})")

    def _fail(self, reason):
        tails = "".join(f"--- {name} log ({path}), last lines:\n{_tail(path)}"
                        for name, path in self._logs.items())
        print(f"slurm_cluster: {reason}\n{tails}", flush=True)
        raise Unavailable(f"a Slurm cluster could not start here: {reason} (the daemons' logs "
                          "are printed above)")

    def logs(self, lines=25):
        """The daemons' last log lines, for a test's failure message."""
        return "".join(f"--- {name}:\n{_tail(path, lines)}" for name, path in self._logs.items())

    def stop(self):
        """Cancels what is left of the jobs, stops slurmd, slurmctld and munged (in that order:
        each needs the next to shut down cleanly), and removes the folder. Safe to call twice."""
        if self.conf and self._procs.get("slurmctld") and self._procs["slurmctld"].poll() is None:
            subprocess.run([_which("scancel"), "--full", "--quiet", "--user=root"],
                           env=self.env(), capture_output=True, timeout=30)
        for name in ("slurmd", "slurmctld", "munged"):
            proc = self._procs.get(name)
            if not proc or proc.poll() is not None:
                continue
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._procs.clear()
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None


if __name__ == "__main__":
    # python3 slurm_cluster.py: starts a cluster, shows it, runs `srun -n 2 hostname`, stops.
    try:
        with SlurmCluster() as c:
            print(f"started in {c.start_s:.1f} s: {c.conf}; mpi plugins {c.mpi_plugins}")
            subprocess.run(["sinfo"], env=c.env())
            subprocess.run(["srun", "-n", "2", "hostname"], env=c.env(), timeout=60)
    except Unavailable as e:
        print(f"SKIP: {e}")
        raise SystemExit(77)
