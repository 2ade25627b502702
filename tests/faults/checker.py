"""Strata's history checker (issue 16): reads a fault run's history
(docs/formats/history.md) and reports lost acknowledged writes, duplicates, inconsistent
offsets, aborted and uncommitted reads under read_committed, records reordered or skipped
for one consumer, committed offsets that went backwards, and liveness.

    checker.py HISTORY.jsonl [--plot OUT.svg]    exit 0: no anomaly; 1: anomalies; 2: bad input

As a library: `check(ops)` returns a Report; `load(path)` reads a history; `per_fault(ops)`
gives throughput, p99 and recovery per fault (the fault benchmark's figures).
"""
import bisect
import collections
import json
import sys

ANOMALIES = ("lost", "duplicate", "inconsistent-offset", "aborted-read", "uncommitted-read",
             "reordered", "skipped", "commit-backwards", "processed-twice", "unprocessed")
EXAMPLES = 5  # kept per anomaly


class Report:
    def __init__(self):
        self.anomalies = {name: [] for name in ANOMALIES}
        self.counts = collections.Counter()
        self.liveness = {}
        self.values = {name: [] for name in ANOMALIES}  # the first examples' values, for explain()

    def add(self, name, example, value=None):
        self.counts[name] += 1
        if len(self.anomalies[name]) < EXAMPLES:
            self.anomalies[name].append(example)
            if value is not None:
                self.values[name].append(value)

    def ok(self):
        return not self.counts

    def table(self):
        rows = ["%-20s %8s  %s" % ("anomaly", "count", "first examples")]
        for name in ANOMALIES:
            rows.append("%-20s %8d  %s" % (name, self.counts[name],
                                            "; ".join(self.anomalies[name][:2]) if self.counts[name] else ""))
        for name, value in self.liveness.items():
            rows.append("%-20s %8s  %s" % ("liveness", "", "%s: %s" % (name, value)))
        return "\n".join(rows)


def load(path):
    ops = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                op = json.loads(line)
            except ValueError as e:
                raise ValueError("%s:%d: not JSON: %s" % (path, n, e))
            for field in ("op", "process", "f", "start", "end", "outcome"):
                if field not in op:
                    raise ValueError("%s:%d: no %r" % (path, n, field))
            ops.append(op)
    return ops


def txn_results(ops):
    """{txn id: 'commit' | 'abort' | None (unknown)}."""
    out = {}
    for op in ops:
        if op["f"] == "txn":
            out[op["txn"]] = op.get("result") if op["outcome"] == "ok" else None
    return out


def finals(ops):
    """{isolation: {partition: [(offset, value), ...] in offset order}}."""
    out = {}
    for op in ops:
        if op["f"] == "final" and op["outcome"] == "ok":
            by_part = out.setdefault(op["isolation"], collections.defaultdict(list))
            for p, off, v in op["records"]:
                by_part[p].append((off, v))
    for by_part in out.values():
        for recs in by_part.values():
            recs.sort()
    return out


def check_writes(ops, report, final, txns):
    """Every acknowledged write (in a committed transaction, if in one) is in the final
    read: read_committed for a transaction's, read_uncommitted (else read_committed) for
    the others'."""
    seen = {iso: {v for recs in by_part.values() for _, v in recs} for iso, by_part in final.items()}
    for op in ops:
        if op["f"] != "send" or op["outcome"] != "ok":
            continue
        txn = op.get("txn")
        if txn is not None and txns.get(txn) != "commit":
            continue  # not a promise: aborted or unknown
        iso = "read_committed" if txn is not None or "read_uncommitted" not in seen else "read_uncommitted"
        if iso in seen and op["value"] not in seen[iso]:
            report.add("lost", "%s (op %d, acknowledged at %s-%s)" % (op["value"], op["op"],
                                                                      op.get("partition"), op.get("offset")),
                       op["value"])


def check_offsets(ops, report):
    """Over every read and acknowledgement: one (partition, offset) holds one value
    (else inconsistent-offset), one value is at one place (else duplicate)."""
    value_at = {}
    place_of = {}
    reads = [(op["records"], "op %d" % op["op"]) for op in ops if op["f"] in ("poll", "final") and op["outcome"] == "ok"]
    for op in ops:
        if op["f"] == "send" and op["outcome"] == "ok" and op.get("offset") is not None:
            reads.append(([[op["partition"], op["offset"], op["value"]]], "ack of op %d" % op["op"]))
    for records, where in reads:
        for p, off, v in records:
            key = (p, off)
            if value_at.setdefault(key, v) != v:
                report.add("inconsistent-offset", "%s-%s holds %s and %s (%s)" % (p, off, value_at[key], v, where))
            if place_of.setdefault(v, key) != key:
                report.add("duplicate", "%s at %s-%s and %s-%s (%s)" % (v, place_of[v][0], place_of[v][1], p, off, where),
                           v)


