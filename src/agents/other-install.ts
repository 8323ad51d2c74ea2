/**
 * What another Torii under Torii's name is. An entry that starts Torii, but not
 * this one (another checkout's or version's `dist/cli.js`, Torii's bin found on
 * the client's PATH, the npx form), is not wrong in a way a field-by-field diff
 * explains: the operator needs to know which Torii the client starts, and that
 * `torii agent install` from the Torii they mean to use points it there.
 */
import path from "node:path";
import type { ToriiLaunch } from "./adapter.js";
import { argvOf, toriiArguments } from "./entry-owner.js";
import { samePlace } from "../config/physical-path.js";
import { readConfigHeadIfExists } from "../config/read-file.js";
import { visibleJson } from "../runtime/display-text.js";

/** How much of another install's package.json is read: its version sits near the top, and the file is anyone's. */
const PACKAGE_HEAD_BYTES = 64 * 1024;

/**
 * The version in `<root>/package.json`, when it reads as one (shown escaped: the file is not ours). Read as a
 * configuration file is, without blocking and only from a regular file, and only its head: the path comes from an
 * entry anyone who can write a project's file chose, and a named pipe or `/dev/zero` there must not hold status.
 */
function versionAt(root: string): string | undefined {
  try {
    const text = readConfigHeadIfExists(path.join(root, "package.json"), PACKAGE_HEAD_BYTES);
    if (text === undefined) return undefined;
    const version = (JSON.parse(text) as { version?: unknown }).version;
    return typeof version === "string" ? visibleJson(version) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Which other Torii `entry` starts (`a different Torii install at <root>
 * (version …)`, `Torii's bin torii, …`), or undefined when it starts this
 * launch's `cli.js` or is not Torii's form at all.
 */
export function otherToriiInstall(entry: unknown, launch: ToriiLaunch): string | undefined {
  const words = argvOf(entry);
  if (words === undefined || !words.every((word): word is string => typeof word === "string")) return undefined;
  const [first, second] = words;
  if (first === undefined || toriiArguments(words) === undefined) {
    return first !== undefined && path.win32.basename(first).toLowerCase().startsWith("npx")
      ? "the torii-mcp package npx fetches (whatever version the registry serves), not this install"
      : undefined;
  }
  if (second !== undefined && toriiArguments([first]) === undefined) {
    if (samePlace(second, launch.cli)) return undefined;
    const root = path.dirname(path.dirname(second));
    const version = versionAt(root);
    return `a different Torii install at ${visibleJson(root)}${version === undefined ? "" : ` (version ${version})`}, not this one (${launch.cli})`;
  }
  return `Torii's bin ${visibleJson(first)} (whichever install the client finds${path.isAbsolute(first) ? " there" : " on its PATH"}), not this one (${launch.cli})`;
}

/** What to run so the client starts this Torii instead (`torii agent install <client>`, with this install's own paths). */
export function reinstallHint(clientId: string, launch: ToriiLaunch, projectScope: boolean): string {
  const scope = projectScope ? " --scope project" : "";
  return `to register this one, run \`torii agent install ${clientId}${scope}\` with it (${launch.node} ${launch.cli} agent install ${clientId}${scope}); to keep that one, check it with its own \`torii agent status\``;
}
