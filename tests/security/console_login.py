#!/usr/bin/python3
"""Issue 18 with issue 17: the web console on a broker whose inter-broker listener is
SASL_PLAINTEXT with ACLs (tests/security/acl_broker.py's users). The console asks every
page user to log in (HTTP Basic) and reaches the cluster as that user, so the broker
authenticates each user and its ACLs decide what they see and change:

- no credentials: 401 with a Basic challenge, for the page and the API; a wrong
  password: 401;
- alice, allowed to DESCRIBE and READ topic `open` only: lists `open` and not `secret`,
  reads `open`'s batches, gets no `secret` (TOPIC_AUTHORIZATION_FAILED) and cannot create a
  topic (403, TOPIC_AUTHORIZATION_FAILED);
- admin (a super user) sees both and creates one.
Usage: console_login.py PATH/TO/strata"""
import base64
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "compat"))

from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

from acl_broker import acl_broker  # noqa: E402
from strata_broker import check, free_port  # noqa: E402


def call(port, path, user=None, method="GET", body=None):
    headers = {}
    if user:
        headers["Authorization"] = "Basic " + base64.b64encode(("%s:%s" % user).encode()).decode()
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def main():
    port = free_port()
    broker, sasl_port = acl_broker(sys.argv[1], **{
        "metrics.listener": "http://127.0.0.1:%d" % port, "strata.console.read.only": "false",
        "inter.broker.listener.name": "SASL_PLAINTEXT",
        "sasl.mechanism.inter.broker.protocol": "PLAIN"})
    with broker:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})  # PLAINTEXT: a super user
        for f in admin.create_topics([NewTopic("open", 1, 1), NewTopic("secret", 1, 1)]).values():
            f.result()
        p = Producer({"bootstrap.servers": broker.bootstrap})
        p.produce("open", b"visible")
        p.produce("secret", b"hidden")
        check(p.flush(20) == 0, "records written")
        acl = subprocess.run([sys.argv[1], "acl", "--bootstrap-server", broker.bootstrap, "--add",
                              "--allow-principal", "User:alice", "--operation", "Describe", "--operation", "Read",
                              "--topic", "open"], capture_output=True, text=True, timeout=30)
        check(acl.returncode == 0, "alice may describe and read open: %s" % acl.stderr)

        for path in ("/", "/api/topics"):
            status, headers, _ = call(port, path)
            check(status == 401 and headers["WWW-Authenticate"].startswith("Basic realm="),
                  "%s without credentials: 401 with a Basic challenge (%d)" % (path, status))
        status, _, body = call(port, "/api/topics", ("alice", "wrong"))
        check(status == 401, "a wrong password: 401 (%d %s)" % (status, body[:200]))
        status, _, body = call(port, "/api/settings")
        check(json.loads(body)["login"] is True, "the page knows it needs a login")

        alice = ("alice", "alice-secret")
        status, _, body = call(port, "/api/topics", alice)
        names = [t["name"] for t in json.loads(body)["topics"]]
        check(status == 200 and names == ["open"], "alice lists only what she may describe: %s" % names)
        status, _, body = call(port, "/api/topics/open/partitions/0/messages", alice)
        check(status == 200 and json.loads(body)["records"][0]["value"]["text"] == "visible", "alice reads open")
        status, _, body = call(port, "/api/topics/secret", alice)
        check(status == 404 and b"TOPIC_AUTHORIZATION_FAILED" in body, "no secret for alice: %d %s" % (status, body))
        status, _, body = call(port, "/api/topics/secret/partitions/0/batches", alice)
        check(status == 404 and b"TOPIC_AUTHORIZATION_FAILED" in body, "nor its batches: %d %s" % (status, body))
        status, _, body = call(port, "/api/topics", alice, "POST", {"name": "alices", "partitions": 1})
        check(status == 403 and b"AUTHORIZATION_FAILED" in body, "alice may not create: %d %s" % (status, body))

        root = ("admin", "admin-secret")
        status, _, body = call(port, "/api/topics", root)
        names = sorted(t["name"] for t in json.loads(body)["topics"])
        check(["open", "secret"] == [n for n in names if not n.startswith("__")], "admin sees both: %s" % names)
        status, _, body = call(port, "/api/topics", root, "POST", {"name": "admins", "partitions": 1})
        check(status == 200, "admin creates a topic: %d %s" % (status, body))
        status, _, page = call(port, "/", root)
        check(status == 200 and b"Strata console" in page, "the page, logged in")
    print("console login: OK")


if __name__ == "__main__":
    main()
