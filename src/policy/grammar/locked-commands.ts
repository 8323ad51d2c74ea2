/**
 * The broker-owned commands and command-scoped options, checked on a finished
 * agent argv before any rule is read:
 *
 * - a locked command (the target mode's floor) rewrites the files that define
 *   the target or its identity, so no rule, grant or approval may allow it;
 * - a locked command option does, under one command path, what a locked global
 *   option does (another endpoint, another region).
 *
 * The command path is read as the CLI's parsers read it: the words of the
 * argv that are not options, in order (argparse hands an unknown option to the
 * sub-command's parser, so `emr --iam-endpoint=x create-default-roles` is
 * still `emr create-default-roles`); below the first two words a sub-command
 * may follow its parent's options and their values (command-path.ts, which
 * skips the values of the parent options the grammar knows). The
 * `--` tail counts too: the AWS CLI's top-level parser drops the `--` and
 * hands what follows to the command's own parser (`aws emr -- create-default-roles --iam-endpoint x` reaches x), and
 * reading more words here can only refuse more.
 */
import { bodyOption, namesBodyOption } from "./body-option.js";
import { commandPathEnd, commandWordIndexes, runsCommandPath } from "./command-path.js";
import { isLoopbackListener } from "./loopback-listener.js";
import { rowsStartingWith } from "./rows-by-leading-words.js";
import type { SitedToken } from "./fetched-values.js";
import { commandBody, type ArgvRejection, type LockedCommand, type LockedCommandOptions, type ParentOptions } from "./types.js";

/** What the finished parse holds: positionals (argparse bodies keep command options there) and known options. */
export interface ParsedArgv {
  readonly positionals: readonly SitedToken[];
  /** `token`: `--name` or `--name=value`, as canonicalised. */
  readonly options: readonly { readonly name: string; readonly token: string; readonly index: number }[];
  /** The tokens after `--`. */
  readonly tail: readonly SitedToken[];
}

function isOptionLike(token: string): boolean {
  return token.startsWith("-") && token !== "-";
}

/**
 * Whether a body token is read as `locked` by an argparse sub-command parser
 * (body-option.ts): the exact name or any prefix of it (`--iam-end`), also as
 * `--name=value`. A prefix that the command could also read as another option
 * is ambiguous there, so refusing it loses nothing the CLI would have run.
 */
function bodyTokenNames(token: string, locked: string, exact: boolean): boolean {
  if (exact) return token === locked || token.startsWith(`${locked}=`);
  return namesBodyOption(token, locked);
}

/** The value glued to a body token that names `locked` (`--name=v`, `-nv`, `-n=v`); `undefined` when none is. */
function gluedValue(token: string, locked: string, exact: boolean): string | undefined {
  if (exact) return token.includes("=") ? token.slice(token.indexOf("=") + 1) : undefined;
  return bodyOption(token, [locked])?.value;
}

function lockedCommandRejection(argv: ParsedArgv, words: readonly SitedToken[], locked: LockedCommand): ArgvRejection | undefined {
  const end = commandPathEnd(
    words.map((site) => site.token),
    locked.command,
  );
  if (end === -1) return undefined;
  const next = words[end];
  if (next !== undefined && locked.except.includes(next.token)) return undefined;
  const site = next ?? words[end - 1] ?? argv.positionals[0];
  const name = locked.command.join(" ");
  // Only table words in the reason: the agent's next word may be anything, a secret included.
  const which = locked.except.length === 0 ? `"${name}"` : `"${name}" sub-commands other than ${locked.except.join(", ")}`;
  return {
    kind: "locked-command",
    token: site?.token ?? name,
    index: site?.index ?? 0,
    option: name,
    reason: `${which} are refused for every target of this provider: ${locked.why}. No rule, grant or approval can allow them; the operator runs them outside Torii`,
  };
}

/** Why a use of a command-scoped locked option is refused; it names the option and command, never the agent's value. */
function lockedOptionReason(scoped: LockedCommandOptions, option: string, index: number): string {
  const where = scoped.command.length === 0 ? "any command" : `"${scoped.command.join(" ")}"`;
  if (scoped.loopbackOnly === true && option !== "--") {
    const why = scoped.why ?? "the listener would be reachable from other machines";
    return `argument ${index} sets ${option} of ${where} to an address other than this machine's loopback (or none): ${why}. No rule, grant or approval can allow it; give localhost:PORT, 127.0.0.1:PORT or [::1]:PORT`;
  }
  const what = option === "--" ? "starts the -- arguments" : `sets ${option}`;
  if (scoped.why === undefined) {
    return `argument ${index} ${what} of ${where}, which Torii controls for this provider (it would leave the target's endpoint, region or scope); the operator chooses it through the target`;
  }
  return `argument ${index} ${what} of ${where}, which is refused for every target of this provider: ${scoped.why}. No rule, grant or approval can allow it`;
}

