/**
 * physicalPath answers where the kernel puts a path, links and `..` included, even below parts that do not
 * exist yet: the agent registration checks (is a configuration root inside the project?) rely on it.
 */
import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { physicalPath } from "../../../src/config/physical-path.js";
import { tempDirectory } from "../../support/temp-dirs.js";

describe.runIf(process.platform !== "win32")("physicalPath", () => {
  function tree(): { base: string; project: string } {
    const base = tempDirectory("torii-physical-");
    const project = path.join(base, "project");
    mkdirSync(path.join(project, "sub"), { recursive: true });
    mkdirSync(path.join(base, "safe"));
    symlinkSync(path.join(project, "sub"), path.join(base, "safe", "link"));
    return { base, project };
  }

  test("`..` after a link is the link target's parent, as the kernel reads it, not the link's sibling", () => {
    const { base, project } = tree();
    expect(physicalPath(path.join(base, "safe", "link") + "/../cfg")).toBe(path.join(project, "cfg"));
    expect(physicalPath(path.join(base, "safe", "link") + "/../cfg/deeper")).toBe(path.join(project, "cfg", "deeper"));
  });

  test("a link reached again through `..` below a part that does not exist is still followed", () => {
    const { base, project } = tree();
    expect(physicalPath(path.join(base, "safe", "missing") + "/../link/cfg")).toBe(path.join(project, "sub", "cfg"));
  });

  test("a path without links keeps its spelling; a relative one is taken from the working directory", () => {
    const { base } = tree();
    expect(physicalPath(path.join(base, "safe", "new", "cfg"))).toBe(path.join(base, "safe", "new", "cfg"));
    expect(physicalPath("relative-missing-dir/x")).toBe(path.join(physicalPath(process.cwd()), "relative-missing-dir", "x"));
  });
});
