/**
 * The locked rows are read by a plain check (src/config/locked-rows.ts) that must
 * vouch only for rows their zod row schema accepts, and output what zod would:
 * the bundled tables read alike both ways, and every bad row below is refused
 * with exactly zod's issues.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { lockedCommandOptionsRowSchema, lockedCommandOptionsSchema, lockedCommandRowSchema, lockedCommandsSchema } from "../../../src/config/locked-rows.js";

const documentOf = (name: string): { targeting?: { locked_commands?: unknown[] }; argv?: { locked_command_options?: unknown[] } } =>
  (JSON.parse(readFileSync(fileURLToPath(new URL(`../../../providers/${name}/provider.generated.json`, import.meta.url)), "utf8")) as { document: never })
    .document;

const issuesOf = (result: z.ZodSafeParseResult<unknown>) => result.error?.issues.map(({ code, path, message }) => ({ code, path, message }));

describe.each(["aws", "az", "gcloud", "kubectl"])("bundled %s: the plain reading gives zod's rows", (name) => {
  const document = documentOf(name);

  it("locked_commands and locked_command_options", () => {
    const commands = document.targeting?.locked_commands ?? [];
    const options = document.argv?.locked_command_options ?? [];
    expect(commands.length + options.length).toBeGreaterThan(0);
    expect(lockedCommandsSchema.parse(commands)).toEqual(z.array(lockedCommandRowSchema).parse(commands));
    expect(lockedCommandOptionsSchema.parse(options)).toEqual(z.array(lockedCommandOptionsRowSchema).parse(options));
  });
});

describe("rows the plain reading leaves to zod", () => {
  const command = { command: ["auth"], why: "it changes the account" };
  it.each([
    { ...command, command: [] },
    { ...command, command: ["-x"] },
    { ...command, except: [1] },
    { ...command, except: null },
    { ...command, why: "" },
    { ...command, why: "two\nlines" },
    { ...command, why: undefined },
    { ...command, tracks: [] },
    { ...command, tracks: ["ga", "ga"] },
    { ...command, tracks: null },
    { ...command, extra: true },
    ["auth"],
  ])("locked_commands row %j: zod's issues", (row) => {
    expect(issuesOf(lockedCommandsSchema.safeParse([command, row]))).toEqual(issuesOf(z.array(lockedCommandRowSchema).safeParse([command, row])));
    expect(lockedCommandsSchema.safeParse([command, row]).success).toBe(false);
  });

  const option = { command: ["compute", "ssh"], options: ["--ssh-flag"], tail: true, why: "a local program" };
  it.each([
    { ...option, command: ["-x"] },
    { ...option, options: ["--a=b"] },
    { ...option, options: ["-ab"] },
    { ...option, options: [], tail: undefined },
    { command: ["x"] },
    { ...option, tail: false },
    { ...option, value_contains: "" },
    { ...option, allowed_values: [] },
    { ...option, allowed_values: [""] },
    { ...option, single_value: false },
    { ...option, loopback_only: false },
    { ...option, exact: "yes" },
    { ...option, why: "" },
    { ...option, extra: 1 },
    null,
  ])("locked_command_options row %j: zod's issues", (row) => {
    expect(issuesOf(lockedCommandOptionsSchema.safeParse([option, row]))).toEqual(issuesOf(z.array(lockedCommandOptionsRowSchema).safeParse([option, row])));
    expect(lockedCommandOptionsSchema.safeParse([option, row]).success).toBe(false);
  });
});
