#!/usr/bin/env python3
"""Apply benchmark: what does `featureload apply`'s journal cost?

The same number of point adds go to a fresh release `featureload serve` process on 127.0.0.1 twice per batch size:
once through `featureload apply` (plan into the SQLite journal, then send with the journal on) and once through
`featureload run` (generated adds, no journal), at the same batch size and concurrency. Edits are counted on the
server. Rounds alternate which goes first. Started by scripts/benchmark-apply; stdlib only. See
Benchmarks/apply/README.md.
"""

import argparse
import datetime
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request


def log(message):
    print(f"benchmark-apply: {message}", file=sys.stderr, flush=True)


def fail(message):
    log(message)
    sys.exit(1)


def layer_count(layer_url):
    with urllib.request.urlopen(layer_url + "/query?where=1%3D1&returnCountOnly=true&f=json", timeout=30) as response:
        answer = json.loads(response.read())
    if "count" not in answer:
        fail(f"count query answered {answer}")
    return int(answer["count"])


def start_server(binary, workdir, name):
    out_path = os.path.join(workdir, f"{name}.serve.out")
    server = subprocess.Popen([binary, "serve", "--port", "0", "--data", os.path.join(workdir, f"{name}.sqlite")],
                              stdout=open(out_path, "w"), stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with open(out_path) as out:
            match = re.search(r"^featureload serve: listening on (http://127\.0\.0\.1:\d+/\S+/FeatureServer)\s*$", out.read(), re.M)
        if match:
            return server, match.group(1)
        if server.poll() is not None:
            break
        time.sleep(0.05)
    server.kill()
    fail(f"featureload serve did not print its URL: {open(out_path).read()}")


def stop_server(server):
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def write_input(path, count):
    with open(path, "w") as out:
        for index in range(count):
            out.write(json.dumps({
                "type": "Feature",
                "geometry": {"type": "Point", "coordinates": [-120 + index % 1000 * 0.001, 36 + index // 1000 * 0.001]},
                "properties": {"name": f"Bench {index}", "state": "CA", "visitors": index},
            }) + "\n")


def write_scenario(path, url, count, batch, concurrency, global_ids):
    with open(path, "w") as out:
        out.write(f"""version: 2
name: journal-free
target: {url}
verify: false
scenarios:
  adds:
    executor: shared-iterations
    vus: {concurrency}
    iterations: {count // batch}
    maxDuration: 10m
    exec: applyEdits
    adds: {batch}
    clientGlobalIds: {"true" if global_ids else "false"}
""")


def timed(command, limit):
    """Runs `command`; returns (wall seconds, stdout). Fails on a non-zero exit or past `limit` seconds."""
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=limit)
    seconds = time.monotonic() - start
    if done.returncode != 0:
        fail(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return seconds, done.stdout


def run_apply(binary, workdir, name, input_path, batch, concurrency, count, limit, streamed=False):
    server, url = start_server(binary, workdir, name)
    try:
        layer = url + "/0"
        before = layer_count(layer)
        journal = os.path.join(workdir, f"{name}.journal")
        seconds, output = timed([binary, "apply", input_path, "--to", url, "--layer", "0", "--batch-size", str(batch),
                                 "--concurrency", str(concurrency), "--journal", journal,
                                 "--rejects", os.path.join(workdir, f"{name}.rejects.geojsonl"), "--quiet"]
                                + (["--skip-invalid"] if streamed else []), limit)
        added = layer_count(layer) - before
        if added != count:
            fail(f"apply added {added} of {count}:\n{output}")
        sending = re.search(r"in ([0-9.]+) s \(", output)
        return {"seconds": seconds, "editsPerSecond": added / seconds,
                "sendSeconds": float(sending.group(1)) if sending else None,
                "sendEditsPerSecond": added / float(sending.group(1)) if sending else None}
    finally:
        stop_server(server)


def run_check(binary, workdir, name, input_path, one_path, batch, limit):
    """Seconds `featureload apply --dry-run` takes to read and check the whole input (no journal, nothing sent), less
    the same for a one-record input (starting, loading the layer's metadata): what apply does that the runner, which
    reads no input, does not."""
    server, url = start_server(binary, workdir, name)
    try:
        def dry(path):
            seconds, _ = timed([binary, "apply", path, "--to", url, "--layer", "0", "--batch-size", str(batch), "--dry-run", "--quiet"], limit)
            return seconds
        return {"seconds": dry(input_path) - dry(one_path)}
    finally:
        stop_server(server)


def run_runner(binary, workdir, name, batch, concurrency, count, limit, global_ids):
    server, url = start_server(binary, workdir, name)
    try:
        layer = url + "/0"
        before = layer_count(layer)
        scenario = os.path.join(workdir, f"{name}.yaml")
        write_scenario(scenario, url, count, batch, concurrency, global_ids)
        seconds, output = timed([binary, "run", scenario, "--out", os.path.join(workdir, name), "--quiet", "--formats", "md"], limit)
        added = layer_count(layer) - before
        if added != count:
            fail(f"run added {added} of {count}:\n{output}")
        reports = [os.path.join(root, f) for root, _, files in os.walk(os.path.join(workdir, name)) for f in files if f == "report.json"]
        scenario_seconds = None
        if reports:
            report = json.load(open(reports[0]))
            records = report.get("scenarios") or []
            if records and "durationSeconds" in records[0]:
                scenario_seconds = records[0]["durationSeconds"]
        return {"seconds": seconds, "editsPerSecond": added / seconds,
                "sendSeconds": scenario_seconds, "sendEditsPerSecond": added / scenario_seconds if scenario_seconds else None}
    finally:
        stop_server(server)


# The ratios the benchmark holds the tools to: (name, numerator tool, denominator tool, batch or None for every
# batch, least ratio of rates that passes).
TARGETS = [
    ("run with client GlobalIDs ÷ run, plain adds", "run-ids", "run", None, 1 / 1.2),
    ("apply (plan first) ÷ run, plain adds", "apply", "run", 1000, 0.8),
    ("apply --skip-invalid ÷ run, plain adds", "apply-streamed", "run", 1000, 0.8),
]


def target_ratios(results, batches, rounds):
    """Each target's ratio of edit rates: the median over the rounds of each round's own pair, with its range."""
    ratios = []
    for name, numerator, denominator, only, least in TARGETS:
        for batch in batches:
            if only is not None and batch != only:
                continue
            if only is None and batch not in (100, 1000):
                continue
            values = []
            for round_number in range(rounds):
                def rate(tool):
                    found = [r["editsPerSecond"] for r in results if r["batch"] == batch and r["tool"] == tool and r["round"] == round_number]
                    return found[0] if found else None
                top, bottom = rate(numerator), rate(denominator)
                if top and bottom:
                    values.append(top / bottom)
            if values:
                value = statistics.median(values)
                ratios.append({"name": name, "batch": batch, "value": value, "low": min(values), "high": max(values),
                               "rounds": len(values), "roundsMeeting": sum(v >= least for v in values),
                               "target": least, "pass": value >= least})
    return ratios


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--output", default="Reports/benchmarks")
    parser.add_argument("--edits", type=int, default=100_000)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 100, 1000])
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--limit", type=int, default=600, help="longest one command may take, in seconds")
    args = parser.parse_args()

    start_load = os.getloadavg()
    os.makedirs(args.output, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix="featureload-apply-bench-")
    input_path = os.path.join(workdir, "bench.geojsonl")
    write_input(input_path, args.edits)
    one_path = os.path.join(workdir, "one.geojsonl")
    write_input(one_path, 1)
    log(f"{args.edits} adds in {input_path} ({os.path.getsize(input_path) // 1024} KiB)")
    results = []
    for batch in args.batches:
        for round_number in range(args.rounds):
            order = ["apply", "apply-streamed", "run-ids", "run", "check"]
            if round_number % 2 == 1:
                order.reverse()
            for tool in order:
                name = f"{tool}-b{batch}-r{round_number}"
                if tool == "check":
                    figures = run_check(args.binary, workdir, name, input_path, one_path, batch, args.limit)
                    figures.update({"tool": tool, "batch": batch, "round": round_number})
                    results.append(figures)
                    log(f"batch {batch} round {round_number + 1} reading and checking the input: {figures['seconds']:.2f} s")
                    continue
                if tool.startswith("apply"):
                    figures = run_apply(args.binary, workdir, name, input_path, batch, args.concurrency, args.edits, args.limit,
                                        streamed=tool == "apply-streamed")
                else:
                    figures = run_runner(args.binary, workdir, name, batch, args.concurrency, args.edits, args.limit, tool == "run-ids")
                figures.update({"tool": tool, "batch": batch, "round": round_number})
                results.append(figures)
                log(f"batch {batch} round {round_number + 1} {tool}: {figures['editsPerSecond']:.0f} edits/s "
                    f"({figures['seconds']:.2f} s for the whole process)")

    rows = []
    for batch in args.batches:
        def median(tool, key):
            values = [r[key] for r in results if r["batch"] == batch and r["tool"] == tool and r[key]]
            return statistics.median(values) if values else None
        def paired(tool):
            # The machine's load drifts between rounds: each round's apply is set against that round's runner (they
            # run back to back), and the median of those costs is given with their range.
            costs = []
            for round_number in range(args.rounds):
                mine = [r["editsPerSecond"] for r in results if r["batch"] == batch and r["tool"] == tool and r["round"] == round_number]
                runner = [r["editsPerSecond"] for r in results if r["batch"] == batch and r["tool"] == "run-ids" and r["round"] == round_number]
                if mine and runner and mine[0] and runner[0]:
                    costs.append(1 - mine[0] / runner[0])
            return (statistics.median(costs), min(costs), max(costs)) if costs else (None, None, None)
        apply_rate, run_rate = median("apply", "editsPerSecond"), median("run-ids", "editsPerSecond")
        streamed_rate = median("apply-streamed", "editsPerSecond")
        plain_rate = median("run", "editsPerSecond")
        apply_send, run_send = median("apply", "sendEditsPerSecond"), median("run-ids", "sendEditsPerSecond")
        apply_seconds, run_seconds, check_seconds = median("apply", "seconds"), median("run-ids", "seconds"), median("check", "seconds")
        # Planning first, the phases follow one another: what apply takes beyond the runner is reading and checking the
        # input (measured alone by --dry-run) and the journal's own work (the rest), each a share of apply's time.
        check_share = check_seconds / apply_seconds
        shares = []
        for round_number in range(args.rounds):
            def seconds(tool):
                found = [r["seconds"] for r in results if r["batch"] == batch and r["tool"] == tool and r["round"] == round_number]
                return found[0] if found else None
            mine, runner, check = seconds("apply"), seconds("run-ids"), seconds("check")
            if mine and runner and check is not None:
                shares.append((mine - runner - check) / mine)
        journal_share = statistics.median(shares) if shares else (apply_seconds - run_seconds - check_seconds) / apply_seconds
        rows.append({"batch": batch, "applyEditsPerSecond": apply_rate, "runEditsPerSecond": run_rate,
                     "streamedEditsPerSecond": streamed_rate, "streamedCost": paired("apply-streamed")[0],
                     "streamedCostRange": paired("apply-streamed")[1:], "cost": paired("apply")[0], "costRange": paired("apply")[1:],
                     "plainRunEditsPerSecond": plain_rate,
                     "costAgainstPlain": 1 - apply_rate / plain_rate,
                     "applySendEditsPerSecond": apply_send, "runSendEditsPerSecond": run_send,
                     "sendCost": 1 - apply_send / run_send if apply_send and run_send else None,
                     "checkSeconds": check_seconds, "checkShare": check_share, "journalShare": journal_share})

    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    base = os.path.join(args.output, f"apply-journal-{stamp}")
    summary = {"edits": args.edits, "concurrency": args.concurrency, "rounds": args.rounds, "rows": rows, "runs": results,
               "machine": {"cores": os.cpu_count(), "loadAverage": os.getloadavg()}}
    lines = [
        f"# What apply's journal costs: {args.edits} adds, {args.concurrency} requests in flight, {args.rounds} rounds (medians)",
        "",
        "Costs are the median of each round's own pair (apply against the runner run just before or after it), with the",
        "range over the rounds in brackets: the machine's load drifts more between rounds than within one.",
        "",
        "Whole process: wall time of `featureload apply` (reading the input, planning it into the journal, sending with the",
        "journal on) against `featureload run` sending the same adds without a journal: each with a client GlobalID, sent",
        "with `useGlobalIds=true` and retried exactly once (`clientGlobalIds: true`), as apply sends them. Edits counted on",
        "the server. Two ways of applying: with `--skip-invalid`, batches are sent as the plan completes them, while the",
        "input is still read (the journal's cost: everything apply does beyond the runner, overlapped); by default the",
        "whole input is checked and planned before anything is sent (that cost also holds the checking pass). For",
        "reference, the runner's plain adds (no GlobalIDs, one attempt each), which cost the service less. Sending only:",
        "apply's own sending time (default) against the runner's scenario time.",
        "",
        "| batch | apply --skip-invalid edits/s | journal cost | apply (plan first) edits/s | cost | run, same adds | run, plain adds | apply sending | run sending | cost while sending |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    def cost(value, spread):
        if value is None:
            return "–"
        low, high = spread
        return f"{value * 100:.1f} %" + (f" ({low * 100:.1f} to {high * 100:.1f})" if args.rounds > 1 else "")
    for row in rows:
        send_cost = f"{row['sendCost'] * 100:.1f} %" if row["sendCost"] is not None else "–"
        lines.append(f"| {row['batch']} | {row['streamedEditsPerSecond']:.0f} | {cost(row['streamedCost'], row['streamedCostRange'])} | "
                     f"{row['applyEditsPerSecond']:.0f} | {cost(row['cost'], row['costRange'])} | {row['runEditsPerSecond']:.0f} | "
                     f"{row['plainRunEditsPerSecond']:.0f} | "
                     f"{row['applySendEditsPerSecond'] or 0:.0f} | {row['runSendEditsPerSecond'] or 0:.0f} | {send_cost} |")
    lines += [
        "",
        "Planning first, the phases follow one another, so apply's time beyond the runner's splits in two: reading and",
        "checking the input (`apply --dry-run` of the whole input less that of a one-record input: no journal, nothing",
        "sent), which the runner does not do, and the journal's own work (the rest: writing the plan, marking batches,",
        "recording outcomes). Each is a share of apply's time, so the two add up to its cost (the journal's share is the",
        "median of each round's own).",
        "",
        "| batch | apply (plan first) s | run, same adds s | reading and checking s | share | journal's own work | share |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        journal_seconds = row["journalShare"] * (args.edits / row["applyEditsPerSecond"])
        lines.append(f"| {row['batch']} | {args.edits / row['applyEditsPerSecond']:.2f} | {args.edits / row['runEditsPerSecond']:.2f} | "
                     f"{row['checkSeconds']:.2f} | {row['checkShare'] * 100:.1f} % | {journal_seconds:.2f} | {row['journalShare'] * 100:.1f} % |")
    target = next((row for row in rows if row["batch"] == 1000), None)
    if target:
        lines += ["", f"Target: the journal costs under 10 % at batch 1000. Whole process against the runner:"
                      f" {cost(target['streamedCost'], target['streamedCostRange'])} sending while planning,"
                      f" {cost(target['cost'], target['costRange'])} planning the whole input first"
                      f"{' (met)' if target['streamedCost'] < 0.10 else ' (not met)'}. The journal's own work, planning first:"
                      f" {target['journalShare'] * 100:.1f} %{' (met)' if target['journalShare'] < 0.10 else ' (not met)'};"
                      f" reading and checking the input: {target['checkShare'] * 100:.1f} %."]
    ratios = target_ratios(results, args.batches, args.rounds)
    summary["ratios"] = ratios
    if ratios:
        lines += ["", "Targets: what exactly-once adds cost the service against plain adds (the runner's adds with client GlobalIDs",
                  "sent with `useGlobalIds=true`, against its plain adds: at most 1.2 times, a ratio of rates of at least",
                  f"{1 / 1.2:.3f}), and apply against the runner's plain adds at batch 1000 (at least 0.8). Each ratio is the",
                  "median of each round's own (the two runs of a round go back to back), with the range over the rounds.",
                  "",
                  "| ratio | batch | median | range | rounds meeting the target | target | |",
                  "|---|---:|---:|---:|---:|---:|---|"]
        for ratio in ratios:
            spread = f"{ratio['low']:.3f} to {ratio['high']:.3f}" if args.rounds > 1 else "–"
            lines.append(f"| {ratio['name']} | {ratio['batch']} | {ratio['value']:.3f} | {spread} | "
                         f"{ratio['roundsMeeting']} of {ratio['rounds']} | ≥ {ratio['target']:.3f} | {'PASS' if ratio['pass'] else 'FAIL'} |")
    load = os.getloadavg()
    summary["machine"]["loadAverageAtEnd"] = load
    lines += ["", f"Machine: {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the end "
                  f"({start_load[0]:.2f} {start_load[1]:.2f} {start_load[2]:.2f} at the start); generator and service share them."]
    json.dump(summary, open(base + ".json", "w"), indent=2, sort_keys=True)
    open(base + ".md", "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))
    log(f"wrote {base}.md and {base}.json")


if __name__ == "__main__":
    main()
