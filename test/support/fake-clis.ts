/**
 * Real executables for end-to-end tests, written into a temporary bin
 * directory with an absolute node shebang (no shell involved anywhere).
 *
 * - `recorder`: prints its argv, environment and cwd as JSON.
 * - `must-not-run`: a sentinel; writes a marker file when it runs.
 * - any script given by the test.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { tempDirectory } from "./temp-dirs.js";

export interface FakeBin {
  readonly dir: string;
  /** Marker files written by sentinels, by sentinel name. */
  markerOf(name: string): string;
  /** True when the sentinel `name` has run. */
  ran(name: string): boolean;
}

const RECORDER = `process.stdout.write(JSON.stringify({ argv: process.argv.slice(2), env: process.env, cwd: process.cwd() }));`;

function sentinel(marker: string): string {
  return `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran " + JSON.stringify(process.argv.slice(2)));`;
}

export function makeFakeBin(scripts: Record<string, string> = {}, sentinels: readonly string[] = ["must-not-run"]): FakeBin {
  const dir = tempDirectory("torii-bin-");
  const markers = tempDirectory("torii-markers-");
  const write = (name: string, body: string): void => {
    const file = path.join(dir, name);
    writeFileSync(file, `#!${process.execPath}\n${body}\n`);
    chmodSync(file, 0o755);
  };
  write("recorder", RECORDER);
  for (const name of sentinels) write(name, sentinel(path.join(markers, name)));
  for (const [name, body] of Object.entries(scripts)) write(name, body);
  return {
    dir,
    markerOf: (name) => path.join(markers, name),
    ran: (name) => existsSync(path.join(markers, name)),
  };
}

/** Writes an executable script `body` at `file` (its directory created as needed). */
export function writeExecutable(file: string, body: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, body);
  chmodSync(file, 0o755);
}

/** A version manager of the rbenv family (laid out as pyenv lays itself out), for tests of its pinning. */
export interface FakeVersionManager {
  /** The directory of its shims, for PATH. */
  readonly shims: string;
  /** Where the manager writes the version it was told (`$FAKEENV_VERSION`) each time a shim runs. */
  readonly seen: string;
}

/**
 * A manager `fakeenv` whose global file names `globalVersion` and whose shims
 * `programs` (name -> shell body run after the manager's `exec`, arguments as
 * the shim got them) record `$FAKEENV_VERSION` first: what the shim runs is
 * the manager's choice, and the record shows what it was told.
 */
export function makeFakeVersionManager(globalVersion: string, programs: Record<string, string>): FakeVersionManager {
  const root = tempDirectory("torii-fakeenv-");
  const seen = path.join(root, "version-seen");
  const cases = Object.entries(programs)
    .map(([name, body]) => `  ${name}) ${body} ;;\n`)
    .join("");
  writeExecutable(
    path.join(root, "libexec", "fakeenv"),
    `#!/bin/sh\nprintf '%s' "$FAKEENV_VERSION" > '${seen}'\nprogram="$2"\nshift 2\ncase "$program" in\n${cases}esac\n`,
  );
  for (const name of Object.keys(programs)) {
    writeExecutable(
      path.join(root, "shims", name),
      `#!/usr/bin/env bash\nset -e\nprogram="\${0##*/}"\nexport FAKEENV_ROOT="${root}"\nexec "${root}/libexec/fakeenv" exec "$program" "$@"\n`,
    );
  }
  writeFileSync(path.join(root, "version"), `${globalVersion}\n`);
  return { shims: path.join(root, "shims"), seen };
}
