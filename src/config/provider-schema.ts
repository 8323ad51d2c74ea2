/**
 * `providers/<name>/provider.yaml`: how to run one CLI and how to read its argv.
 *
 * The parsed type keeps the file's snake_case field names, so the type, the
 * file and docs/configuration.md use one vocabulary. Values the pure policy
 * engine needs are handed over in its own camelCase types by `toGrammarSpec`
 * and `toPolicySettings`.
 */
import path from "node:path";
import * as z from "zod";
import type { CommandScope, FetchedValueSpec, FileWriteSpec, GrammarSpec, OptionSpec } from "../policy/grammar/types.js";
import type { ProviderPolicySettings } from "../policy/types.js";
import {
  commandSchema,
  envVarNameSchema,
  intAtLeast,
  intInRange,
  isFullyQualifiedPath,
  removedEnvEntrySchema,
  safeNameSchema,
  singleLineSchema,
  versionSchema,
} from "./common-fields.js";
import {
  COMMAND_WORD,
  COMMAND_WORD_ERROR,
  commandWordSchema,
  isCommandWord,
  lockedOptionSchema,
  OPTION_NAME,
  OPTION_NAME_ERROR,
  optionNameSchema,
  SHORT_OPTION,
  SHORT_OPTION_ERROR,
  shortOptionSchema,
} from "./argv-words.js";
import { LOCKED_OPTION_FLOOR } from "./locked-floor.js";
import { lockedCommandOptionsSchema, lockedCommandsSchema } from "./locked-rows.js";
import { mappingWithin, plainRowsSchema } from "./plain-rows.js";
import { providerJsonFor } from "./provider-json.js";
import { rowsPerTrack, tracksProblem } from "./release-tracks.js";
import { sessionVariableProblem } from "./session-variables.js";
import { readConfigText } from "./read-file.js";
import { splitVariableEntry } from "../runtime/home-config.js";
import { documentFromData, parseYamlDocument } from "./yaml-document.js";
import type { YamlDocument } from "./yaml-document.js";

/** How a provider binds a call to a human-chosen target. */
export const TARGET_MODES = ["kubectl_context", "aws_profile", "credentials"] as const;
/** One of `TARGET_MODES`. */
export type TargetMode = (typeof TARGET_MODES)[number];

/** Tool names the server uses itself; no provider may take them. */
export const RESERVED_TOOL_NAMES: readonly string[] = ["torii_policy"];

/** How Torii obtains credentials for a provider. `session_command` and `credential_file` are reserved. */
export const AUTH_STRATEGIES = ["environment", "inherited", "session_command", "credential_file"] as const;

const optionRowSchema = z.strictObject({
  name: optionNameSchema,
  short: shortOptionSchema.optional(),
  value: z.enum(["none", "required", "optional"]),
  repeatable: z.boolean().default(false),
});

type OptionRow = z.output<typeof optionRowSchema>;

const OPTION_ROW_FIELDS: ReadonlySet<string> = new Set(["name", "short", "value", "repeatable"]);
const OPTION_VALUES: ReadonlySet<unknown> = new Set(["none", "required", "optional"]);

/** A row optionRowSchema accepts, as it outputs it; undefined for any other (plain-rows.ts). */
function plainOptionRow(element: unknown): OptionRow | undefined {
  const fields = mappingWithin(element, OPTION_ROW_FIELDS);
  if (fields === undefined) return undefined;
  const { name, short, value, repeatable = false } = fields;
  if (typeof name !== "string" || !OPTION_NAME.test(name) || !OPTION_VALUES.has(value) || typeof repeatable !== "boolean") return undefined;
  const kind = value as OptionRow["value"];
  if (short === undefined) return { name, value: kind, repeatable };
  return typeof short === "string" && SHORT_OPTION.test(short) ? { name, short, value: kind, repeatable } : undefined;
}

/** An option table: kubectl's holds over a thousand rows, read at every start-up. */
const optionTableSchema = plainRowsSchema(optionRowSchema, plainOptionRow);

