"""What the replication tests share: each partition's leader, replicas and ISR as a
client sees them, and a replica's segment bytes on disk."""
import glob
import os

from confluent_kafka import KafkaException


def partitions(admin, topic):
    """{partition: (leader, sorted replicas, sorted isr)}, or {} while unknown."""
    try:
        md = admin.list_topics(topic, timeout=5)
    except KafkaException:
        return {}
    t = md.topics.get(topic)
    if t is None or t.error is not None:
        return {}
    return {p.id: (p.leader, sorted(p.replicas), sorted(p.isrs)) for p in t.partitions.values()}


def segment_bytes(broker, topic, p):
    """The bytes of every .log segment of `topic`-`p` on `broker`, in offset order."""
    out = b""
    for path in sorted(glob.glob(os.path.join(broker.data, "%s-%d" % (topic, p), "*.log"))):
        with open(path, "rb") as f:
            out += f.read()
    return out
