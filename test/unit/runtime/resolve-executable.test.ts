import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ExecutableNotFoundError, ExecutableRefusedError, resolveExecutable, type ResolveExecutableOptions } from "../../../src/runtime/resolve-executable.js";
import { searchTrust } from "../../../src/config/search-trust.js";
import { lexicalTrust } from "../../support/search-trust.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const created: string[] = [];
afterEach(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temp tree; `files` maps relative paths to file modes. */
function tree(files: Readonly<Record<string, number>>): string {
  const root = tempDirectory("torii-resolve-");
  created.push(root);
  for (const [relative, mode] of Object.entries(files)) {
    const file = path.join(root, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, "#!/bin/sh\n");
    chmodSync(file, mode);
  }
  return root;
}

/** Runs `action`, expects it to throw an instance of `type`, and returns the error. */
function thrown<T extends Error>(type: new (...args: never[]) => T, action: () => unknown): T {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as T;
  }
  throw new Error(`expected ${type.name}`);
}

const refusal = (action: () => unknown): ExecutableRefusedError => thrown(ExecutableRefusedError, action);
const notFound = (action: () => unknown): ExecutableNotFoundError => thrown(ExecutableNotFoundError, action);

describe("resolveExecutable on POSIX (real temp tree)", () => {
  function posix(root: string, pathEnv: string, extra: Partial<ResolveExecutableOptions> = {}): ResolveExecutableOptions {
    return { pathEnv, platform: "linux", selfDir: path.join(root, "torii"), cwd: path.join(root, "work"), trust: searchTrust(), ...extra };
  }

  it("searches PATH entries in order and returns the absolute file", () => {
    const root = tree({ "a/tool": 0o755, "b/tool": 0o755, "b/other": 0o755 });
    const options = posix(root, `${root}/a:${root}/b`);
    expect(resolveExecutable("tool", options)).toEqual({ path: `${root}/a/tool`, kind: "binary" });
    expect(resolveExecutable("other", options)).toEqual({ path: `${root}/b/other`, kind: "binary" });
  });

  it("passes over a matching file that is not executable, and over a directory", () => {
    const root = tree({ "a/tool": 0o644, "b/tool/inner": 0o755, "c/tool": 0o755 });
    expect(resolveExecutable("tool", posix(root, `${root}/a:${root}/b:${root}/c`)).path).toBe(`${root}/c/tool`);
  });

  it("uses an absolute command as is, after checking it is an executable file", () => {
    const root = tree({ "bin/tool": 0o755, "bin/data": 0o644 });
    expect(resolveExecutable(`${root}/bin/tool`, posix(root, ""))).toEqual({ path: `${root}/bin/tool`, kind: "binary" });
    expect(resolveExecutable(`${root}/bin//tool`, posix(root, "")).path).toBe(`${root}/bin/tool`);
    expect(notFound(() => resolveExecutable(`${root}/bin/missing`, posix(root, ""))).message).toContain("no such file");
    expect(notFound(() => resolveExecutable(`${root}/bin`, posix(root, ""))).command).toBe(`${root}/bin`);
    expect(refusal(() => resolveExecutable(`${root}/bin/data`, posix(root, ""))).reason).toMatch(/not executable/);
  });

  it("skips empty and relative PATH entries, including `.`, without probing them", () => {
    const root = tree({ "work/tool": 0o755, "work/bin/tool": 0o755 });
    const probed: string[] = [];
    const isFile = (candidate: string): boolean => {
      probed.push(candidate);
      return true;
    };
    // Relative entries would resolve against the process cwd, not options.cwd; neither may be searched.
    const options = posix(root, ":.:bin:./bin:../x::", { isFile, isExecutable: () => true });
    expect(() => resolveExecutable("tool", options)).toThrow(ExecutableNotFoundError);
    expect(probed).toEqual([]);
  });

  it("never searches the current directory or Torii's own directory, however they are spelled", () => {
    const root = tree({ "work/tool": 0o755, "torii/tool": 0o755, "usr/bin/tool": 0o755 });
    const pathEnv = [`${root}/work`, `${root}/work/`, `${root}/torii`, `${root}/x/../torii/`].join(":");
    const error = notFound(() => resolveExecutable("tool", posix(root, pathEnv)));
    // The second spelling of each is a duplicate of the first, which is skipped.
    expect(error.message).toMatch(/0 PATH directories searched; 2 skipped/);
    // With a real directory after them, the search goes on to it.
    expect(resolveExecutable("tool", posix(root, `${pathEnv}:${root}/usr/bin`)).path).toBe(`${root}/usr/bin/tool`);
  });

  it("does not search a directory that is not on PATH", () => {
    const root = tree({ "elsewhere/tool": 0o755, "bin/unrelated": 0o755 });
    notFound(() => resolveExecutable("tool", posix(root, `${root}/bin`)));
    notFound(() => resolveExecutable("tool", posix(root, "")));
  });

  it("treats an unset PATH as empty", () => {
    const root = tree({});
    expect(notFound(() => resolveExecutable("tool", posix(root, "", { pathEnv: undefined }))).message).toContain("0 PATH directories");
  });

  it("refuses relative paths, empty commands, NUL bytes and dot names", () => {
    const root = tree({ "work/bin/tool": 0o755 });
    for (const command of ["bin/tool", "./tool", "../tool", "work/bin/tool"]) {
      expect(refusal(() => resolveExecutable(command, posix(root, `${root}/work/bin`))).reason).toMatch(/must be absolute/);
    }
    expect(refusal(() => resolveExecutable("", posix(root, ""))).reason).toMatch(/empty/);
    expect(refusal(() => resolveExecutable("to\0ol", posix(root, ""))).reason).toMatch(/NUL/);
    expect(refusal(() => resolveExecutable("..", posix(root, `${root}/work`))).reason).toMatch(/not a file name/);
  });

  it("keeps PATH values out of error messages", () => {
    const root = tree({});
    const secretDir = `${root}/token-5ecret-value`;
    mkdirSync(secretDir);
    const error = notFound(() => resolveExecutable("tool", posix(root, `${secretDir}:relative-5ecret`)));
    expect(error.message).not.toContain("5ecret");
    expect(error.message).toBe(
      `executable "tool" not found: 1 PATH directory searched; 1 skipped (empty, relative or missing entries, the working directory or below it, Torii's own directory, entries others can write to, temporary directories)`,
    );
  });
});

