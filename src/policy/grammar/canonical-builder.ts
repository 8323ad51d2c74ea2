/**
 * Shared bookkeeping for the parser models: collects positionals, options and
 * the `--` tail, enforces the checks every family shares, and produces the
 * canonical form or the first rejection.
 */
import { credentialStoreIn } from "./credential-paths.js";
import { findFetchedValue, type SitedToken } from "./fetched-values.js";
import { findLockedCommandUse } from "./locked-commands.js";
import { findLockedValue } from "./locked-values.js";
import type { CompiledGrammar } from "./option-table.js";
import type { ArgvRejection, CanonicalArgv, CanonicaliseResult, OptionSpec, RejectionKind } from "./types.js";

/**
 * `agent`: an argv from the agent, checked strictly (locked options, forbidden
 * values, unknown options that could hide a locked one, repeats).
 * `rule`: an operator's rule text, canonicalised leniently so that a rule
 * written as `get pods -n kube-system` matches the canonical argv.
 */
export type CanonicaliseMode = "agent" | "rule";

/** Thrown inside a parser model to stop at the first problem; caught by `finish`. */
export class Rejected extends Error {
  constructor(readonly rejection: ArgvRejection) {
    super(rejection.reason);
  }
}

/** Unicode dashes an agent could use to make a token look like an option to a human. */
const CONFUSABLE_DASH = /^[\u2010-\u2015\u2212\uFE58\uFE63\uFF0D]/u;
const NON_ASCII_OR_CONTROL = /[^\x21-\x7E]/u;

interface CollectedOption {
  readonly name: string;
  readonly token: string;
  readonly value: string | undefined;
  readonly index: number;
  /** Where the value stands: the option's own token (`--raw=/`), or the next one (`--raw /`). */
  readonly valueIndex: number;
}

/** A canonical argv and the arguments the CLI sends to another machine (GrammarSpec.remoteArguments). */
export interface BuiltArgv {
  readonly canonical: CanonicalArgv;
  readonly remoteArguments: readonly number[];
}

export class CanonicalBuilder {
  private readonly positionals: SitedToken[] = [];
  private readonly options: CollectedOption[] = [];
  private readonly seen = new Set<string>();
  private tail: SitedToken[] | undefined;

  constructor(
    private readonly grammar: CompiledGrammar,
    readonly mode: CanonicaliseMode,
  ) {}

  get strict(): boolean {
    return this.mode === "agent";
  }

  reject(kind: RejectionKind, token: string, index: number, reason: string, option?: string): never {
    throw new Rejected(option === undefined ? { kind, token, index, reason } : { kind, token, index, reason, option });
  }

  /** Checks every raw token once, before parsing: NUL bytes, look-alike dashes, locked values. */
  checkRawToken(token: string, index: number): void {
    if (token.includes("\0")) this.reject("argv-rejected", token, index, `argument ${index} contains a NUL byte`);
    if (this.strict && CONFUSABLE_DASH.test(token)) {
      this.reject("argv-rejected", token, index, `argument ${index} starts with a non-ASCII dash; use "-"`);
    }
    // Every token, whatever the parser makes of it: an option's value, a glued value, a positional, the tail.
    const locked = this.strict ? findLockedValue(token, index, this.grammar.lockedValues) : undefined;
    if (locked !== undefined) throw new Rejected(locked);
    if (this.strict) this.checkPrescanned(token, index);
    const store = this.strict ? credentialStoreIn(token) : undefined;
    if (store !== undefined) {
      this.reject("forbidden-value", token, index, `argument ${index} names a path into a credential store (${store}); Torii never lets a CLI read it`);
    }
    this.checkValue(token, index);
  }

  /**
   * A CLI that scans the whole argv for an option before parsing it (gcloud's
   * `--configuration`, `--flags-file`) reads `--name` or `--name=value` as that
   * option wherever it stands: an option's value, an operand, after `--`. Every
   * raw token passes here, so the lock holds at every one of those places.
   */
  private checkPrescanned(token: string, index: number): void {
    for (const name of this.grammar.prescanned) {
      if (token === name || token.startsWith(`${name}=`)) this.checkLocked(undefined, name, token, index);
    }
  }

  /** Rejects option names with non-ASCII, control or space characters. */
  checkOptionName(name: string, token: string, index: number): void {
    if (NON_ASCII_OR_CONTROL.test(name)) {
      this.reject("argv-rejected", token, index, `the option name in argument ${index} has a non-ASCII, control or space character`);
    }
  }

  /**
   * Rejects a value that would make the CLI read a local file: it starts with a
   * forbidden prefix, or embeds one after `=` (AWS shorthand `Key@=file://…`).
   */
  checkValue(value: string, index: number): void {
    if (!this.strict || this.grammar.forbiddenValuePrefixes.length === 0) return;
    const lower = value.toLowerCase();
    for (const prefix of this.grammar.forbiddenValuePrefixes) {
      if (lower.startsWith(prefix) || lower.includes(`=${prefix}`)) {
        this.reject("forbidden-value", value, index, `argument ${index} uses the forbidden value prefix "${prefix}" (it would make the CLI read a local file)`);
      }
    }
  }

