#!/usr/bin/env python3
"""Generator benchmark: does featureload's load generator measure itself?

Five clients (wrk, hey, Locust FastHttpUser, a libcurl loop in C, `featureload run`) send the same applyEdits
workload, one after another, each to a fresh release `featureload serve` process on 127.0.0.1; the edits are counted
on the server. The libcurl loop is the floor under featureload's own transport: what libcurl reaches here with nothing
of featureload around it. See
Benchmarks/generator/README.md. Started by scripts/benchmark-generator, which installs the tools; stdlib only.
"""

import argparse
import datetime
import glob
import http.client
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
CLK_TCK = os.sysconf("SC_CLK_TCK")
FEATURE = {
    "attributes": {"name": "Bench Park", "state": "UT", "category": 1, "visitors": 1000},
    "geometry": {"x": -111.5, "y": 38.2, "spatialReference": {"wkid": 4326}},
}
TOOLS = ["wrk", "hey", "locust", "libcurl", "featureload"]
# Variants of featureload with an output on, each measured against plain featureload in the same run (not run
# unless named in --tools): `featureload+csv` streams every request to a CSV file (`run --out csv=FILE`);
# `featureload+metrics` counts every request for a live Prometheus endpoint (`run --metrics-listen`, on a free port;
# nothing scrapes it, so only the counting is measured).
VARIANTS = {
    "featureload+csv": lambda ctx, batch: ["--out", "csv=" + os.path.join(ctx["workdir"], f"requests-b{batch}-round{ctx['round'] + 1}.csv")],
    "featureload+metrics": lambda ctx, batch: ["--metrics-listen", "127.0.0.1:0"],
}


def log(message):
    print(f"benchmark-generator: {message}", file=sys.stderr, flush=True)


def fail(message):
    log(message)
    sys.exit(1)


# --- measurements from /proc ------------------------------------------------------------------------------------

