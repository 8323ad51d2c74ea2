/**
 * Vitest global setup. End-to-end suites spawn `dist/`, which `npm test` builds
 * before vitest starts; fail early with a clear message when it is missing.
 */
import { existsSync } from "node:fs";

export default function setup(): void {
  if (!existsSync(new URL("../dist/cli.js", import.meta.url))) {
    throw new Error("dist/cli.js is missing: run `npm run build` (npm test does it) before vitest.");
  }
}
