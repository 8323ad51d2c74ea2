#!/usr/bin/env python3
"""List the AWS CLI read operations that write a local file.

    python3 scripts/providers/aws-outfile-operations.py

The readonly preset (providers/aws/presets/readonly.yaml) accepts every
`<service> describe-*|list-*|get-*` operation. An operation with a streaming
output takes a required positional `outfile` and writes the response body to that
local path (`aws iot-data get-thing-shadow --thing-name t ~/.aws/credentials`), so
those must be denied. The CLI adds the outfile whenever
`operation_model.has_streaming_output` is true (a streaming blob payload or an
event stream); scripts/providers/aws_file_writes.py finds them by building each
argument table, as the CLI does. This prints the read operations among them as
deny rules, for pasting into the preset's "writes a local file" block.
"""

import re
import sys

from aws_file_writes import file_write_arguments
from aws_url_parameters import isolate_environment


def main():
    isolate_environment()
    from awscli.clidriver import create_clidriver

    rows = file_write_arguments(create_clidriver())
    found = sorted({" ".join(r["command"]) for r in rows if re.match(r"(get|describe|list)-", r["command"][-1])})
    for rule in found:
        print("  - %s" % rule)
    sys.stderr.write("%d read operations write a local file\n" % len(found))


if __name__ == "__main__":
    main()
