"""The driver's logic that needs no xdevice: a case's options, the audit's command line, the
controller's allocation, the JUnit's mapping. Run: python3 -m unittest discover -s tests"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from dwpipe_xdevice.case import (  # noqa: E402
    BLOCKED, FAILED, PASSED, SKIPPED, Case, CaseError, allocated, audit_argv, read_lab_junit)

JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="dwpipe" tests="4" failures="1" skipped="1" errors="1">
  <testsuite name="dwpipe audit LAB02" tests="4">
    <testcase classname="LAB02.function" name="F-01 (must): passes" time="0.5"/>
    <testcase classname="LAB02.performance" name="P-01 (must): starts" time="9.188">
      <failure message="1200ms &gt; 800ms">actual: 1200ms</failure>
    </testcase>
    <testcase classname="LAB02.performance" name="P-02 (should): scrolls" time="x">
      <skipped message="a should criterion failed"/>
    </testcase>
    <testcase classname="LAB02.device" name="audited"><error message="device vanished"/></testcase>
  </testsuite>
</testsuites>
"""


class CaseOptions(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.case_file = os.path.join(self.dir.name, "notes.json")
        with open(os.path.join(self.dir.name, "pack.lock.json"), "w") as lock:
            lock.write("{}")

    def tearDown(self):
        self.dir.cleanup()

    def test_the_pack_is_read_beside_the_case(self):
        case = Case.from_driver({"type": "dwpipe", "pack": "pack.lock.json", "args": ["--runs", "3"],
                                 "timeout": "600"}, self.case_file)
        self.assertEqual(case.pack, os.path.join(self.dir.name, "pack.lock.json"))
        self.assertEqual((case.args, case.timeout), (["--runs", "3"], 600))

    def test_refusals_say_what_to_fix(self):
        for driver, words in [
            ({"type": "dwpipe"}, "driver.pack must name"),
            ({"type": "dwpipe", "pack": "gone.json"}, "dwpipe freeze"),
            ({"type": "dwpipe", "pack": "pack.lock.json", "runs": 3}, "unknown driver option(s) runs"),
            ({"type": "dwpipe", "pack": "pack.lock.json", "args": "--runs 3"}, "list of strings"),
            ({"type": "dwpipe", "pack": "pack.lock.json", "timeout": 0}, "seconds"),
            ({"type": "dwpipe", "pack": "pack.lock.json", "timeout": True}, "seconds"),
        ]:
            with self.assertRaises(CaseError) as refused:
                Case.from_driver(driver, self.case_file)
            self.assertIn(words, str(refused.exception))


class CommandLine(unittest.TestCase):
    case = Case(pack="/p/pack.lock.json", args=["--runs", "3"])

    def test_devices_on_the_default_server_need_no_server_option(self):
        argv = audit_argv("dwpipe", self.case, [("A", "127.0.0.1:8710"), ("B", "127.0.0.1:8710")],
                          "/out", "--history 'postgres://dwpipe@db/lab'")
        self.assertEqual(argv, ["dwpipe", "audit", "--pack", "/p/pack.lock.json", "--lab", "--out",
                                "/out", "--device", "A", "--device", "B",
                                "--history", "postgres://dwpipe@db/lab", "--runs", "3"])

    def test_another_server_names_every_server(self):
        argv = audit_argv("dwpipe", self.case, [("A", "127.0.0.1:8710"), ("B", "10.0.0.5:8710")], "/o")
        self.assertEqual(argv[9:15], ["--device", "B", "--server", "10.0.0.5:8710", "--server",
                                      "127.0.0.1:8710"])

    def test_no_device_is_refused(self):
        with self.assertRaises(CaseError):
            audit_argv("dwpipe", self.case, [], "/o")


class Allocation(unittest.TestCase):
    def test_the_controllers_devices_are_read_from_the_environment(self):
        environment = ('<user_config><environment><device type="usb-hdc" label="ohos">'
                       '<info ip="127.0.0.1" port="8710" sn="LAB02" /><info sn="LAB03" />'
                       '<info ip="" port="" sn="" /></device></environment></user_config>')
        self.assertEqual(allocated(environment),
                         [("LAB02", "127.0.0.1:8710"), ("LAB03", "127.0.0.1:8710")])
        self.assertEqual(allocated(""), [])
        with self.assertRaises(CaseError):
            allocated("<user_config>")


class Junit(unittest.TestCase):
    def write(self, text):
        handle = tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False)
        self.addCleanup(os.unlink, handle.name)
        handle.write(text)
        handle.close()
        return handle.name

    def test_each_outcome_maps_and_nothing_unshown_passes(self):
        results = read_lab_junit(self.write(JUNIT))
        self.assertEqual([r.outcome for r in results], [PASSED, FAILED, SKIPPED, BLOCKED])
        self.assertEqual(results[1].message, "1200ms > 800ms\nactual: 1200ms")
        self.assertEqual(results[1].millis, 9188.0)
        self.assertEqual(results[2].millis, 0.0)
        self.assertEqual(results[0].test_class, "LAB02.function")

    def test_a_report_that_says_nothing_is_refused(self):
        for text, words in [
            ('<testsuites name="dwpipe"></testsuites>', "no criterion"),
            ('<testsuites name="other"><testcase/></testsuites>', "not a dwpipe JUnit"),
            ("<testsuites", "not XML"),
        ]:
            with self.assertRaises(CaseError) as refused:
                read_lab_junit(self.write(text))
            self.assertIn(words, str(refused.exception))
        with self.assertRaises(CaseError):
            read_lab_junit("/nonexistent/lab-junit.xml")


if __name__ == "__main__":
    unittest.main()