def check_isolation(ops, report, final, txns):
    txn_of = {op["value"]: op["txn"] for op in ops if op["f"] == "send" and op.get("txn") is not None}
    committed_values = set()
    for recs in final.get("read_committed", {}).values():
        committed_values.update(v for _, v in recs)
    for op in ops:
        if op["f"] != "poll" or op["outcome"] != "ok" or op.get("isolation") != "read_committed":
            continue
        for p, off, v in op["records"]:
            txn = txn_of.get(v)
            if txn is None:
                continue
            result = txns.get(txn)
            if result == "abort":
                report.add("aborted-read", "%s of aborted %s at %s-%s (%s)" % (v, txn, p, off, op["process"]))
            elif result != "commit" and v not in committed_values:
                report.add("uncommitted-read", "%s of %s at %s-%s (%s)" % (v, txn, p, off, op["process"]))


def check_consumers(ops, report, final):
    """Per consumer and partition, within one assignment: offsets grow, none skipped."""
    last = {}  # (process, partition) -> last offset returned
    offsets = {iso: {p: [off for off, _ in recs] for p, recs in by_part.items()} for iso, by_part in final.items()}
    for op in sorted((o for o in ops if o["f"] in ("poll", "assign") and o["outcome"] == "ok"),
                     key=lambda o: (o["end"], o["op"])):
        proc = op["process"]
        if op["f"] == "assign":
            for key in [k for k in last if k[0] == proc]:
                del last[key]
            continue
        known = offsets.get(op.get("isolation", "read_uncommitted"), {})
        for p, off, v in op["records"]:
            prev = last.get((proc, p))
            if prev is not None and off <= prev:
                report.add("reordered", "%s read %s-%s after %s-%s" % (proc, p, off, p, prev))
            elif prev is not None and p in known:
                between = [o for o in known[p] if prev < o < off]
                if between:
                    report.add("skipped", "%s read %s-%s after %s-%s, skipping %s" % (proc, p, off, p, prev, between[:3]))
            last[(proc, p)] = off if prev is None else max(off, prev)


def check_commits(ops, report):
    high = {}
    for op in sorted((o for o in ops if o["f"] == "commit" and o["outcome"] == "ok"), key=lambda o: (o["end"], o["op"])):
        for p, off in op["offsets"].items():
            key = (op["group"], str(p))
            if key in high and off < high[key]:
                report.add("commit-backwards", "group %s partition %s: %d after %d (op %d)" % (key[0], key[1], off,
                                                                                            high[key], op["op"]))
            high[key] = max(off, high.get(key, off))


def check_processing(ops, report, final):
    """Read-process-write (sends with a `source`): in the final read_committed, no source
    has two outputs; once a `drained` op says the processor consumed its input topics to
    their end, every value of those topics in the final read has one."""
    source_of = {op["value"]: op["source"] for op in ops if op["f"] == "send" and "source" in op}
    committed = final.get("read_committed", {})
    outputs = collections.defaultdict(list)
    for p, recs in committed.items():
        for off, v in recs:
            if v in source_of:
                outputs[source_of[v]].append((p, off))
    for source, places in outputs.items():
        if len(places) > 1:
            report.add("processed-twice", "%s has outputs at %s" % (source, ", ".join("%s@%s" % pl for pl in places[:3])))
    drained = [op for op in ops if op["f"] == "drained" and op["outcome"] == "ok"]
    topics = {t for op in drained for t in op["topics"]}
    for p, recs in committed.items():
        if str(p).rsplit("-", 1)[0] not in topics:
            continue
        for off, v in recs:
            if v not in outputs:
                report.add("unprocessed", "%s at %s-%s has no committed output" % (v, p, off))


def check_liveness(ops, report):
    acks = sorted(op["end"] for op in ops if op["f"] == "send" and op["outcome"] == "ok")
    if not acks:
        report.liveness["writes"] = "none acknowledged"
        return
    gaps = [b - a for a, b in zip(acks, acks[1:])]
    report.liveness["longest gap without an acknowledged write"] = "%.2f s" % (max(gaps) if gaps else 0.0)
    for op in ops:
        if op["f"] == "fault":
            after = [t for t in acks if t >= op["end"]]
            report.liveness["%s (op %d) healed to next ack" % (op["fault"], op["op"])] = (
                "%.2f s" % (after[0] - op["end"]) if after else "no write after it")


def check(ops):
    report = Report()
    final = finals(ops)
    txns = txn_results(ops)
    check_writes(ops, report, final, txns)
    check_offsets(ops, report)
    check_isolation(ops, report, final, txns)
    check_consumers(ops, report, final)
    check_commits(ops, report)
    check_processing(ops, report, final)
    check_liveness(ops, report)
    return report


