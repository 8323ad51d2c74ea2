import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { workingDirectoryConfigFound } from "../../../src/runtime/working-directory-config.js";
import { tempDirectory } from "../../support/temp-dirs.js";

/** home/project/sub, with `files` (relative to the root) written. */
function tree(files: readonly string[] = []): { root: string; home: string; project: string; sub: string } {
  const root = tempDirectory("torii-wd-config-");
  const home = path.join(root, "home");
  const project = path.join(home, "project");
  const sub = path.join(project, "sub");
  mkdirSync(sub, { recursive: true });
  for (const file of files) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), "[defaults]\ngroup = planted\n");
  }
  return { root, home, project, sub };
}

describe("workingDirectoryConfigFound", () => {
  it("finds the file in the working directory", () => {
    const { sub, home } = tree(["home/project/sub/.azure/config"]);
    expect(workingDirectoryConfigFound(sub, home, [".azure/config"])).toEqual([path.join(sub, ".azure", "config")]);
  });

  it("finds it in a parent of the working directory, as az looks there too", () => {
    const { project, sub, home } = tree(["home/project/.azure/config"]);
    expect(workingDirectoryConfigFound(sub, home, [".azure/config"])).toEqual([path.join(project, ".azure", "config")]);
  });

  it("stops below HOME: the operator's own ~/.azure/config is not the project's", () => {
    const { sub, home } = tree(["home/.azure/config"]);
    expect(workingDirectoryConfigFound(sub, home, [".azure/config"])).toEqual([]);
  });

  it("stops below HOME also when HOME is spelled through a link and the working directory is its real path", () => {
    const { root, sub } = tree(["home/.azure/config"]);
    const linkedHome = path.join(root, "linked-home");
    symlinkSync(path.join(root, "home"), linkedHome);
    expect(workingDirectoryConfigFound(sub, linkedHome, [".azure/config"])).toEqual([]);
  });

  it("walks up to the root when the working directory is not under HOME, or HOME is unset", () => {
    const { root, sub } = tree(["home/.azure/config"]);
    // Above the test's root the walk goes on to the filesystem root (this machine's own ~/.azure may be there).
    const inTree = (found: string[]): string[] => found.filter((file) => file.startsWith(root + path.sep));
    expect(inTree(workingDirectoryConfigFound(sub, path.join(root, "elsewhere"), [".azure/config"]))).toEqual([path.join(root, "home", ".azure", "config")]);
    expect(inTree(workingDirectoryConfigFound(sub, undefined, [".azure/config"]))).toEqual([path.join(root, "home", ".azure", "config")]);
  });

  it("counts a directory or a dangling link of that name, which the agent could complete later", () => {
    const { sub, project, home } = tree();
    mkdirSync(path.join(sub, ".azure", "config"), { recursive: true });
    mkdirSync(path.join(project, ".azure"));
    symlinkSync(path.join(project, "nowhere"), path.join(project, ".azure", "config"));
    expect(workingDirectoryConfigFound(sub, home, [".azure/config"])).toEqual([path.join(sub, ".azure", "config"), path.join(project, ".azure", "config")]);
  });

  it("finds nothing when the directories hold other files, or when no entry is declared", () => {
    const { sub, home } = tree(["home/project/.azure/config.json", "home/project/sub/config"]);
    expect(workingDirectoryConfigFound(sub, home, [".azure/config"])).toEqual([]);
    const planted = tree(["home/project/.azure/config"]);
    expect(workingDirectoryConfigFound(planted.sub, planted.home, [])).toEqual([]);
  });
});
