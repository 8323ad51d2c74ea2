/**
 * The locked rows of `provider.yaml`: `targeting.locked_commands` (commands no
 * rule may allow) and `argv.locked_command_options` (options the broker owns
 * under one command). The bundled providers hold some 500 such rows together,
 * read at every start-up in a cold process, where zod's per-row pipeline cost
 * about as much as every other field of the four documents. Each table is read
 * by a plain check that vouches only for rows its zod row schema accepts
 * unchanged (plain-rows.ts); the first row it cannot vouch for sends the table
 * through zod, whose messages and paths are the only ones an operator sees.
 */
import * as z from "zod";
import { commandWordSchema, isCommandWord, LOCKED_OPTION, lockedOptionSchema, SHORT_OPTION, shortOptionSchema } from "./argv-words.js";
import { SINGLE_LINE, singleLineSchema } from "./common-fields.js";
import { mappingWithin, plainRowsSchema } from "./plain-rows.js";
import { tracksProblem } from "./release-tracks.js";

/** One `targeting.locked_commands` row, as zod reads it (the definition the plain check follows). */
export const lockedCommandRowSchema = z.strictObject({
  command: z.array(commandWordSchema).min(1, { error: "a command path needs at least one word" }),
  except: z.array(commandWordSchema).default([]),
  why: singleLineSchema(),
  /** The release tracks the row holds in (release-tracks.ts); absent: its command path as written. */
  tracks: z
    .array(z.string())
    .superRefine((tracks, ctx) => {
      const problem = tracksProblem(tracks, isCommandWord);
      if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
    })
    .optional(),
});

type LockedCommandRow = z.output<typeof lockedCommandRowSchema>;

const LOCKED_COMMAND_FIELDS: ReadonlySet<string> = new Set(["command", "except", "why", "tracks"]);

const isWordList = (value: unknown, least: number): value is string[] => Array.isArray(value) && value.length >= least && value.every(isCommandWord);

/** A row lockedCommandRowSchema accepts, as it outputs it; undefined for any other. */
function plainLockedCommand(element: unknown): LockedCommandRow | undefined {
  const fields = mappingWithin(element, LOCKED_COMMAND_FIELDS);
  if (fields === undefined) return undefined;
  const { command, except = [], why, tracks } = fields;
  if (!isWordList(command, 1) || !isWordList(except, 0) || typeof why !== "string" || why === "" || !SINGLE_LINE.test(why)) return undefined;
  if (tracks === undefined) return { command, except, why };
  return Array.isArray(tracks) && tracksProblem(tracks, isCommandWord) === undefined ? { command, except, why, tracks: tracks as string[] } : undefined;
}

/** `targeting.locked_commands`. */
export const lockedCommandsSchema = plainRowsSchema(lockedCommandRowSchema, plainLockedCommand);

/** One `argv.locked_command_options` row, as zod reads it (the definition the plain check follows). */
export const lockedCommandOptionsRowSchema = z
  .strictObject({
    command: z.array(commandWordSchema),
    /** Long names, and short ones (`-n`) for a command whose own parser has them (az `acr -n`). */
    options: z.array(z.union([lockedOptionSchema, shortOptionSchema])).default([]),
    /** `true`: a `--` tail under the command is refused too (it goes to a local program). */
    tail: z.literal(true).optional(),
    value_contains: z.string().min(1).optional(),
    /** Values still allowed (exact): gcloud `--image-project` of a public image project. */
    allowed_values: z.array(z.string().min(1)).min(1).optional(),
    /** Refused unless the option's value starts with this text: az `rest --url` must be a path on the ARM host (`/...`). */
    value_prefix: z.string().min(1).optional(),
    /** `true`: the option names a local listener; refused unless its value is a loopback address (localhost:PORT). */
    loopback_only: z.literal(true).optional(),
    /** `true`: the option takes one value; value_contains reads only it, not the operands after it. */
    single_value: z.literal(true).optional(),
    /** `true`: the CLI reads only the full name (gcloud), so a prefix is not this option. */
    exact: z.literal(true).optional(),
    why: z.string().min(1).optional(),
  })
  .refine((row) => row.options.length > 0 || row.tail === true, { error: "a row needs options, tail: true, or both" });

type LockedCommandOptionsRow = z.output<typeof lockedCommandOptionsRowSchema>;

const OPTIONAL_FIELDS = ["tail", "value_contains", "allowed_values", "value_prefix", "loopback_only", "single_value", "exact", "why"] as const;
const LOCKED_OPTIONS_FIELDS: ReadonlySet<string> = new Set(["command", "options", ...OPTIONAL_FIELDS]);

const isLockedName = (name: unknown): boolean => typeof name === "string" && (LOCKED_OPTION.test(name) || SHORT_OPTION.test(name));
const isText = (value: unknown): boolean => typeof value === "string" && value !== "";

/** Whether an optional field's value is one the row schema accepts unchanged. */
const OPTIONAL_FIELD_OK: Readonly<Record<(typeof OPTIONAL_FIELDS)[number], (value: unknown) => boolean>> = {
  tail: (value) => value === true,
  value_contains: isText,
  allowed_values: (value) => Array.isArray(value) && value.length > 0 && value.every(isText),
  value_prefix: isText,
  loopback_only: (value) => value === true,
  single_value: (value) => value === true,
  exact: (value) => value === true,
  why: isText,
};

/** A row lockedCommandOptionsRowSchema accepts, as it outputs it (the schema's key order); undefined for any other. */
function plainLockedCommandOptions(element: unknown): LockedCommandOptionsRow | undefined {
  const fields = mappingWithin(element, LOCKED_OPTIONS_FIELDS);
  if (fields === undefined) return undefined;
  const { command, options = [] } = fields;
  if (!isWordList(command, 0) || !Array.isArray(options) || !options.every(isLockedName)) return undefined;
  const row: Record<string, unknown> = { command, options };
  for (const field of OPTIONAL_FIELDS) {
    const value = fields[field];
    if (value === undefined) continue;
    if (!OPTIONAL_FIELD_OK[field](value)) return undefined;
    row[field] = value;
  }
  return options.length > 0 || row.tail === true ? (row as LockedCommandOptionsRow) : undefined;
}

/** `argv.locked_command_options`. */
export const lockedCommandOptionsSchema = plainRowsSchema(lockedCommandOptionsRowSchema, plainLockedCommandOptions);