def explain(ops, report, per_anomaly=2):
    """Lines telling the story of the first values of each anomaly that has them: every
    operation that sent or read the value (who, when, outcome, where, the client's error)
    and the faults in force meanwhile. A failing run in CI shows only its last lines, so
    run.py prints these last."""
    faults = [op for op in ops if op["f"] == "fault"]
    lines = []
    for name in ANOMALIES:
        for v in list(dict.fromkeys(report.values[name]))[:per_anomaly]:
            lines.append("%s %s:" % (name, v))
            times = []
            for op in ops:
                if op["f"] == "send" and op.get("value") == v:
                    lines.append("  %8.3f-%8.3f send by %s: %s%s%s" % (
                        op["start"], op["end"], op["process"], op["outcome"],
                        " at %s-%s" % (op.get("partition"), op.get("offset")) if "offset" in op else "",
                        " (%s)" % op["error"] if op.get("error") else ""))
                    times += [op["start"], op["end"]]
                elif op["f"] in ("poll", "final") and op["outcome"] == "ok":
                    at = ["%s-%s" % (p, off) for p, off, value in op["records"] if value == v]
                    if at:
                        lines.append("  %8.3f-%8.3f %s by %s: at %s" % (op["start"], op["end"], op["f"],
                                                                      op["process"], ", ".join(at)))
                        times.append(op["end"])
            if times:
                lo, hi = min(times), max(times)
                near = ["%s %.2f-%.2f" % (f["fault"], f["start"], f["end"]) for f in faults
                        if f["start"] <= hi and f["end"] >= lo - 10]
                lines.append("  faults around: %s" % ("; ".join(near) or "none"))
    return lines


def per_fault(ops):
    """For each fault: acknowledged writes per second before the first fault (baseline),
    during it and in the 10 s after its heal, the p99 send latency during and after, and
    the time from the heal until a second with at least half the baseline's rate."""
    sends = sorted((op for op in ops if op["f"] == "send" and op["outcome"] == "ok"), key=lambda o: o["end"])
    faults = [op for op in ops if op["f"] == "fault"]
    if not sends or not faults:
        return {}
    first = min(f["start"] for f in faults)
    t0 = sends[0]["end"]
    base = sum(1 for s in sends if s["end"] < first) / max(first - t0, 1e-9)

    ends = [s["end"] for s in sends]

    def window(a, b):
        sel = sends[bisect.bisect_left(ends, a):bisect.bisect_left(ends, b)]
        return len(sel) / max(b - a, 1e-9), p99([s["end"] - s["start"] for s in sel])

    base_p99 = window(t0, first)[1]
    out = {"baseline acks/s": round(base, 1), "baseline p99": base_p99 and round(base_p99, 3)}
    for f in faults:
        during, p99_during = window(f["start"], f["end"])
        after, p99_after = window(f["end"], f["end"] + 10)
        recovered = None
        t = f["end"]
        while t < f["end"] + 30:
            if window(t, t + 1)[0] >= base / 2:
                recovered = round(t - f["end"], 1)
                break
            t += 0.5
        out[f["fault"]] = {"acks/s during": round(during, 1), "p99 during": p99_during and round(p99_during, 3),
                           "acks/s after": round(after, 1), "p99 after": p99_after and round(p99_after, 3),
                           "recovery s": recovered}
    return out


def p99(values):
    """The 99th percentile of `values` (nearest rank below), None when there are none."""
    v = sorted(values)
    return v[int(0.99 * (len(v) - 1))] if v else None


def plot(ops, path, width=900, height=300):
    """An SVG: acknowledged writes per second (line), p99 send latency per second (dots),
    fault windows (shaded)."""
    sends = [op for op in ops if op["f"] == "send" and op["outcome"] == "ok"]
    end = max([op["end"] for op in ops] or [1.0])
    seconds = int(end) + 1
    rate = [0] * seconds
    lat = collections.defaultdict(list)
    for op in sends:
        rate[int(op["end"])] += 1
        lat[int(op["end"])].append(op["end"] - op["start"])
    top = max(rate) or 1
    p99s = {s: p99(v) for s, v in lat.items()}
    top_lat = max(p99s.values() or [1.0]) or 1.0
    x = lambda t: 40 + (width - 60) * t / seconds  # noqa: E731
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d">' % (width, height),
             '<rect width="100%" height="100%" fill="white"/>']
    for op in ops:
        if op["f"] == "fault":
            parts.append('<rect x="%.1f" y="20" width="%.1f" height="%d" fill="#f4cccc"><title>%s</title></rect>'
                         % (x(op["start"]), max(x(op["end"]) - x(op["start"]), 1), height - 50, op["fault"]))
    pts = " ".join("%.1f,%.1f" % (x(s + 0.5), height - 30 - (height - 60) * r / top) for s, r in enumerate(rate))
    parts.append('<polyline fill="none" stroke="#1f4e79" stroke-width="1.5" points="%s"/>' % pts)
    for s, v in p99s.items():
        parts.append('<circle cx="%.1f" cy="%.1f" r="2" fill="#c55a11"/>'
                     % (x(s + 0.5), height - 30 - (height - 60) * v / top_lat))
    parts.append('<text x="40" y="14" font-size="12">acks/s (line, max %d), p99 latency (dots, max %.3f s), '
                 'faults shaded; %d s</text>' % (top, top_lat, seconds))
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    try:
        ops = load(argv[1])
    except (OSError, ValueError) as e:
        sys.stderr.write("checker: %s\n" % e)
        return 2
    report = check(ops)
    print(report.table())
    if not report.ok():
        print("\n".join(explain(ops, report)))
    if "--plot" in argv:
        plot(ops, argv[argv.index("--plot") + 1])
    return 0 if report.ok() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
