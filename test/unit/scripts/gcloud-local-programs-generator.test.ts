/**
 * scripts/providers/gcloud_local_programs.py on a saved command tree instead of
 * the SDK: the listener flags become one `loopback_only` row for every command,
 * and the script stops when a known tunnel or emulator command no longer has
 * one (a renamed flag must not drop the lock silently).
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SCRIPTS = fileURLToPath(new URL("../../../scripts/providers/", import.meta.url));
const PYTHON = "/usr/bin/python3";

/** The rows for `tree` ([[path words], [flags]]), through the script's own function. */
function rowsFor(tree: readonly (readonly (readonly string[])[])[]) {
  const program = "import json, sys\nfrom gcloud_local_programs import local_program_rows\nprint('\\n'.join(local_program_rows(json.loads(sys.argv[1]))))";
  return spawnSync(PYTHON, ["-c", program, JSON.stringify(tree)], { cwd: SCRIPTS, encoding: "utf8" });
}

const SSH: readonly (readonly (readonly string[])[])[] = [
  [["compute", "ssh"], ["--ssh-flag"]],
  [["compute", "scp"], ["--scp-flag"]],
  [["cloud-shell", "ssh"], ["--ssh-flag"]],
  [
    ["workstations", "ssh"],
    ["--ssh-flag", "--local-host-port"],
  ],
  [["compute", "tpus", "tpu-vm", "ssh"], ["--ssh-flag"]],
];
const LISTENERS: readonly (readonly (readonly string[])[])[] = [
  [
    ["compute", "start-iap-tunnel"],
    ["--local-host-port", "--listen-on-stdin"],
  ],
  [["workstations", "start-tcp-tunnel"], ["--local-host-port"]],
  [
    ["beta", "emulators", "pubsub", "start"],
    ["--host-port", "--data-dir"],
  ],
];

describe.skipIf(!existsSync(PYTHON))("gcloud_local_programs.py: listener flags", () => {
  it("writes one loopback_only row, for every command, naming the listener flags found", () => {
    const out = rowsFor([...SSH, ...LISTENERS]);
    expect(out.status, out.stderr).toBe(0);
    const rows = out.stdout.split("\n").filter((line) => line.includes("loopback_only"));
    expect(rows).toEqual([
      '    - {command: [], options: [--host-port, --local-host-port], exact: true, loopback_only: true, why: "gcloud would listen there, offering a tunnel into the VPC or an emulator to other machines"}',
    ]);
  });

  it("stops when a known listener command lost its flag", () => {
    const out = rowsFor([...SSH, [["compute", "start-iap-tunnel"], ["--listen-on-stdin"]], ...LISTENERS.slice(1)]);
    expect(out.status).not.toBe(0);
    expect(out.stderr).toContain("no listener flag found on compute start-iap-tunnel");
  });
});