describe("resolveExecutable on Windows (path.win32 logic, injected file system)", () => {
  /** A case-insensitive set of files, like NTFS. */
  function windowsFiles(...files: string[]): { isFile: (candidate: string) => boolean; probed: string[] } {
    const present = new Set(files.map((file) => file.toUpperCase()));
    const probed: string[] = [];
    return {
      probed,
      isFile: (candidate) => {
        probed.push(candidate);
        return present.has(candidate.toUpperCase());
      },
    };
  }

  function windows(pathEnv: string, files: readonly string[], extra: Partial<ResolveExecutableOptions> = {}): ResolveExecutableOptions {
    return {
      pathEnv,
      platform: "win32",
      selfDir: "C:\\Program Files\\Torii",
      cwd: "C:\\Work",
      trust: lexicalTrust(),
      isFile: windowsFiles(...files).isFile,
      ...extra,
    };
  }

  it("tries each PATHEXT extension in order (default .COM;.EXE;.BAT;.CMD)", () => {
    const files = ["C:\\tools\\x.exe", "C:\\tools\\x.cmd"];
    expect(resolveExecutable("x", windows("C:\\tools", files))).toEqual({ path: "C:\\tools\\x.EXE", kind: "binary" });
    expect(resolveExecutable("x", windows("C:\\tools", files, { pathExt: ".CMD;.EXE" }))).toEqual({ path: "C:\\tools\\x.CMD", kind: "batch" });
    expect(resolveExecutable("x", windows("C:\\tools", ["C:\\tools\\x.com", ...files])).path).toBe("C:\\tools\\x.COM");
  });

  it("finds a batch wrapper when no .exe exists, and says it is one", () => {
    expect(resolveExecutable("az", windows("C:\\a;C:\\CLI2\\wbin", ["C:\\CLI2\\wbin\\az.cmd"]))).toEqual({
      path: "C:\\CLI2\\wbin\\az.CMD",
      kind: "batch",
    });
    expect(resolveExecutable("run", windows("C:\\a", ["C:\\a\\run.bat"])).kind).toBe("batch");
  });

  it("walks directories first, extensions second: an earlier directory's .cmd beats a later .exe", () => {
    const found = resolveExecutable("x", windows("C:\\one;C:\\two", ["C:\\one\\x.cmd", "C:\\two\\x.exe"]));
    expect(found).toEqual({ path: "C:\\one\\x.CMD", kind: "batch" });
  });

  it("compares extensions without case: x.BAT, x.Cmd, a lower-case PATHEXT", () => {
    expect(resolveExecutable("x.BAT", windows("C:\\t", ["C:\\t\\x.bat"]))).toEqual({ path: "C:\\t\\x.BAT", kind: "batch" });
    expect(resolveExecutable("x.Cmd", windows("C:\\t", ["C:\\t\\x.cmd"]))).toEqual({ path: "C:\\t\\x.Cmd", kind: "batch" });
    expect(resolveExecutable("x.Exe", windows("C:\\t", ["C:\\t\\x.exe"])).kind).toBe("binary");
    expect(resolveExecutable("x", windows("C:\\t", ["C:\\t\\x.bat"], { pathExt: ".exe;.bat" }))).toEqual({ path: "C:\\t\\x.BAT", kind: "batch" });
    expect(resolveExecutable("C:\\t\\X.bAt", windows("", ["C:\\t\\x.bat"])).kind).toBe("batch");
  });

  it("tries a name that already has a PATHEXT extension as given first", () => {
    const { isFile, probed } = windowsFiles("C:\\t\\tool.cmd", "C:\\t\\tool.cmd.exe");
    expect(resolveExecutable("tool.cmd", windows("C:\\t", [], { isFile })).path).toBe("C:\\t\\tool.cmd");
    expect(probed).toEqual(["C:\\t\\tool.cmd"]);
  });

  it("only appends extensions to a name whose own extension is not in PATHEXT", () => {
    const { isFile, probed } = windowsFiles("C:\\t\\kubectl.1.30.exe");
    expect(resolveExecutable("kubectl.1.30", windows("C:\\t", [], { isFile })).path).toBe("C:\\t\\kubectl.1.30.EXE");
    expect(probed).toEqual(["C:\\t\\kubectl.1.30.COM", "C:\\t\\kubectl.1.30.EXE"]);
  });

  it("refuses names with trailing dots or spaces (CVE-2024-36138 class)", () => {
    for (const command of ["x.bat ", "x.bat.", "x.cmd. .", "x.", "x ", "C:\\t\\x.bat.", "C:\\t\\x.bat ", "C:\\t.\\x.exe", "C:\\t\\..\\x.exe"]) {
      const error = refusal(() => resolveExecutable(command, windows("C:\\t", ["C:\\t\\x.bat", "C:\\x.exe"])));
      expect(error.reason, command).toMatch(/dot or a space/);
    }
  });

  it("skips the current directory and Torii's directory, whatever their case or trailing separator", () => {
    const { isFile, probed } = windowsFiles("C:\\Work\\x.exe", "C:\\Program Files\\Torii\\x.exe");
    const pathEnv = "c:\\work;C:\\WORK\\;C:/Work;c:\\program files\\torii\\;C:\\Program Files\\Torii";
    expect(() => resolveExecutable("x", windows(pathEnv, [], { isFile }))).toThrow(ExecutableNotFoundError);
    expect(probed).toEqual([]);
  });

  it("skips PATH entries with a component ending in a dot or a space, which Windows strips (C:\\Work. is the working directory)", () => {
    const { isFile, probed } = windowsFiles("C:\\Work.\\x.exe", "C:\\Work \\bin\\x.exe", "C:\\Program Files\\Torii.\\x.exe", "C:\\Work\\bin. .\\x.exe");
    const pathEnv = "C:\\Work.;C:\\Work \\bin;C:\\Program Files\\Torii.;C:\\Work\\bin. .";
    const error = notFound(() => resolveExecutable("x", windows(pathEnv, [], { isFile })));
    expect(probed).toEqual([]);
    expect(error.skipped.map((skipped) => skipped.reason)).toEqual(Array(4).fill(expect.stringContaining("ends in a dot or a space")));
    expect(resolveExecutable("x", windows("C:\\tools.d\\bin", ["C:\\tools.d\\bin\\x.exe"])).path).toBe("C:\\tools.d\\bin\\x.EXE");
  });

  it("skips relative PATH entries: ., names, drive-relative, root-relative, unexpanded variables", () => {
    const { isFile, probed } = windowsFiles();
    const pathEnv = ".;tools;.\\bin;C:tools;\\tools;%SystemRoot%\\system32;;";
    const error = notFound(() => resolveExecutable("x", windows(pathEnv, [], { isFile })));
    expect(probed).toEqual([]);
    expect(error.message).not.toContain("SystemRoot");
  });

  it("does not search a directory outside PATH", () => {
    const { isFile, probed } = windowsFiles("C:\\elsewhere\\x.exe");
    notFound(() => resolveExecutable("x", windows("C:\\bin", [], { isFile })));
    expect(probed.every((candidate) => candidate.startsWith("C:\\bin\\"))).toBe(true);
  });

  it("accepts quoted PATH entries, UNC directories and forward slashes", () => {
    expect(resolveExecutable("gh", windows('"C:\\Program Files\\GitHub CLI"', ["C:\\Program Files\\GitHub CLI\\gh.exe"])).path).toBe(
      "C:\\Program Files\\GitHub CLI\\gh.EXE",
    );
    expect(resolveExecutable("gh", windows("\\\\server\\share\\bin", ["\\\\server\\share\\bin\\gh.exe"])).path).toBe("\\\\server\\share\\bin\\gh.EXE");
    expect(resolveExecutable("C:/tools/gh.exe", windows("", ["C:\\tools\\gh.exe"])).path).toBe("C:\\tools\\gh.exe");
  });

  it("refuses relative, drive-relative, root-relative and device-namespace commands", () => {
    const files = ["C:\\Work\\tools\\x.exe", "C:\\x.exe"];
    expect(refusal(() => resolveExecutable("tools\\x.exe", windows("C:\\t", files))).reason).toMatch(/must be absolute/);
    expect(refusal(() => resolveExecutable("./x.exe", windows("C:\\t", files))).reason).toMatch(/must be absolute/);
    expect(refusal(() => resolveExecutable("\\x.exe", windows("C:\\t", files))).reason).toMatch(/must be absolute/);
    expect(refusal(() => resolveExecutable("C:x.exe", windows("C:\\t", files))).reason).toMatch(/drive-relative/);
    expect(refusal(() => resolveExecutable("\\\\?\\C:\\x.exe", windows("C:\\t", files))).reason).toMatch(/device namespace/);
    expect(refusal(() => resolveExecutable("\\\\.\\C:\\x.exe", windows("C:\\t", files))).reason).toMatch(/device namespace/);
  });

  it("refuses characters Windows forbids and reserved device names", () => {
    for (const command of ['a"b', "a|b", "a<b", "a>b", "a*", "a?", "x.exe:stream", "a\tb"]) {
      expect(refusal(() => resolveExecutable(command, windows("C:\\t", []))).reason, command).toMatch(/does not allow/);
    }
    for (const command of ["nul", "CON.exe", "com1", "LPT9.cmd", "C:\\t\\aux.exe"]) {
      expect(refusal(() => resolveExecutable(command, windows("C:\\t", []))).reason, command).toMatch(/reserved/);
    }
  });

  it("refuses a match that cannot be started without a shell", () => {
    expect(refusal(() => resolveExecutable("x", windows("C:\\t", ["C:\\t\\x.vbs"], { pathExt: ".VBS;.EXE" }))).reason).toMatch(/\.vbs files/);
    expect(refusal(() => resolveExecutable("C:\\t\\x.ps1", windows("", ["C:\\t\\x.ps1"]))).reason).toMatch(/\.ps1 files/);
    expect(refusal(() => resolveExecutable("C:\\t\\x", windows("", ["C:\\t\\x"]))).reason).toMatch(/no extension/);
  });

  it("ignores PATHEXT entries that are paths, a lone dot or a relative name, and never probes them", () => {
    const { isFile, probed } = windowsFiles("C:\\t\\x.cmd", "C:\\evil\\.exe", "C:\\t\\x");
    const found = resolveExecutable("x", windows("C:\\t", [], { isFile, pathExt: "C:\\evil\\.EXE;.;.\\x;;.cmd" }));
    expect(found).toEqual({ path: "C:\\t\\x.CMD", kind: "batch" });
    expect(probed).toEqual(["C:\\t\\x.CMD"]);
  });

  it("a kubectl.exe.cmd found before kubectl.exe is reported as a batch file (it goes to the batch gate, never spawned directly)", () => {
    const found = resolveExecutable("kubectl.exe", windows("C:\\one;C:\\two", ["C:\\one\\kubectl.exe.cmd", "C:\\two\\kubectl.exe"]));
    expect(found).toEqual({ path: "C:\\one\\kubectl.exe.CMD", kind: "batch" });
  });

  it("falls back to the default PATHEXT when the given one is empty or holds no usable entry", () => {
    for (const pathExt of ["", ";;", "EXE;*;.e x e"]) {
      expect(resolveExecutable("x", windows("C:\\t", ["C:\\t\\x.cmd"], { pathExt })).path, pathExt).toBe("C:\\t\\x.CMD");
    }
  });

  it("reports a missing absolute file as not found", () => {
    expect(notFound(() => resolveExecutable("C:\\t\\x.exe", windows("", []))).message).toContain("no such file");
  });
});
