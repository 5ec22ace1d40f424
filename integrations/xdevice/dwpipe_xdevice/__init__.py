"""dwpipe's driver for xdevice: a test case of driver type `dwpipe` audits the devices xdevice
allocated to it with `dwpipe audit` and reports the audit's criteria as the case's results."""
