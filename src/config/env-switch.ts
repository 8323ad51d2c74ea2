/**
 * How Torii reads an on/off environment variable that turns a safeguard on:
 * `TORII_NO_GUI` (headless: every question answered no) and
 * `TORII_OPEN_BROWSER` (whether the server opens the one-time link in a browser).
 *
 * Both were compared with one exact spelling (`TORII_NO_GUI=1`,
 * `TORII_OPEN_BROWSER=0`), so an operator who wrote `TORII_NO_GUI=true` (as
 * `CI=true` is written) got a server that asks, and writes pending approvals an
 * agent with a shell can answer through `torii approvals`; `TORII_OPEN_BROWSER=false`
 * still put the link in a browser's argv. A switch read here fails closed: a
 * value that is neither unset nor a known spelling counts as the safe side.
 */

type Env = Readonly<Record<string, string | undefined>>;

const ON = new Set(["1", "true", "yes", "on"]);
const OFF = new Set(["0", "false", "no", "off"]);

/**
 * The switch's reading: `unset` (absent or blank), `on`, `off`, or `unknown`
 * for any other value (trimmed, case-insensitive).
 */
export function envSwitch(env: Env, name: string): "unset" | "on" | "off" | "unknown" {
  const value = (env[name] ?? "").trim().toLowerCase();
  if (value === "") return "unset";
  if (ON.has(value)) return "on";
  if (OFF.has(value)) return "off";
  return "unknown";
}

/** Whether `TORII_NO_GUI` makes the server headless: any value but unset or an "off" spelling (`0`, `false`, `no`, `off`). */
export function noGuiRequested(env: Env): boolean {
  const reading = envSwitch(env, "TORII_NO_GUI");
  return reading !== "unset" && reading !== "off";
}

/** Whether `TORII_OPEN_BROWSER` lets the server open a browser: only when unset or an "on" spelling (`1`, `true`, `yes`, `on`). */
export function browserOpeningAllowed(env: Env): boolean {
  const reading = envSwitch(env, "TORII_OPEN_BROWSER");
  return reading === "unset" || reading === "on";
}
