/**
 * Where `torii auth login` takes the values of a provider's `auth.fields`
 * from, in this order:
 *
 * 1. `--from-env NAME…`: the named fields from this process's environment (for
 *    scripts; the names must be declared fields);
 * 2. `--stdin`: `.env` text on standard input (the strict parser of
 *    config/dotenv.ts; a multi-line value goes in double quotes with `\n`);
 * 3. otherwise a prompt in the terminal for each remaining field, on stderr
 *    (stdout stays for the result): secret fields are masked, a multi-line
 *    field takes lines until an empty one.
 *
 * A required field left empty is refused; values are never echoed or logged.
 */
import { input, password } from "@inquirer/prompts";
import { parseDotenv } from "../../config/dotenv.js";
import type { ProviderConfig } from "../../config/provider-schema.js";
import { OperatorError } from "../shared/operator-context.js";

export type AuthField = NonNullable<ProviderConfig["auth"]>["fields"][number];

export interface FieldSources {
  readonly fromEnv: readonly string[];
  readonly stdin: boolean;
}

/** The terminal the prompts use (process.stdin and stderr, unless a test swaps them). */
export interface PromptTerminal {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
}

/**
 * The declared field `name`. A name the operator typed (`--from-env NAME`) is
 * repeated in the refusal; one read from piped text is not: a bare token piped
 * by mistake parses as a name when it ends in base64 padding (`dG9r…==`), and
 * the refusal would print the secret on the terminal.
 */
function declared(fields: readonly AuthField[], name: string, where: string, repeat: boolean): AuthField {
  const field = fields.find((candidate) => candidate.name === name);
  if (field === undefined) {
    const named = repeat ? `names ${name}, which is` : "names a variable that is";
    throw new OperatorError(`${where} ${named} not one of the declared fields (${fields.map((f) => f.name).join(", ")})`);
  }
  return field;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}

async function ask(field: AuthField, terminal: PromptTerminal, signal: AbortSignal): Promise<string> {
  const context = { input: terminal.input, output: terminal.output, clearPromptOnDone: false, signal };
  const prompt = (message: string, allowEmpty: boolean): Promise<string> => {
    const validate = (value: string): true | string => allowEmpty || value !== "" || `${field.label} is required`;
    return field.secret ? password({ message, mask: "*", validate }, context) : input({ message, validate }, context);
  };
  if (!field.multiline) return prompt(`${field.label}${field.required ? "" : " (optional)"}:`, !field.required);
  const lines: string[] = [];
  for (;;) {
    const line = await prompt(`${field.label}, line ${lines.length + 1} (an empty line ends it):`, lines.length > 0 || !field.required);
    if (line === "") return lines.join("\n");
    lines.push(line);
  }
}

/** Collects a value for every field from the sources given, prompting for the rest. */
export async function collectFields(
  fields: readonly AuthField[],
  sources: FieldSources,
  env: NodeJS.ProcessEnv,
  terminal: PromptTerminal,
): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const name of sources.fromEnv) {
    declared(fields, name, "--from-env", true);
    const value = env[name];
    if (value === undefined) throw new OperatorError(`--from-env ${name}: the variable is not set`);
    values[name] = value;
  }
  if (sources.stdin) {
    // Piped text may be a bare token where NAME=value was expected: no error names what it read.
    for (const [name, value] of parseDotenv("<stdin>", await readAll(terminal.input), { quoteNames: false })) {
      declared(fields, name, "standard input", false);
      values[name] ??= value;
    }
  }
  // A terminal that closes mid-prompt cancels the login (Ctrl+C does too, inside the prompt).
  const closed = new AbortController();
  const onEnd = (): void => {
    closed.abort();
  };
  terminal.input.once("end", onEnd);
  try {
    for (const field of fields) {
      if (values[field.name] !== undefined) continue;
      if (sources.stdin || sources.fromEnv.length > 0) {
        if (field.required) throw new OperatorError(`no value for the required field ${field.name} (${field.label})`);
        continue;
      }
      values[field.name] = await ask(field, terminal, closed.signal);
    }
  } finally {
    terminal.input.removeListener("end", onEnd);
  }
  return values;
}
