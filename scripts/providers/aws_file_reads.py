#!/usr/bin/env python3
"""List the AWS CLI arguments that read a local file or directory named by a bare path.

    python3 scripts/providers/aws_file_reads.py     # print them (YAML rows)

`file://`/`fileb://` are refused, but some arguments take a plain path: every
operation input member that is a streaming blob (`s3api put-object --body PATH`,
`upload-part --body`, `glacier upload-archive --body`: the CLI opens the value as
a file and uploads it), and hand-written arguments that upload a local file or
directory (READER_ARGUMENTS, read from each command's source). `aws-options.py`
writes the result into providers/aws/provider.yaml (`argv.file_reads`,
src/policy/file-reads.ts).
"""

import sys

from aws_url_parameters import each_argument, isolate_environment

# Hand-written arguments that read a local path: {command path: argument name}.
READER_ARGUMENTS = {
    ("deploy", "push"): "source",
    ("cloudformation", "package"): "template-file",
    ("cloudformation", "deploy"): "template-file",
    ("gamelift", "upload-build"): "build-root",
    ("s3", "cp"): "paths",
    ("s3", "mv"): "paths",
    ("s3", "sync"): "paths",
}


def reads_file(path, arg):
    """Whether the CLI reads a local file at this argument's value."""
    if READER_ARGUMENTS.get(tuple(path)) == arg.name:
        return True
    model = getattr(arg, "argument_model", None)
    return model is not None and model.type_name == "blob" and bool(model.serialization.get("streaming") or getattr(model, "metadata", {}).get("streaming"))


def file_read_arguments(driver):
    """Rows {command, operand|option} for every argument that reads a local path."""
    rows = []
    for path, _, arg in each_argument(driver):
        if not reads_file(path, arg):
            continue
        if getattr(arg, "positional_arg", False):
            rows.append({"command": list(path), "operand": arg.name})
        else:
            rows.append({"command": list(path), "option": "--" + arg.name})
    return sorted(rows, key=lambda r: (r["command"], r.get("option", "")))


def main():
    isolate_environment()
    from awscli.clidriver import create_clidriver
    from aws_file_writes import yaml_rows

    rows = file_read_arguments(create_clidriver())
    sys.stdout.write("\n".join(yaml_rows(rows, "")) + "\n")
    sys.stderr.write("%d arguments read a local path\n" % len(rows))


if __name__ == "__main__":
    main()
