"""mcp_client_session.py TVIS WORKSPACE BAD_WORKSPACE: a Model Context Protocol
client (stdlib only) driving the real `tvis mcp` over stdio, as an agent in an
editor would: the lifecycle (a request before initialize, ping, initialize,
the initialized notification), tools/list with the three tools' schemas,
tools/call of check on a good model (output shapes) and on failing ones
(typed diagnostics: operands with shapes and dtypes, parameter names, the
timeout argument), a refused setup (an unknown profile; an invalid
tensorviz.toml: stage config with the field), graph (a readable run),
profiles (the same object `tvis profiles --json` prints), protocol errors
(-32700, -32600, -32601, -32602), end of input: exit 0, and a server stopped
mid-call by SIGTERM taking its worker with it. Every line the
server writes on stdout must be a JSON-RPC response. Run by test_mcp.sh;
prints FAIL lines and exits 1 on any failure.
"""
import json
import os
import queue
import subprocess
import sys
import threading
import time

PY = os.environ.get("TVIS_TEST_PYTHON") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "venv", "bin", "python")
TVIS, WS, BAD = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []


def expect(what, cond, detail=""):
    if not cond:
        failures.append("%s%s" % (what, (": " + str(detail)[:600]) if detail else ""))
    return cond


class Session:
    """One `tvis mcp` child: JSON lines in, JSON lines out, every stdout line kept."""

    def __init__(self, workspace, log):
        self.proc = subprocess.Popen([TVIS, "mcp", "--workspace", workspace, "--python", PY, "--log", log],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.proc.stdout:
            self.lines.put(raw)
        self.lines.put(None)

    def send_raw(self, text):
        self.proc.stdin.write(text.encode() + b"\n")
        self.proc.stdin.flush()

    def send(self, method, params=None, notify=False):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        if not notify:
            self.next_id += 1
            msg["id"] = self.next_id
        self.send_raw(json.dumps(msg))
        return msg.get("id")

    def receive(self, timeout=90):
        try:
            raw = self.lines.get(timeout=timeout)
        except queue.Empty:
            failures.append("no response within %d s" % timeout)
            raise SystemExit(report())
        if raw is None:
            failures.append("stdout closed while a response was awaited; stderr: %s" % self.proc.stderr.read()[-2000:])
            raise SystemExit(report())
        try:
            msg = json.loads(raw)
        except ValueError:
            failures.append("stdout carried a line that is not JSON: %r" % raw[:200])
            raise SystemExit(report())
        expect("every message is JSON-RPC 2.0", msg.get("jsonrpc") == "2.0", msg)
        return msg

    def request(self, method, params=None):
        sent = self.send(method, params)
        msg = self.receive()
        # Responses arrive in order, one per request; a reply to a notification would show up here as the wrong id.
        expect("%s: the response carries the request's id" % method, msg.get("id") == sent, msg)
        return msg

    def call(self, tool, arguments):
        msg = self.request("tools/call", {"name": tool, "arguments": arguments})
        if not expect("tools/call %s %s: a result" % (tool, arguments), "result" in msg, msg):
            return None, {}
        r = msg["result"]
        expect("%s: content is one text item" % tool,
               isinstance(r.get("content"), list) and len(r["content"]) == 1 and r["content"][0].get("type") == "text", r)
        s = r.get("structuredContent")
        expect("%s: the text is the structured object" % tool, json.loads(r["content"][0]["text"]) == s, r)
        expect("%s: isError is a boolean" % tool, isinstance(r.get("isError"), bool), r)
        return r.get("isError"), s or {}

    def finish(self):
        """End of input: the server must exit 0 with nothing left on stdout."""
        self.proc.stdin.close()
        try:
            rc = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = "still running 30 s after end of input"
        rest = []
        while True:
            raw = self.lines.get(timeout=10)
            if raw is None:
                break
            rest.append(raw)
        expect("end of input: exit 0", rc == 0, "exit %s, stderr %s" % (rc, self.proc.stderr.read()[-2000:]))
        expect("nothing more on stdout after the last response", rest == [], rest)


def error_code(msg):
    return msg.get("error", {}).get("code")


def report():
    if failures:
        print("\n".join("FAIL: " + f for f in failures))
        return 1
    print("mcp_client_session: all checks passed")
    return 0


def operands(d):
    return [(o["name"], o["shape"], o["dtype"]) for o in d.get("operands", [])]


log = os.path.join(os.path.dirname(os.path.abspath(WS)), "mcp.log")
s = Session(WS, log)

# Before initialize: ping is answered, anything else refused.
m = s.request("tools/list")
expect("tools/list before initialize: -32002", error_code(m) == -32002, m)
m = s.request("ping")
expect("ping before initialize: an empty result", m.get("result") == {}, m)

m = s.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "mcp_client_session", "version": "1"}})
r = m.get("result", {})
expect("initialize: the client's protocol version echoed", r.get("protocolVersion") == "2025-06-18", m)
expect("initialize: the tools capability", "tools" in r.get("capabilities", {}), m)
expect("initialize: serverInfo", r.get("serverInfo", {}).get("name") == "tvis" and r["serverInfo"].get("version"), m)
s.send("notifications/initialized", notify=True)
m = s.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x"}})
expect("a second initialize: -32600", error_code(m) == -32600, m)

