"""Submits a task to an xdevice controller through its HTTP API and waits for it to end, for
the end-to-end test: waits until the controller lists DEVICES available devices, creates the
task (a local project, the given cases), polls it until it is Completed or Stopped, and prints
the task as the controller lists it (JSON). Exit 1 on a timeout or a refusal, saying which.

    python task.py CONTROLLER_URL PROJECT DEVICES TIMEOUT_SECONDS CASE...
"""

import json
import sys
import time
import urllib.request

url, project, devices, timeout = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
cases = sys.argv[5:]
deadline = time.monotonic() + timeout


def call(path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + "/controller/v1/" + path, data=data,
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def wait(what, ready):
    while True:
        try:
            value = ready()
            if value:
                return value
        except OSError:
            pass  # not listening yet
        if time.monotonic() > deadline:
            sys.exit(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(0.5)


wait(f"{devices} available devices", lambda: len([
    d for d in call("device/list-all").get("result", [])
    if d["usage_state"] == "Available"]) >= devices)
created = call("task/create", {"project": {"url": project, "mode": "local"}, "cases": cases,
                               "devices": []})
if created.get("status") != "ok":
    sys.exit(f"the controller refused the task: {created}")
task_id = created["task_id"]
print(f"task {task_id} created", file=sys.stderr, flush=True)
task = wait(f"task {task_id} to end", lambda: next(
    (t for t in call(f"task/{task_id}/list")["result"] if t["state"] in ("Completed", "Stopped")),
    None))
print(json.dumps(task))
