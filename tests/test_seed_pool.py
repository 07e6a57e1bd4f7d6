"""The seed days' worker processes (lab/seed_pool.py): results in job order whatever order the jobs end in, every
end counted as it happens, a dead worker named by the job it held, a failing job's traceback, no worker left."""

import multiprocessing
import os
import signal
import time
import unittest

from lab import seed_pool
from osfoundry_tools import cli


def square_slowly(job):
    """The first job ends last, so the answers come back out of order."""
    number, pause = job
    time.sleep(pause)
    return number * number


def die_on_three(job):
    """Kill this worker's own process on job 3, as the kernel's out-of-memory killer or a user might."""
    if job[0] == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return job[0]


def raise_on_two(job):
    if job[0] == 2:
        raise ValueError("a bug in the model")
    return job[0]


def refuse_on_two(job):
    if job[0] == 2:
        raise cli.RunFailed("these settings make a day the model cannot run")
    return job[0]


def named(job):
    return f"seed {job[0]}"


class RunJobsTest(unittest.TestCase):
    def tearDown(self):
        self.assertEqual(multiprocessing.active_children(), [], "a worker outlived run_jobs")

    def test_results_come_in_the_order_of_the_jobs_and_each_end_is_reported_as_it_happens(self):
        jobs = [(1, 0.8), (2, 0.0), (3, 0.0), (4, 0.0)]
        ended = []
        results = seed_pool.run_jobs(square_slowly, jobs, 2, lambda index, result: ended.append(index), named)
        self.assertEqual(results, [1, 4, 9, 16])
        self.assertEqual(sorted(ended), [0, 1, 2, 3])
        self.assertNotEqual(ended[0], 0, "the slow first job was reported before the quick ones that ended first")

    def test_one_process_runs_the_jobs_here_in_order(self):
        ended = []
        results = seed_pool.run_jobs(square_slowly, [(2, 0), (3, 0)], 1, lambda index, _: ended.append(index), named)
        self.assertEqual(results, [4, 9])
        self.assertEqual(ended, [0, 1])

    def test_a_worker_that_dies_is_one_line_naming_the_job_it_held(self):
        with self.assertRaises(seed_pool.WorkerDied) as caught:
            seed_pool.run_jobs(die_on_three, [(n,) for n in range(1, 9)], 2, lambda index, result: None, named)
        self.assertEqual(str(caught.exception), "seed 3: its worker process died (killed by SIGKILL)")

    def test_a_job_refused_for_its_settings_is_one_line_naming_it_in_a_worker_and_here(self):
        for processes in (2, 1):
            with self.subTest(processes=processes), self.assertRaises(seed_pool.JobRefused) as caught:
                seed_pool.run_jobs(refuse_on_two, [(n,) for n in range(1, 5)], processes, lambda *_: None, named)
            self.assertEqual(str(caught.exception), "seed 2: these settings make a day the model cannot run")
            self.assertIsInstance(caught.exception, cli.RunFailed)  # run_main's one line, no traceback

    def test_a_job_that_raises_carries_its_name_and_the_workers_traceback(self):
        with self.assertRaises(seed_pool.JobFailed) as caught:
            seed_pool.run_jobs(raise_on_two, [(n,) for n in range(1, 5)], 2, lambda index, result: None, named)
        self.assertIn("seed 2 failed in its worker process", str(caught.exception))
        self.assertIn("ValueError: a bug in the model", str(caught.exception))

    def test_a_job_past_the_limit_is_one_line_naming_it_and_no_worker_is_left(self):
        started = time.monotonic()
        with self.assertRaises(seed_pool.JobOverran) as caught:
            seed_pool.run_jobs(square_slowly, [(1, 0.0), (2, 60.0), (3, 0.0), (4, 0.0)], 2,
                               lambda index, result: None, named, limit=1.0)
        self.assertEqual(str(caught.exception), "seed 2: still running after 1 s, so its worker process was stopped")
        self.assertIsInstance(caught.exception, seed_pool.WorkerDied)  # a runner that counts dead workers counts it
        self.assertLess(time.monotonic() - started, 30)

    def test_jobs_within_the_limit_all_answer(self):
        results = seed_pool.run_jobs(square_slowly, [(n, 0.05) for n in range(1, 7)], 2, lambda index, result: None,
                                     named, limit=30.0)
        self.assertEqual(results, [1, 4, 9, 16, 25, 36])

    def test_an_interrupt_in_the_parent_stops_every_worker(self):
        def interrupted(index, result):
            raise KeyboardInterrupt
        with self.assertRaises(KeyboardInterrupt):
            seed_pool.run_jobs(square_slowly, [(1, 0.0), (2, 30.0), (3, 30.0)], 2, interrupted, named)


class CoresTest(unittest.TestCase):
    @unittest.skipUnless(hasattr(os, "sched_getaffinity"), "this system keeps no CPU affinity")
    def test_the_default_is_the_cores_this_process_may_use_not_the_machines(self):
        self.assertEqual(seed_pool.usable_cores(), len(os.sched_getaffinity(0)))

    def test_the_exit_of_a_worker_in_words(self):
        self.assertEqual(seed_pool.how_it_ended(-signal.SIGTERM), "killed by SIGTERM")
        self.assertEqual(seed_pool.how_it_ended(1), "exit status 1")


if __name__ == "__main__":
    unittest.main()
