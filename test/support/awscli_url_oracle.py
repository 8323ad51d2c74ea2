"""Asks the installed AWS CLI whether it would load a parameter's http(s):// value.

Reads JSON [{"command": [...], "option": "--x"}] on stdin and prints, for each
row, "literal", "loaded" or "missing" (no such command or parameter). It builds
the real command objects and calls the CLI's own URIArgumentHandler with a probe
prefix, so nothing is downloaded. The event name is built as the CLI builds it
(clidriver.ServiceOperation._unpack_arg, customizations/commands.BasicCommand).
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "providers"))
from aws_url_parameters import PROBE, isolate_environment  # noqa: E402

isolate_environment()

from awscli.clidriver import ServiceOperation, create_clidriver  # noqa: E402
from awscli.customizations.commands import BasicCommand  # noqa: E402
from awscli.paramfile import URIArgumentHandler  # noqa: E402
from botocore import xform_name  # noqa: E402

handler = URIArgumentHandler({PROBE: (lambda prefix, path: "loaded", {})})
table = create_clidriver()._get_command_table()


def find(path):
    command = table.get(path[0])
    for word in path[1:]:
        if command is None:
            return None
        if isinstance(command, BasicCommand):
            command = command.subcommand_table.get(word)
        else:
            command = command._get_command_table().get(word)
    return command


def answer(row):
    command = find(row["command"])
    name = row["option"][2:]
    if command is None or name not in command.arg_table:
        return "missing"
    arg = command.arg_table[name]
    if isinstance(command, ServiceOperation):
        prefix = "%s.%s" % (command._operation_model.service_model.endpoint_prefix, xform_name(command._name, "-"))
    else:
        prefix = "custom.%s" % command.name
    loaded = handler("load-cli-arg.%s.%s" % (prefix, arg.name), param=arg, value=PROBE + "x")
    return "literal" if loaded is None else "loaded"


print(json.dumps([answer(row) for row in json.load(sys.stdin)]))
