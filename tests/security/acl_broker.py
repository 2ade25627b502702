"""The broker the ACL tests run against: a PLAINTEXT listener whose anonymous principal is
a super user (for the tools that make ACLs), a SASL_PLAINTEXT listener with the PLAIN
users admin (a super user), alice and bob (password: name + "-secret"), and Kafka's
AclAuthorizer on.

    broker, sasl_port = acl_broker(strata, **more_settings)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "compat"))

from strata_broker import StrataBroker, free_port  # noqa: E402

JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" '
        'password="admin-secret" user_admin="admin-secret" user_alice="alice-secret" user_bob="bob-secret";')


def acl_broker(strata, **settings):
    sasl_port = free_port()
    broker = StrataBroker(strata)
    broker.overrides.update({
        "listeners": "PLAINTEXT://127.0.0.1:%d,SASL_PLAINTEXT://127.0.0.1:%d" % (broker.port, sasl_port),
        "sasl.enabled.mechanisms": "PLAIN",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
        "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
        "super.users": "User:ANONYMOUS;User:admin",
        "offsets.topic.num.partitions": "1",
    })
    broker.overrides.update(settings)
    return broker, sasl_port