/** Values the CLI downloads or clones before it runs (new in Torii TS; see docs/configuration.md). */
const fetchedValuesSchema = z.strictObject({
  url_options: z.array(z.union([z.literal("*"), optionNameSchema, shortOptionSchema])).default([]),
  git_options: z.array(optionNameSchema).default([]),
  git_operands_of: z.array(z.array(commandWordSchema).min(1, { error: "a command path needs at least one word" })).default([]),
  literal: z
    .array(
      z.strictObject({
        command: z.array(commandWordSchema).min(1, { error: "a command path needs at least one word" }),
        option: optionNameSchema,
        list: z.boolean().default(false),
      }),
    )
    .default([]),
});

/** One `argv.file_writes` row: an argument that makes the CLI write a local file (src/policy/file-writes.ts). */
interface FileWriteRow {
  readonly command: readonly string[];
  readonly operand?: string;
  readonly option?: string;
  readonly short?: string;
  /**
   * file_writes: where the command writes when no argument names a place (`~/.kube/config`).
   * file_reads (with an option): what the command reads when the option is left out (`.`).
   */
  readonly default_path?: string;
  /** The release tracks the row holds in (release-tracks.ts); absent: its command path as written. */
  readonly tracks?: readonly string[];
}

const FILE_WRITE_FIELDS: ReadonlySet<string> = new Set(["command", "operand", "option", "short", "default_path", "tracks"]);
/** A default place as the CLI writes it: absolute, `~/…` or relative to the working directory; printable, one line. */
const DEFAULT_PATH = /^[\x21-\x7e][\x20-\x7e]{0,199}$/u;

/** A field's value against a pattern: the path and message of the problem, or undefined. */
function badString(value: unknown, pattern: RegExp, path: readonly (string | number)[], message: string): FileWriteProblem | undefined {
  return typeof value === "string" && pattern.test(value) ? undefined : { path, message };
}

