"""What the local code of each az command does, read from the installed azure-cli's own source.

Shared by az_local_programs.py (commands that download, install or start programs) and
az_default_writes.py (commands that write a file at a default place). Run with the Python
that az runs (Debian: /usr/bin/python3).

For every command of the installed command table (core modules, no extension), the roots
are its handler (`module#function` of a custom command) and its command-level validator
(`vm create`'s `process_vm_create_namespace` generates SSH keys). From the roots, every
function and class of an `azure.cli.command_modules` module that the code names (a call,
a callback, a class whose methods run) is followed, across modules. Core helpers are not
followed (every command would reach everything through them); the ones that start a
program, install code or write a default file are markers themselves (`CORE_MARKERS`).

A marker is a call as written (`subprocess.call`, `Popen`, `os.chmod`, `urlretrieve`,
`open_page_in_browser`, `expanduser`, ...) in the command's reachable code. Method calls on
objects Torii cannot resolve statically (`self.client.x()`) are followed only through the
classes the code names; what a review reads is the listing of markers, so a command is
judged by its code, never by its name alone.
"""

import argparse
import ast
import atexit
import inspect
import json
import logging
import os
import shutil
import sys
import tempfile
import textwrap

OWN = "azure.cli.command_modules."

# Core functions that do the thing themselves: a call to one is a marker, and they are not followed.
CORE_MARKERS = {
    "azure.cli.core.util.open_page_in_browser": "browser",
    "azure.cli.core.util.run_cmd": "process",
    "azure.cli.core.keys.generate_ssh_keys": "ssh-keys",
    "azure.cli.core.extension.operations.add_extension": "install",
    "azure.cli.core.extension.operations.update_extension": "install",
    "azure.cli.core.extension.operations.remove_extension": "install",
    "azure.cli.core.extension.dynamic_install.try_install_extension": "install",
    "azure.cli.core.extension.dynamic_install.try_install_and_run_extension": "install",
}

# Calls as written (the last one or two words of the called name) and what they do.
CALL_MARKERS = {
    "subprocess.call": "process",
    "subprocess.run": "process",
    "subprocess.Popen": "process",
    "subprocess.check_output": "process",
    "subprocess.check_call": "process",
    "Popen": "process",
    "os.system": "process",
    "os.execv": "process",
    "os.execvp": "process",
    "os.execvpe": "process",
    "os.spawnv": "process",
    "os.startfile": "process",
    "os.chmod": "chmod",
    "webbrowser.open": "browser",
    "webbrowser.open_new_tab": "browser",
    "urlretrieve": "download",
    "_urlretrieve": "download",
    "urlopen": "download",
    "_run_pip": "pip",
    "expanduser": "default-path",
    "os.getcwd": "default-path",
    "get_config_dir": "default-path",
    "os.walk": "walks-directory",
    "shutil.make_archive": "walks-directory",
    "zipfile.ZipFile": "zip",
    "ZipFile": "zip",
    "tarfile.open": "zip",
}


def command_table():
    """The installed az's command table, every core module loaded, with a scratch config dir."""
    return commands_loader().command_table


def commands_loader():
    """az's main commands loader with every core module's command table loaded (arguments load per command)."""
    scratch = tempfile.mkdtemp(prefix="az-command-code-")
    atexit.register(shutil.rmtree, scratch, True)
    os.environ["AZURE_CONFIG_DIR"] = scratch
    logging.disable(logging.CRITICAL)
    from azure.cli.core import get_default_cli

    cli = get_default_cli()
    cli.invocation = cli.invocation_cls(cli_ctx=cli, parser_cls=cli.parser_cls, commands_loader_cls=cli.commands_loader_cls, help_cls=cli.help_cls)
    loader = cli.invocation.commands_loader
    loader.load_command_table(None)
    return loader


def command_arguments(loader, name):
    """{dest: argument} of one command, loaded as az loads them for its help; None when its module fails to load."""
    loader.command_name = name
    for module_loader in loader.cmd_to_loader_map.get(name, []):
        module_loader.skip_applicability = True
    try:
        loader.load_arguments(name)
    except Exception:  # noqa: BLE001 - Debian's az fails some modules against its SDK packages
        return None
    return loader.command_table[name].arguments


def _handler(command):
    """A custom command's Python function (`module#function` of its operation), or None."""
    op_path = getattr(command.command_kwargs.get("command_operation"), "op_path", None) or ""
    module, _, attr = op_path.partition("#")
    if not module.startswith(OWN) or not attr:
        return None
    try:
        target = __import__(module, fromlist=["_"])
        for part in attr.split("."):
            target = getattr(target, part)
        return target
    except (ImportError, AttributeError):
        return None


