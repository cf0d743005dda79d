#!/usr/bin/env python3
"""Scrape metrics targets as Prometheus does, for the overhead benchmarks.

usage: bench/scrape.py FORMAT INTERVAL URL...

Every INTERVAL seconds each URL is fetched over its own kept-alive
connection, with the Accept header of Prometheus 2 (FORMAT openmetrics) or
of a Prometheus with native histograms on (FORMAT protobuf), and gzip
accepted. Runs until killed; the body is read and dropped.
"""
import http.client
import sys
import time
import urllib.parse

ACCEPT = {
    "openmetrics": "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
    "text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
    "protobuf": "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,"
    "application/openmetrics-text;version=1.0.0;q=0.8,application/openmetrics-text;version=0.0.1;q=0.75,"
    "text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
}


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ACCEPT:
        sys.exit("usage: scrape.py openmetrics|protobuf INTERVAL URL...")
    fmt, interval, urls = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
    if not interval > 0:
        sys.exit("scrape.py: INTERVAL must be seconds above 0")
    headers = {"Accept": ACCEPT[fmt], "Accept-Encoding": "gzip", "User-Agent": "Prometheus/2.42.0"}
    targets = [urllib.parse.urlsplit(u) for u in urls]
    conns = {}
    due = time.monotonic()
    while True:
        due += interval
        for t in targets:
            try:
                c = conns.get(t.netloc) or http.client.HTTPConnection(t.netloc, timeout=10)
                conns[t.netloc] = c
                c.request("GET", t.path, headers=headers)
                c.getresponse().read()
            except Exception:
                conns.pop(t.netloc, None)
        time.sleep(max(0.0, due - time.monotonic()))


if __name__ == "__main__":
    main()