interface FileWriteProblem {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/**
 * What is wrong with one `file_writes` row, if anything: the rules a zod row
 * schema would apply (known fields only, a non-empty command path of command
 * words, an operand or an option, a short form only with its option), in one
 * plain pass. Generated tables hold hundreds of rows (gcloud: over 500), and
 * zod's per-row pipeline cost tens of milliseconds of a cold start-up.
 */
function fileWriteProblem(row: unknown, kind: "write" | "read"): FileWriteProblem | undefined {
  if (typeof row !== "object" || row === null || Array.isArray(row)) return { path: [], message: "a file write must be a mapping" };
  const fields = row as Readonly<Record<string, unknown>>;
  const unknown = Object.keys(fields).find((key) => !FILE_WRITE_FIELDS.has(key));
  if (unknown !== undefined) return { path: [unknown], message: `unknown field "${unknown}"` };
  const { command, operand, option, short, default_path: defaultPath, tracks } = fields;
  if (!Array.isArray(command) || command.length === 0) return { path: ["command"], message: "a command path needs at least one word" };
  for (const [index, word] of command.entries()) {
    const problem = badString(word, COMMAND_WORD, ["command", index], COMMAND_WORD_ERROR);
    if (problem !== undefined) return problem;
  }
  const fieldProblem =
    (operand === undefined ? undefined : badString(operand, COMMAND_WORD, ["operand"], COMMAND_WORD_ERROR)) ??
    (option === undefined ? undefined : badString(option, OPTION_NAME, ["option"], OPTION_NAME_ERROR)) ??
    (short === undefined ? undefined : badString(short, SHORT_OPTION, ["short"], SHORT_OPTION_ERROR)) ??
    (defaultPath === undefined
      ? undefined
      : badString(defaultPath, DEFAULT_PATH, ["default_path"], "a default path is one line of printable ASCII, at most 200 characters"));
  if (fieldProblem !== undefined) return fieldProblem;
  const trackProblem = tracksProblem(tracks, isCommandWord);
  if (trackProblem !== undefined) return { path: ["tracks"], message: trackProblem };
  if (operand !== undefined && option !== undefined) return { path: [], message: "a file write names either an operand or an option" };
  if (operand !== undefined && defaultPath !== undefined)
    return { path: [], message: "a default path goes with an option or with the command alone, not with an operand" };
  if (operand === undefined && option === undefined && defaultPath === undefined) {
    return { path: [], message: "a file write names an operand, an option or a default path" };
  }
  if (short !== undefined && option === undefined) return { path: [], message: "a file write's short form goes with its option" };
  // A read's default is the option's: without an option, the row would say nothing an operand row does not.
  if (kind === "read" && defaultPath !== undefined && option === undefined) return { path: [], message: "a file read's default path goes with its option" };
  return undefined;
}

/** `argv.file_writes` or `argv.file_reads` (a `default_path` only with an option), each row checked by fileWriteProblem. */
const fileRowsSchema = (kind: "write" | "read") =>
  z
    .array(z.unknown())
    .superRefine((rows, ctx) => {
      rows.forEach((row, index) => {
        const problem = fileWriteProblem(row, kind);
        if (problem !== undefined) ctx.addIssue({ code: "custom", path: [index, ...problem.path], message: problem.message });
      });
    })
    .transform((rows) => rows as readonly FileWriteRow[]);

/** `policy.resource_types`: the CLI's resource types, read in one spelling by rules (src/policy/resource-types.ts). */
const resourceTypesSchema = z.strictObject({
  verbs: z.array(z.array(commandWordSchema).min(1, { error: "a command path needs at least one word" })),
  types: z.record(commandWordSchema, z.array(commandWordSchema)),
  trailing: z.array(z.array(commandWordSchema).min(1, { error: "a command path needs at least one word" })).optional(),
  named: z
    .strictObject({
      default: commandWordSchema,
      verbs: z.array(z.array(commandWordSchema).min(1, { error: "a command path needs at least one word" })),
    })
    .optional(),
  selectors: z.array(optionNameSchema).optional(),
  manifests: z.array(optionNameSchema).optional(),
  command_aliases: z
    .record(
      z.string().regex(/^\S+( \S+)*$/, { error: "a parent command path is its words joined by one space" }),
      z.record(commandWordSchema, z.array(commandWordSchema)),
    )
    .superRefine((parents, ctx) => {
      // One name, one sub-command: an alias read two ways would decide by table order (fail closed: refuse the table).
      for (const [parent, names] of Object.entries(parents)) {
        const seen = new Set(Object.keys(names));
        for (const alias of Object.values(names).flat()) {
          if (seen.has(alias)) ctx.addIssue({ code: "custom", path: [parent], message: `"${parent} ${alias}" names more than one sub-command` });
          seen.add(alias);
        }
      }
    })
    .optional(),
});

const argvSchema = z
  .strictObject({
    parser: z.enum(["pflag", "argparse", "plain"]).default("plain"),
    forbidden_value_prefixes: z.array(z.string().min(1, { error: "a forbidden value prefix must not be empty" })).default([]),
    fetched_values: fetchedValuesSchema.optional(),
    file_writes: fileRowsSchema("write").optional(),
    /** Arguments the CLI reads as a local path with no marker (src/policy/file-reads.ts); rows as `file_writes`. */
    file_reads: fileRowsSchema("read").optional(),
    /** An unknown command word runs a plugin program from PATH (`kubectl foo`): such a call is a file write (src/policy/file-writes.ts). */
    plugins: z.boolean().optional(),
    /** `ignored`: the CLI drops every `--` (the AWS CLI), so Torii drops it too (GrammarSpec.doubleDash). */
    double_dash: z.enum(["separates", "ignored"]).optional(),
    /** `none`: the CLI reads long options by their full name only (gcloud), GrammarSpec.abbreviations. */
    abbreviations: z.enum(["prefix", "none"]).optional(),
    /** Options the CLI reads at any position (gcloud `--configuration`, `--flags-file`); each must be locked (GrammarSpec.prescannedOptions). */
    prescanned_options: z.array(optionNameSchema).optional(),
    /** Options the broker owns under one command path (`emr create-default-roles --iam-endpoint`); `command: []` is every command. */
    locked_command_options: lockedCommandOptionsSchema.optional(),
    /** Arguments the CLI sends to another machine (`kubectl exec` tail, `get --raw`), GrammarSpec.remoteArguments. */
    remote_arguments: z
      .array(
        z
          .strictObject({
            command: z.array(commandWordSchema).min(1, { error: "a command path needs at least one word" }),
            tail: z.literal(true).optional(),
            option: optionNameSchema.optional(),
          })
          .refine((row) => (row.tail === true) !== (row.option !== undefined), { error: "a remote argument is either the tail (tail: true) or one option" }),
      )
      .optional(),
    /** Options of a command whose sub-commands may follow them, by arity (src/policy/grammar/command-path.ts). */
    parent_options: z
      .array(
        z.strictObject({
          command: z.array(commandWordSchema).min(2, { error: "a parent command's path has at least two words (the first two are always contiguous)" }),
          values: z.array(optionNameSchema).default([]),
          switches: z.array(optionNameSchema).default([]),
        }),
      )
      .optional(),
    options: optionTableSchema.default([]),
    commands: z
      .array(
        z.strictObject({
          path: z.array(commandWordSchema).min(1, { error: "a command path needs at least one word" }),
          options: optionTableSchema.default([]),
        }),
      )
      .default([]),
  })
  .superRefine((argv, ctx) => {
    const globals = checkOptionTable(argv.options, ["options"], ctx);
    const seenPaths = new Map<string, number>();
    argv.commands.forEach((scope, index) => {
      const key = scope.path.join(" ");
      const first = seenPaths.get(key);
      if (first === undefined) seenPaths.set(key, index);
      else ctx.addIssue({ code: "custom", path: ["commands", index, "path"], message: `command path "${key}" is already declared at commands[${first}]` });
      const base = ["commands", index, "options"];
      for (const [spelling, declared] of checkOptionTable(scope.options, base, ctx)) {
        if (globals.has(spelling)) {
          ctx.addIssue({ code: "custom", path: pathOf(base, declared), message: `${spelling} is a global option; a command scope must not redeclare it` });
        }
      }
    });
    if (argv.double_dash === "ignored" && argv.parser !== "argparse") {
      ctx.addIssue({ code: "custom", path: ["double_dash"], message: "double_dash: ignored is modelled for the argparse parser only" });
    }
    if (argv.abbreviations !== undefined && argv.parser !== "argparse") {
      ctx.addIssue({ code: "custom", path: ["abbreviations"], message: "abbreviations is modelled for the argparse parser only (pflag reads none)" });
    }
    argv.prescanned_options?.forEach((name, index) => {
      if (argv.prescanned_options?.indexOf(name) !== index) {
        ctx.addIssue({ code: "custom", path: ["prescanned_options", index], message: `${name} is listed more than once` });
      }
    });
    if (argv.parser === "pflag") {
      checkPflagNames(argv.options, ["options"], ctx);
      argv.commands.forEach((scope, index) => {
        checkPflagNames(scope.options, ["commands", index, "options"], ctx);
      });
    }
  });

// The option tables are checked at every start-up and kubectl's holds over a
// thousand rows, mostly before V8 has optimised anything: the loops below
// allocate next to nothing per row, and an issue's path is built only for a problem.

/**
 * Where a spelling was declared in its table: the row's index times two, plus
 * one for the row's `short` (`pathOf` turns it back into a path).
 */
type Declared = number;

function pathOf(base: readonly (string | number)[], declared: Declared): (string | number)[] {
  return [...base, Math.floor(declared / 2), declared % 2 === 0 ? "name" : "short"];
}

/**
 * Reports duplicate long names and shorts inside one table and returns every
 * spelling it declares with where it was declared.
 */
function checkOptionTable(rows: readonly OptionRow[], base: readonly (string | number)[], ctx: z.RefinementCtx): Map<string, Declared> {
  const declared = new Map<string, Declared>();
  const declare = (spelling: string, where: Declared): void => {
    const first = declared.get(spelling);
    if (first === undefined) declared.set(spelling, where);
    else {
      ctx.addIssue({
        code: "custom",
        path: pathOf(base, where),
        message: `duplicate option ${spelling} (already declared at ${formatPath(pathOf(base, first))})`,
      });
    }
  };
  rows.forEach((row, index) => {
    declare(row.name, 2 * index);
    if (row.short !== undefined) declare(row.short, 2 * index + 1);
  });
  return declared;
}

/** pflag CLIs such as kubectl normalise "_" to "-", so "--a_b" and "--a-b" are one option: a table spells it with "-". */
function checkPflagNames(rows: readonly OptionRow[], base: readonly (string | number)[], ctx: z.RefinementCtx): void {
  rows.forEach(({ name }, index) => {
    if (name.includes("_")) ctx.addIssue({ code: "custom", path: [...base, index, "name"], message: `pflag reads "_" as "-"; write ${name} with "-"` });
  });
}

function formatPath(segments: readonly (string | number)[]): string {
  return segments.map((segment, index) => (typeof segment === "number" ? `[${segment}]` : `${index === 0 ? "" : "."}${segment}`)).join("");
}

const authFieldSchema = z.strictObject({
  name: envVarNameSchema,
  label: singleLineSchema(),
  secret: z.boolean().default(false),
  required: z.boolean().default(true),
  multiline: z.boolean().default(false),
});

const FIELD_REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

const authSchema = z
  .strictObject({
    strategy: z.enum(AUTH_STRATEGIES).default("inherited"),
    fields: z.array(authFieldSchema).default([]),
    inject: z.strictObject({ environment: z.record(envVarNameSchema, z.string()) }).optional(),
    validate: z.strictObject({ command: commandSchema, args: z.array(z.string()).default([]) }).optional(),
    identity: z
      .strictObject({
        command: commandSchema,
        args: z.array(z.string()).default([]),
        field: singleLineSchema(),
        cache_ttl_seconds: intAtLeast(0).default(300),
      })
      .optional(),
    profile_env: envVarNameSchema.optional(),
    removed_env: z.array(removedEnvEntrySchema).default([]),
    cache_ttl_seconds: intAtLeast(0).default(300),
  })
  .superRefine((auth, ctx) => {
    const declared = new Set<string>();
    auth.fields.forEach((field, index) => {
      if (declared.has(field.name)) {
        ctx.addIssue({ code: "custom", path: ["fields", index, "name"], message: `duplicate auth field ${field.name}` });
      }
      declared.add(field.name);
    });
    // The variables the session sets: the inject names, else the field names themselves.
    const injected = auth.inject === undefined ? auth.fields.map((field, index) => [field.name, ["fields", index, "name"]] as const) : [];
    for (const [variable, where] of [
      ...injected,
      ...Object.keys(auth.inject?.environment ?? {}).map((name) => [name, ["inject", "environment", name]] as const),
    ]) {
      const problem = sessionVariableProblem(variable);
      if (problem !== undefined) ctx.addIssue({ code: "custom", path: [...where], message: problem });
    }
    for (const [variable, template] of Object.entries(auth.inject?.environment ?? {})) {
      const where = ["inject", "environment", variable];
      const reference = FIELD_REFERENCE.exec(template)?.[1];
      if (reference === undefined) {
        ctx.addIssue({ code: "custom", path: where, message: `must be exactly "\${FIELD}" naming a declared auth field` });
      } else if (!declared.has(reference)) {
        ctx.addIssue({ code: "custom", path: where, message: `\${${reference}} is not a declared auth field` });
      }
    }
  });

/**
 * `runtime.fixed_env`: values set in every child of the provider. PATH and
 * PATHEXT are refused: Torii computes them from the trusted search path.
 *
 * A name may hold `-`: knack-based CLIs (az) read a configuration option
 * `[section] option` from `AZURE_<SECTION>_<OPTION>`, and options such as
 * `defaults.sql-server` keep their `-` there. A name may end in `{USER}`,
 * which stands for the child's user name as Python's `getpass.getuser()` finds
 * it, upper-cased (src/runtime/child-env.ts, `USER_NAME_PLACEHOLDER`): az keys
 * its per-user `[local_context] <user>` switch on that name. A value may be
 * empty: an empty `AZURE_DEFAULTS_<KEY>` is how az is told "no default".
 */
const fixedEnvSchema = z.record(
  z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_-]*(?:\{USER\})?$/, { error: "must be an environment variable name ([A-Za-z_][A-Za-z0-9_-]*), optionally ending in {USER}" })
    .refine((name) => !["PATH", "PATHEXT"].includes(name.toUpperCase()), { error: "PATH and PATHEXT are computed by Torii, not fixed" }),
  z.union([z.literal(""), singleLineSchema()]),
);

