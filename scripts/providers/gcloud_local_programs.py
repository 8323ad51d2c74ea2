"""The gcloud arguments with which an accepted call runs a local program on the caller's words.

`gcloud compute ssh VM --ssh-flag=-oProxyCommand=CMD` (or `-- -oProxyCommand=CMD`) makes the
local ssh(1) run CMD with the child's environment, which holds the injected credentials;
`--scp-flag` does the same through scp(1), and `gcloud docker -- ARGS` runs the local docker CLI
with ARGS. A rule such as `compute ssh` means "the agent may ssh to VMs", not "the agent may run
commands here", so these become `argv.locked_command_options` (no rule, grant or approval may allow
them; src/policy/grammar/locked-commands.ts):

- every command of the SDK's static completion tree (every release track) with `--ssh-flag` or
  `--scp-flag`: those flags, and any `--` tail (gcloud hands it to ssh/scp as their own arguments);
- `docker`: its `--` tail and `--docker-host`.

Flags that name the address a local listener binds (`compute start-iap-tunnel`, `workstations
ssh|start-tcp-tunnel --local-host-port`, `emulators * start --host-port`) become one row for
every command, `loopback_only: true`: a value that is not loopback (`0.0.0.0:2222`) would offer
the tunnel into the VPC, or the emulator, to every machine that reaches this one. gcloud parses
both with `arg_parsers.HostPort` and binds `localhost` when the flag is absent. `run services
proxy --port` and `sql connect` bind 127.0.0.1 themselves; ssh's `-L`/`-g` go through
`--ssh-flag`, refused above.

Other commands that take a `--` tail hand it to a remote job (`dataproc jobs submit`, `composer
environments run`, `dataplex tasks run`, `ai custom-jobs`) or as the remote command of ssh (`app
instances ssh`): those stay up to the policy. gcloud-options.py writes the rows; generation fails
when the tree has none of the known ssh commands (a renamed flag must not drop them silently).
"""

PASS_THROUGH_FLAGS = ("--ssh-flag", "--scp-flag")
WHY_SSH = "gcloud hands its words to the local ssh or scp program as that program's own options (-oProxyCommand runs a local command)"
WHY_DOCKER = "it runs the local docker CLI with the caller's arguments or against another daemon"
LISTENER_FLAGS = ("--host-port", "--local-host-port")
WHY_LISTENER = "gcloud would listen there, offering a tunnel into the VPC or an emulator to other machines"
KNOWN_LISTENERS = (["compute", "start-iap-tunnel"], ["workstations", "start-tcp-tunnel"], ["beta", "emulators", "pubsub", "start"])
KNOWN = (["compute", "ssh"], ["compute", "scp"], ["cloud-shell", "ssh"], ["workstations", "ssh"], ["compute", "tpus", "tpu-vm", "ssh"])


def local_program_rows(tree):
    """YAML lines of `argv.locked_command_options` for the commands of `tree` ([(path, flags)])."""
    rows = []
    found = set()
    for path, flags in tree:
        locked = [flag for flag in PASS_THROUGH_FLAGS if flag in flags]
        if locked:
            found.add(" ".join(path))
            rows.append((path, locked, WHY_SSH))
        elif path == ["docker"]:
            rows.append((path, ["--docker-host"], WHY_DOCKER))
    missing = [" ".join(path) for path in KNOWN if " ".join(path) not in found]
    if missing:
        raise SystemExit("gcloud_local_programs: no pass-through flag found on %s (flag renamed?)" % ", ".join(missing))
    lines = []
    for path, locked, why in sorted(rows):
        lines.append('    - {command: [%s], options: [%s], tail: true, why: "%s"}' % (", ".join(path), ", ".join(locked), why))
    return lines + listener_rows(tree)


def listener_rows(tree):
    """One `loopback_only` row, for every command, naming the listener flags found in `tree`."""
    listening = {" ".join(path): [flag for flag in LISTENER_FLAGS if flag in flags] for path, flags in tree}
    missing = [" ".join(path) for path in KNOWN_LISTENERS if not listening.get(" ".join(path))]
    if missing:
        raise SystemExit("gcloud_local_programs: no listener flag found on %s (flag renamed?)" % ", ".join(missing))
    found = sorted({flag for flags in listening.values() for flag in flags})
    return ['    - {command: [], options: [%s], exact: true, loopback_only: true, why: "%s"}' % (", ".join(found), WHY_LISTENER)]
