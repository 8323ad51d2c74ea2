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

/** Creates a fresh configuration root holding `files`; returns its absolute path. */
export function makeConfigTree(files: TreeFiles): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "torii-test-"));
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  return root;
}