  /** Rejects a broker-owned option whatever the spelling that reached it. */
  checkLocked(spec: OptionSpec | undefined, name: string, token: string, index: number): void {
    const canonical = spec?.name ?? name;
    if (this.strict && this.grammar.locked.has(canonical)) {
      this.reject(
        "locked-option",
        token,
        index,
        `argument ${index} sets ${canonical}, which Torii controls for this provider; the operator chooses it through the target`,
        canonical,
      );
    }
  }

  /**
   * Takes an option's value from the next token. A dash-leading value is refused:
   * parsers disagree on whether it is a value or the next option. In a rule, a
   * value-taking option with no value means "with any value" (`undefined`).
   */
  takeSeparateValue(argv: readonly string[], valueIndex: number, optionName: string, token: string, index: number): string | undefined {
    const value = argv[valueIndex];
    const missing = value === undefined || (value.startsWith("-") && value !== "-");
    if (!missing) {
      // A separate value is a raw argv token too (NUL, look-alike dash, file prefix).
      this.checkRawToken(value, valueIndex);
      return value;
    }
    if (!this.strict) return undefined;
    if (value === undefined) return this.reject("argv-rejected", token, index, `${optionName} needs a value`);
    return this.reject("argv-rejected", token, index, `the value of ${optionName} starts with "-"; write ${optionName}=VALUE`);
  }

  positional(token: string, index: number): void {
    this.positionals.push({ token, index });
  }

  get positionalCount(): number {
    return this.positionals.length;
  }

  currentPositionals(): readonly string[] {
    return this.positionals.map((site) => site.token);
  }

  /**
   * Records an option in canonical spelling; a repeat of a single-valued option is refused.
   * `valueIndex`: where a separate value stands (the value is taken to be in `token` otherwise).
   */
  option(spec: OptionSpec | undefined, name: string, value: string | undefined, token: string, index: number, valueIndex = index): void {
    if (this.strict && spec !== undefined && !spec.repeatable && this.seen.has(name)) {
      this.reject("argv-rejected", token, index, `${name} is given more than once; the CLI would use only one of them`);
    }
    this.seen.add(name);
    if (value !== undefined) this.checkValue(value, index);
    this.options.push({ name, token: value === undefined ? name : `${name}=${value}`, value, index, valueIndex });
  }

  /**
   * Tokens after `--` are data for the command, never options, but still raw
   * argv tokens: a CLI may read a file from them (az expands `@file` in every
   * argument), so each gets the raw-token checks. `offset` is the index of the
   * first tail token in the agent's argv.
   */
  startTail(rest: readonly string[], offset: number): void {
    rest.forEach((token, k) => {
      this.checkRawToken(token, offset + k);
    });
    this.tail = rest.map((token, k) => ({ token, index: offset + k }));
  }

  /** The canonical argv and, once the command path is known, the arguments read on another machine. */
  built(): BuiltArgv {
    const canonical = this.build();
    return { canonical, remoteArguments: this.remoteArguments() };
  }

  /**
   * Indexes of the arguments the grammar proves are sent elsewhere: the `--`
   * tail or an option's value under a command path a row names. Anything the
   * rows do not name stays a possible local path.
   */
  private remoteArguments(): number[] {
    const words = this.positionals.map((site) => site.token);
    const indexes: number[] = [];
    for (const row of this.grammar.remoteArguments) {
      if (!row.command.every((word, k) => words[k] === word)) continue;
      if (row.tail === true) indexes.push(...(this.tail ?? []).map((site) => site.index));
      for (const option of this.options) if (option.name === row.option && option.value !== undefined) indexes.push(option.valueIndex);
    }
    return indexes;
  }

  private build(): CanonicalArgv {
    if (this.strict) {
      // After the whole argv is read: the command path decides which commands and options are the broker's.
      const locked = findLockedCommandUse(
        { positionals: this.positionals, options: this.options, tail: this.tail ?? [] },
        this.grammar.lockedCommands,
        this.grammar.lockedCommandOptions,
        this.grammar.parentOptions,
      );
      if (locked !== undefined) throw new Rejected(locked);
      // Whether a URL is passed on literally depends on the option before it.
      const fetched = findFetchedValue(this.grammar.fetchedValues, {
        positionals: this.positionals,
        options: this.options,
        tail: this.tail ?? [],
      });
      if (fetched !== undefined) throw new Rejected(fetched);
    }
    // A stable sort by name: order between different options is irrelevant to
    // these parsers, while the relative order of repeats is kept.
    const options = this.options
      .map((option, i) => ({ option, i }))
      .sort((a, b) => (a.option.name < b.option.name ? -1 : a.option.name > b.option.name ? 1 : a.i - b.i))
      .map(({ option }) => option.token);
    return {
      positionals: this.positionals.map((site) => site.token),
      options,
      hasTail: this.tail !== undefined,
      tail: (this.tail ?? []).map((site) => site.token),
    };
  }
}

/** Runs a parser model and turns its first rejection into a result. */
export function finish(run: () => BuiltArgv): CanonicaliseResult {
  try {
    const { canonical, remoteArguments } = run();
    return remoteArguments.length === 0 ? { ok: true, canonical } : { ok: true, canonical, remoteArguments };
  } catch (error) {
    if (error instanceof Rejected) return { ok: false, rejection: error.rejection };
    throw error;
  }
}