def process_cpu_seconds(pid):
    """user + system CPU seconds of one process (all its threads), from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime (fields 14 and 15)


def machine_cpu_seconds():
    """(busy, total) CPU seconds of the whole machine, from /proc/stat."""
    with open("/proc/stat") as stat:
        values = [int(v) for v in stat.readline().split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    total = sum(values[:8])  # without guest time, already counted in user
    return (total - idle) / CLK_TCK, total / CLK_TCK


def load_average():
    with open("/proc/loadavg") as loadavg:
        return [float(v) for v in loadavg.read().split()[:3]]


# --- the service ------------------------------------------------------------------------------------------------

def get_json(url):
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def layer_count(layer_url):
    answer = get_json(layer_url + "/query?where=1%3D1&returnCountOnly=true&f=json")
    if "count" not in answer:
        fail(f"count query answered {answer}")
    return int(answer["count"])


def form_body(batch):
    adds = json.dumps([FEATURE] * batch, separators=(",", ":"))
    return urllib.parse.urlencode({"f": "json", "rollbackOnFailure": "true", "adds": adds}).encode()


def post(connection, path, body):
    connection.request("POST", path, body=body, headers={"Content-Type": "application/x-www-form-urlencoded"})
    response = connection.getresponse()
    return response.status, response.read()


def check_schema(layer_url):
    layer = get_json(layer_url + "?f=json")
    fields = {field["name"]: field for field in layer.get("fields", [])}
    missing = [name for name in FEATURE["attributes"] if name not in fields]
    if missing or layer.get("geometryType") != "esriGeometryPoint":
        fail(f"layer 0 does not fit the benchmark feature (missing fields {missing}, geometry "
             f"{layer.get('geometryType')}): {json.dumps(layer)[:2000]}")
    codes = [value["code"] for value in (fields["category"].get("domain") or {}).get("codedValues", [])]
    if codes and FEATURE["attributes"]["category"] not in codes:
        fail(f"category {FEATURE['attributes']['category']} is not in the layer's coded values {codes}")
    return {name: fields[name]["type"] for name in fields}


def check_bodies(host, port, path, bodies):
    connection = http.client.HTTPConnection(host, port, timeout=60)
    for batch, body in bodies.items():
        status, answer = post(connection, path, body)
        try:
            results = json.loads(answer).get("addResults", [])
        except ValueError:
            results = []
        if status != 200 or len(results) != batch or not all(r.get("success") is True for r in results):
            fail(f"applyEdits with {batch} adds was not a success (HTTP {status}); first answer:\n"
                 f"{answer[:2000].decode(errors='replace')}")
        log(f"applyEdits with {batch} adds: {batch} × \"success\":true ({len(body)} byte body)")
    connection.close()


def warm_up(host, port, path, bodies, seconds):
    connection = http.client.HTTPConnection(host, port, timeout=60)
    deadline = time.monotonic() + seconds
    requests = 0
    while time.monotonic() < deadline:
        for body in bodies.values():
            post(connection, path, body)
            requests += 1
    connection.close()
    return requests


def start_server(binary, workdir):
    out_path = os.path.join(workdir, "serve.out")
    err_path = os.path.join(workdir, "serve.err")
    server = subprocess.Popen([binary, "serve", "--port", "0"], stdout=open(out_path, "w"),
                              stderr=open(err_path, "w"), stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with open(out_path) as out:
            match = re.search(r"^featureload serve: listening on (http://127\.0\.0\.1:(\d+)/\S+/FeatureServer)\s*$",
                              out.read(), re.M)
        if match:
            return server, match.group(1)
        if server.poll() is not None:
            break
        time.sleep(0.1)
    server.kill()
    fail(f"featureload serve did not print its URL:\n{open(out_path).read()}{open(err_path).read()}")


def stop_server(server):
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


# --- the clients ------------------------------------------------------------------------------------------------

def run_timed(command, env, log_prefix, limit_seconds):
    """Runs a client under /usr/bin/time; returns (stdout, stderr, user+sys CPU s, wall s, exit code)."""
    time_path = log_prefix + ".time"
    with open(log_prefix + ".stdout", "w") as out, open(log_prefix + ".stderr", "w") as err:
        process = subprocess.Popen(["/usr/bin/time", "-f", "%U %S %e", "-o", time_path] + command, env=env,
                                   stdout=out, stderr=err, stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            code = process.wait(timeout=limit_seconds)
        except subprocess.TimeoutExpired:  # a safety net: every tool is told to stop after the duration itself
            os.killpg(process.pid, signal.SIGKILL)
            code = process.wait()
            log(f"{command[0]} overran {limit_seconds} s and was killed")
    with open(time_path) as times:
        user, system, wall = (float(v) for v in times.read().strip().splitlines()[-1].split())
    return open(log_prefix + ".stdout").read(), open(log_prefix + ".stderr").read(), user + system, wall, code


def run_wrk(ctx, batch, prefix):
    env = dict(os.environ, BENCH_BODY_FILE=ctx["body_files"][batch])
    command = ["wrk", "-t", str(ctx["wrk_threads"]), "-c", str(ctx["connections"]), "-d", f"{ctx['duration']}s",
               "-s", os.path.join(HERE, "applyedits.lua"), ctx["apply_url"]]
    return summary_line(run_timed(command, env, prefix, ctx["duration"] + 60), "BENCH_WRK_JSON", "wrk",
                        lambda summary: sum(summary["errors"].values()))


def summary_line(timed, marker, name, errors):
    """The result of a client that prints one `MARKER {json}` line with its duration, requests and latency (µs)."""
    out, err, cpu, wall, code = timed
    match = re.search(rf"^{marker} (\{{.*\}})$", out, re.M)
    if not match:
        return dict(cpu=cpu, wall=wall, exit=code, error=f"no summary from {name}: {(out + err)[-1000:]}")
    summary = json.loads(match.group(1))
    latency = summary["latencyMicroseconds"]
    return dict(cpu=cpu, wall=wall, exit=code, duration=summary["durationMicroseconds"] / 1e6,
                tool_requests=summary["requests"], tool_errors=errors(summary),
                p50_ms=latency["p50"] / 1000, p99_ms=latency["p99"] / 1000, raw=summary)


def run_hey(ctx, batch, prefix):
    command = ["hey", "-z", f"{ctx['duration']}s", "-c", str(ctx["connections"]), "-m", "POST",
               "-T", "application/x-www-form-urlencoded", "-D", ctx["body_files"][batch], ctx["apply_url"]]
    out, err, cpu, wall, code = run_timed(command, dict(os.environ), prefix, ctx["duration"] + 60)
    total = re.search(r"Total:\s+([\d.]+) secs", out)
    if not total:
        return dict(cpu=cpu, wall=wall, exit=code, error=f"no summary from hey: {(out + err)[-1000:]}")

    def percentile(p):
        found = re.search(rf"^\s*{p}% in ([\d.]+) secs", out, re.M)
        return float(found.group(1)) * 1000 if found else None

    statuses = {int(s): int(n) for s, n in re.findall(r"\[(\d+)\]\s+(\d+) responses", out)}
    errors = sum(int(n) for n in re.findall(r"^\s*\[(\d+)\]\t.*$", out.split("Error distribution:")[-1], re.M)) \
        if "Error distribution:" in out else 0
    return dict(cpu=cpu, wall=wall, exit=code, duration=float(total.group(1)),
                tool_requests=sum(statuses.values()), tool_errors=errors + sum(n for s, n in statuses.items() if s != 200),
                p50_ms=percentile(50), p99_ms=percentile(99), raw=dict(statuses=statuses))


def run_locust(ctx, batch, prefix):
    env = dict(os.environ, BENCH_BODY_FILE=ctx["body_files"][batch], BENCH_PATH=ctx["apply_path"])
    command = [ctx["locust"], "-f", os.path.join(HERE, "locustfile.py"), "--headless", "-u", str(ctx["connections"]),
               "-r", str(ctx["connections"]), "-t", f"{ctx['duration']}s", "--only-summary", "-H", ctx["host_url"]]
    out, err, cpu, wall, code = run_timed(command, env, prefix, ctx["duration"] + 60)
    text = out + err
    warnings = sorted({line.split("] ", 1)[-1].strip() for line in text.splitlines() if "CPU usage" in line})
    # The final summary Locust prints at exit (its --csv files are written periodically and can be a tick old):
    # "Aggregated  1183  0(0.00%) |  10  1  70  10 |  733.51  0.00", then the percentile table.
    totals = re.search(r"^\s+Aggregated\s+(\d+)\s+(\d+)\(.*?\)\s*\|[^|]*\|\s*([\d.]+)\s+([\d.]+)\s*$", text, re.M)
    percentiles = {}
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("Type") and "50%" in line and "99%" in line:
            names = [token for token in line.split() if token.endswith("%")]
            row = next((l for l in lines[index + 1:] if l.split()[:1] == ["Aggregated"]), None)
            if row:
                percentiles = dict(zip(names, (float(v) for v in row.split()[1:1 + len(names)])))
    if not totals or not percentiles:
        return dict(cpu=cpu, wall=wall, exit=code, error=f"no summary from locust: {text[-1000:]}")
    requests, rate = int(totals.group(1)), float(totals.group(3))
    return dict(cpu=cpu, wall=wall, exit=code, duration=requests / rate if rate else None,
                tool_requests=requests, tool_errors=int(totals.group(2)),
                p50_ms=percentiles.get("50%"), p99_ms=percentiles.get("99%"), warnings=warnings,
                raw=dict(requests=requests, requestsPerSecond=rate, percentilesMs=percentiles))


def run_libcurl(ctx, batch, prefix, work=0.0):
    command = [ctx["libcurl_loop"]] + (["--work", f"{work:g}"] if work else []) + \
        [ctx["apply_url"], str(ctx["connections"]), str(ctx["duration"]), ctx["body_files"][batch]]
    return summary_line(run_timed(command, dict(os.environ), prefix, ctx["duration"] + 60), "LIBCURL_LOOP_JSON",
                        "the libcurl loop", lambda summary: summary["errors"])


def run_featureload(ctx, batch, prefix, extra=()):
    scenario = os.path.join(ctx["workdir"], f"generator-b{batch}.yaml")
    with open(scenario, "w") as yaml:
        yaml.write(f"""# generated by Benchmarks/generator/run.py
