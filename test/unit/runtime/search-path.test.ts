import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildChildEnv, type ChildEnvInput } from "../../../src/runtime/child-env.js";
import { resolveExecutable } from "../../../src/runtime/resolve-executable.js";
import { childPathValue, FALLBACK_POSIX_PATH, parsePathExt, trustedSearchPath, type SearchPathContext } from "../../../src/runtime/search-path.js";
import { lexicalTrust } from "../../support/search-trust.js";

const POSIX: SearchPathContext = { platform: "linux", cwd: "/srv/work", selfDir: "/opt/torii/dist", trust: lexicalTrust() };
const WINDOWS: SearchPathContext = { platform: "win32", cwd: "C:\\work", selfDir: "C:\\torii\\dist", trust: lexicalTrust() };

function child(input: Partial<ChildEnvInput>, context: SearchPathContext = POSIX): Record<string, string> {
  return buildChildEnv({ serverEnv: {}, removedEnv: [], ...context, ...input });
}

describe("the child's PATH on POSIX", () => {
  it.each([
    ["a leading empty entry", ":/usr/bin", "/usr/bin"],
    ["a trailing empty entry", "/usr/bin:", "/usr/bin"],
    ["a double colon", "/usr/bin::/bin", "/usr/bin:/bin"],
    [".", ".:/usr/bin", "/usr/bin"],
    ["./bin", "./bin:/usr/bin", "/usr/bin"],
    ["bin", "bin:/usr/bin", "/usr/bin"],
    ["~/bin (execvp does not expand ~)", "~/bin:/usr/bin", "/usr/bin"],
    ["../bin", "../bin:/usr/bin", "/usr/bin"],
    ["the working directory, however spelled", "/srv/work:/srv/work/:/srv//work:/usr/bin", "/usr/bin"],
    ["Torii's own directory", "/opt/torii/dist/:/usr/bin", "/usr/bin"],
    ["a duplicate", "/usr/bin:/bin:/usr/bin/", "/usr/bin:/bin"],
  ])("drops %s", (_what, serverPath, expected) => {
    expect(child({ serverEnv: { PATH: serverPath } }).PATH).toBe(expected);
  });

  it("never hands a child an empty or missing PATH (bash would search the working directory)", () => {
    for (const serverPath of ["", ":", ".", "bin:./x", undefined]) {
      expect(child({ serverEnv: { PATH: serverPath } }).PATH).toBe(FALLBACK_POSIX_PATH);
    }
    expect(child({ serverEnv: { PATH: "/usr/bin" }, removedEnv: ["PATH"] }).PATH).toBe(FALLBACK_POSIX_PATH);
  });

  it("reduces a PATH set by the provider's or the target's .env, or pinned, the same way", () => {
    expect(child({ serverEnv: { PATH: "/usr/bin" }, providerEnv: new Map([["PATH", "bin:/opt/aws/bin"]]) }).PATH).toBe("/opt/aws/bin");
    expect(child({ targetEnv: new Map([["PATH", ".:./bin"]]) }).PATH).toBe(FALLBACK_POSIX_PATH);
    expect(child({ pinned: { PATH: "::/pinned" } }).PATH).toBe("/pinned");
  });

  it("property: every entry of the child's PATH is absolute, and the lookup searches exactly those entries", () => {
    const entry = fc.oneof(
      fc.constantFrom("", ".", "..", "bin", "./bin", "~/bin", "../up", "/usr/bin", "/bin", "/srv/work", "/srv/work/", "/opt/torii/dist"),
      fc.stringMatching(/^\/?[a-z.~]{0,4}(?:\/[a-z.]{0,3}){0,2}$/),
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 8 }), (entries) => {
        const value = child({ serverEnv: { PATH: entries.join(":") } }).PATH ?? "";
        const childEntries = value.split(":");
        for (const childEntry of childEntries) expect(childEntry.startsWith("/")).toBe(true);
        expect(childEntries).not.toContain("/srv/work");
        // The lookup over the child's PATH keeps every entry: the two lists are the same list.
        expect(trustedSearchPath(value, POSIX).directories).toEqual(childEntries);
        expect(childPathValue(value, POSIX)).toBe(value);
      }),
      { seed: 20261130, numRuns: 300 },
    );
  });

  it("a program reachable only through a relative entry is neither found by Torii nor on the child's PATH", () => {
    const isFile = (candidate: string): boolean => candidate === "bin/aws" || candidate === "aws";
    const env = child({ serverEnv: { PATH: "bin::/usr/bin" } });
    expect(env.PATH).toBe("/usr/bin");
    expect(() => resolveExecutable("aws", { pathEnv: env.PATH, ...POSIX, isFile, isExecutable: () => true })).toThrow(/not found/);
  });
});

describe("the child's PATH and PATHEXT on Windows (platform injected)", () => {
  it("keeps only drive-rooted and UNC entries, unquoted, in the spelling the layer used", () => {
    const serverPath = [
      "C:foo",
      "\\rooted\\no-drive",
      "/rooted/no-drive",
      ".",
      "bin",
      ".\\bin",
      "%USERPROFILE%\\bin",
      "",
      "C:\\Tools",
      '"C:\\Program Files\\x"',
      "\\\\server\\share\\bin",
      "\\\\?\\C:\\device",
      "C:\\WORK",
      "c:\\torii\\dist\\",
    ].join(";");
    const env = child({ serverEnv: { Path: serverPath } }, WINDOWS);
    expect(env.Path).toBe("C:\\Tools;C:\\Program Files\\x;\\\\server\\share\\bin");
    expect(env.PATH).toBeUndefined();
  });

  it("reduces a PATH from a .env whatever its spelling, and leaves an absent PATH absent", () => {
    expect(child({ providerEnv: new Map([["path", "C:relative;D:\\abs"]]) }, WINDOWS).path).toBe("D:\\abs");
    expect(Object.keys(child({}, WINDOWS)).filter((name) => name !== "NoDefaultCurrentDirectoryInExePath")).toEqual([]);
  });

  it("keeps only well-formed .ext entries of PATHEXT, upper-cased; the default list when none is left", () => {
    expect(child({ serverEnv: { PATHEXT: ".COM;;EXE;.\\x;.Cmd;.exe;.PS1 ;.a.b" } }, WINDOWS).PATHEXT).toBe(".COM;.CMD;.EXE;.PS1");
    expect(child({ serverEnv: { PATHEXT: ";;EXE;.." } }, WINDOWS).PATHEXT).toBe(".COM;.EXE;.BAT;.CMD");
    expect(parsePathExt(".com;.COM")).toEqual([".COM"]);
  });

  it("does not touch PATHEXT off Windows", () => {
    expect(child({ providerEnv: new Map([["PATHEXT", ";;x"]]) }).PATHEXT).toBe(";;x");
  });
});
