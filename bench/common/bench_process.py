"""What the memory benchmarks share: running a command while sampling its
anonymous memory, and a scratch folder for generated files."""
import contextlib
import os
import shutil
import subprocess
import threading
import time


def rss_anon_kb(pid):
    """RssAnon of /proc/PID/status (kB), 0 once the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class Sampled:
    """A started command whose RssAnon is sampled every 20 ms until it ends."""

    def __init__(self, command):
        self.command = command
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.peak_kb = 0
        self.began = time.time()
        self._done = threading.Event()
        self._sampler = threading.Thread(target=self._sample)
        self._sampler.start()

    def _sample(self):
        # Not process.poll(): that would reap the child before wait4 below
        # gets its resource use.
        while not self._done.is_set():
            self.peak_kb = max(self.peak_kb, rss_anon_kb(self.process.pid))
            time.sleep(0.02)

    def finish(self):
        """Waits; returns (out, err, rusage) and raises SystemExit on failure.
        The pipes are drained on threads, so a chatty command cannot block."""
        chunks = {}
        readers = [threading.Thread(target=lambda name=name, pipe=pipe:
                                    chunks.__setitem__(name, pipe.read()))
                   for name, pipe in (("out", self.process.stdout), ("err", self.process.stderr))]
        for reader in readers:
            reader.start()
        # wait4: the process's own resource use (ru_inblock counts 512-byte
        # blocks read from the disk on its behalf, page faults included).
        _, status, usage = os.wait4(self.process.pid, 0)
        self.seconds = time.time() - self.began
        self._done.set()
        self._sampler.join()
        for reader in readers:
            reader.join()
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            raise SystemExit(f"{' '.join(self.command)} failed ({code}): {chunks['err'].decode()}")
        return chunks["out"], chunks["err"], usage


@contextlib.contextmanager
def scratch_folder(parent, name, keep=False):
    """A new folder under `parent`, removed afterwards unless `keep`."""
    work = os.path.join(parent, f"{name}_{os.getpid()}")
    os.makedirs(work)
    try:
        yield work
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
