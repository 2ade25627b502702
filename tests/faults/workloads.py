"""The workloads of the fault runs (issue 16), each recording a history
(docs/formats/history.md) through real clients. Partitions are labelled "topic-N".

- QueueWorkload: unique values sent by an idempotent acks=all confluent-kafka producer and
  by a kafkajs idempotent acks=all writer (tests/compat/js/fault_writer.js); a
  read_committed confluent-kafka consumer in group "q" that commits after each poll.
- TxnWorkload: read-process-write. An idempotent producer fills "in"; a processor (a
  read_committed consumer in group "proc" and a transactional producer) copies each
  batch it polls to "out" in one transaction with its offsets (sendOffsetsToTransaction),
  aborting one in five and then rewinding to its committed offsets; a read_committed
  consumer in group "verify" reads "out".

Each: topics() to create, start(bootstrap), stop(), final(bootstrap) (the drain and the
final read), running() (threads that did not stop), all ops into the shared History.
Their threads are daemons: a client stuck in a fault ends with the process.
"""
import json
import os
import subprocess
import tempfile
import threading
import time

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer, TopicPartition

JS = os.path.join(os.path.dirname(__file__), "..", "compat", "js")


class History:
    """Operations in completion order; times are seconds since the run's start, one wall
    clock for this process and the node writer (the brokers' clocks play no part)."""

    def __init__(self):
        self.t0 = time.time()
        self.ops = []
        self.lock = threading.Lock()

    def now(self):
        return time.time() - self.t0

    def add(self, **op):
        with self.lock:
            op["op"] = len(self.ops)
            self.ops.append(op)


def label(topic, partition):
    return "%s-%d" % (topic, partition)


def send_callback(history, process, value, start, **extra):
    def done(err, msg):
        if err is None:
            # Without a place when librdkafka does not know the offset: it infers a retried
            # batch was written when the broker acknowledges a later one.
            offset = msg.offset()
            place = ({"partition": label(msg.topic(), msg.partition()), "offset": offset}
                     if offset is not None and offset >= 0 else {})
            history.add(process=process, f="send", start=start, end=history.now(), outcome="ok", value=value,
                        **place, **extra)
        else:  # idempotent or transactional: a record that timed out may still be written
            history.add(process=process, f="send", start=start, end=history.now(), outcome="unknown",
                        value=value, error=str(err), **extra)
    return done


def produce_loop(bootstrap, history, stop, topic, process, prefix, rate=None):
    """An idempotent acks=all producer of unique values until `stop`.

    It never gives a record up (message.timeout.ms 0): when records time out, librdkafka
    bumps the producer epoch and sends the records queued behind them again under new
    sequence numbers, and those that had been written are then written twice (librdkafka
    #4953; seen here as 164 duplicates after a 60 s stall). Kafka's idempotence holds for a
    producer that keeps retrying, which is what this run checks. With `rate`, at most that
    many records a second."""
    def new_producer():
        return Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all",
                         "linger.ms": 2, "request.timeout.ms": 5000, "socket.timeout.ms": 10000,
                         "message.timeout.ms": 0})

    p = new_producer()
    n = 0
    began = time.monotonic()
    while not stop.is_set():
        try:
            if rate is not None and n >= rate * (time.monotonic() - began):
                p.poll(0.005)
                continue
            value = "%s%d" % (prefix, n)
            try:
                p.produce(topic, value=value.encode(), callback=send_callback(history, process, value,
                                                                              history.now()))
                n += 1
            except BufferError:
                pass
            p.poll(0.005)
        except KafkaException as e:
            # A fatal error (librdkafka's idempotence gives up on a sequence it cannot
            # reconcile after a fault): as an application must, a new producer goes on. The
            # old one's unacknowledged records stay unknown (their callbacks say so); the
            # checker still finds any acknowledged record lost.
            if not e.args[0].fatal():
                raise
            try:
                p.flush(5)
            except KafkaException:
                pass
            p = new_producer()
    p.flush(70)


def group_consumer(bootstrap, history, topic, group, process):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "earliest",
                  "enable.auto.commit": False, "session.timeout.ms": 6000, "isolation.level": "read_committed"})

    def assigned(consumer, parts):
        history.add(process=process, f="assign", start=history.now(), end=history.now(), outcome="ok",
                    partitions=[label(tp.topic, tp.partition) for tp in parts])
    c.subscribe([topic], on_assign=assigned, on_revoke=assigned)
    return c


