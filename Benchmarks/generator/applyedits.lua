-- wrk script for the generator benchmark: POSTs one form-encoded applyEdits body, read once from the file named by
-- BENCH_BODY_FILE (written by Benchmarks/generator/run.py), to the URL given on wrk's command line.
-- At the end it prints one line "BENCH_WRK_JSON {...}" with wrk's own duration, request and error counts and
-- latency percentiles (microseconds), which run.py parses.
local path = os.getenv("BENCH_BODY_FILE")
if path == nil then error("BENCH_BODY_FILE is not set") end
local file = assert(io.open(path, "rb"))
local body = file:read("*a")
file:close()

wrk.method = "POST"
wrk.body = body
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"

done = function(summary, latency, requests)
    local e = summary.errors
    io.write(string.format(
        'BENCH_WRK_JSON {"durationMicroseconds":%d,"requests":%d,"bytesReceived":%d,' ..
        '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
        '"latencyMicroseconds":{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f}}\n',
        summary.duration, summary.requests, summary.bytes,
        e.connect, e.read, e.write, e.status, e.timeout,
        latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
