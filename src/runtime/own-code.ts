/**
 * Where Torii's own code lives, found from this module wherever the build put
 * it (dist/, dist/chunks/, dist/server/, or src/ under the test runner).
 *
 * The PATH search never looks in Torii's code folder (resolve-executable.ts),
 * and the server and every operator command must leave out the same folder:
 * otherwise `torii doctor` could name another kubectl than the one the server
 * launches. It is not the folder of `process.argv[1]`: run through npm's bin
 * link, that is the bin directory (/usr/local/bin, /opt/homebrew/bin), which
 * rightly holds kubectl and aws.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let cachedRoot: string | undefined;

/** The folder holding Torii's package.json (the one whose `bin` names `torii`). */
export function toriiPackageRoot(): string {
  cachedRoot ??= findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));
  return cachedRoot;
}

/** Torii's code folder, `<package>/dist`: never searched for a provider's CLI. */
export function toriiCodeDirectory(): string {
  return path.join(toriiPackageRoot(), "dist");
}

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { bin?: Record<string, string> }).bin?.torii !== undefined) return dir;
    if (path.dirname(dir) === dir) throw new Error("cannot find Torii's package.json above its code");
  }
}
