/**
 * Builds throw-away configuration trees on disk for end-to-end tests.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export interface TreeFiles {
  /** Relative path → file content. */
  readonly [relative: string]: string;
}

/**
 * Creates a fresh configuration root holding `files`; returns its absolute path.
 * Modes are explicit (0755 directories, 0644 files) so the tree passes the
 * trust rule whatever the umask; the root is a 0700 temporary directory under
 * the sticky system temp directory.
 */
export function makeConfigTree(files: TreeFiles): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "torii-test-"));
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, relative);
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
    writeFileSync(file, content, { mode: 0o644 });
  }
  return root;
}

/** provider.yaml of `kube`, a minimal kubectl_context provider (pflag, `-n` and `--context`) running `command`. */
export function kubeContextProvider(command: string): string {
  return `version: "1"
name: kube
tool: kube
command: ${command}
targeting:
  mode: kubectl_context
argv:
  parser: pflag
  options:
    - {name: --namespace, short: -n, value: required}
    - {name: --context, value: required}
`;
}
