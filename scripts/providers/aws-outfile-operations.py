#!/usr/bin/env python3
"""List the AWS CLI read operations that write a local file.

    python3 scripts/providers/aws-outfile-operations.py

The readonly preset (providers/aws/presets/readonly.yaml) accepts every
`<service> describe-*|list-*|get-*` operation. An operation whose response payload
is a streaming blob takes a positional `outfile` and writes the body to that local
path (`aws s3api get-object --bucket b --key k /any/path`), so those must be denied.
This prints them as deny rules, from the botocore service models the installed AWS
CLI uses, for pasting into the preset's "writes a local file" block.
"""

import re
import sys

from awscli.clidriver import create_clidriver
from botocore import xform_name


def main():
    driver = create_clidriver()
    found = []
    for cli_name, command in sorted(driver._get_command_table().items()):
        try:
            model = command._get_service_model()
        except Exception:  # customizations (s3, configure, ...) have no service model
            continue
        if model is None:
            continue
        for op in model.operation_names:
            name = xform_name(op, "-")
            if not re.match(r"(get|describe|list)-", name):
                continue
            out = model.operation_model(op).output_shape
            payload = out.serialization.get("payload") if out is not None else None
            if payload is None:
                continue
            member = out.members[payload]
            if member.type_name == "blob" and member.serialization.get("streaming"):
                found.append("%s %s" % (cli_name, name))
    for rule in found:
        print("  - %s" % rule)
    sys.stderr.write("%d read operations write a local outfile\n" % len(found))


if __name__ == "__main__":
    main()