def poll_records(c, history, process, most=200):
    start = history.now()
    msgs = [m for m in c.consume(num_messages=most, timeout=0.3) if m.error() is None]
    if msgs:
        history.add(process=process, f="poll", start=start, end=history.now(), outcome="ok",
                    isolation="read_committed",
                    records=[[label(m.topic(), m.partition()), m.offset(), m.value().decode()] for m in msgs])
    return msgs


def next_offsets(msgs):
    """{(topic, partition): the offset after the last of msgs there}."""
    out = {}
    for m in msgs:
        out[(m.topic(), m.partition())] = m.offset() + 1
    return out


def consume_loop(bootstrap, history, stop, topic, group, process):
    """A read_committed group member that commits after each poll until `stop`."""
    c = group_consumer(bootstrap, history, topic, group, process)
    while not stop.is_set():
        msgs = poll_records(c, history, process)
        if not msgs:
            continue
        offsets = next_offsets(msgs)
        start = history.now()
        try:
            c.commit(offsets=[TopicPartition(t, p, o) for (t, p), o in offsets.items()], asynchronous=False)
            outcome = "ok"
        except KafkaException:  # a rebalance or a fault: not known
            outcome = "unknown"
        history.add(process=process, f="commit", start=start, end=history.now(), outcome=outcome, group=group,
                    offsets={label(t, p): o for (t, p), o in offsets.items()})
    c.close()


def high_watermark(c, tp, timeout=60):
    """The partition's high watermark, once it has a leader again. A partition can be
    leaderless for a moment after the last heal (its only in-sync replica restarting);
    librdkafka then fails the query at once (_UNKNOWN_PARTITION: it takes leader -1 as
    final), so it is asked again, metadata refreshed, until `timeout` s. Failing that,
    every broker's view of the partition is in the error: a liveness failure."""
    deadline = time.time() + timeout
    while True:
        try:
            c.list_topics(tp.topic, timeout=10)  # a fresh view of the leaders
            return c.get_watermark_offsets(tp, timeout=10)[1]
        except KafkaException as e:
            if time.time() > deadline:
                raise RuntimeError("%s-%d had no leader answering for %d s after the faults healed: %s"
                                   % (tp.topic, tp.partition, timeout, e)) from e
            time.sleep(0.5)