# tools/list: the four tools, each with a closed object schema.
m = s.request("tools/list")
tools = {t["name"]: t for t in m.get("result", {}).get("tools", [])}
expect("tools/list: profiles, check, graph, diagnose, diff",
       sorted(tools) == ["check", "diagnose", "diff", "graph", "profiles"], sorted(tools))
for name, props in (("profiles", []), ("check", ["profile", "target", "timeout_ms"]), ("diagnose", ["run"]),
                    ("diff", ["a", "atol", "b", "rtol"]),
                    ("graph", ["out", "profile", "recapture", "target", "timeout_ms"])):
    schema = tools.get(name, {}).get("inputSchema", {})
    expect("%s: inputSchema is an object schema" % name, schema.get("type") == "object", schema)
    expect("%s: additionalProperties false" % name, schema.get("additionalProperties") is False, schema)
    expect("%s: its arguments" % name, sorted(schema.get("properties", {})) == props, schema)
    expect("%s: a description" % name, len(tools.get(name, {}).get("description", "")) > 40, tools.get(name))
t = tools.get("check", {}).get("inputSchema", {}).get("properties", {}).get("timeout_ms", {})
expect("check: timeout_ms an integer 100..86400000", (t.get("type"), t.get("minimum"), t.get("maximum")) == ("integer", 100, 86400000), t)
expect("check: outputSchema requires the typed keys",
       set(["ok", "stage", "outputs", "diagnostics"]) <= set(tools.get("check", {}).get("outputSchema", {}).get("required", [])),
       tools.get("check"))

# check: a good model, then failing ones with their typed diagnostics.
err, j = s.call("check", {"profile": "audit_small"})
expect("check audit_small: not an error", err is False, j)
expect("check audit_small: ok, output [2, 2] float32", j.get("ok") is True and
       [(o["shape"], o["dtype"]) for o in j.get("outputs", [])] == [([2, 2], "float32")], j)
expect("check audit_small: stage null, no diagnostics", j.get("stage") is None and j.get("diagnostics") == [], j)

err, j = s.call("check", {"target": "audit_models:LinearMismatch", "profile": "linear_mismatch"})
d = (j.get("diagnostics") or [{}])[0]
expect("check linear_mismatch: isError", err is True, j)
expect("check linear_mismatch: stage forward, kind shape", j.get("ok") is False and j.get("stage") == "forward" and
       d.get("kind") == "shape", j)
expect("check linear_mismatch: the operands' shapes and dtypes",
       operands(d) == [("input", [2, 4], "float32"), ("weight", [2, 8], "float32")], d)
expect("check linear_mismatch: the message from the operands", "inner dims 4 ≠ 8" in d.get("message", ""), d)

err, j = s.call("check", {"profile": "embedding_float"})
d = (j.get("diagnostics") or [{}])[0]
expect("check embedding_float: a dtype diagnostic", err is True and d.get("kind") == "dtype" and
       "float32" in [o["dtype"] for o in d.get("operands", [])], j)

err, j = s.call("check", {"profile": "binding_missing"})
d = (j.get("diagnostics") or [{}])[0]
expect("check binding_missing: stage binding, parameters.missing [mask]",
       err is True and j.get("stage") == "binding" and d.get("parameters", {}).get("missing") == ["mask"], j)

err, j = s.call("check", {"profile": "sleeps", "timeout_ms": 400})
d = (j.get("diagnostics") or [{}])[0]
expect("check sleeps with timeout_ms 400: a timeout naming the argument",
       err is True and d.get("kind") == "timeout" and "400 ms" in d.get("message", "") and
       "timeout_ms argument" in d.get("message", "") and j.get("timeout_ms") == 400, j)

# A refused setup: an unknown profile is a tool result (isError), stage request.
err, j = s.call("check", {"profile": "nope"})
d = (j.get("diagnostics") or [{}])[0]
expect("check nope: refused", err is True and j.get("ok") is False and j.get("stage") == "request", j)
expect("check nope: the diagnostic names the profile", d.get("kind") == "request" and "nope" in d.get("message", ""), d)

