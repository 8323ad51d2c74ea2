"""What the installed AWS CLI prints for `aws <argv> help`, for many argvs in one process.

Reads a JSON list of argvs on stdin and prints a JSON list of what each run wrote
to its standard output. Each argv runs through a new driver of its own, as the
`aws` entry point runs it (awscli.clidriver.create_clidriver().main), with `help`
appended: after a sub-command it prints that sub-command's page, after an
option's value it is an invalid choice; nothing runs either way. The CLI's page
goes through groff and the pager, child processes that write to descriptor 1, so
each run's descriptor 1 is a file of its own. One process instead of one `aws`
per argv: importing the CLI is most of a run's CPU. The caller sets the
environment (no configuration or credentials files, PAGER=cat).
"""
import json
import os
import sys
import tempfile

from awscli.clidriver import create_clidriver


def help_output(argv):
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 1)
        try:
            try:
                create_clidriver().main(argv + ["help"])
            except SystemExit:
                pass
            sys.stdout.flush()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        captured.seek(0)
        return captured.read().decode("utf-8", "replace")


print(json.dumps([help_output(argv) for argv in json.load(sys.stdin)]))