/**
 * A relative path that, once normalised, still names something inside the
 * provider directory: `.env`, `env/prod.env`; never `/etc/x`, `..\x` or `a/../../x`.
 */
export function isContainedRelativePath(candidate: string): boolean {
  if (candidate === "" || candidate.includes("\0")) return false;
  if (isFullyQualifiedPath(candidate) || /^[\\/]/.test(candidate) || /^[A-Za-z]:/.test(candidate)) return false;
  const normalised = path.posix.normalize(candidate.replaceAll("\\", "/"));
  return normalised !== "." && normalised !== "./" && normalised !== ".." && !normalised.startsWith("../");
}

/** A `runtime.home_config` entry: a contained relative path, or `$NAME/` and one (under the directory the child's variable names). */
function isHomeConfigEntry(candidate: string): boolean {
  if (!candidate.startsWith("$")) return isContainedRelativePath(candidate);
  const variable = splitVariableEntry(candidate);
  return variable !== undefined && isContainedRelativePath(variable.rest);
}

/** The schema of `provider.yaml`. */
export const providerFileSchema = z
  .strictObject({
    version: versionSchema,
    name: singleLineSchema(),
    tool: safeNameSchema(128).refine((tool) => !RESERVED_TOOL_NAMES.includes(tool), {
      error: (issue) => `${JSON.stringify(issue.input)} is reserved by Torii`,
    }),
    description: z.string().default(""),
    /** false: an identity-only provider, never an MCP tool; targets may still name it as identity.provider. */
    expose: z.boolean().default(true),
    command: commandSchema,
    args_prefix: z.array(z.string()).default([]),
    targeting: z
      .strictObject({
        mode: z.enum(TARGET_MODES).optional(),
        locked_options: z.array(lockedOptionSchema).default([]),
        /** Commands no rule may allow, added to the mode's floor (`docs/configuration.md`). */
        locked_commands: lockedCommandsSchema.optional(),
        /** Values refused in any argument because they do what a locked option does (`docs/configuration.md`). */
        locked_values: z
          .array(
            z.strictObject({
              contains: singleLineSchema().refine((text) => text.trim().length >= 3, { error: "must hold at least 3 characters besides blanks" }),
              option: lockedOptionSchema,
              names: singleLineSchema(),
            }),
          )
          .optional(),
      })
      .optional(),
    policy: z
      .strictObject({
        minimum_accept_tokens: intAtLeast(1).default(1),
        forbidden_args: z.array(z.string().min(1, { error: "a forbidden arg must not be empty" })).default([]),
        ignore_args: z
          .strictObject({
            leading: z.array(z.string().min(1, { error: "an ignored arg must not be empty" })).default([]),
            flags: z.array(z.string().min(1, { error: "an ignored flag must not be empty" })).default([]),
          })
          .prefault({}),
        parameter_carriers: z.array(optionNameSchema).optional(),
        scope_options: z.array(z.strictObject({ option: optionNameSchema, every: z.array(optionNameSchema).default([]) })).optional(),
        option_aliases: z
          .array(
            z.strictObject({
              option: optionNameSchema,
              aliases: z.array(z.union([optionNameSchema, shortOptionSchema])).min(1),
              /** Command paths (prefixes) the row applies to; absent: every command. The most specific row naming an option string wins. */
              commands: z
                .array(z.array(commandWordSchema).min(1, { error: "a command path needs at least one word" }))
                .min(1)
                .optional(),
            }),
          )
          .refine(
            (rows) => {
              // An option string stands once per command scope: each command path (or every command) picks one row for it.
              const seen = new Set<string>();
              for (const row of rows) {
                for (const scope of row.commands ?? [[]]) {
                  for (const name of [row.option, ...row.aliases]) {
                    const key = JSON.stringify([scope, name]);
                    if (seen.has(key)) return false;
                    seen.add(key);
                  }
                }
              }
              return true;
            },
            { error: "an option name may stand in one option_aliases row per command path only, once" },
          )
          .optional(),
        release_tracks: z.array(z.string().regex(/^[a-z][a-z0-9-]*$/u, { error: "a release track is a command word" })).optional(),
        resource_types: resourceTypesSchema.optional(),
        /** Legacy Torii field: accepted so old trees load, and ignored. */
        grant_rule: z.unknown().optional(),
      })
      .optional(),
    auth: authSchema.optional(),
    environment: z
      .strictObject({
        file: z.string().refine(isContainedRelativePath, {
          error: "must be a relative path that stays inside the provider directory",
        }),
      })
      .optional(),
    argv: argvSchema.optional(),
    runtime: z
      .strictObject({
        timeout_seconds: intInRange(1, 86_400).optional(),
        allow_batch_wrapper: z.boolean().default(false),
        /** Variables the CLI always runs with, over every `.env` layer (src/runtime/child-env.ts, `docs/configuration.md`). */
        fixed_env: fixedEnvSchema.optional(),
        /** Files the CLI reads from its working directory or a parent: a call is refused while one exists (src/runtime/working-directory-config.ts). */
        working_directory_config: z
          .array(z.string().refine(isContainedRelativePath, { error: "must be a relative path that stays inside the directory, such as .azure/config" }))
          .optional(),
        /** Files the CLI reads from the child's HOME (or `$NAME/…`: the directory a variable names) that rewrite what a call's words mean (aws command aliases): a call is refused while one exists (src/runtime/home-config.ts). */
        home_config: z
          .array(
            z.string().refine(isHomeConfigEntry, {
              error:
                "must be a relative path that stays inside HOME, such as .aws/cli/alias, or $NAME/ and one inside the directory a variable names, such as $AZURE_CONFIG_DIR/alias",
            }),
          )
          .optional(),
      })
      .optional(),
  })
  .superRefine((provider, ctx) => {
    // A prescanned option takes effect at any position, after `--` too, where no rule reads it: only a locked one is modelled.
    const mode = provider.targeting?.mode;
    const locked = new Set([...(mode === undefined ? [] : LOCKED_OPTION_FLOOR[mode]), ...(provider.targeting?.locked_options ?? [])]);
    provider.argv?.prescanned_options?.forEach((name, index) => {
      if (!locked.has(name)) {
        ctx.addIssue({
          code: "custom",
          path: ["argv", "prescanned_options", index],
          message: `${name} must be a locked option (targeting.locked_options): the CLI reads it at any position, where no rule sees it`,
        });
      }
    });
    const strategy = provider.auth?.strategy;
    if (provider.targeting?.mode === "aws_profile" && strategy !== undefined && strategy !== "inherited") {
      // The AWS CLI itself must resolve the human-pinned profile; collected credentials would bypass it.
      ctx.addIssue({ code: "custom", path: ["auth", "strategy"], message: `must be inherited when targeting.mode is aws_profile, not ${strategy}` });
    }
  });

