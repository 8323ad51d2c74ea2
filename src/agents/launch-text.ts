/**
 * Characters in the paths of a registration that a client would not take
 * literally. Clients expand variables in their MCP entries before starting the
 * server: Claude Code `${VAR}` and `${VAR:-default}`, Gemini CLI `$VAR` and
 * `${VAR}`, VS Code and Cursor `${env:VAR}`, `${userHome}`,
 * `${workspaceFolder}`, opencode `{env:VAR}` and `{file:path}` anywhere in its
 * file. A Node.js, `cli.js` or configuration root whose path holds `$`, `{` or
 * `}` would start another program, or Torii over another configuration, than
 * the one `install` wrote and `status` compares; a control character (a
 * newline) cannot be shown to the operator as written. Such a path is refused
 * for every client, the same rule everywhere, instead of an escape per client
 * (not every client has one).
 */
import type { ToriiLaunch } from "./adapter.js";
import { visibleJson } from "../runtime/display-text.js";

// eslint-disable-next-line no-control-regex -- control characters are what this looks for
const REINTERPRETED = /[${}\u0000-\u001f\u007f]/u;

/** One line per launch path a client would read otherwise than written; empty when there is none. */
export function launchTextProblems(launch: ToriiLaunch): string[] {
  const named: readonly (readonly [string, string])[] = [
    ["the Node.js executable", launch.node],
    ["Torii's cli.js", launch.cli],
    ["the configuration root (TORII_CONFIG_DIR)", launch.configRoot],
  ];
  return named
    .filter(([, value]) => REINTERPRETED.test(value))
    .map(
      ([what, value]) =>
        `${what} ${visibleJson(value)} holds "$", "{", "}" or a control character, which MCP clients expand or cannot show; use a path without them`,
    );
}
