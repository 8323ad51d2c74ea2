/**
 * The real AWS CLI (v1) for e2e tests: where the `aws` that .ci/run's python
 * owns lives, and the bundled provider without targeting (no lease, no STS
 * check; its grammar, locked options and removed_env stay).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseDocument } from "yaml";

/** The directory of the `aws` that belongs to the python .ci/run found (pyenv shims need a real HOME). */
export function awsDirectory(): string {
  const python = process.env.TORII_TEST_PYTHON ?? "python3";
  const run = spawnSync(python, ["-c", "import os, sys; print(os.path.dirname(os.path.realpath(sys.executable)))"], { encoding: "utf8", shell: false });
  if (run.status !== 0) throw new Error(`cannot locate python: ${run.stderr}`);
  return run.stdout.trim();
}

/** The bundled providers/aws/provider.yaml without `targeting.mode` and the identity probe. */
export function untargetedAws(): string {
  const doc = parseDocument(readFileSync(fileURLToPath(new URL("../../providers/aws/provider.yaml", import.meta.url)), "utf8"));
  doc.deleteIn(["targeting", "mode"]);
  doc.deleteIn(["auth", "identity"]);
  return String(doc);
}
