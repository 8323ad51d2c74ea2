"""Oracle for the aws preset test: which reads of the given services have a sensitive response member.

Reads a JSON list of service names on stdin; prints a JSON list of "<service> <cli-operation>"
for every describe/list/get operation whose output shape reaches a member with botocore's
`sensitive` trait, straight from the installed botocore's models.
"""

import json
import re
import sys

import botocore.session
from botocore import xform_name


def sensitive(shape, seen=frozenset()):
    if shape is None or shape.name in seen:
        return False
    if shape.serialization.get("sensitive") or shape.metadata.get("sensitive"):
        return True
    seen = seen | {shape.name}
    if shape.type_name == "structure":
        return any(sensitive(member, seen) for member in shape.members.values())
    if shape.type_name == "list":
        return sensitive(shape.member, seen)
    if shape.type_name == "map":
        return sensitive(shape.value, seen)
    return False


session = botocore.session.get_session()
found = []
for service in json.load(sys.stdin):
    model = session.get_service_model(service)
    for operation in model.operation_names:
        name = xform_name(operation, "-")
        if re.match(r"(describe|list|get)-", name) and sensitive(model.operation_model(operation).output_shape):
            found.append("%s %s" % (service, name))
print(json.dumps(sorted(found)))
