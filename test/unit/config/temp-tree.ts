/**
 * Helpers for configuration tests: real temporary directories (no fs mocks)
 * and assertions on ConfigError locations.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, onTestFinished } from "vitest";
import { ConfigError } from "../../../src/config/errors.js";
import { tempDirectory } from "../../support/temp-dirs.js";

/**
 * A fresh temporary directory, removed after the test. The removal is tied to
 * the running test (not a module-level afterEach, which a worker that runs its
 * files in one process, isolate: false, would register for the first importer only).
 * A concurrent test passes its context's `onTestFinished`: the global one ties the
 * removal to whichever test vitest tracks as current, which may finish first.
 */
export function tempDir(whenFinished: (cleanUp: () => void) => void = onTestFinished): string {
  const dir = tempDirectory("torii-config-");
  whenFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Joins lines into YAML text with a final newline, so line numbers in tests read naturally. */
export function yaml(...lines: string[]): string {
  return `${lines.join("\n")}\n`;
}

/** Writes `files` (relative path → contents) below `root`, creating directories; modes pass the trust rule whatever the umask. */
export function writeTree(root: string, files: Readonly<Record<string, string>>): void {
  for (const [relative, contents] of Object.entries(files)) {
    const file = path.join(root, relative);
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
    writeFileSync(file, contents, { mode: 0o644 });
  }
}

/** Runs `action`, expects a ConfigError, and returns it. */
export function catchConfigError(action: () => unknown): ConfigError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError, but nothing was thrown");
}

/**
 * Expects `action` to throw a ConfigError whose message names `file:line:column:`
 * followed (on the same line) by text matching `detail`.
 */
export function expectConfigErrorAt(action: () => unknown, file: string, line: number, column: number, detail: RegExp): ConfigError {
  const error = catchConfigError(action);
  const located = error.message.split("\n").find((entry) => entry.startsWith(`${file}:${line}:${column}: `));
  expect(located, `no problem at ${file}:${line}:${column} in:\n${error.message}`).toBeDefined();
  expect(located).toMatch(detail);
  return error;
}
