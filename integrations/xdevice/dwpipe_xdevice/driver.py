"""The xdevice driver plugin `dwpipe` (registered in the `driver` entry-point group).

For each test case of driver type `dwpipe` it runs `dwpipe audit --lab` on the devices xdevice
allocated to the case, into `details/dwpipe/<case>/` of the task's report (a worker ships
`details/`, `log/` and `result/` to the controller, so the audit folder, its lock and evidence
travel with the task and `dwpipe report merge` and `dwpipe history import` read it there), and
reports every criterion of every device to xdevice's listeners, which write the case's result.
The verdict is read from the audit's JUnit, never from its exit status.
"""

import copy
import os
import shutil
import subprocess
import threading

from xdevice import IDriver, JsonParser, LifeCycle, Plugin, ResultCode, StateRecorder
from xdevice import check_result_report, platform_logger

from .case import BLOCKED, DRIVER_TYPE, FAILED, PASSED, SKIPPED, Case, CaseError, allocated, audit_argv, read_lab_junit

LOG = platform_logger("DwpipeDriver")

CODES = {
    PASSED: ResultCode.PASSED.value,
    FAILED: ResultCode.FAILED.value,
    BLOCKED: ResultCode.BLOCKED.value,
    SKIPPED: ResultCode.SKIPPED.value,
}


@Plugin(type=Plugin.DRIVER, id=DRIVER_TYPE)
class DwpipeDriver(IDriver):
    def __init__(self):
        self.result = ""
        self.error_message = ""

    def __check_environment__(self, device_options):
        pass

    def __check_config__(self, config):
        pass

    def __execute__(self, request):
        module = request.get_module_name()
        report_path = request.config.report_path
        self.result = os.path.join(report_path, "result", module + ".xml")
        try:
            config_file = request.root.source.config_file
            case = Case.from_driver(JsonParser(config_file).get_driver(), config_file)
            devices = allocated(getattr(request.config, "test_environment", "") or "") or [
                (d.device_sn, f"{d.host}:{d.port}") for d in request.config.environment.devices]
            out = os.path.join(report_path, "details", "dwpipe", module)
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            dwpipe = os.environ.get("DWPIPE") or shutil.which("dwpipe") or "dwpipe"
            argv = audit_argv(dwpipe, case, devices, out, os.environ.get("DWPIPE_XDEVICE_ARGS", ""))
            run(argv, case.timeout, out + ".log")
            report(request.listeners, module, read_lab_junit(os.path.join(out, "lab-junit.xml")))
        except CaseError as e:
            self.error_message = str(e)
            LOG.error(self.error_message)
        except Exception as e:  # xdevice reports the case as not run, with why
            self.error_message = f"{type(e).__name__}: {e}"
            LOG.exception(self.error_message, exc_info=True)
        finally:
            self.result = check_result_report(report_path, self.result, self.error_message)

    def __result__(self):
        return self.result if os.path.exists(self.result) else ""


def run(argv, timeout, log_path):
    """Runs the audit (argv, never a shell), its output into `log_path` and xdevice's log;
    past `timeout` seconds it is stopped (SIGTERM: dwpipe stops its device calls cleanly)."""
    LOG.info("run: %s", " ".join(argv))
    timed_out = threading.Event()
    with open(log_path, "w", encoding="utf-8") as log:
        try:
            process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, text=True, errors="replace")
        except OSError as e:
            raise CaseError(f"cannot run {argv[0]}: {e}; put dwpipe on the worker's PATH or "
                            "name it in DWPIPE") from e

        def stop():
            timed_out.set()
            process.terminate()

        timer = threading.Timer(timeout, stop)
        timer.start()
        try:
            for line in process.stdout:
                log.write(line)
                LOG.info(line.rstrip())
            status = process.wait()
        finally:
            timer.cancel()
    if timed_out.is_set():
        raise CaseError(f"the audit took longer than the case's timeout ({timeout} s) and was "
                        f"stopped: see {log_path}")
    if status < 0:
        raise CaseError(f"the audit was killed by signal {-status}: see {log_path}")
    LOG.info("dwpipe audit exited %s", status)


def report(listeners, module, results):
    """The audit's criteria as one xdevice suite named after the case."""
    recorder = StateRecorder()
    suite = recorder.suite(reset=True)
    suite.suite_name = module
    suite.test_num = len(results)
    for listener in listeners:
        listener.__started__(LifeCycle.TestSuite, copy.copy(suite))
    for index, result in enumerate(results, 1):
        test = recorder.test(reset=True)
        test.test_class = result.test_class
        test.test_name = result.test_name
        test.code = CODES[result.outcome]
        test.stacktrace = result.message
        test.run_time = result.millis
        test.current = index
        test.is_completed = True
        for listener in listeners:
            listener.__started__(LifeCycle.TestCase, copy.copy(test))
        for listener in listeners:
            listener.__ended__(LifeCycle.TestCase, copy.copy(test))
    suite.run_time = sum(r.millis for r in results)
    suite.is_completed = True
    for listener in listeners:
        listener.__ended__(LifeCycle.TestSuite, copy.copy(suite), suite_report=True)