/** A validated `provider.yaml` (snake_case, defaults applied). */
export type ProviderConfig = z.output<typeof providerFileSchema>;

/**
 * Reads and validates one `provider.yaml`. Checks that need other files (the
 * directory name, tool uniqueness, identity providers) are the registry's.
 * The data comes from the JSON beside it when that was made from exactly
 * this text (provider-json.ts), else from parsing the YAML.
 *
 * @throws ConfigError with the file, line and column of each problem.
 */
export function loadProviderDocument(file: string): YamlDocument<ProviderConfig> {
  const text = readConfigText(file);
  const data = providerJsonFor(file, text);
  return (data === undefined ? undefined : documentFromData(file, text, data, providerFileSchema)) ?? parseYamlDocument(file, text, providerFileSchema);
}

/** The argv grammar the policy engine canonicalises this provider's calls with. */
export function toGrammarSpec(provider: ProviderConfig): GrammarSpec {
  const argv = provider.argv;
  const lockedValues = provider.targeting?.locked_values;
  const values = lockedValues === undefined ? {} : { lockedValues: lockedValues.map((row) => ({ ...row })) };
  if (argv === undefined) return { parser: "plain", options: [], commands: [], forbiddenValuePrefixes: [], ...values };
  return {
    ...values,
    parser: argv.parser,
    options: argv.options.map(toOptionSpec),
    commands: argv.commands.map((scope): CommandScope => ({ path: [...scope.path], options: scope.options.map(toOptionSpec) })),
    forbiddenValuePrefixes: [...argv.forbidden_value_prefixes],
    ...(argv.fetched_values === undefined ? {} : { fetchedValues: toFetchedValueSpec(argv.fetched_values) }),
    ...(argv.file_writes === undefined ? {} : { fileWrites: rowsPerTrack(argv.file_writes).map(toFileWriteSpec) }),
    ...(argv.file_reads === undefined ? {} : { fileReads: rowsPerTrack(argv.file_reads).map(toFileWriteSpec) }),
    ...(argv.plugins === undefined ? {} : { plugins: argv.plugins }),
    ...(argv.double_dash === undefined ? {} : { doubleDash: argv.double_dash }),
    ...(argv.abbreviations === undefined ? {} : { abbreviations: argv.abbreviations }),
    ...(argv.prescanned_options === undefined ? {} : { prescannedOptions: [...argv.prescanned_options] }),
    ...(argv.remote_arguments === undefined
      ? {}
      : {
          remoteArguments: argv.remote_arguments.map((row) => ({
            command: [...row.command],
            ...(row.tail === undefined ? {} : { tail: true }),
            ...(row.option === undefined ? {} : { option: row.option }),
          })),
        }),
    ...(argv.parent_options === undefined
      ? {}
      : { parentOptions: argv.parent_options.map((row) => ({ command: [...row.command], values: [...row.values], switches: [...row.switches] })) }),
    ...(argv.locked_command_options === undefined
      ? {}
      : {
          lockedCommandOptions: argv.locked_command_options.map((row) => ({
            command: [...row.command],
            options: [...row.options],
            ...(row.tail === undefined ? {} : { tail: row.tail }),
            ...(row.value_contains === undefined ? {} : { valueContains: row.value_contains }),
            ...(row.allowed_values === undefined ? {} : { allowedValues: [...row.allowed_values] }),
            ...(row.value_prefix === undefined ? {} : { valuePrefix: row.value_prefix }),
            ...(row.loopback_only === undefined ? {} : { loopbackOnly: row.loopback_only }),
            ...(row.single_value === undefined ? {} : { singleValue: row.single_value }),
            ...(row.exact === undefined ? {} : { exact: row.exact }),
            ...(row.why === undefined ? {} : { why: row.why }),
          })),
        }),
  };
}

