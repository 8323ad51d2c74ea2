/**
 * The absolute command a client runs to start this Torii: this Node.js
 * executable, this package's `dist/cli.js` and the configuration root in
 * force. Absolute, because GUI clients start servers without the shell's PATH
 * (and nvm users have no `node` on launchd's PATH at all).
 */
import path from "node:path";
import { toriiCodeDirectory } from "../runtime/own-code.js";
import type { ToriiLaunch } from "./adapter.js";

/** How a client should start this Torii with `configRoot`. */
export function currentLaunch(configRoot: string): ToriiLaunch {
  return { node: process.execPath, cli: path.join(toriiCodeDirectory(), "cli.js"), configRoot };
}
