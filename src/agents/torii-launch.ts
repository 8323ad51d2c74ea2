/**
 * The absolute command a client runs to start this Torii: this Node.js
 * executable, this package's `dist/cli.js` and the configuration root in
 * force. Absolute, because GUI clients start servers without the shell's PATH
 * (and nvm users have no `node` on launchd's PATH at all).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ToriiLaunch } from "./adapter.js";

/** The folder holding Torii's package.json, found from this module (src/, dist/ or dist/chunks/). */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { bin?: Record<string, string> }).bin?.torii !== undefined) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error("cannot find Torii's package.json above its code");
    dir = parent;
  }
}

/** How a client should start this Torii with `configRoot`. */
export function currentLaunch(configRoot: string): ToriiLaunch {
  return { node: process.execPath, cli: path.join(packageRoot(), "dist", "cli.js"), configRoot };
}
