#!/usr/bin/env python3
"""The AWS CLI's hand-written commands, where the CLI really attaches them.

    python3 scripts/providers/aws_command_tree.py     # JSON: shared events, same-command paths, parent options

awscli customizations attach commands and arguments through events named after a
command's *name*, not its path: `building-command-table.<name>` and
`building-arg-table.<name>` fire for every command so named. CodeDeploy's
`install`, `uninstall`, `register`, `deregister` and `push` are registered on
`building-command-table.deploy`, so they also exist under `cloudformation deploy`
and `ecs deploy` (`aws cloudformation deploy --template-file t --stack-name s
install` runs the CodeDeploy agent installer). A row a generator or a review
writes for one path must therefore hold for every path the same command class
is reached at: `same_command_paths` gives them, and `shared_events` lists every
such name event with a handler of its own that more than one command emits
(test/real-cli/aws-shared-command-events.test.ts reviews each).
"""

import json
import sys

from aws_url_parameters import isolate_environment

# Events a command emits under its own name (clidriver.ServiceCommand, customizations/commands.BasicCommand).
NAME_EVENTS = ("building-command-table", "building-arg-table")


def each_command(driver):
    """(command path, command) for every service and hand-written command, sub-commands included (not API operations)."""
    from awscli.clidriver import ServiceCommand
    from awscli.customizations.commands import BasicCommand

    def walk(path, command):
        yield path, command
        if isinstance(command, ServiceCommand):
            table = command._get_command_table()
        elif isinstance(command, BasicCommand):
            table = command.subcommand_table
        else:
            return
        for name, sub in sorted(table.items()):
            if isinstance(sub, (ServiceCommand, BasicCommand)):
                yield from walk(path + [name], sub)

    for name, command in sorted(driver._get_command_table().items()):
        yield from walk([name], command)


def command_class(command):
    return "%s.%s" % (type(command).__module__, type(command).__qualname__)


def same_command_paths(driver):
    """{command class: [paths]} for the hand-written classes reached at more than one path."""
    from awscli.customizations.commands import BasicCommand

    paths = {}
    for path, command in each_command(driver):
        if isinstance(command, BasicCommand):
            paths.setdefault(command_class(command), []).append(path)
    return {cls: found for cls, found in paths.items() if len(found) > 1}


def shared_events(driver):
    """[{event, paths}] for each name event with a handler of its own that more than one command emits."""
    from awscli.clidriver import ServiceCommand

    emitter = driver.session.get_component("event_emitter")
    # botocore's EventAliaser wraps the HierarchicalEmitter that holds the handlers.
    handlers = getattr(emitter, "_emitter", emitter)._handlers

    def own_handlers(event, prefix):
        # A handler registered on the bare prefix (waiters' `building-command-table`) serves every command alike.
        generic = set(map(id, handlers.prefix_search(prefix)))
        return [h for h in handlers.prefix_search(event) if id(h) not in generic]

    emitted = {}
    for path, command in each_command(driver):
        name = command._name if isinstance(command, ServiceCommand) else command.NAME
        for prefix in NAME_EVENTS:
            if prefix == "building-arg-table" and isinstance(command, ServiceCommand):
                continue
            emitted.setdefault((prefix, "%s.%s" % (prefix, name)), []).append(path)
    shared = []
    for (prefix, event), paths in sorted(emitted.items()):
        if len(paths) > 1 and own_handlers(event, prefix):
            shared.append({"event": event, "paths": paths})
    return shared


def parent_options(driver):
    """Rows {command, values, switches} for every hand-written command below a service that has
    sub-commands and options of its own: the sub-command may follow those options, so the
    command-path matcher skips the values of the ones that take one (a value equal to a
    sub-command's name is then no sub-command). Positional arguments are left out."""
    from awscli.customizations.commands import BasicCommand

    rows = []
    for path, command in each_command(driver):
        if len(path) < 2 or not isinstance(command, BasicCommand) or not command.subcommand_table:
            continue
        values, switches = [], []
        for name, arg in sorted(command.arg_table.items()):
            if getattr(arg, "positional_arg", False):
                continue
            switch = getattr(arg, "_action", None) in ("store_true", "store_false")
            (switches if switch else values).append("--" + name)
        if values or switches:
            rows.append({"command": list(path), "values": values, "switches": switches})
    return rows


def yaml_rows(rows, indent):
    return [
        "%s- {command: [%s], values: [%s], switches: [%s]}"
        % (indent, ", ".join(r["command"]), ", ".join(r["values"]), ", ".join(r["switches"]))
        for r in rows
    ]


def main():
    isolate_environment()
    from awscli.clidriver import create_clidriver

    driver = create_clidriver()
    found = {"shared_events": shared_events(driver), "same_command_paths": same_command_paths(driver), "parent_options": parent_options(driver)}
    json.dump(found, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