def final_read(bootstrap, history, topics, isolation="read_committed"):
    """Every partition of `topics` ({name: partitions}) from its start to its high
    watermark, as one `final` op."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "final", "enable.auto.commit": False,
                  "isolation.level": isolation})
    records = []
    for topic, parts in topics.items():
        for p in range(parts):
            tp = TopicPartition(topic, p)
            high = high_watermark(c, tp)
            c.assign([TopicPartition(topic, p, OFFSET_BEGINNING)])
            deadline = time.time() + 60
            while time.time() < deadline:
                m = c.poll(0.5)
                if m is None:
                    if c.position([tp])[0].offset >= high:
                        break  # (read_committed: control records end the range unseen)
                    continue
                if m.error() is not None:
                    continue
                records.append([label(topic, p), m.offset(), m.value().decode()])
                if m.offset() + 1 >= high:
                    break
    c.close()
    history.add(process="checker", f="final", start=history.now(), end=history.now(), outcome="ok",
                isolation=isolation, records=records)


class KafkajsWriter:
    """tests/compat/js/fault_writer.js: its ops come as JSON lines on its stdout (wall-clock
    times, turned into the run's)."""

    def __init__(self, bootstrap, history, topic, partitions):
        self.history = history
        self.stop_file = os.path.join("/tmp", "strata-fault-js-stop-%d" % os.getpid())
        self.errors = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(["node", os.path.join(JS, "fault_writer.js"), bootstrap, topic,
                                      str(partitions), self.stop_file], cwd=JS, stdout=subprocess.PIPE,
                                     stderr=self.errors, text=True)
        self.reader = threading.Thread(daemon=True, target=self.read)
        self.reader.start()

    def read(self):
        for line in self.proc.stdout:
            try:
                op = json.loads(line)
            except ValueError:
                continue  # not an op (the writer prints nothing else on stdout)
            op["start"] -= self.history.t0
            op["end"] -= self.history.t0
            self.history.add(**op)

    def stop(self):
        open(self.stop_file, "w").close()
        try:
            self.proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.reader.join(timeout=10)
        os.unlink(self.stop_file)
        if self.proc.returncode != 0:
            self.errors.seek(0)
            raise RuntimeError("the kafkajs writer failed (%s): %s" % (self.proc.returncode,
                                                                     self.errors.read()[-2000:]))


def alive(threads):
    """The threads of `threads` still running (their clients may still be sending)."""
    return [t.name for t in threads if t.is_alive()]


class Workload:
    threads = ()

    def final(self, bootstrap, history):
        final_read(bootstrap, history, self.topics())

    def running(self):
        return alive(self.threads)

    def processes(self):
        """Child processes to kill if the run ends early."""
        return []


class QueueWorkload(Workload):
    name = "queue"

    def topics(self):
        return {"queue": 3}

    def start(self, bootstrap, history):
        self.stopping = threading.Event()
        self.threads = [threading.Thread(daemon=True, target=produce_loop,
                                         args=(bootstrap, history, self.stopping, "queue", "producer", "v")),
                        threading.Thread(daemon=True, target=consume_loop,
                                         args=(bootstrap, history, self.stopping, "queue", "q", "consumer"))]
        for t in self.threads:
            t.start()
        self.js = KafkajsWriter(bootstrap, history, "queue", 3)

    def stop(self):
        self.stopping.set()
        for t in self.threads:
            t.join(timeout=120)
        self.js.stop()

    def running(self):
        return alive(self.threads + [self.js.reader])

    def processes(self):
        return [self.js.proc]


class Processor:
    """Read-process-write: a read_committed consumer of "in" (group "proc") and a
    transactional producer to "out"."""

    ABORT_ONE_IN = 5

    def __init__(self, bootstrap, history, rng):
        self.bootstrap, self.history, self.rng = bootstrap, history, rng
        self.consumer = group_consumer(bootstrap, history, "in", "proc", "processor")
        self.producer = None
        self.n = 0

    def new_producer(self):
        p = Producer({"bootstrap.servers": self.bootstrap, "transactional.id": "proc", "acks": "all",
                      "linger.ms": 2, "request.timeout.ms": 5000, "transaction.timeout.ms": 20000,
                      "message.timeout.ms": 20000})
        for _ in range(30):
            try:
                p.init_transactions(10)
                self.producer = p
                return
            except KafkaException:
                time.sleep(0.5)
        raise RuntimeError("init_transactions failed for 30 tries")

    def rewind(self):
        """Back to the group's committed offsets (an aborted or unknown transaction's
        records are read again): an `assign` op, as the consumer's order restarts there."""
        for _ in range(60):
            try:
                parts = self.consumer.assignment()
                committed = self.consumer.committed(parts, timeout=5)
                for tp in committed:
                    tp.offset = tp.offset if tp.offset >= 0 else OFFSET_BEGINNING
                    self.consumer.seek(tp)
                now = self.history.now()
                self.history.add(process="processor", f="assign", start=now, end=now, outcome="ok", seek=True,
                                 partitions=[label(tp.topic, tp.partition) for tp in parts])
                return
            except KafkaException:
                time.sleep(0.5)
        raise RuntimeError("could not rewind to the committed offsets")

    def step(self):
        """One poll and one transaction; False when nothing was polled."""
        msgs = poll_records(self.consumer, self.history, "processor", most=100)
        if not msgs:
            return False
        if self.producer is None:
            self.new_producer()
        txn = "t%d" % self.n
        self.n += 1
        h = self.history
        offsets = next_offsets(msgs)
        try:
            self.producer.begin_transaction()
            for m in msgs:
                source = m.value().decode()
                value = "o-%s-%s" % (source, txn)
                self.producer.produce("out", value=value.encode(), partition=m.partition(),
                                      callback=send_callback(h, "processor", value, h.now(), txn=txn, source=source))
            start = h.now()
            self.producer.send_offsets_to_transaction(
                [TopicPartition(t, p, o) for (t, p), o in offsets.items()],
                self.consumer.consumer_group_metadata(), 20)
            abort = self.rng.randrange(self.ABORT_ONE_IN) == 0
            if abort:
                self.producer.abort_transaction(20)
            else:
                self.producer.commit_transaction(20)
            h.add(process="processor", f="txn", start=start, end=h.now(), outcome="ok", txn=txn,
                  result="abort" if abort else "commit")
            h.add(process="processor", f="commit", start=start, end=h.now(), outcome="fail" if abort else "ok",
                  group="proc", txn=txn, offsets={label(t, p): o for (t, p), o in offsets.items()})
            if abort:
                self.rewind()
        except KafkaException as e:
            self.fail(txn, e)
        except BufferError as e:  # the producer's queue full: the transaction cannot go on
            self.fail(txn, KafkaException(KafkaError(KafkaError._QUEUE_FULL, str(e))))
        return True

    def fail(self, txn, e):
        """A transaction that failed: aborted if the client can, else the producer is
        replaced (its successor fences it); its end is recorded as known only when aborted."""
        h = self.history
        err = e.args[0]
        aborted = False
        if not err.fatal():
            try:
                self.producer.abort_transaction(20)
                aborted = True
            except KafkaException:
                pass
        if aborted:
            h.add(process="processor", f="txn", start=h.now(), end=h.now(), outcome="ok", txn=txn, result="abort",
                  error=str(err))
        else:
            h.add(process="processor", f="txn", start=h.now(), end=h.now(), outcome="unknown", txn=txn,
                  error=str(err))
            try:
                self.producer.flush(5)  # raises the fatal error again
            except KafkaException:
                pass
            # A new producer first: its init_transactions fences the old one and ends its
            # transaction, so the committed offsets the rewind reads are settled.
            self.producer = None
            self.new_producer()
        self.rewind()

    def caught_up(self):
        """Whether the group's committed offsets are the end of every "in" partition."""
        parts = [TopicPartition("in", p) for p in range(3)]
        try:
            committed = self.consumer.committed(parts, timeout=5)
            return all(tp.offset >= self.consumer.get_watermark_offsets(tp, timeout=5)[1] for tp in committed)
        except KafkaException:
            return False

    def close(self):
        if self.producer is not None:
            self.producer.flush(10)
        self.consumer.close()


class TxnWorkload(Workload):
    name = "txn"

    def __init__(self, rng):
        self.rng = rng

    def topics(self):
        return {"in": 3, "out": 3}

    def start(self, bootstrap, history):
        self.bootstrap, self.history = bootstrap, history
        self.stopping, self.feeding, self.fed = threading.Event(), threading.Event(), threading.Event()
        self.drained = False
        self.processor = Processor(bootstrap, history, self.rng)
        self.threads = [threading.Thread(daemon=True, target=self.feed),
                        threading.Thread(daemon=True, target=self.process),
                        threading.Thread(daemon=True, target=consume_loop,
                                         args=(bootstrap, history, self.stopping, "out", "verify", "verifier"))]
        for t in self.threads:
            t.start()

    def feed(self):
        """150 records/s: a rate the processor keeps up with (also in a sanitizer build), so
        that it drains "in" once the feed stops."""
        produce_loop(self.bootstrap, self.history, self.feeding, "in", "producer", "i", 150)
        self.fed.set()  # every record of the feed delivered (or given up): "in" ends here

    def process(self):
        """Steps until stopped, or until the feed has ended and the group has committed the
        end of "in" (drained)."""
        while not self.stopping.is_set():
            if not self.processor.step() and self.fed.is_set() and self.processor.caught_up():
                self.drained = True
                return

    def stop(self):
        """The feed stops; the processor goes on until it has drained "in" (at most 90 s),
        then the rest stops."""
        self.feeding.set()
        self.threads[0].join(timeout=120)
        self.threads[1].join(timeout=90)
        self.stopping.set()
        for t in self.threads[1:]:
            t.join(timeout=120)
        self.processor.close()
        if self.drained:
            self.history.add(process="processor", f="drained", start=self.history.now(), end=self.history.now(),
                             outcome="ok", topics=["in"])
