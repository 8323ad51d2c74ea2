/**
 * Finding a provider's CLI the way the server will (runtime/resolve-executable:
 * PATH only, never the working directory or below it, Torii's own folder or a
 * directory others can write to) and asking it
 * for its version, without a shell.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { searchTrust } from "../../config/search-trust.js";
import { toriiCodeDirectory } from "../../runtime/own-code.js";
import { resolveExecutable } from "../../runtime/resolve-executable.js";

/** The absolute path the server would launch for `command`, or undefined when PATH has none. */
export function findOnPath(command: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    return resolveExecutable(command, {
      pathEnv: env.PATH,
      pathExt: env.PATHEXT,
      platform: process.platform,
      selfDir: toriiCodeDirectory(),
      cwd: process.cwd(),
      trust: searchTrust(),
    }).path;
  } catch {
    return undefined;
  }
}

/** How each bundled CLI prints its version. */
const VERSION_ARGS: Readonly<Record<string, readonly string[]>> = {
  kubectl: ["version", "--client"],
  aws: ["--version"],
  az: ["version", "--output", "tsv"],
  gcloud: ["version"],
};

/** The first line of `<executable> <version args>` (stdout, then stderr; run with `env`, what locates the call's program and files (ChildFiles.probeEnv), when given) that holds a version; undefined for an unknown CLI, a failure or a 10 s timeout. */
export function cliVersionText(command: string, executable: string, env?: Readonly<Record<string, string>>): string | undefined {
  const args = VERSION_ARGS[path.basename(command)];
  if (args === undefined) return undefined;
  const result = spawnSync(executable, [...args], {
    encoding: "utf8",
    timeout: 10_000,
    stdio: ["ignore", "pipe", "pipe"],
    shell: false,
    ...(env === undefined ? {} : { env }),
  });
  // aws-cli v1 printed its version on stderr in older releases.
  // Both are null when the program could not be started.
  const streams: unknown[] = [result.stdout, result.stderr];
  return streams
    .map((stream) => (typeof stream === "string" ? stream : ""))
    .join("\n")
    .split("\n")
    .find((line) => /\d+\.\d+/u.test(line))
    ?.trim();
}
