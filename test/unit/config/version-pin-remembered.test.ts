/**
 * A shims directory's verdict is remembered from one call to the next only
 * while the directory and the files it was judged by are unchanged
 * (config/unchanged-sample.ts): every change that could alter the verdict is
 * seen by the next computation, and nothing changed within the timestamps'
 * granularity is ever remembered.
 */
import { statSync, writeFileSync, type BigIntStats } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { searchTrust } from "../../../src/config/search-trust.js";
import { UnchangedSamples } from "../../../src/config/unchanged-sample.js";
import { pinVersionManagers } from "../../../src/config/version-pin.js";
import type { SearchPathContext } from "../../../src/runtime/search-path.js";
import { writeExecutable } from "../../support/fake-clis.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const posixOnly = process.platform === "win32" ? describe.skip : describe;

/** Far enough ahead that every time of a file just written counts as settled. */
const LATER_NS = (BigInt(Date.now()) + 60_000n) * 1_000_000n;

const pyenvShim = (root: string): string => `#!/usr/bin/env bash\nset -e\nexport PYENV_ROOT="${root}"\nexec "${root}/libexec/pyenv" exec "\${0##*/}" "$@"\n`;

function shimsDirectory() {
  const top = tempDirectory("torii-remembered-");
  const root = path.join(top, ".pyenv");
  const shims = path.join(root, "shims");
  for (const name of ["pip", "python", "python3"]) writeExecutable(path.join(shims, name), pyenvShim(root));
  const stat = (file: string): BigIntStats => statSync(file, { bigint: true });
  const basis = () => ({
    directory: stat(shims),
    realDirectory: shims,
    files: ["pip", "python", "python3"].map((name) => ({ name, stats: stat(path.join(shims, name)) })),
  });
  const statOf = (name: string): BigIntStats | undefined => statSync(path.join(shims, name), { bigint: true, throwIfNoEntry: false });
  return { top, root, shims, stat, basis, statOf };
}

posixOnly("UnchangedSamples", () => {
  it("answers the remembered verdict while the directory, its real path and the sampled files are unchanged", () => {
    const { shims, stat, basis, statOf } = shimsDirectory();
    const samples = new UnchangedSamples<string>();
    samples.remember(shims, basis(), "pyenv", LATER_NS);
    expect(samples.verdictOf(shims, stat(shims), shims, statOf)).toBe("pyenv");
  });

  it("forgets it when a sampled file is rewritten in place, an entry is added, or the real path moved", () => {
    const { root, shims, stat, basis, statOf } = shimsDirectory();
    const samples = new UnchangedSamples<string>();
    samples.remember(shims, basis(), "pyenv", LATER_NS);
    writeFileSync(path.join(shims, "python"), '#!/bin/sh\nexec /tmp/anything "$@"\n');
    expect(samples.verdictOf(shims, stat(shims), shims, statOf)).toBeUndefined();

    samples.remember(shims, basis(), "pyenv", LATER_NS);
    writeExecutable(path.join(shims, "aaa-first"), "#!/bin/sh\n");
    expect(samples.verdictOf(shims, stat(shims), shims, statOf)).toBeUndefined();

    samples.remember(shims, basis(), "pyenv", LATER_NS);
    expect(samples.verdictOf(shims, stat(shims), path.join(root, "elsewhere"), statOf)).toBeUndefined();
  });

  it("never remembers a verdict whose files changed within the racy window", () => {
    const { shims, stat, basis, statOf } = shimsDirectory();
    const samples = new UnchangedSamples<string>();
    samples.remember(shims, basis(), "pyenv");
    expect(samples.verdictOf(shims, stat(shims), shims, statOf)).toBeUndefined();
  });
});

posixOnly("a remembered shims directory in the pins", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("judges a shim rewritten after its directory's verdict was remembered again: the directory leaves PATH", () => {
    const { top, root, shims } = shimsDirectory();
    writeFileSync(path.join(root, "version"), "3.11.7\n");
    const project = path.join(top, "project");
    const context = (): SearchPathContext => ({ platform: "linux", cwd: project, selfDir: path.join(top, "torii"), trust: searchTrust("linux") });
    const env = { HOME: path.join(top, "home"), PATH: `${shims}:/usr/bin` };
    // The files were just written: with the clock a minute ahead their times count as settled, so the verdict is kept.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 60_000 });
    const first = pinVersionManagers(env, undefined, context());
    expect(first.env.PYENV_VERSION).toBe("3.11.7");
    expect(first.env.PATH).toBe(`${shims}:/usr/bin`);

    writeFileSync(path.join(shims, "pip"), '#!/bin/sh\n# not a shim any manager wrote\nexec /opt/elsewhere/pip "$@"\n');
    const second = pinVersionManagers(env, undefined, context());
    expect(second.env.PATH).toBe("/usr/bin");
    expect(second.env.PYENV_VERSION).toBeUndefined();
  });
});
