-- wrk script for benchmarks/bench_serve.py --wrk: closed-loop clients posting the plan requests
-- whose bodies are the files given after "--", in turn; the token comes from GPUPLAN_TOKEN.
-- done() prints one JSON line: latency percentiles (ms), requests, non-200 answers, socket errors.
local bodies = {}
local n = 0
bad = 0  -- a global: done() reads each thread's with thread:get
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  for i, path in ipairs(args) do
    local f = assert(io.open(path, "rb"))
    bodies[i] = f:read("*a")
    f:close()
  end
  headers = {
    ["Authorization"] = "Bearer " .. os.getenv("GPUPLAN_TOKEN"),
    ["Content-Type"] = "application/json",
  }
end

function request()
  n = n + 1
  return wrk.format("POST", "/api/v1/plan", headers, bodies[(n % #bodies) + 1])
end

function response(status, headers, body)
  if status ~= 200 then
    bad = bad + 1
  end
end

function done(summary, latency, requests)
  local not_ok = 0
  for _, thread in ipairs(threads) do
    not_ok = not_ok + thread:get("bad")
  end
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "duration_s": %.3f, "p50_ms": %.1f, "p95_ms": %.1f, "p99_ms": %.1f, ' ..
    '"max_ms": %.1f, "not_200": %d, "socket_errors": %d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1e3,
    latency:percentile(95) / 1e3, latency:percentile(99) / 1e3, latency.max / 1e3, not_ok,
    e.connect + e.read + e.write + e.timeout))
end
