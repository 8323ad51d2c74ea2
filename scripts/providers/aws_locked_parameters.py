"""The AWS CLI command options that do what a locked global option does.

Used by `aws-options.py`, which writes them into providers/aws/provider.yaml.
The broker owns `--endpoint-url` and `--region`; a few hand-written commands
(awscli/customizations) take an option of their own that sends the call's signed
requests to another endpoint (`emr create-default-roles --iam-endpoint`) or makes
the CLI itself call another region (`s3 cp --source-region`). This walks every
command of the installed CLI and keeps each option that the CLI handles itself
(a CustomArgument, never serialised into an API request) whose name says
endpoint, region or url. API parameters that name a region or endpoint are the
service's data (`ec2 copy-image --source-region` is sent to the pinned region) and
are not listed, except the few botocore itself sends the request to
(`machinelearning predict --predict-endpoint`, a handler calling
`switch_host_with_param`), found in botocore's handlers and locked together
with the command's parameter carriers, which set them too. The result is
`argv.locked_command_options`.
"""

import inspect
import re

NAME = re.compile(r"(^|-)(endpoint|region|url)$")

# botocore handlers that move a signed request to the host an API parameter names
# (utils.switch_host_with_param: `machinelearning predict`'s PredictEndpoint). Such a
# parameter does what --endpoint-url does, and a parameter carrier (--cli-input-json)
# sets it too, so the row locks the carriers of that command as well.
HOST_PARAMETER = re.compile(r"switch_host_with_param\(\s*request\s*,\s*['\"](\w+)['\"]")
CARRIERS = ("cli-input-json", "cli-input-yaml")

# Matched by name, reviewed, and left to the policy: the CLI sends nothing elsewhere.
NOT_LOCKED = {
    ("cloudfront", "sign", "url"): "the URL to sign; the CLI signs it locally with a key file and sends nothing",
    ("s3", "ls", "bucket-region"): "a ListBuckets filter (BucketRegion), sent to the pinned region",
}


def locked_command_options(driver):
    """Rows {command, options} for every CLI-side option that names an endpoint, region or url."""
    from awscli.arguments import CustomArgument
    from aws_url_parameters import each_argument

    found = {}
    for path, _prefix, arg in each_argument(driver):
        name = getattr(arg, "name", "")
        if not isinstance(arg, CustomArgument) or not NAME.search(name) or getattr(arg, "positional_arg", False):
            continue
        if tuple(path) + (name,) in NOT_LOCKED:
            continue
        found.setdefault(tuple(path), set()).add("--" + name)
    for path, options in host_switching_parameters(driver).items():
        found.setdefault(path, set()).update(options)
    return [{"command": list(path), "options": sorted(options)} for path, options in sorted(found.items())]


def host_switching_parameters(driver):
    """{command path: options} for each API parameter a botocore handler sends the request to, with the command's carriers."""
    from botocore import handlers, xform_name
    from awscli.clidriver import ServiceCommand

    table = driver._get_command_table()
    found = {}
    for entry in handlers.BUILTIN_HANDLERS:
        event, handler = entry[0], entry[1]
        try:
            source = inspect.getsource(handler)
        except (TypeError, OSError):
            continue
        match = HOST_PARAMETER.search(source)
        if match is None:
            continue
        parts = event.split(".")
        if len(parts) != 3:
            raise SystemExit("host-switching handler on an event without one operation: %s" % event)
        service, operation = parts[1], xform_name(parts[2], "-")
        command = table.get(service)
        if not isinstance(command, ServiceCommand) or operation not in command._get_command_table():
            raise SystemExit("host-switching handler for a command the CLI does not have: %s" % event)
        args = command._get_command_table()[operation].arg_table
        name = xform_name(match.group(1), "-")
        if name not in args:
            raise SystemExit("host-switching parameter %s is not an argument of %s %s" % (name, service, operation))
        # Every carrier, whether or not this CLI has it: provider.yaml declares both (--cli-input-yaml is v2's),
        # and a v2 CLI reached through the same definition would read the parameter from it.
        found[(service, operation)] = {"--" + arg for arg in (name,) + CARRIERS}
    return found


def yaml_rows(rows, indent):
    return ["%s- {command: [%s], options: [%s]}" % (indent, ", ".join(r["command"]), ", ".join(r["options"])) for r in rows]
