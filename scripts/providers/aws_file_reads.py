#!/usr/bin/env python3
"""List the AWS CLI arguments that read a local file or directory named by a bare path.

    python3 scripts/providers/aws_file_reads.py     # print them (YAML rows)

`file://`/`fileb://` are refused, but some arguments take a plain path: every
operation input member that is a streaming blob (`s3api put-object --body PATH`,
`upload-part --body`, `glacier upload-archive --body`: the CLI opens the value as
a file and uploads it), and hand-written arguments that read or upload a local
file or directory (READER_ARGUMENTS, read from each command's source), at every
path the CLI attaches their command to (aws_command_tree.py: `deploy push` is
also `cloudformation deploy push` and `ecs deploy push`). `aws-options.py`
writes the result into providers/aws/provider.yaml (`argv.file_reads`,
src/policy/file-reads.ts).
"""

import sys

from aws_command_tree import same_command_paths
from aws_url_parameters import each_argument, isolate_environment

# Hand-written arguments that read a local path: {command path: argument names}.
READER_ARGUMENTS = {
    ("deploy", "push"): ("source",),
    ("cloudformation", "package"): ("template-file",),
    ("cloudformation", "deploy"): ("template-file",),
    # ecs/deploy.py _get_file_contents: both are local paths (~ and $VARS expanded).
    ("ecs", "deploy"): ("codedeploy-appspec", "task-definition"),
    # ec2/decryptpassword.py: the private key file that decrypts the password data.
    ("ec2", "get-password-data"): ("priv-launch-key",),
    ("gamelift", "upload-build"): ("build-root",),
    ("s3", "cp"): ("paths",),
    ("s3", "mv"): ("paths",),
    ("s3", "sync"): ("paths",),
    # servicecatalog/generatebase.py: uploads the local file to S3.
    ("servicecatalog", "generate", "product"): ("file-path",),
    ("servicecatalog", "generate", "provisioning-artifact"): ("file-path",),
}


def readers_at_every_path(driver):
    """READER_ARGUMENTS with each command's other paths (the same command class attached elsewhere) added."""
    readers = dict(READER_ARGUMENTS)
    for paths in same_command_paths(driver).values():
        names = sorted({name for path in paths for name in READER_ARGUMENTS.get(tuple(path), ())})
        for path in paths if names else []:
            readers[tuple(path)] = tuple(names)
    return readers


def reads_file(readers, path, arg):
    """Whether the CLI reads a local file at this argument's value."""
    if arg.name in readers.get(tuple(path), ()):
        return True
    model = getattr(arg, "argument_model", None)
    return model is not None and model.type_name == "blob" and bool(model.serialization.get("streaming") or getattr(model, "metadata", {}).get("streaming"))


def file_read_arguments(driver):
    """Rows {command, operand|option} for every argument that reads a local path."""
    rows = []
    readers = readers_at_every_path(driver)
    arguments = [(path, arg) for path, _, arg in each_argument(driver)]
    # A reviewed argument the CLI no longer has is a review to redo, never a row dropped silently.
    present = {(tuple(path), arg.name) for path, arg in arguments}
    missing = ["%s --%s" % (" ".join(path), name) for path, names in readers.items() for name in names if (path, name) not in present]
    if missing:
        sys.exit("reader arguments the installed CLI does not have: %s" % ", ".join(missing))
    for path, arg in arguments:
        if not reads_file(readers, path, arg):
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
