"""Locust workload for the generator benchmark (Benchmarks/generator/run.py starts it).

Each user POSTs the same form-encoded applyEdits body, read once from the file named by BENCH_BODY_FILE, to
BENCH_PATH on the host given with -H, with no wait between requests (a closed loop, like wrk, hey and featureload's
constant-vus). FastHttpUser is Locust's fastest client (geventhttpclient).
"""

import os

from locust import FastHttpUser, constant, task

with open(os.environ["BENCH_BODY_FILE"], "rb") as body_file:
    BODY = body_file.read()
PATH = os.environ["BENCH_PATH"]
HEADERS = {"Content-Type": "application/x-www-form-urlencoded"}


class ApplyEditsUser(FastHttpUser):
    wait_time = constant(0)

    @task
    def apply_edits(self):
        self.client.post(PATH, data=BODY, headers=HEADERS, name="applyEdits")
