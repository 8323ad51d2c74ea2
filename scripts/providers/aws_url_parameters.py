#!/usr/bin/env python3
"""List the AWS CLI parameters whose http(s):// values the installed CLI passes on literally.

    python3 scripts/providers/aws_url_parameters.py     # print them (YAML rows)

AWS CLI v1 downloads any operation parameter value that starts with `http://` or
`https://` and sends the body as the value (awscli/paramfile.py,
`cli_follow_urlparam`, on by default); `file://` and `fileb://` read local files.
The handler skips a parameter when `<service>.<operation>.<param>` is in
`PARAMFILE_DISABLED` or the argument has `no_paramfile`. `<service>` is the
service's *endpoint prefix* for API operations (so `api-gateway.*`, `ses.*`,
`sagemaker.*`, ... in that list match nothing, and `rds.*` also matches docdb and
neptune) and `custom` for hand-written commands (`custom.cp.*` is every custom
command named `cp`).

This walks every command of the installed CLI, builds each argument table, and
asks the CLI's own `URIArgumentHandler` (with a probe prefix instead of http, so
nothing is fetched) whether it would load the value. `aws-options.py` writes the
result into providers/aws/provider.yaml (`argv.fetched_values.literal`).
Positional arguments are reported on stderr and left out: Torii refuses a URL
operand for every command (today only `configure set <name> <value>`).
"""

import atexit
import os
import shutil
import sys
import tempfile


def isolate_environment():
    """Keep a local ~/.aws/config ([plugins], aliases, cli_follow_urlparam) out of the walk."""
    # An empty directory of its own, removed at exit: the two files are never created.
    scratch = tempfile.mkdtemp(prefix="aws-options-empty-")
    atexit.register(shutil.rmtree, scratch, True)
    for var in list(os.environ):
        if var.startswith("AWS_"):
            del os.environ[var]
    os.environ["AWS_CONFIG_FILE"] = os.path.join(scratch, "config")
    os.environ["AWS_SHARED_CREDENTIALS_FILE"] = os.path.join(scratch, "credentials")


PROBE = "torii-probe://"


def each_argument(driver):
    """(command path, argument-event prefix, argument) for every argument of every command of the CLI."""
    from awscli.clidriver import ServiceCommand, ServiceOperation
    from awscli.customizations.commands import BasicCommand
    from botocore import xform_name

    def walk(path, command):
        if isinstance(command, ServiceOperation):
            # clidriver.ServiceOperation._unpack_arg: the endpoint prefix, not the CLI name.
            prefix = command._operation_model.service_model.endpoint_prefix
            operation = xform_name(command._name, "-")
            for arg in command.arg_table.values():
                yield path, "%s.%s" % (prefix, operation), arg
        elif isinstance(command, BasicCommand):
            # customizations/commands.BasicCommand.__call__: 'custom' and the command's own name.
            for arg in command.arg_table.values():
                yield path, "custom.%s" % command.name, arg
            for name, sub in command.subcommand_table.items():
                yield from walk(path + [name], sub)

    for name, command in sorted(driver._get_command_table().items()):
        if isinstance(command, ServiceCommand):
            for operation, sub in sorted(command._get_command_table().items()):
                yield from walk([name, operation], sub)
        else:
            yield from walk([name], command)


def literal_url_parameters(driver):
    """Rows {command, option, list} for every option the CLI would not load from a URL."""
    from awscli.arguments import ListArgument
    from awscli.paramfile import URIArgumentHandler

    handler = URIArgumentHandler({PROBE: (lambda prefix, path: "loaded", {})})
    rows = []
    for path, event_prefix, arg in each_argument(driver):
        name = getattr(arg, "name", "anonymous")
        loaded = handler("load-cli-arg.%s.%s" % (event_prefix, name), param=arg, value=PROBE + "x")
        if loaded is not None:
            continue
        if getattr(arg, "positional_arg", False):
            sys.stderr.write("positional literal argument not modelled: %s %s\n" % (" ".join(path), name))
            continue
        is_list = isinstance(arg, ListArgument) or getattr(arg, "nargs", None) in ("*", "+")
        rows.append({"command": list(path), "option": "--" + name, "list": bool(is_list)})
    return sorted(rows, key=lambda r: (r["command"], r["option"]))


def yaml_rows(rows, indent):
    out = []
    for r in rows:
        fields = "command: [%s], option: %s" % (", ".join(r["command"]), r["option"])
        if r["list"]:
            fields += ", list: true"
        out.append("%s- {%s}" % (indent, fields))
    return out


def main():
    isolate_environment()
    from awscli.clidriver import create_clidriver

    rows = literal_url_parameters(create_clidriver())
    sys.stdout.write("\n".join(yaml_rows(rows, "")) + "\n")
    sys.stderr.write("%d literal URL parameters\n" % len(rows))


if __name__ == "__main__":
    main()
