#!/usr/bin/env python3
"""Issue #14 item 1: RSS of an acceptor under 1,000 unauthenticated connections, and after they leave.

Usage (from the repo root, after `dotnet build samples/Acceptor -c Release`):
    python3 benchmarks/prelogon-rss.py [port]   (default 0: the acceptor binds a port the system picks and prints it)
Starts samples/Acceptor on a settings file with the per-port and per-address caps raised to 2,000, logs a good client
on (it then sends an order every 50 ms and counts the fills, all through the run), then twice opens 1,000 connections: first each declaring BodyLength 1048476 and trickling the body (cut at the
pre-Logon limit), then each declaring BodyLength 8000 (under the 8 KiB limit) and sending 7,000 body bytes (held until
they close). Prints the acceptor's VmRSS before, with the attackers connected, and 10 s after they closed, then the good client's
orders and fills and the engine's "Reclaimed memory" lines (EngineOptions.MemoryReclaimSurgeConnections).
Target: + < 64 MB with them connected, within 32 MB of the baseline after.
"""
import os, socket, subprocess, sys, tempfile, threading, time

port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
exe = os.path.join(root, "samples/Acceptor/bin/Release/net10.0/Acceptor")
work = tempfile.mkdtemp(prefix="prelogon-rss-")
cfg = os.path.join(work, "acceptor.cfg")
with open(cfg, "w") as f:
    f.write(f"""[DEFAULT]
ConnectionType=acceptor
SocketAcceptPort={port}
NonStopSession=Y
UseDataDictionary=N
LogonTimeout=120
MaxUnauthenticatedConnections=2000
MaxUnauthenticatedConnectionsPerAddress=2000
[SESSION]
BeginString=FIX.4.4
SenderCompID=EXEC
TargetCompID=CLIENT
""")
log_path = os.path.join(work, "acceptor.log")
proc = subprocess.Popen([exe, cfg], stdout=open(log_path, "w"), stderr=subprocess.STDOUT)
if port == 0:
    # The sample prints "[acceptor] listening on port(s) P ..." once it is bound: nothing probes a port and binds it later.
    for _ in range(600):
        with open(log_path) as f:
            found = [l for l in f if "listening on port(s) " in l]
        if found:
            port = int(found[0].split("listening on port(s) ")[1].split()[0].rstrip(","))
            break
        if proc.poll() is not None:
            sys.exit("the acceptor exited (code %d) before listening; log: %s" % (proc.returncode, log_path))
        time.sleep(0.1)
    else:
        sys.exit("the acceptor printed no port within 60 s; log: " + log_path)

def rss_mb():
    with open(f"/proc/{proc.pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024

def frame(body):
    m = ("8=FIX.4.4\x019=%d\x01" % len(body) + body).encode()
    return m + b"10=%03d\x01" % (sum(m) % 256)

def now():
    return time.strftime("%Y%m%d-%H:%M:%S.000", time.gmtime())

def logon():
    s = socket.create_connection(("127.0.0.1", port))
    s.send(frame("35=A\x0134=1\x0149=CLIENT\x0156=EXEC\x0152=%s\x0198=0\x01108=30\x01141=Y\x01" % now()))
    return s

# The good client: an order every 50 ms from its own thread, fills counted by another.
trading = {"orders": 0, "fills": 0, "stop": False}

def trade(s):
    seq = 2
    while not trading["stop"]:
        try:
            s.send(frame("35=D\x0134=%d\x0149=CLIENT\x0156=EXEC\x0152=%s\x0111=O%d\x0155=EURUSD\x0154=1\x0160=%s\x0138=100\x0140=1\x01" % (seq, now(), seq, now())))
        except OSError:
            return
        trading["orders"] += 1
        seq += 1
        time.sleep(0.05)

def count_fills(s):
    tail = b""
    while True:
        try:
            data = s.recv(65536)
        except OSError:
            return
        if not data:
            return
        data = tail + data
        trading["fills"] += data.count(b"\x0135=8\x01")
        tail = data[-5:]  # shorter than the pattern: a match is never counted twice

try:
    time.sleep(4)
    good = logon()
    time.sleep(1)
    threading.Thread(target=count_fills, args=(good,), daemon=True).start()
    threading.Thread(target=trade, args=(good,), daemon=True).start()
    time.sleep(1)
    base = rss_mb()
    print("baseline RSS MB", base)
    for label, declared, chunk in [("BodyLength 1048476", 1048476, 512), ("BodyLength 8000 (under the pre-Logon limit)", 8000, 7000)]:
        socks = []
        for _ in range(1000):
            s = socket.socket()
            s.connect(("127.0.0.1", port))
            try:
                s.send(("8=FIX.4.4\x019=%d\x0135=A\x0134=1\x0149=CLIENT\x0156=EXEC\x01" % declared).encode())
                s.send(b"x" * chunk)
            except OSError:
                pass
            socks.append(s)
        time.sleep(3)
        peak = rss_mb()
        print(f"{label}: 1000 connected, RSS MB {peak} (+{peak - base})")
        for s in socks:
            s.close()
        time.sleep(10)
        after = rss_mb()
        print(f"{label}: 10 s after they closed, RSS MB {after} (+{after - base})")
    trading["stop"] = True
    time.sleep(0.5)
    print(f"good client: {trading['orders']} orders sent, {trading['fills']} fills received")
    good.close()
finally:
    proc.terminate()
    proc.wait()
text = open(log_path).read()
refused = [l for l in text.splitlines() if "Refused" in l and "closed before Logon" in l]
print("good client logged on:", "Logon FIX.4.4" in text, "| lines 'closed before Logon':", len(refused))
for line in text.splitlines():
    if "Reclaimed memory" in line:
        print(line)