# Arguments that do not match the schema, an unknown tool: -32602 naming the problem.
for args, text in (({"timeout_ms": 5}, "minimum"), ({"profile": "audit_small", "bogus": 1}, "bogus"),
                   ({"profile": 3}, "string"), ({"target": ""}, "at least")):
    m = s.request("tools/call", {"name": "check", "arguments": args})
    expect("check %s: -32602" % args, error_code(m) == -32602 and text in m.get("error", {}).get("message", ""), m)
m = s.request("tools/call", {"name": "train", "arguments": {}})
expect("an unknown tool: -32602 naming it", error_code(m) == -32602 and "train" in m["error"]["message"], m)
m = s.request("tools/call", {"arguments": {}})
expect("tools/call without a name: -32602", error_code(m) == -32602, m)

# graph: the run is written and readable by tvis inspect.
err, j = s.call("graph", {"profile": "two_blocks", "out": "graph_runs"})
expect("graph two_blocks: ok, 6 nodes", err is False and j.get("ok") is True and j.get("nodes") == 6, j)
run = j.get("run") or ""
expect("graph two_blocks: the run under the workspace's graph_runs", run.startswith(os.path.join(WS, "graph_runs")) and
       os.path.isfile(run), run)
if os.path.isfile(run):
    p = subprocess.run([TVIS, "inspect", run, "--json"], capture_output=True, text=True)
    expect("graph two_blocks: tvis inspect reads the run", p.returncode == 0 and json.loads(p.stdout), p.stderr)
err, j = s.call("graph", {"profile": "two_blocks", "out": "graph_runs"})
expect("graph two_blocks again: the unchanged run reopened", err is False and j.get("reopened") is True and j.get("run") == run, j)
err, j = s.call("graph", {"profile": "two_blocks", "out": "graph_runs", "recapture": True})
expect("graph two_blocks, recapture: a new run", err is False and j.get("ok") is True and not j.get("reopened") and
       j.get("run") not in (None, run) and os.path.isfile(j.get("run") or ""), j)

# graph's out may only name a folder inside the workspace (issue 29 item 13): an absolute path, one
# leaving it with .., and a link inside it pointing out are refused, and nothing is written there.
outside = os.path.join(os.path.dirname(WS), "outside_runs")
os.symlink(os.path.dirname(WS), os.path.join(WS, "link_out"))
for out in (outside, "../outside_runs", "link_out/outside_runs"):
    err, j = s.call("graph", {"profile": "two_blocks", "out": out})
    d = (j.get("diagnostics") or [{}])[0].get("message", "")
    expect("graph out %s: refused" % out, err is True and j.get("ok") is False and
           ("leaves the workspace" in d or "must be relative" in d), j)
    expect("graph out %s: nothing written outside" % out, not os.path.exists(outside), outside)

# diagnose: the graph run (a profile capture: no training steps) gives nothing to judge, never "no
# findings": an error result with the reason, as tvis diagnose --json says (exit 2); a run outside the
# workspace is refused.
err, j = s.call("diagnose", {"run": "graph_runs"})
p = subprocess.run([TVIS, "diagnose", "--json", os.path.join(WS, "graph_runs")], capture_output=True, text=True)
expect("diagnose graph_runs: nothing to judge, an error result with the reason",
       err is True and j.get("findings") == [] and j.get("judged") is False and
       "model capture" in (j.get("nothing_to_judge") or ""), j)
expect("diagnose graph_runs: tvis diagnose's object", p.returncode == 2 and "nothing to judge" in p.stderr and
       {k: v for k, v in json.loads(p.stdout or "{}").items() if k != "read"} == {k: v for k, v in j.items() if k != "read"},
       (p.stdout, j))
for bad in ("link_out/outside_runs", "../outside_runs", "/etc"):
    err, j = s.call("diagnose", {"run": bad})
    expect("diagnose %s: refused" % bad, err is True and ("leaves the workspace" in j.get("error", "") or
                                                         "must be relative" in j.get("error", "")), j)
    err, j = s.call("diff", {"a": "graph_runs", "b": bad})
    expect("diff b=%s: refused" % bad, err is True and j.get("same") is False and
           ("leaves the workspace" in j.get("error", "") or "must be relative" in j.get("error", "")), j)
# diff: a run against itself agrees, as tvis diff --json says
err, j = s.call("diff", {"a": "graph_runs", "b": "graph_runs"})
expect("diff graph_runs graph_runs: the same, not an error", err is False and j.get("same") is True and
       j.get("first") is None, j)
err, j = s.call("diff", {"a": "graph_runs", "b": "no_such_runs"})
expect("diff with a missing run: an error naming it", err is True and "no_such_runs" in j.get("error", ""), j)
os.remove(os.path.join(WS, "link_out"))

