/**
 * Windows final paths (`fs.realpathSync.native`, a junction's target) may come
 * back in the Win32 file namespace, `\\?\C:\…` or `\\?\UNC\server\share\…`:
 * the search compares them in their ordinary spelling, and refuses a real path
 * that has none (a volume GUID path, the device namespace). Pure functions and
 * the search with the platform injected; there is no Windows here.
 */
import { describe, expect, it } from "vitest";
import { resolveExecutable } from "../../../src/runtime/resolve-executable.js";
import { trustedSearchPath, type SearchPathContext } from "../../../src/runtime/search-path.js";
import { isUncomparableWindowsPath, withoutWin32FilePrefix } from "../../../src/runtime/windows-final-path.js";
import { lexicalTrust } from "../../support/search-trust.js";

describe("withoutWin32FilePrefix", () => {
  it.each([
    ["\\\\?\\C:\\Work\\bin", "C:\\Work\\bin"],
    ["\\\\?\\c:\\", "c:\\"],
    ["\\\\?\\C:", "C:\\"],
    ["//?/C:/Work", "C:/Work"],
    ["\\\\?\\UNC\\srv\\share\\bin", "\\\\srv\\share\\bin"],
    ["\\\\?\\unc\\srv\\share", "\\\\srv\\share"],
    ["C:\\Work", "C:\\Work"],
    ["\\\\srv\\share", "\\\\srv\\share"],
  ])("%s -> %s", (namespaced, ordinary) => {
    expect(withoutWin32FilePrefix(namespaced)).toBe(ordinary);
  });

  it.each(["\\\\?\\Volume{0b1c2d3e-0000-0000-0000-100000000000}\\bin", "\\\\?\\UNC\\srv", "\\\\?\\GLOBALROOT\\Device\\HarddiskVolume2\\bin", "\\\\.\\C:\\bin"])(
    "leaves %s as it is, and it cannot be compared",
    (candidate) => {
      expect(withoutWin32FilePrefix(candidate)).toBe(candidate);
      expect(isUncomparableWindowsPath(withoutWin32FilePrefix(candidate))).toBe(true);
    },
  );

  it("counts drive-rooted and UNC paths as comparable, and nothing rooted on the current drive", () => {
    expect(isUncomparableWindowsPath("C:\\Tools")).toBe(false);
    expect(isUncomparableWindowsPath("\\\\srv\\share\\bin")).toBe(false);
    expect(isUncomparableWindowsPath("\\Tools")).toBe(true);
  });
});

describe("the Windows search compares final paths in their ordinary spelling (platform injected)", () => {
  const context = (links: Record<string, string>, cwd = "C:\\Work"): SearchPathContext => ({
    platform: "win32",
    cwd,
    selfDir: "C:\\torii\\dist",
    trust: lexicalTrust(links),
  });

  it("drops an entry whose final path is the working directory in the \\\\?\\ namespace, drive or UNC", () => {
    const search = trustedSearchPath(
      "D:\\Link\\Scripts;E:\\Share;C:\\Tools",
      context({ "D:\\Link": "\\\\?\\c:\\work\\.venv", "E:\\Share": "\\\\?\\UNC\\srv\\proj\\bin" }),
    );
    // The UNC share is not the working directory (C:\Work) here: it stays.
    expect(search.directories).toEqual(["E:\\Share", "C:\\Tools"]);
    expect(search.skipped).toEqual([
      { entry: "D:\\Link\\Scripts", reason: "at or below the working directory, which the agent can write to (through a link)" },
    ]);
    const onShare = trustedSearchPath("E:\\Share;C:\\Tools", context({ "E:\\Share": "\\\\?\\UNC\\srv\\share\\proj\\bin" }, "\\\\SRV\\share\\proj"));
    expect(onShare.directories).toEqual(["C:\\Tools"]);
  });

  it("drops an entry, and refuses a program, whose final path has no ordinary spelling", () => {
    const links = { "D:\\Vol": "\\\\?\\Volume{0b1c2d3e-0000-0000-0000-100000000000}\\bin" };
    const search = trustedSearchPath("D:\\Vol;C:\\Tools", context(links));
    expect(search.directories).toEqual(["C:\\Tools"]);
    expect(search.skipped).toEqual([{ entry: "D:\\Vol", reason: expect.stringMatching(/device or volume path that cannot be compared/u) as string }]);
    const attempt = (): unknown =>
      resolveExecutable("D:\\Vol\\aws.exe", {
        pathEnv: "",
        platform: "win32",
        cwd: "C:\\Work",
        selfDir: "C:\\torii",
        trust: lexicalTrust(links),
        isFile: () => true,
      });
    expect(attempt).toThrow(/device or volume path that cannot be compared/u);
  });

  it("compares the working directory itself in its ordinary spelling when its real path is namespaced", () => {
    // Started through D:\Proj, a link to C:\Work: only its (namespaced) real path says the entry is inside.
    const search = trustedSearchPath("C:\\Work\\bin;C:\\Tools", context({ "D:\\Proj": "\\\\?\\C:\\Work" }, "D:\\Proj"));
    expect(search.directories).toEqual(["C:\\Tools"]);
  });
});