version: 2
name: generator-b{batch}
target: {ctx['service_url']}
seed: 1
verify: false
scenarios:
  applyedits:
    executor: constant-vus
    vus: {ctx['connections']}
    duration: {ctx['duration']}s
    exec: applyEdits
    adds: {batch}
""")
    # One folder per run: a later round must not read an earlier round's report.
    # One folder per tool too: featureload and a variant of it run in the same round, and each must read its own
    # report (one shared folder once gave a run the other's request count and duration).
    out_dir = os.path.join(ctx["workdir"], f"{ctx['tool']}-b{batch}-round{ctx['round'] + 1}")
    command = [ctx["binary"], "run", scenario, "--target", ctx["service_url"], "--quiet", "--out", out_dir] + list(extra)
    out, err, cpu, wall, code = run_timed(command, dict(os.environ), prefix, ctx["duration"] + 60)
    reports = glob.glob(os.path.join(out_dir, "*", "report.json"))
    if len(reports) != 1:
        return dict(cpu=cpu, wall=wall, exit=code, error=f"{len(reports)} reports from featureload in {out_dir}: {(out + err)[-1000:]}")
    report = json.load(open(reports[0]))
    scenario_report = report["scenarios"][0]

    def metric(name):
        return sum(m.get("count", 0) for m in report["metrics"] if m["metric"] == name)

    result = dict(cpu=cpu, wall=wall, exit=code, duration=scenario_report["durationSeconds"],
                  tool_requests=metric("http_reqs"), tool_errors=sum(m.get("passes", 0) for m in report["metrics"] if m["metric"] == "http_req_failed"),
                  tool_edits=metric("edits"), bytes_sent_per_request=metric("data_sent") / max(metric("http_reqs"), 1),
                  report=os.path.relpath(reports[0], ctx["workdir"]))
    # p50 and p99 as featureload prints them (computed from its HDR histograms) in report.md's throughput table.
    markdown = open(os.path.join(os.path.dirname(reports[0]), "report.md")).read().splitlines()
    for index, line in enumerate(markdown):
        if line.startswith("| scenario | operation |") and "p50 ms" in line:
            header = [cell.strip() for cell in line.strip("|").split("|")]
            row = [cell.strip() for cell in markdown[index + 2].strip("|").split("|")]
            result["p50_ms"] = float(row[header.index("p50 ms")])
            result["p99_ms"] = float(row[header.index("p99 ms")])
            break
    return result


RUNNERS = {"wrk": run_wrk, "hey": run_hey, "locust": run_locust, "libcurl": run_libcurl, "featureload": run_featureload}
for _name, _arguments in VARIANTS.items():
    RUNNERS[_name] = (lambda arguments: lambda ctx, batch, prefix: run_featureload(ctx, batch, prefix, arguments(ctx, batch)))(_arguments)
WORK_TOOL = re.compile(r"^libcurl\+([\d.]+)us$")


def work_tool(microseconds):
    """The calibration tool: the libcurl loop with `microseconds` of busy work after each answer."""
    return f"libcurl+{microseconds:g}us"


def runner(tool):
    work = WORK_TOOL.match(tool)
    return (lambda ctx, batch, prefix: run_libcurl(ctx, batch, prefix, float(work.group(1)))) if work else RUNNERS[tool]


def measure(ctx, tool, batch):
    prefix = os.path.join(ctx["workdir"], f"{tool}-b{batch}-round{ctx['round'] + 1}")  # every run keeps its own logs
    before = layer_count(ctx["layer_url"])
    server_before, (busy_before, total_before), start = process_cpu_seconds(ctx["server_pid"]), \
        machine_cpu_seconds(), time.monotonic()
    result = runner(tool)(ctx, batch, prefix)
    time.sleep(0.3)  # requests the client abandoned at its deadline finish on the server
    window = time.monotonic() - start
    server_cpu = process_cpu_seconds(ctx["server_pid"]) - server_before
    busy, total = machine_cpu_seconds()
    after = layer_count(ctx["layer_url"])
    edits = after - before
    duration = result.get("duration") or result["wall"]
    requests = edits / batch
    result.update(tool=tool, batch=batch, edits=edits, requests=requests, measured_seconds=duration,
                  duration_source="tool" if result.get("duration") else "wall",
                  edits_per_second=edits / duration if duration else 0.0,
                  client_cpu_seconds=result.pop("cpu"), wall_seconds=result.pop("wall"),
                  window_seconds=window, server_cpu_seconds=server_cpu,
                  server_cpu_percent=server_cpu / window * 100,
                  machine_busy_percent=(busy - busy_before) / window * 100,
                  machine_capacity_percent=(total - total_before) / window * 100,
                  load_average_after=load_average())
    result["client_cpu_us_per_request"] = result["client_cpu_seconds"] * 1e6 / requests if requests else None
    result["client_cpu_us_per_edit"] = result["client_cpu_seconds"] * 1e6 / edits if edits else None
    result["client_cpu_percent"] = result["client_cpu_seconds"] / window * 100
    result["other_cpu_percent"] = max(0.0, result["machine_busy_percent"] - result["client_cpu_percent"]
                                      - result["server_cpu_percent"])
    log(f"{tool:<11} batch {batch:>3}: {edits} edits in {duration:.2f} s = {result['edits_per_second']:.0f} edits/s, "
        f"client {result['client_cpu_seconds']:.2f} CPU s, server {result['server_cpu_percent']:.0f} % CPU"
        + (f"  ERROR {result['error']}" if "error" in result else ""))
    return result


# --- the report -------------------------------------------------------------------------------------------------

MEDIAN_KEYS = ["requests", "edits", "edits_per_second", "ratio_to_wrk", "client_cpu_seconds", "client_cpu_us_per_request",
               "client_cpu_us_per_edit", "server_cpu_percent", "p50_ms", "p99_ms", "other_cpu_percent"]


def summarize(group):
    """One row per tool and batch size: the median of each figure over its rounds, and the range of edits/s."""
    row = dict(tool=group[0]["tool"], batch=group[0]["batch"], rounds=len(group))
    for key in MEDIAN_KEYS:
        values = [r[key] for r in group if r.get(key) is not None]
        row[key] = statistics.median(values) if values else None
    rates = [r["edits_per_second"] for r in group]
    row["edits_per_second_range"] = [min(rates), max(rates)]
    return row


def fmt(value, digits=0):
    if value is None:
        return "–"
    return f"{value:,.{digits}f}"


def markdown(report):
    lines = [f"# Generator benchmark {report['startedAt']}", "",
             f"Does the load generator measure itself? {len([t for t in report['settings']['order'] if not WORK_TOOL.match(t)])} clients send the same applyEdits workload, one after "
             "another, each to a fresh release `featureload serve`; edits are counted on the server "
             "(`Benchmarks/generator/README.md`). Each tool runs "
             f"{report['settings']['rounds']} rounds, interleaved in a rotated order; the table shows medians, "
             "and × wrk is the median of each round's ratio to wrk's run in the same round.", "",
             f"- workload: `POST …/parks/FeatureServer/0/applyEdits`, form body `f=json&rollbackOnFailure=true&adds=…`, "
             f"{report['settings']['connections']} connections/users, {report['settings']['durationSeconds']} s per "
             f"tool per batch size, order {', '.join(report['settings']['order'])}; body bytes "
             + ", ".join(f"batch {b}: {n}" for b, n in report["bodyBytes"].items()),
             f"- machine: {report['machine']['cores']} cores, shared by server, client and anything else running; "
             f"load average at start {report['machine']['loadAverageStart']}, at end {report['machine']['loadAverageEnd']}",
             f"- tools: " + ", ".join(f"{k} {v}" for k, v in report["tools"].items()),
             "- client CPU = user+sys of the client process tree (`/usr/bin/time`), whole run including start-up; "
             "server CPU % and other CPU % (everything else on the machine) are of one core over the same window", ""]
    header = ["tool", "batch", "requests", "edits", "edits/s", "edits/s range", "× wrk", "client CPU µs/req",
              "client CPU µs/edit", "server CPU %", "p50 ms", "p99 ms", "other CPU %"]
    lines += ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for r in report["results"]:
        low, high = r["edits_per_second_range"]
        lines.append("| " + " | ".join([
            r["tool"], str(r["batch"]), fmt(r["requests"]), fmt(r["edits"]), fmt(r["edits_per_second"]),
            f"{fmt(low)}–{fmt(high)}", fmt(r.get("ratio_to_wrk"), 2), fmt(r["client_cpu_us_per_request"]),
            fmt(r["client_cpu_us_per_edit"], 1), fmt(r["server_cpu_percent"]), fmt(r.get("p50_ms"), 2),
            fmt(r.get("p99_ms"), 2), fmt(r["other_cpu_percent"])]) + " |")
    lines += ["", "Every run, in the order they ran:", "",
              "| round | tool | batch | edits/s | × wrk (same round) | client CPU µs/req | server CPU % | other CPU % |",
              "|---:|---|---:|---:|---:|---:|---:|---:|"]
    for r in report["runs"]:
        lines.append(f"| {r['round']} | {r['tool']} | {r['batch']} | {fmt(r['edits_per_second'])} | "
                     f"{fmt(r.get('ratio_to_wrk'), 2)} | {fmt(r['client_cpu_us_per_request'])} | "
                     f"{fmt(r['server_cpu_percent'])} | {fmt(r['other_cpu_percent'])} |")
    lines += ["", "## Targets", ""]
    for target in report["targets"]:
        lines.append(f"- {'PASS' if target['passed'] else 'FAIL'}: {target['name']} ({target['detail']})")
    if report.get("floor"):
        lines += ["", "## The libcurl floor", "",
                  "The libcurl loop (`Benchmarks/libcurl-loop/main.c`) is the same closed loop in C over libcurl's multi "
                  "interface, options set once per handle, answers dropped: the most a libcurl-based client reaches here. "
                  "featureload's own transport is libcurl; what it spends above the loop is featureload's. "
                  "The rows libcurl+N us are the same loop keeping the CPU busy for N µs after each answer, before "
                  "sending again: a client doing that much work of its own a request (`--calibrate`). Server and "
                  "client share the machine's cores, so what each microsecond of client CPU costs the server shows "
                  "in their edits/s.", ""]
        lines += [f"- {line}" for line in report["floor"]]
    if report.get("loopRatios"):
        lines += ["", "## featureload ÷ the libcurl loop", "",
                  "Each ratio is the median over the rounds of each round's own pair (featureload and the loop run back "
                  "to back against fresh servers); client CPU a request counts requests on the server.", ""]
        lines += loop_ratio_lines(report)
    if report["notes"]:
        lines += ["", "## Notes", ""] + [f"- {note}" for note in report["notes"]]
    return "\n".join(lines) + "\n"


def evaluate(report):
    by = {(r["tool"], r["batch"]): r for r in report["results"]}
    targets = []
    for batch in report["settings"]["batches"]:
        wrk, featureload, hey = by.get(("wrk", batch)), by.get(("featureload", batch)), by.get(("hey", batch))
        if wrk and featureload and featureload.get("ratio_to_wrk") is not None:
            ratio = featureload["ratio_to_wrk"]  # the median of the rounds' paired ratios
            targets.append(dict(name=f"featureload ≥ 0.9× wrk's edits/s at batch {batch}", passed=ratio >= 0.9,
                                detail=f"{ratio:.2f}×"))
        if hey and featureload and hey["client_cpu_us_per_request"] and featureload["client_cpu_us_per_request"]:
            mine, theirs = featureload["client_cpu_us_per_request"], hey["client_cpu_us_per_request"]
            targets.append(dict(name=f"featureload client CPU per request ≤ hey's at batch {batch}",
                                passed=mine <= theirs, detail=f"{mine:.0f} µs vs {theirs:.0f} µs"))
        for variant in VARIANTS:
            with_output = by.get((variant, batch))
            if not (featureload and with_output and featureload["edits_per_second"]):
                continue
            # Within noise: at least 0.95× plain featureload's median edits/s, or inside the range of its own rounds.
            ratio = with_output["edits_per_second"] / featureload["edits_per_second"]
            low = featureload["edits_per_second_range"][0]
            targets.append(dict(
                name=f"{variant} within the noise of featureload at batch {batch} (≥ 0.95× its edits/s or within its rounds' range)",
                passed=ratio >= 0.95 or with_output["edits_per_second"] >= low,
                detail=f"{ratio:.2f}× ({fmt(with_output['edits_per_second'])} vs {fmt(featureload['edits_per_second'])} edits/s, "
                       f"featureload's rounds {fmt(low)}–{fmt(featureload['edits_per_second_range'][1])}); client CPU "
                       f"{fmt(with_output['client_cpu_us_per_request'])} vs {fmt(featureload['client_cpu_us_per_request'])} µs/req"))
    return targets


# featureload against the libcurl loop, the floor under its transport (issue 29): (name, figure of each run, batch,
# bound, "min" when the ratio must reach the bound or "max" when it must stay under it). Each ratio is the median over
# the rounds of that round's own featureload ÷ loop pair (the two run back to back), with the range over the rounds.
LOOP_TARGETS = [
    ("edits/s, featureload ÷ libcurl loop", "edits_per_second", 1, 0.95, "min"),
    ("client CPU µs a request, featureload ÷ libcurl loop", "client_cpu_us_per_request", 1, 1.3, "max"),
    ("edits/s, featureload ÷ libcurl loop", "edits_per_second", 100, 1.0, "min"),
]


def loop_ratios(runs):
    """Each LOOP_TARGETS ratio whose batch size ran with both tools: the median of the rounds' own pairs."""
    ratios = []
    for name, key, batch, bound, kind in LOOP_TARGETS:
        values = []
        for round_number in sorted({r["round"] for r in runs if r["batch"] == batch}):
            def figure(tool):
                found = [r.get(key) for r in runs if r["tool"] == tool and r["batch"] == batch and r["round"] == round_number]
                return found[0] if found else None
            top, bottom = figure("featureload"), figure("libcurl")
            if top and bottom:
                values.append(top / bottom)
        if values:
            def meets(ratio):
                return ratio >= bound if kind == "min" else ratio <= bound
            value = statistics.median(values)
            ratios.append(dict(name=name, batch=batch, value=value, low=min(values), high=max(values), rounds=len(values),
                               roundsMeeting=sum(map(meets, values)), bound=bound, kind=kind, passed=meets(value)))
    return ratios