function lockedOptionRejection(argv: ParsedArgv, words: readonly string[], scoped: LockedCommandOptions): ArgvRejection | undefined {
  if (!runsCommandPath(words, scoped.command)) return undefined;
  const reject = (option: string, token: string, index: number): ArgvRejection => ({
    kind: "locked-option",
    token,
    index,
    option,
    reason: lockedOptionReason(scoped, option, index),
  });
  const tail = scoped.tail === true ? argv.tail[0] : undefined;
  if (tail !== undefined) return reject("--", "--", tail.index - 1);
  for (const option of argv.options) {
    const equals = option.token.indexOf("=");
    const glued = equals === -1 ? undefined : option.token.slice(equals + 1);
    if (scoped.options.includes(option.name) && valueMatches(scoped, glued, [])) return reject(option.name, option.name, option.index);
  }
  const exact = scoped.exact === true;
  for (const [at, site] of argv.positionals.entries()) {
    const option = scoped.options.find((locked) => bodyTokenNames(site.token, locked, exact));
    if (option !== undefined && valueMatches(scoped, gluedValue(site.token, option, exact), argv.positionals.slice(at + 1))) {
      return reject(option, site.token, site.index);
    }
  }
  return undefined;
}

/**
 * Whether this use of the option is refused: its value (`glued` to the token,
 * else the next word) is not one of the entry's `allowedValues`, or not a
 * loopback listener address for a `loopbackOnly` entry, or its values
 * (`glued`, else the words up to the next option, or the next word of a
 * `singleValue` option) hold the entry's
 * `valueContains`; always true with neither.
 */
function valueMatches(scoped: LockedCommandOptions, glued: string | undefined, following: readonly SitedToken[]): boolean {
  if (scoped.allowedValues !== undefined) {
    // A single-value option reads the glued value or the next word; anything else (none, an option) is refused.
    const value = glued ?? following[0]?.token;
    if (value === undefined || !scoped.allowedValues.includes(value)) return true;
  }
  if (scoped.valuePrefix !== undefined) {
    const value = glued ?? following[0]?.token;
    if (value === undefined || !value.startsWith(scoped.valuePrefix)) return true;
  }
  if (scoped.loopbackOnly === true) {
    const value = glued ?? following[0]?.token;
    if (value === undefined || !isLoopbackListener(value)) return true;
  }
  if (scoped.valueContains === undefined) return scoped.allowedValues === undefined && scoped.loopbackOnly !== true && scoped.valuePrefix === undefined;
  const needle = scoped.valueContains.toLowerCase();
  const end = scoped.singleValue === true ? 1 : following.findIndex((site) => isOptionLike(site.token));
  const values = glued === undefined ? (end === -1 ? following : following.slice(0, end)).map((site) => site.token) : [glued];
  return values.some((value) => value.toLowerCase().includes(needle));
}

/**
 * The first locked command or command-scoped locked option in a parsed agent
 * argv, as a rejection; `undefined` when there is none.
 */
export function findLockedCommandUse(
  argv: ParsedArgv,
  lockedCommands: readonly LockedCommand[],
  lockedCommandOptions: readonly LockedCommandOptions[],
  parentOptions: readonly ParentOptions[] = [],
): ArgvRejection | undefined {
  const body = { ...argv, positionals: commandBody(argv) };
  const words = commandWordIndexes(
    body.positionals.map((site) => site.token),
    parentOptions,
  ).map((index) => body.positionals[index] as SitedToken);
  const plainWords = words.map((site) => site.token);
  // Only rows whose leading words are the call's can match (commandPathEnd compares them exactly).
  for (const locked of rowsStartingWith(lockedCommands, [plainWords])) {
    const rejection = lockedCommandRejection(body, words, locked);
    if (rejection !== undefined) return rejection;
  }
  for (const scoped of rowsStartingWith(lockedCommandOptions, [plainWords])) {
    const rejection = lockedOptionRejection(body, plainWords, scoped);
    if (rejection !== undefined) return rejection;
  }
  return undefined;
}
