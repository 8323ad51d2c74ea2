/**
 * Builds throw-away configuration trees on disk for end-to-end tests.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PROVIDER_JSON } from "../../src/config/provider-json.js";
import { tempDirectory } from "./temp-dirs.js";

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
  const root = tempDirectory("torii-test-");
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, relative);
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
    writeFileSync(file, content, { mode: 0o644 });
  }
  return root;
}

/**
 * The bundled provider `name` as `torii provider install` lays it out: its provider.yaml and,
 * beside it, the generated JSON a load reads instead of parsing the YAML (the YAML-only
 * fallback has its own test in test/unit/config/provider-json.test.ts).
 */
export function bundledProviderFiles(name: string): TreeFiles {
  const read = (file: string): string => readFileSync(fileURLToPath(new URL(`../../providers/${name}/${file}`, import.meta.url)), "utf8");
  return { [`providers/${name}/provider.yaml`]: read("provider.yaml"), [`providers/${name}/${PROVIDER_JSON}`]: read(PROVIDER_JSON) };
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
