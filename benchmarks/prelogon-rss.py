#!/usr/bin/env python3
"""Issue #14 item 1: RSS of an acceptor under 1,000 unauthenticated connections, and after they leave.

Usage (from the repo root, after `dotnet build samples/Acceptor -c Release`):
    python3 benchmarks/prelogon-rss.py [port]
Starts samples/Acceptor on a settings file with the per-port and per-address caps raised to 2,000, logs a good client
on, then twice opens 1,000 connections: first each declaring BodyLength 1048476 and trickling the body (cut at the
pre-Logon limit), then each declaring BodyLength 8000 (under the 8 KiB limit) and sending 7,000 body bytes (held until
they close). Prints the acceptor's VmRSS before, with the attackers connected, and 10 s after they closed.
Target: + < 64 MB with them connected, within 32 MB of the baseline after.
"""
import os, socket, subprocess, sys, tempfile, time

port = int(sys.argv[1]) if len(sys.argv) > 1 else 5931
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

def rss_mb():
    with open(f"/proc/{proc.pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024

def logon():
    s = socket.create_connection(("127.0.0.1", port))
    body = "35=A\x0134=1\x0149=CLIENT\x0156=EXEC\x0152=%s\x0198=0\x01108=30\x01141=Y\x01" % time.strftime("%Y%m%d-%H:%M:%S.000", time.gmtime())
    m = ("8=FIX.4.4\x019=%d\x01" % len(body) + body).encode()
    s.send(m + b"10=%03d\x01" % (sum(m) % 256))
    return s

try:
    time.sleep(4)
    good = logon()
    time.sleep(2)
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
    good.close()
finally:
    proc.terminate()
    proc.wait()
text = open(log_path).read()
print("good client logged on:", "Logon FIX.4.4" in text, "| lines 'closed before Logon':", text.count("closed before Logon"))
