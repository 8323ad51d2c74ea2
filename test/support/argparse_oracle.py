#!/usr/bin/env python3
"""Oracle for the argparse differential test: Python's own argparse, set up
like the AWS CLI v1 global parser, reports how it reads each argv.

Protocol: JSON lines on stdin, one JSON line out per request, in order.

  {"describe": "aws"}
      -> {"options": [{"name": "--debug", "value": "none"}, ...]}
         the AWS CLI global options exactly as awscli/data/cli.json declares them;
         written at once (flushed), so the caller can build its next requests from
         it and send them to the same process.
  {"define": "<name>", "options": [{"name": "--output", "short": "-o", "value": "required"}, ...]}
      -> {"defined": "<name>"}   (a parser from a Torii option table, e.g. the az test grammar)
  {"parser": "aws" | "<name>", "argv": [...]}
      -> {"error": "...", "kind": "syntax"}                       argparse refused the argv
       | {"occurrences": [["--region", "x"], ["--debug", true]],   options read, in order
          "extras": [...],                                         what parse_known_args left
          "error": "..." | null, "kind": "value" | null}           a choices error, if any

Two parsers are built per definition with parse_known_args:
  * strict: the options as declared (action, dest, choices), so value errors
    (`--output xml`) are reported as awscli reports them;
  * structural: the same option strings and arity, but every action records
    (long name, value) in order, with default SUPPRESS. Parsing (prefixes, `=`,
    clusters, arity, `--`) depends only on option strings and nargs, so it reads
    argv exactly as the strict parser does, and it shows repeats.
Deviations from the real CLI, on purpose: `--version` (action "version", which
prints and exits) is a switch here; awscli's `command` positional is not added,
so every positional stays in `extras` in the order given (it does not change how
options are read). `error()` raises instead of exiting.
"""
import argparse
import json
import os
import sys

import awscli


class OracleError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise OracleError(message)


class Record(argparse.Action):
    """Records (long option name, value) in parse order; a switch records True."""

    def __init__(self, option_strings, dest, long_name=None, **kwargs):
        self.long_name = long_name
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        seen = getattr(namespace, "_occurrences", None)
        if seen is None:
            seen = []
            setattr(namespace, "_occurrences", seen)
        seen.append([self.long_name, True if self.nargs == 0 else values])


SWITCH_ACTIONS = {"store_true", "store_false", "version"}


def aws_declarations():
    """The AWS CLI global options as awscli declares them (awscli/data/cli.json)."""
    path = os.path.join(os.path.dirname(awscli.__file__), "data", "cli.json")
    with open(path, encoding="utf-8") as handle:
        options = json.load(handle)["options"]
    declarations = []
    for key, params in options.items():
        action = params.get("action")
        declarations.append(
            {
                "name": "--" + key,
                "short": None,
                "switch": action in SWITCH_ACTIONS,
                # strict-parser keyword arguments, as awscli's CustomArgument.add_to_parser passes them
                "strict": {
                    k: v
                    for k, v in {
                        "dest": params.get("dest"),
                        "action": "store_true" if action == "version" else action,
                        "default": params.get("default"),
                        "choices": params.get("choices") or None,
                    }.items()
                    if v is not None
                },
            }
        )
    return declarations


def table_declarations(options):
    return [
        {
            "name": option["name"],
            "short": option.get("short"),
            "switch": option["value"] == "none",
            "strict": {"action": "store_true"} if option["value"] == "none" else {},
        }
        for option in options
    ]


def build(declarations):
    strict = Parser(add_help=False, conflict_handler="resolve")
    structural = Parser(add_help=False, conflict_handler="resolve")
    for declaration in declarations:
        strings = [declaration["name"]] + ([declaration["short"]] if declaration["short"] else [])
        strict.add_argument(*strings, **declaration["strict"])
        structural.add_argument(
            *strings,
            dest="_" + declaration["name"][2:].replace("-", "_"),
            action=Record,
            long_name=declaration["name"],
            nargs=0 if declaration["switch"] else None,
            default=argparse.SUPPRESS,
        )
    return strict, structural


def run(parsers, argv):
    strict, structural = parsers
    try:
        namespace, extras = structural.parse_known_args(argv)
    except OracleError as error:
        return {"error": str(error), "kind": "syntax"}
    result = {"occurrences": getattr(namespace, "_occurrences", []), "extras": extras, "error": None, "kind": None}
    try:
        strict.parse_known_args(argv)
    except OracleError as error:
        result["error"] = str(error)
        result["kind"] = "value"
    return result


def main():
    aws = aws_declarations()
    parsers = {"aws": build(aws)}
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if "describe" in request:
            response = {"options": [{"name": d["name"], "value": "none" if d["switch"] else "required"} for d in aws]}
            sys.stdout.write(json.dumps(response) + "\n")
            sys.stdout.flush()
            continue
        if "define" in request:
            parsers[request["define"]] = build(table_declarations(request["options"]))
            response = {"defined": request["define"]}
        else:
            response = run(parsers[request["parser"]], request["argv"])
        sys.stdout.write(json.dumps(response) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