# profiles: exactly what tvis profiles --json prints.
err, j = s.call("profiles", {})
cli = subprocess.run([TVIS, "profiles", "--workspace", WS, "--python", PY, "--json"], capture_output=True, text=True)
expect("profiles: valid, not an error", err is False and j.get("valid") is True, j.get("errors"))
expect("profiles: the object of tvis profiles --json", cli.returncode == 0 and json.loads(cli.stdout) == j,
       "exit %d" % cli.returncode)
m = s.request("tools/call", {"name": "profiles", "arguments": {"workspace": "/"}})
expect("profiles takes no arguments: -32602", error_code(m) == -32602, m)

# Protocol errors.
s.send_raw("{this is not json")
m = s.receive()
expect("malformed JSON: -32700 with id null", error_code(m) == -32700 and m.get("id") is None, m)
s.send_raw(json.dumps([{"jsonrpc": "2.0", "id": 99, "method": "ping"}]))
m = s.receive()
expect("a batch: -32600 with id null", error_code(m) == -32600 and m.get("id") is None, m)
s.send("resources/list", notify=True)   # an unknown notification: never answered
m = s.request("resources/list")
expect("an unknown method: -32601", error_code(m) == -32601, m)
m = s.request("tools/call", [1, 2])
expect("params not an object: -32602", error_code(m) == -32602, m)
s.send_raw(json.dumps({"jsonrpc": "1.0", "id": "old", "method": "ping"}))
m = s.receive()
expect("jsonrpc 1.0: -32600 with its id", error_code(m) == -32600 and m.get("id") == "old", m)
m = s.request("ping")
expect("ping after errors: still serving", m.get("result") == {}, m)
s.finish()
logged = open(log).read() if os.path.exists(log) else ""
expect("the log names each call", "tools/call id" in logged and "initialize:" in logged, logged[-500:])

# A second session on an invalid tensorviz.toml: every request refused with the config field.
s = Session(BAD, log)
m = s.request("initialize", {"protocolVersion": "1999-01-01", "capabilities": {}, "clientInfo": {"name": "old"}})
expect("initialize with an unknown revision: the latest answered",
       m.get("result", {}).get("protocolVersion") == "2025-06-18", m)
s.send("notifications/initialized", notify=True)
err, j = s.call("check", {"profile": "p"})
d = (j.get("diagnostics") or [{}])[0]
expect("invalid config: check refused, stage config", err is True and j.get("ok") is False and j.get("stage") == "config", j)
expect("invalid config: the diagnostic's field", d.get("kind") == "config" and d.get("field") == "profiles.p.timeout_ms" and
       "limits" in d.get("message", ""), d)
err, j = s.call("profiles", {})
expect("invalid config: profiles isError, valid false, the problem counted", err is True and j.get("valid") is False and
       j.get("error_count", 0) >= 1, j)
s.finish()

# The editor stops the server mid-call (SIGTERM): the worker running a 60 s forward under a 24 h limit goes too.
def alive(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            return not any(l.startswith("State:") and ("Z" in l.split()[1] or "X" in l.split()[1]) for l in f)
    except FileNotFoundError:
        return False

s = Session(WS, log)
s.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "stopper"}})
s.send("tools/call", {"name": "check", "arguments": {"profile": "sleeps", "timeout_ms": 86400000}})
workers = []
for _ in range(200):
    # Every thread's children: tool calls run on the server's call thread, not its main thread.
    workers = []
    try:
        for task in os.listdir("/proc/%d/task" % s.proc.pid):
            workers += [int(p) for p in open("/proc/%d/task/%s/children" % (s.proc.pid, task)).read().split()]
    except OSError:
        workers = []
    if workers:
        break
    time.sleep(0.1)
expect("a worker runs the call", workers, "no child of tvis mcp")
time.sleep(3)  # well into import torch or the sleeping forward
s.proc.terminate()
s.proc.wait(timeout=30)
deadline = time.time() + 10
while workers and any(alive(w) for w in workers) and time.time() < deadline:
    time.sleep(0.1)
expect("SIGTERM to tvis mcp: its worker is gone", not any(alive(w) for w in workers), workers)

# Before serving: a workspace that is not a folder is exit 2 with one line, nothing on stdout.
p = subprocess.run([TVIS, "mcp", "--workspace", os.path.join(WS, "no_such_folder")], input=b"", capture_output=True)
expect("--workspace not a folder: exit 2, stderr says so, stdout empty",
       p.returncode == 2 and b"tvis mcp:" in p.stderr and p.stdout == b"", (p.returncode, p.stderr, p.stdout))

sys.exit(report())