function toFetchedValueSpec(fetched: z.output<typeof fetchedValuesSchema>): FetchedValueSpec {
  return {
    urlOptions: [...fetched.url_options],
    gitOptions: [...fetched.git_options],
    gitOperandsOf: fetched.git_operands_of.map((path) => [...path]),
    literal: fetched.literal.map((row) => ({ command: [...row.command], option: row.option, list: row.list })),
  };
}

function toFileWriteSpec(row: Omit<FileWriteRow, "tracks">): FileWriteSpec {
  const command = [...row.command];
  if (row.operand !== undefined) return { command, operand: row.operand };
  const where = row.default_path === undefined ? {} : { defaultPath: row.default_path };
  if (row.option === undefined) return { command, ...where };
  return row.short === undefined ? { command, option: row.option, ...where } : { command, option: row.option, short: row.short, ...where };
}

function toOptionSpec(row: OptionRow): OptionSpec {
  const spec = { name: row.name, value: row.value, repeatable: row.repeatable };
  return row.short === undefined ? spec : { ...spec, short: row.short };
}

/** The `policy:` section in the policy engine's terms, defaults applied. */
export function toPolicySettings(provider: ProviderConfig): ProviderPolicySettings {
  const policy = provider.policy;
  return {
    minimumAcceptTokens: policy?.minimum_accept_tokens ?? 1,
    forbiddenArgs: [...(policy?.forbidden_args ?? [])],
    ignoreArgs: {
      leading: [...(policy?.ignore_args.leading ?? [])],
      flags: [...(policy?.ignore_args.flags ?? [])],
    },
    ...(policy?.parameter_carriers === undefined ? {} : { parameterCarriers: [...policy.parameter_carriers] }),
    ...(policy?.scope_options === undefined ? {} : { scopeOptions: policy.scope_options }),
    ...(policy?.option_aliases === undefined
      ? {}
      : {
          optionAliases: policy.option_aliases.map(({ commands, ...row }) => (commands === undefined ? row : { ...row, commands })),
        }),
    ...(policy?.release_tracks === undefined ? {} : { releaseTracks: [...policy.release_tracks] }),
    // The same object on every call while the provider is cached: its compiled table is cached by identity.
    ...(policy?.resource_types === undefined ? {} : { resourceTypes: policy.resource_types }),
  };
}
