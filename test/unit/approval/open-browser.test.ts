/**
 * The browser opener is started by the server itself with the one-time link
 * in its argv, so it must never be found where the agent can write: real files
 * and the real PATH search, no mocks.
 */
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openerLaunch } from "../../../src/approval/open-browser.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const URL = "http://127.0.0.1:1/a/0123456789abcdef/secret";
/** A project (the server's working directory) with a planted `xdg-open` in node_modules/.bin and at its top, and a system bin dir with the real one. */
function layout() {
  // Not below the system temp directory, which the search never enters (temp-dirs.ts).
  const top = tempDirectory("torii-opener-");
  const project = path.join(top, "project");
  const system = path.join(top, "system-bin");
  for (const dir of [path.join(project, "node_modules", ".bin"), system]) mkdirSync(dir, { recursive: true });
  for (const file of [path.join(project, "node_modules", ".bin", "xdg-open"), path.join(project, "xdg-open"), path.join(system, "xdg-open")]) {
    writeFileSync(file, "#!/bin/sh\n");
    chmodSync(file, 0o755);
  }
  return { project, system, place: { cwd: project, selfDir: path.join(top, "torii", "dist") } };
}

describe("the browser opener is found outside the agent's reach", () => {
  it("Linux: relative and empty PATH entries and the working directory are never searched; the opener runs in / with a PATH of absolute entries", () => {
    const { project, system, place } = layout();
    const env = { PATH: `node_modules/.bin:.::${project}:${system}`, DISPLAY: ":0" };
    const launch = openerLaunch(URL, env, place, "linux");
    expect(launch).toMatchObject({ file: path.join(system, "xdg-open"), args: [URL], cwd: "/" });
    expect(launch?.env.PATH).toBe(system);
    expect(launch?.env.DISPLAY).toBe(":0");
  });

  it("Linux: an absolute entry in the project (npx, venv activation, direnv) or a link spelling of it is not searched either", () => {
    const { project, system, place } = layout();
    const link = path.join(path.dirname(project), "project-link");
    symlinkSync(project, link);
    const env = { PATH: `${project}/node_modules/.bin:${link}/node_modules/.bin:${link}:${system}`, DISPLAY: ":0" };
    const launch = openerLaunch(URL, env, place, "linux");
    expect(launch).toMatchObject({ file: path.join(system, "xdg-open"), cwd: "/" });
    expect(launch?.env.PATH).toBe(system);
    expect(openerLaunch(URL, { PATH: `${project}/node_modules/.bin:${link}`, DISPLAY: ":0" }, place, "linux")).toBeUndefined();
  });

  it("Linux: an xdg-open in a directory others can write to is not started", () => {
    const { system, place } = layout();
    chmodSync(system, 0o777);
    expect(openerLaunch(URL, { PATH: system, DISPLAY: ":0" }, place, "linux")).toBeUndefined();
  });

  it("Linux: with only the agent's copies reachable, no opener is started", () => {
    const { project, place } = layout();
    expect(openerLaunch(URL, { PATH: `node_modules/.bin:.:${project}` }, place, "linux")).toBeUndefined();
  });

  it("macOS and Windows use the system's own opener by its full path", () => {
    const { place } = layout();
    expect(openerLaunch(URL, { PATH: "." }, place, "darwin")).toMatchObject({ file: "/usr/bin/open", cwd: "/" });
    expect(openerLaunch(URL, { SystemRoot: "D:\\Win" }, place, "win32")).toMatchObject({ file: "D:\\Win\\explorer.exe", cwd: "D:\\Win" });
    expect(openerLaunch(URL, { SystemRoot: "..\\planted" }, place, "win32")).toMatchObject({ file: "C:\\Windows\\explorer.exe" });
  });
});
