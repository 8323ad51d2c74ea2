/**
 * Builds throw-away configuration trees on disk for end-to-end tests.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PROVIDER_JSON, providerTextDigest } from "../../src/config/provider-json.js";
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
  return { [`providers/${name}/provider.yaml`]: bundledFile(name, "provider.yaml"), [`providers/${name}/${PROVIDER_JSON}`]: bundledFile(name, PROVIDER_JSON) };
}

/**
 * The bundled provider `name` without the fields at `drop` (a copy without targets or identity
 * check), with its generated JSON like bundledProviderFiles: provider.yaml holds the document as
 * JSON text (JSON is YAML) and provider.generated.json the same document keyed by that text's
 * SHA-256, so each server start reads it with JSON.parse instead of parsing the option table as
 * YAML (0.4-0.8 s of CPU per start for az and gcloud).
 */
export function bundledProviderFilesWithout(name: string, drop: readonly (readonly string[])[]): TreeFiles {
  const { document } = JSON.parse(bundledFile(name, PROVIDER_JSON)) as { document: Record<string, unknown> };
  for (const field of drop) {
    const parent = field.slice(0, -1).reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
    if (typeof parent === "object" && parent !== null) Reflect.deleteProperty(parent, field.at(-1) ?? "");
  }
  const text = `${JSON.stringify(document, null, 1)}\n`;
  const json = `${JSON.stringify({ source_sha256: providerTextDigest(text), document }, null, 1)}\n`;
  return { [`providers/${name}/provider.yaml`]: text, [`providers/${name}/${PROVIDER_JSON}`]: json };
}

function bundledFile(name: string, file: string): string {
  return readFileSync(fileURLToPath(new URL(`../../providers/${name}/${file}`, import.meta.url)), "utf8");
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
