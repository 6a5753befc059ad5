"""Where batches of games are played: in this process, in local processes,
or on a Dask cluster, behind one interface.

    with backend(workers=2) as run:            # or cluster="tcp://host:8786", or "local:2"
        for result in run.map(play_batch, jobs):   # results in the order of the jobs
            ...

Every back end gives the results of the same jobs in the same order, so a
run's figures do not depend on where it ran.  A job must be a function
importable by name (a module's top level) and plain data.

- ``InProcess``: one job after another, here.
- ``Processes``: a pool of local processes (which leave Ctrl-C to this
  one); if one dies, the pool is started again and the jobs not yet done
  run again.
- ``DaskCluster``: a ``dask.distributed`` cluster (the optional extra
  ``dask``): an address, or ``local:N`` for a cluster of N processes
  started on the loopback interface for this run.  A worker that dies loses
  no job: the scheduler runs its jobs again elsewhere.  The workers need
  rulelang installed (a LocalCluster's share this environment).

Leaving the ``with`` block (at the end, on an error or on Ctrl-C) cancels
what has not run and shuts down what the back end started.
"""

from __future__ import annotations


class InProcess:
    name = "in this process"

    def map(self, fn, jobs):
        for job in jobs:
            yield fn(job)

    def close(self) -> None:
        pass


class Processes:
    # A pool whose process dies is started again and the jobs not yet done
    # are run again, at most this many times in a run.
    RESTARTS = 3

    def __init__(self, workers: int):
        self.name = f"{workers} local processes"
        self.workers = workers
        self.pool = self._pool()
        self.futures = []

    def _pool(self):
        import signal
        from concurrent.futures import ProcessPoolExecutor

        return ProcessPoolExecutor(max_workers=self.workers, initializer=signal.signal,
                                   initargs=(signal.SIGINT, signal.SIG_IGN))

    def map(self, fn, jobs):
        from concurrent.futures.process import BrokenProcessPool

        jobs = list(jobs)
        self.futures = [self.pool.submit(fn, job) for job in jobs]
        restarts = 0
        i = 0
        while i < len(jobs):
            try:
                result = self.futures[i].result()
            except BrokenProcessPool:  # a process died: the jobs from here on run again
                restarts += 1
                if restarts > self.RESTARTS:
                    raise
                self.pool.shutdown(wait=True, cancel_futures=True)
                self.pool = self._pool()
                self.futures[i:] = [self.pool.submit(fn, job) for job in jobs[i:]]
                continue
            yield result
            i += 1

    def close(self) -> None:
        pool = self.pool
        processes = list((getattr(pool, "_processes", None) or {}).values())
        manager = getattr(pool, "_executor_manager_thread", None)
        # The pool's own thread cancels the jobs not started: a future cancelled from here
        # would still be listed there, and a pool broken by the processes stopped below would
        # then fail it again, in that thread (InvalidStateError, with its traceback)
        pool.shutdown(wait=False, cancel_futures=True)
        if any(not f.done() for f in self.futures):  # interrupted or failed: stop what still runs
            for process in processes:
                process.terminate()
        if manager is not None:
            manager.join()
        for process in processes:
            process.join()


class DaskCluster:
    def __init__(self, address: str):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ValueError("--cluster needs dask.distributed: pip install 'rulelang[dask]'") from None
        self.cluster = None
        if address.startswith("local:"):
            count = address.partition(":")[2]
            if not count.isdigit() or not 1 <= int(count) <= 256:
                raise ValueError(f"--cluster local:N wants a number of workers from 1 to 256, not {count!r}")
            self.cluster = LocalCluster(n_workers=int(count), threads_per_worker=1, processes=True,
                                        host="127.0.0.1", dashboard_address=None, silence_logs=50)
            self.name = f"a local Dask cluster of {count} workers"
            target = self.cluster
        else:
            self.name = f"the Dask cluster at {address}"
            target = address
        try:
            self.client = Client(target, timeout="20s", set_as_default=False)
        except (OSError, TimeoutError) as e:
            self.close()
            raise ValueError(f"cannot reach the Dask cluster at {address}: {e}") from None
        self.futures = []

    def map(self, fn, jobs):
        # pure=False: the same job twice is two runs (a job is cheap to name, not to share)
        self.futures = self.client.map(fn, list(jobs), pure=False)
        for future in self.futures:
            yield future.result()

    def close(self) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            if self.futures:
                client.cancel(self.futures)
            client.close()
        if self.cluster is not None:
            self.cluster.close()


class backend:
    """``with backend(workers, cluster) as run:`` the back end those options
    name (``cluster`` wins; one worker: this process).  ValueError for a
    cluster that cannot be used, with the reason."""

    def __init__(self, workers: int = 1, cluster: str | None = None):
        self.workers = workers
        self.cluster = cluster
        self.made = None

    def __enter__(self):
        if self.cluster is not None:
            self.made = DaskCluster(self.cluster)
        elif self.workers > 1:
            self.made = Processes(self.workers)
        else:
            self.made = InProcess()
        return self.made

    def __exit__(self, *exc):
        if self.made is not None:
            self.made.close()
        return False


__all__ = ["backend", "InProcess", "Processes", "DaskCluster"]