def loop_spread(runs, batch):
    """How far the loop's own edits/s moved between rounds at `batch` (range ÷ median), or None with one round: a ratio
    closer to its target than that is not told apart from the machine's noise by these rounds."""
    rates = [r["edits_per_second"] for r in runs if r["tool"] == "libcurl" and r["batch"] == batch and r.get("edits_per_second")]
    return (max(rates) - min(rates)) / statistics.median(rates) if len(rates) > 1 else None


def loop_ratio_lines(report):
    """The ratios against the libcurl loop as a markdown table, with the machine's cores and load."""
    machine = report["machine"]
    lines = ["| ratio | batch | median | range over rounds | rounds meeting the target | target | |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for ratio in report["loopRatios"]:
        lines.append(f"| {ratio['name']} | {ratio['batch']} | {ratio['value']:.2f} | {ratio['low']:.2f}–{ratio['high']:.2f} "
                     f"({ratio['rounds']} rounds) | {ratio['roundsMeeting']} of {ratio['rounds']} | "
                     f"{'≥' if ratio['kind'] == 'min' else '≤'} {ratio['bound']:.2f} | {'PASS' if ratio['passed'] else 'FAIL'} |")
    spreads = [(batch, loop_spread(report["runs"], batch)) for batch in sorted({r["batch"] for r in report["loopRatios"]})]
    spreads = [(batch, spread) for batch, spread in spreads if spread is not None]
    if spreads:
        lines += ["", "The loop's own edits/s moved by " + ", ".join(f"{spread:.0%} at batch {batch}" for batch, spread in spreads)
                  + " between rounds (range ÷ median): an edits/s ratio nearer its target than that is not told apart from the "
                  "machine's noise by these rounds; more rounds (`--rounds N`) narrow the median."]
    start, end = machine["loadAverageStart"], machine["loadAverageEnd"]
    lines += ["", f"Machine: {machine['cores']} cores, load average {start[0]:.2f} {start[1]:.2f} {start[2]:.2f} at the start, "
                  f"{end[0]:.2f} {end[1]:.2f} {end[2]:.2f} at the end; clients and server share them."]
    return lines


def floor(report):
    """Lines comparing featureload with the libcurl loop, per batch size: both against wrk, and their CPU."""
    by = {(r["tool"], r["batch"]): r for r in report["results"]}
    lines = []
    for batch in report["settings"]["batches"]:
        loop, featureload = by.get(("libcurl", batch)), by.get(("featureload", batch))
        if not loop or not featureload or not loop.get("ratio_to_wrk") or not featureload.get("ratio_to_wrk"):
            continue
        share = featureload["edits_per_second"] / loop["edits_per_second"] if loop["edits_per_second"] else None
        lines.append(f"batch {batch}: the libcurl loop reaches {loop['ratio_to_wrk']:.2f}× wrk at "
                     f"{fmt(loop['client_cpu_us_per_request'])} µs of client CPU a request; featureload "
                     f"{featureload['ratio_to_wrk']:.2f}× wrk ({fmt(share, 2)}× the loop's edits/s) at "
                     f"{fmt(featureload['client_cpu_us_per_request'])} µs")
        line = calibration(report, batch, featureload)
        if line:
            lines.append(line)
    return lines


def calibration(report, batch, featureload):
    """What a microsecond of client CPU a request costs here: a least-squares line through the rounds of the loop and
    the loop with busy work (× wrk of the same round against client CPU µs a request), and what it predicts."""
    points = [(r["client_cpu_us_per_request"], r["ratio_to_wrk"]) for r in report["runs"]
              if r["batch"] == batch and (r["tool"] == "libcurl" or WORK_TOOL.match(r["tool"]))
              and r.get("client_cpu_us_per_request") and r.get("ratio_to_wrk")]
    # Only where the loop also ran with busy work: two plain loop rounds a microsecond apart are noise, not a line.
    if not any(WORK_TOOL.match(r["tool"]) for r in report["runs"] if r["batch"] == batch) or len({round(x) for x, _ in points}) < 2:
        return None
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / spread
    intercept = mean_y - slope * mean_x
    by = {(r["tool"], r["batch"]): r for r in report["results"]}
    steps = ", ".join(f"{fmt(by[(tool, batch)]['ratio_to_wrk'], 2)}× at {fmt(by[(tool, batch)]['client_cpu_us_per_request'])} µs"
                      for tool in ["libcurl"] + [t for t in report["settings"]["order"] if WORK_TOOL.match(t)]
                      if (tool, batch) in by and by[(tool, batch)].get("ratio_to_wrk"))
    text = f"batch {batch}, calibration: the loop with busy work after each answer ({steps} of client CPU a request) "
    if slope >= 0:
        return text + f"lost nothing measurable to its client CPU (least squares over {len(points)} runs)"
    text += f"loses {-slope * 10:.2f}× wrk per 10 µs of client CPU a request (least squares over {len(points)} runs)"
    limit = (0.9 - intercept) / slope
    text += (f"; 0.9× wrk takes at most {limit:.0f} µs a request" if limit > 0
             else "; by the line, no client reaches 0.9× wrk here, however little CPU it spends")
    if featureload.get("client_cpu_us_per_request"):
        predicted = intercept + slope * featureload["client_cpu_us_per_request"]
        text += (f"; at featureload's {fmt(featureload['client_cpu_us_per_request'])} µs the line predicts {predicted:.2f}×, "
                 f"featureload measured {featureload['ratio_to_wrk']:.2f}×")
    return text


def tool_versions(ctx):
    def capture(command):
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=30)
            return (done.stdout + done.stderr).strip().splitlines()[0] if (done.stdout + done.stderr).strip() else ""
        except (OSError, subprocess.TimeoutExpired):
            return "?"

    def debian(package):
        return capture(["dpkg-query", "-W", "-f=${Version}", package]) or "?"

    locust = capture([ctx["locust"], "--version"])
    source = capture(["git", "-C", os.path.dirname(os.path.dirname(HERE)), "describe", "--always", "--dirty"])
    loop = capture(["sh", "-c", "curl-config --version 2>/dev/null || dpkg-query -W -f='libcurl ${Version}' libcurl4"])
    return {"wrk": debian("wrk"), "hey": debian("hey"), "libcurl": f"loop {ctx['libcurl_loop']} over {loop or '?'}",
            "locust": locust.replace("locust ", "").split(" from ")[0] if locust else "?",
            "featureload": f"{capture([ctx['binary'], '--version']) or '?'} (binary {ctx['binary']}, source tree "
                           f"{source or '?'} when the benchmark ran)"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True, help="release featureload binary")
    parser.add_argument("--locust", required=True, help="the locust executable (in the benchmark venv)")
    parser.add_argument("--libcurl-loop", help="the featureload-libcurl-loop executable (needed for the libcurl tool)")
    parser.add_argument("--output", default="Reports/benchmarks")
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--wrk-threads", type=int, default=2)
    parser.add_argument("--warm-up", type=float, default=2.0)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 100])
    parser.add_argument("--tools", nargs="+", default=TOOLS, choices=TOOLS + list(VARIANTS))
    def microseconds(text):
        value = float(text)
        if not 0.1 <= value <= 10000:
            raise argparse.ArgumentTypeError(f"{text}: busy work must be 0.1 to 10000 µs")
        return value

    parser.add_argument("--calibrate", type=microseconds, nargs="*", default=[10.0, 20.0], metavar="MICROSECONDS",
                        help="at the smallest batch size, also run the libcurl loop with this much busy work after each "
                             "answer, to show what client CPU costs here (default 10 20; --calibrate alone for none)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="runs per tool and batch size, interleaved; the table shows medians (default 3)")
    parser.add_argument("--script-started", type=float, help="epoch seconds the wrapper script started")
    args = parser.parse_args()
    if not os.path.exists("/usr/bin/time"):
        fail("/usr/bin/time is missing (Debian package time)")
    for tool in ("wrk", "hey"):
        if tool in args.tools and not shutil.which(tool):
            fail(f"{tool} is not installed")
    if "libcurl" in args.tools and not (args.libcurl_loop and os.access(args.libcurl_loop, os.X_OK)):
        fail("the libcurl tool needs --libcurl-loop, the featureload-libcurl-loop executable "
             "(FEATURELOAD_BENCHMARKS=1 swift build -c release --product featureload-libcurl-loop)")

    started = datetime.datetime.now(datetime.timezone.utc)
    stamp = started.strftime("%Y%m%dT%H%M%SZ")
    workdir = tempfile.mkdtemp(prefix="featureload-generator-bench-")
    log(f"logs and generated bodies in {workdir}")
    binary = os.path.abspath(args.binary)
    load_start = load_average()
    results = []
    rows_at_start = rows_at_end = None
    bodies = {batch: form_body(batch) for batch in args.batches}
    # A fresh server (temporary database) for every run: inserts slow down as the table grows, so a shared server
    # would favour whichever tool runs first. The machine is shared and noisy, so every tool runs `rounds` times,
    # interleaved and in a rotated order (no tool always first), and the table shows medians.
    runs = []
    calibrating = "libcurl" in args.tools and args.calibrate

    def tools_for(batch):
        if calibrating and batch == min(args.batches):
            return args.tools + list(dict.fromkeys(work_tool(w) for w in args.calibrate))
        return args.tools

    for batch in args.batches:
        tools = tools_for(batch)
        for round_index in range(args.rounds):
            order = tools[round_index % len(tools):] + tools[:round_index % len(tools)]
            for tool in order:
                server, service_url = start_server(binary, workdir)
                try:
                    parsed = urllib.parse.urlsplit(service_url)
                    if parsed.hostname != "127.0.0.1":
                        fail(f"refusing to send load to {parsed.hostname}: only 127.0.0.1")
                    layer_url = service_url + "/0"
                    ctx = dict(binary=binary, locust=os.path.abspath(args.locust), workdir=workdir,
                               libcurl_loop=os.path.abspath(args.libcurl_loop) if args.libcurl_loop else None, duration=args.duration,
                               connections=args.connections, wrk_threads=args.wrk_threads, service_url=service_url,
                               layer_url=layer_url, apply_url=layer_url + "/applyEdits",
                               apply_path=urllib.parse.urlsplit(layer_url + "/applyEdits").path,
                               host_url=f"{parsed.scheme}://{parsed.netloc}", server_pid=server.pid, body_files={},
                               round=round_index, tool=tool)
                    log(f"featureload serve (pid {server.pid}) at {service_url} for {tool}, batch {batch}, "
                        f"round {round_index + 1} of {args.rounds}")
                    if rows_at_start is None:
                        schema = check_schema(layer_url)
                        rows_at_start = layer_count(layer_url)
                    for size, body in bodies.items():
                        ctx["body_files"][size] = os.path.join(workdir, f"body-{size}.txt")
                        with open(ctx["body_files"][size], "wb") as body_file:
                            body_file.write(body)
                    check_bodies(parsed.hostname, parsed.port, ctx["apply_path"], {batch: bodies[batch]})
                    warm_requests = warm_up(parsed.hostname, parsed.port, ctx["apply_path"], {batch: bodies[batch]}, args.warm_up)
                    log(f"warm-up: {warm_requests} requests in {args.warm_up:g} s")
                    run = measure(ctx, tool, batch)
                    run["round"] = round_index + 1
                    runs.append(run)
                    rows_at_end = layer_count(layer_url)
                finally:
                    stop_server(server)
                time.sleep(1)  # let the machine settle between tools

    # Per round, each tool against wrk's run of the same round (the fairest pairing on a drifting machine).
    for run in runs:
        wrk = next((r for r in runs if r["tool"] == "wrk" and r["batch"] == run["batch"] and r["round"] == run["round"]), None)
        run["ratio_to_wrk"] = run["edits_per_second"] / wrk["edits_per_second"] \
            if wrk and wrk["edits_per_second"] else None
    results = [summarize([r for r in runs if r["tool"] == tool and r["batch"] == batch])
               for batch in args.batches for tool in tools_for(batch)]

    notes = []
    for r in runs:
        label = f"{r['tool']} batch {r['batch']} round {r['round']}"
        if "error" in r:
            notes.append(f"{label}: {r['error']}")
        if r.get("exit"):
            notes.append(f"{label}: exit code {r['exit']}")
        if r.get("tool_errors"):
            notes.append(f"{label}: the tool counted {r['tool_errors']} errors or non-200 answers")
        if r.get("tool_requests") is not None and r["requests"] and abs(r["tool_requests"] - r["requests"]) > 0.01 * r["requests"] + 8:
            notes.append(f"{label}: the tool counted {r['tool_requests']} requests, the server {r['requests']:.0f}")
        for warning in r.get("warnings", []):
            notes.append(f"{label}: Locust warned: {warning}")
        if r["tool"] == "featureload" and r.get("bytes_sent_per_request"):
            notes.append(f"{label}: featureload generates its own features from the layer schema: "
                         f"{r['bytes_sent_per_request']:.0f} bytes sent per request (headers included) against the "
                         f"{len(bodies[r['batch']])}-byte body of the other tools")
    if "locust" in args.tools:
        notes.append("Locust runs in one process, i.e. on one core (no --processes); its percentiles are rounded to "
                     "whole ms below 100 ms; -r 8 spawns the 8 users over the first second")
    notes.append(f"every tool ran against a fresh server (temporary database of {rows_at_start} rows, 2 s warm-up), so none "
                 f"inserted into a table the others had grown (order: {', '.join(args.tools)})")

    report = dict(schema="featureload.generator-benchmark", schemaVersion=1, startedAt=started.isoformat(timespec="seconds"),
                  finishedAt=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                  wallSecondsUntilReport=(time.time() - args.script_started) if args.script_started else None,
                  machine=dict(cores=os.cpu_count(), loadAverageStart=load_start, loadAverageEnd=load_average(),
                               kernel=os.uname().release),
                  settings=dict(durationSeconds=args.duration, connections=args.connections, wrkThreads=args.wrk_threads,
                                warmUpSeconds=args.warm_up, warmUpRequests=warm_requests, batches=args.batches,
                                order=tools_for(min(args.batches)), rounds=args.rounds, serviceURL=service_url,
                                calibrationMicroseconds=sorted(set(args.calibrate)) if calibrating else []),
                  tools=tool_versions(ctx), layerFields=schema, bodyBytes={str(b): len(v) for b, v in bodies.items()},
                  results=results, runs=runs, notes=notes, logs=workdir)
    report["targets"] = evaluate(report)
    report["floor"] = floor(report)
    report["loopRatios"] = loop_ratios(runs)
    os.makedirs(args.output, exist_ok=True)
    base = os.path.join(args.output, f"generator-{stamp}")
    with open(base + ".json", "w") as out:
        json.dump(report, out, indent=2)
        out.write("\n")
    text = markdown(report)
    with open(base + ".md", "w") as out:
        out.write(text)
    print(text)
    if report["loopRatios"]:  # once more at the very end, where a terminal shows it
        print("featureload ÷ libcurl loop:\n" + "\n".join(loop_ratio_lines(report)))
    print(f"report: {base}.json\nreport: {base}.md")


if __name__ == "__main__":
    main()
