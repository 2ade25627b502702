#!/usr/bin/python3
"""The cost of security (issue 17), side by side in one run on one broker: produce and
consume throughput of the same librdkafka load (strata_perf) over PLAINTEXT, SSL and
SASL_SSL (SCRAM-SHA-512), with the broker's CPU seconds per GB moved; TLS handshakes per
second (`openssl s_time`, new sessions only) and SASL logins per second (SaslHandshake +
SaslAuthenticate PLAIN over SASL_PLAINTEXT, by hand). Listeners take turns within each
repeat so the machine's noise falls on all of them; medians are printed.

TLS cannot use sendfile: fetched segment bytes are pread into a 1 MiB buffer and written
through OpenSSL (net/connection.cc send_copy). Kernel TLS would restore the zero-copy
path; `openssl` on this machine is printed with whether the kernel has the `tls` module.

    security_bench.py STRATA_BINARY STRATA_PERF [REPEAT] [--quick]
"""
import os
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "security"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "compat"))
from certs import Certs  # noqa: E402
from strata_broker import StrataBroker, free_port, recv_exact  # noqa: E402

binary, perf = sys.argv[1], sys.argv[2]
args = [a for a in sys.argv[3:] if not a.startswith("--")]
quick = "--quick" in sys.argv
repeat = int(args[0]) if args else 3
RECORDS, SIZE = (20_000, 1024) if quick else (1_000_000, 1024)
JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
        'username="admin" password="admin-secret" user_alice="alice-secret";')


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def perf_run(mode, bootstrap, conf, topic):
    cmd = [perf, mode, "--bootstrap", bootstrap, "--topic", topic, "--records", str(RECORDS),
           "--record-size", str(SIZE), "--max-seconds", "120"]
    if mode == "produce":
        cmd += ["--acks", "1", "--partitions", "1"]
    for k, v in conf.items():
        cmd += ["--set", "%s=%s" % (k, v)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=400)
    if out.returncode != 0:
        raise RuntimeError("strata_perf %s failed: %s" % (mode, out.stderr[-2000:]))
    line = next(l for l in out.stdout.splitlines() if l.startswith("RESULT"))
    return dict(kv.split("=", 1) for kv in line.split()[1:])


def handshakes_per_s(port, ca, seconds):
    out = subprocess.run(["openssl", "s_time", "-connect", "127.0.0.1:%d" % port, "-new", "-CAfile", ca,
                          "-time", str(seconds)], capture_output=True, text=True, timeout=seconds + 60)
    for line in out.stdout.splitlines():
        if "connections/user sec" in line:  # "N connections in Xs; Y connections/user sec, ..."
            return float(line.split(";")[1].split()[0])
    raise RuntimeError("openssl s_time: " + out.stdout[-500:] + out.stderr[-500:])


def logins_per_s(port, seconds):
    def string(s):
        b = s.encode()
        return struct.pack(">h", len(b)) + b

    def req(key, version, body):
        frame = struct.pack(">hhi", key, version, 1) + string("bench") + body
        return struct.pack(">i", len(frame)) + frame

    token = b"\0alice\0alice-secret"
    n, t0 = 0, time.time()
    while time.time() - t0 < seconds:
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(req(17, 1, string("PLAIN")))
            recv_exact(s, struct.unpack(">i", recv_exact(s, 4))[0])
            s.sendall(req(36, 1, struct.pack(">i", len(token)) + token))
            r = recv_exact(s, struct.unpack(">i", recv_exact(s, 4))[0])
            if struct.unpack_from(">h", r, 4)[0] != 0:
                raise RuntimeError("login failed")
        n += 1
    return n / (time.time() - t0)


def main():
    work = tempfile.mkdtemp(prefix="strata-secbench-")
    certs = Certs(os.path.join(work, "certs"))
    ports = {k: free_port() for k in ("SSL", "SASL_SSL", "SASL_PLAINTEXT")}
    broker = StrataBroker(binary)
    broker.overrides.update({
        "listeners": "PLAINTEXT://127.0.0.1:%d,SSL://127.0.0.1:%d,SASL_SSL://127.0.0.1:%d,SASL_PLAINTEXT://127.0.0.1:%d"
                     % (broker.port, ports["SSL"], ports["SASL_SSL"], ports["SASL_PLAINTEXT"]),
        "ssl.keystore.type": "PEM", "ssl.keystore.location": certs.server_pem,
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-512",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
        "listener.name.sasl_ssl.plain.sasl.jaas.config": JAAS,
    })
    setups = {
        "PLAINTEXT": (broker.bootstrap, {}),
        "SSL": ("127.0.0.1:%d" % ports["SSL"], {"security.protocol": "SSL", "ssl.ca.location": certs.ca}),
        "SASL_SSL": ("127.0.0.1:%d" % ports["SASL_SSL"],
                     {"security.protocol": "SASL_SSL", "ssl.ca.location": certs.ca, "sasl.mechanisms": "SCRAM-SHA-512",
                      "sasl.username": "bob", "sasl.password": "bob-secret"}),
    }
    results = {name: {"produce": [], "consume": [], "pcpu": [], "ccpu": []} for name in setups}
    with broker:
        subprocess.run([binary, "user", "--bootstrap-server", broker.bootstrap, "--alter", "--add-config",
                        "SCRAM-SHA-512=[password=bob-secret]", "--entity-name", "bob"], check=True,
                       capture_output=True, timeout=60)
        pid = broker.proc.pid
        for r in range(repeat):
            for name, (bootstrap, conf) in setups.items():
                topic = "bench-%s-%d" % (name.lower(), r)
                c0 = cpu_s(pid)
                p = perf_run("produce", bootstrap, conf, topic)
                c1 = cpu_s(pid)
                c = perf_run("consume", bootstrap, conf, topic)
                c2 = cpu_s(pid)
                gb = RECORDS * SIZE / 1e9
                results[name]["produce"].append(float(p["mb_per_s"]))
                results[name]["consume"].append(float(c["mb_per_s"]))
                results[name]["pcpu"].append((c1 - c0) / gb)
                results[name]["ccpu"].append((c2 - c1) / gb)
        seconds = 2 if quick else 5
        tls_hs = handshakes_per_s(ports["SSL"], certs.ca, seconds)
        logins = logins_per_s(ports["SASL_PLAINTEXT"], seconds)
    med = statistics.median
    base = results["PLAINTEXT"]
    print("%-10s %12s %12s %14s %14s" % ("listener", "produce MB/s", "consume MB/s", "produce cpu/GB", "consume cpu/GB"))
    for name, r in results.items():
        print("RESULT listener=%s produce_mb_s=%.1f consume_mb_s=%.1f produce_cpu_s_per_gb=%.2f "
              "consume_cpu_s_per_gb=%.2f produce_ratio=%.2f consume_ratio=%.2f" %
              (name, med(r["produce"]), med(r["consume"]), med(r["pcpu"]), med(r["ccpu"]),
               med(r["produce"]) / med(base["produce"]), med(r["consume"]) / med(base["consume"])))
    print("RESULT tls_handshakes_per_s=%.0f sasl_plain_logins_per_s=%.0f" % (tls_hs, logins))
    ktls = os.path.exists("/sys/module/tls")
    print("kernel tls module loaded: %s" % ktls)


if __name__ == "__main__":
    main()
