#!/usr/bin/env python3
"""List the AWS CLI arguments that write a local file the caller names.

    python3 scripts/providers/aws_file_writes.py     # print them (YAML rows)

The AWS CLI adds a required positional `outfile` to every operation whose output
is streaming (`operation_model.has_streaming_output`, awscli/customizations/
streamingoutputarg.py) and writes the response body to that path
(`aws iot-data get-thing-shadow --thing-name t ~/.aws/credentials`). A few
hand-written arguments do the same from an option (`iot create-keys-and-certificate
--private-key-outfile`, `iam create-virtual-mfa-device --outfile`, `gamelift
get-game-session-log --save-as`) or an operand (`s3 cp s3://b/k <local path>`).

This walks every command of the installed CLI, builds each argument table (the
same event handlers the CLI runs), and reports every argument whose class writes a
file. `aws-options.py` writes the result into providers/aws/provider.yaml
(`argv.file_writes`); scripts/providers/aws-outfile-operations.py prints the
read operations among them as deny rules for the read-only preset.
"""

import json
import sys

from aws_url_parameters import each_argument, isolate_environment

# Argument classes that open the value as a path for writing.
WRITER_CLASSES = {"StreamingOutputArgument", "QueryOutFileArgument"}
# Hand-written arguments that name the file they write, by name (read from each
# command's source): iamvirtmfa `--outfile`, gamelift get-game-session-log
# `--save-as`, cloudformation package `--output-template-file`, emr get `--dest`,
# eks update-kubeconfig `--kubeconfig`.
WRITER_NAMES = {"outfile", "save-as", "output-template-file", "kubeconfig"}
# Arguments that write under one command only (`emr put --dest` is a remote path).
# `ssm start-session` runs session-manager-plugin, which for a port-forwarding
# document with `localConnectionType: unix` creates a Unix socket at the document's
# `localUnixSocket` (net.Listen("unix", path), portsession/basicportforwarding.go
# and muxportforwarding.go; an existing file is not replaced, the socket is unlinked
# on close). The path comes from --parameters, or from the defaults of the document
# --document-name names (any document of the account), and --cli-input-json can
# carry both: a call giving any of them may write a local file.
SSM_SOCKET_ARGUMENTS = {"document-name", "parameters", "cli-input-json", "cli-input-yaml"}
WRITER_ARGUMENTS = {
    ("emr", "get"): {"dest"},
    ("s3", "cp"): {"paths"},
    ("s3", "mv"): {"paths"},
    ("s3", "sync"): {"paths"},
    ("ssm", "start-session"): SSM_SOCKET_ARGUMENTS,
}


def writes_file(path, arg):
    """Whether the CLI writes a local file at this argument's value."""
    if type(arg).__name__ in WRITER_CLASSES:
        return True
    if arg.name in WRITER_ARGUMENTS.get(tuple(path), ()):
        return True
    return arg.name in WRITER_NAMES or arg.name.endswith("-outfile")


def file_write_arguments(driver):
    """Rows {command, operand|option} for every argument that writes a local file."""
    rows = []
    for path, _, arg in each_argument(driver):
        if not writes_file(path, arg):
            continue
        if getattr(arg, "positional_arg", False) or type(arg).__name__ == "StreamingOutputArgument":
            rows.append({"command": list(path), "operand": arg.name})
        else:
            rows.append({"command": list(path), "option": "--" + arg.name})
    return sorted(rows, key=lambda r: (r["command"], r.get("option", "")))


def yaml_rows(rows, indent):
    out = []
    for r in rows:
        where = "operand: %s" % r["operand"] if "operand" in r else "option: %s" % r["option"]
        # A read option's default (aws_file_reads.py), quoted: `.` alone is not a YAML scalar one can trust.
        default = "" if "default_path" not in r else ", default_path: %s" % json.dumps(r["default_path"])
        out.append("%s- {command: [%s], %s%s}" % (indent, ", ".join(r["command"]), where, default))
    return out


def main():
    isolate_environment()
    from awscli.clidriver import create_clidriver

    rows = file_write_arguments(create_clidriver())
    sys.stdout.write("\n".join(yaml_rows(rows, "")) + "\n")
    sys.stderr.write("%d arguments write a local file\n" % len(rows))


if __name__ == "__main__":
    main()