def _called_name(node):
    """`a.b.c(...)` as its last two words (`b.c`) and its last word."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.insert(0, node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.insert(0, node.id)
    return ".".join(parts[-2:]), (parts[-1] if parts else "")


def _qualname(obj):
    return "%s.%s" % (getattr(obj, "__module__", "?"), getattr(obj, "__qualname__", getattr(obj, "__name__", "?")))


def _resolve(name_node, scope):
    """The object a name or `module.attr` refers to in a function's globals, or None."""
    if isinstance(name_node, ast.Name):
        return scope.get(name_node.id)
    if isinstance(name_node, ast.Attribute) and isinstance(name_node.value, ast.Name):
        owner = scope.get(name_node.value.id)
        if inspect.ismodule(owner):
            return getattr(owner, name_node.attr, None)
    return None


def _functions_of(obj):
    """The Python functions to read for a function or a class (its methods)."""
    if inspect.isfunction(obj):
        return [obj]
    if inspect.isclass(obj):
        return [v for v in vars(obj).values() if inspect.isfunction(v)]
    return []


def markers(roots):
    """{marker: sorted [function where it is called]} for the code reachable from `roots`."""
    found = {}
    seen = set()
    queue = [f for root in roots for f in _functions_of(root)]
    while queue:
        function = queue.pop()
        key = _qualname(function)
        if key in seen:
            continue
        seen.add(key)
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
        except (OSError, TypeError, SyntaxError):
            continue
        scope = dict(getattr(function, "__globals__", {}))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                two, last = _called_name(node.func)
                kind = CALL_MARKERS.get(two) or CALL_MARKERS.get(last)
                if kind == "zip" and not any(isinstance(a, ast.Constant) and a.value in ("w", "x", "a") for a in node.args[1:2]):
                    kind = None  # reading an archive is not making one
                if kind == "chmod" and not _sets_execute(node):
                    kind = None
                if kind:
                    found.setdefault(kind, set()).add(key)
            if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(getattr(node, "ctx", None), ast.Load):
                target = _resolve(node, scope)
                if target is None:
                    continue
                module = getattr(target, "__module__", "") or ""
                qual = _qualname(target)
                if qual in CORE_MARKERS:
                    found.setdefault(CORE_MARKERS[qual], set()).add(key)
                elif module.startswith(OWN):
                    queue.extend(_functions_of(target))
    return {kind: sorted(where) for kind, where in sorted(found.items())}


def _sets_execute(call):
    """Whether an `os.chmod` call's mode names an execute bit (S_IX*, 0o7xx/0o5xx/0o1xx)."""
    mode = ast.dump(call.args[1]) if len(call.args) > 1 else ""
    if "S_IX" in mode or "S_IRWX" in mode:
        return True
    return any(isinstance(n, ast.Constant) and isinstance(n.value, int) and n.value & 0o111 for n in ast.walk(call.args[1])) if len(call.args) > 1 else False


def command_markers():
    """{"table": every command name, "markers": {command: {marker: [functions]}} for every command whose code has a marker}."""
    table = command_table()
    result = {}
    for name in sorted(table):
        command = table[name]
        roots = [r for r in (_handler(command), command.validator) if r is not None and (getattr(r, "__module__", "") or "").startswith(OWN)]
        found = markers(roots)
        if found:
            result[name] = found
    sys.stderr.write("%d commands, %d with local effects\n" % (len(table), len(result)))
    return {"table": sorted(table), "markers": result}


def cached_markers(path):
    """command_markers(), read from `path` when it exists (written by an earlier run), else computed and saved there."""
    if path and os.path.exists(path):
        return json.load(open(path))
    result = command_markers()
    if path:
        json.dump(result, open(path, "w"), indent=1, sort_keys=True)
    return result


def generator_options(description):
    """The options every generator over these findings takes: --check, and --markers FILE to reuse (or save) them."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--check", action="store_true", help="exit 1 when a written file differs from what the installed az gives")
    ap.add_argument("--markers", metavar="FILE", help="the command findings: read when the file exists, else computed and saved there")
    return ap


def write_or_check(outputs, script, check, summary):
    """Writes each (path, text); with `check`, exits 1 naming the files that differ instead."""
    if check:
        stale = [path for path, text in outputs if not os.path.exists(path) or open(path).read() != text]
        if stale:
            sys.exit("stale: %s; run scripts/providers/%s" % (", ".join(stale), script))
        return
    for path, text in outputs:
        open(path, "w").write(text)
    sys.stderr.write(summary + "\n")
