"""Starts one node of an xdevice cluster for the end-to-end test, as xdevice's console starts
it in cluster mode (`cluster_main`, then the device monitor on a worker), but without the
interactive prompt (a worker whose console reads a pipe deadlocks its forked task process in
`_close_stdin`), bound to 127.0.0.1 rather than every interface, reporting 127.0.0.1 as its
address, and keeping its data (projects, reports, the controller's database) in ROOT instead of
/data/Local.

    python cluster.py controller|worker ROOT PORT CONTROLLER_URL

Runs until SIGTERM or SIGINT.
"""

import os
import signal
import sys
import time

mode, root, port, controller_url = sys.argv[1:5]
os.makedirs(os.path.join(root, "config"), exist_ok=True)
os.chdir(root)  # xdevice reads config/user_config.xml and keeps its temp files under here
with open(os.path.join("config", "user_config.xml"), "w", encoding="utf-8") as config:
    config.write(f"""<user_config>
    <environment><device type="usb-hdc" label="ohos"><info ip="" port="" sn="" alias=""/></device></environment>
    <testcases><dir/></testcases>
    <resource><dir/></resource>
    <devicelog><enable>OFF</enable><loglevel>INFO</loglevel><dir/></devicelog>
    <loglevel>DEBUG</loglevel>
    <cluster>
        <enable>true</enable>
        <service_mode>{mode}</service_mode>
        <service_port>{port}</service_port>
        <control_service_url>{controller_url}</control_service_url>
    </cluster>
</user_config>
""")

import xdevice  # noqa: E402  (puts xdevice's `_core` on the path)
from _core.constants import Cluster  # noqa: E402

# The controller's database lives in `temp_dir` (~/.xdevice unless told otherwise).
xdevice.Variables.temp_dir = os.path.join(root, "temp")
os.makedirs(xdevice.Variables.temp_dir, exist_ok=True)

Cluster.local_path = root
Cluster.project_root_path = os.path.join(root, "Projects")
Cluster.report_root_path = os.path.join(root, "Reports")

import uvicorn  # noqa: E402

serve = uvicorn.run
uvicorn.run = lambda app, **kw: serve(app, **{**kw, "host": "127.0.0.1", "log_level": "warning"})

from _core.cluster import utils as cluster_utils  # noqa: E402

cluster_utils.get_local_ip = lambda: "127.0.0.1"

from _core.cluster.__main__ import cluster_main  # noqa: E402
from _core.context.center import Context  # noqa: E402
from _core.environment.manager_env import EnvironmentManager  # noqa: E402

signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
cluster_main()
time.sleep(1)
Context.set_execute_status(True)
EnvironmentManager()
print(f"xdevice {mode} on 127.0.0.1:{port}", flush=True)
try:
    while True:
        time.sleep(3600)
except KeyboardInterrupt:
    pass
