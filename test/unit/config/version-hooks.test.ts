/**
 * An rbenv-family manager that would source a hook it does not ship in a
 * shim's run (config/version-hooks.ts) is one Torii cannot pin: refused as the
 * program, its shims directory taken off the child's PATH. On real directories
 * laid out as rbenv with the rbenv-vars plugin and as pyenv with its own hooks,
 * with the real trust rule.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { searchTrust } from "../../../src/config/search-trust.js";
import { pinVersionManagers, VersionPinError } from "../../../src/config/version-pin.js";
import type { SearchPathContext } from "../../../src/runtime/search-path.js";
import { writeExecutable } from "../../support/fake-clis.js";
import { chmodSharedGroup } from "../../support/shared-group.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const posixOnly = process.platform === "win32" ? describe.skip : describe;

/** An rbenv-family shim as the manager's rehash writes it: it exports the root and runs `<root>/libexec/<name> exec`. */
const envShim = (name: string, root: string): string =>
  `#!/usr/bin/env bash\nset -e\nprogram="\${0##*/}"\nexport ${name.toUpperCase()}_ROOT="${root}"\nexec "${root}/libexec/${name}" exec "$program" "$@"\n`;

/**
 * A home with rbenv and pyenv cloned to their roots (each with its shims, its program and a global choice),
 * a system bin, and a project that plants what a hook would read there.
 */
function layout() {
  const top = tempDirectory("torii-hooks-");
  const home = path.join(top, "home");
  const project = path.join(top, "project");
  const system = path.join(top, "system-bin");
  const rbenvRoot = path.join(home, ".rbenv");
  const pyenvRoot = path.join(home, ".pyenv");
  for (const [name, root, program, version] of [
    ["rbenv", rbenvRoot, "ruby", "3.2.2"],
    ["pyenv", pyenvRoot, "python3", "3.11.7"],
  ] as const) {
    writeExecutable(path.join(root, "shims", program), envShim(name, root));
    writeExecutable(path.join(root, "libexec", name), `#!/usr/bin/env bash\n# the ${name} program\n`);
    writeFileSync(path.join(root, "version"), `${version}\n`);
  }
  writeExecutable(path.join(system, "kubectl"), "\u007fELF kubectl\n");
  mkdirSync(project, { recursive: true });
  // What the agent plants: a hook that reads the working directory would export it into the program.
  writeFileSync(path.join(project, ".rbenv-vars"), "RUBYOPT=-r./planted.rb\n");
  const context = (): SearchPathContext => ({ platform: "linux", cwd: project, selfDir: path.join(top, "torii"), trust: searchTrust("linux") });
  const env = (pathDirs: readonly string[], extra: Record<string, string> = {}): Record<string, string> => ({ HOME: home, PATH: pathDirs.join(":"), ...extra });
  return { top, home, project, system, rbenvRoot, pyenvRoot, context, env };
}

/** Installs a plugin as `git clone` into `<root>/plugins` does, with one hook (a stand-in: it reads the working directory). */
function installPluginHook(root: string, manager: string, plugin: string, command: string, file: string): string {
  const hook = path.join(root, "plugins", plugin, "etc", `${manager}.d`, command, file);
  mkdirSync(path.dirname(hook), { recursive: true });
  writeFileSync(hook, `# reads .${plugin} from the working directory and exports what it names\neval "$(${plugin})"\n`);
  return hook;
}

posixOnly("a hook the manager does not ship: the manager cannot be pinned", () => {
  it("refuses an rbenv shim as the program when the rbenv-vars plugin's exec hook is installed, naming the plugin and the fix", () => {
    const { rbenvRoot, system, context, env } = layout();
    installPluginHook(rbenvRoot, "rbenv", "rbenv-vars", "exec", "rbenv-vars.bash");
    const run = (): unknown => pinVersionManagers(env([system]), path.join(rbenvRoot, "shims", "ruby"), context());
    expect(run).toThrow(VersionPinError);
    expect(run).toThrow(
      /ruby is a shim of rbenv.*cannot pin it: its exec hook rbenv-vars\.bash in the plugin rbenv-vars is none that rbenv ships.*remove the plugin, or run the real program by its absolute path/u,
    );
    // The message names no path (the root came from PATH or from the program's path).
    expect(run).not.toThrow(new RegExp(rbenvRoot.replaceAll("/", "\\/"), "u"));
  });

  it("takes rbenv's shims directory off the child's PATH when the plugin is installed; RBENV_VERSION still pins what reaches rbenv another way", () => {
    const { rbenvRoot, pyenvRoot, system, context, env } = layout();
    installPluginHook(rbenvRoot, "rbenv", "rbenv-vars", "exec", "rbenv-vars.bash");
    const rbenvShims = path.join(rbenvRoot, "shims");
    const pyenvShims = path.join(pyenvRoot, "shims");
    const pinned = pinVersionManagers(env([rbenvShims, pyenvShims, system]), path.join(system, "kubectl"), context());
    expect(pinned.env.PATH).toBe(`${pyenvShims}:${system}`);
    // Harmless where the shims are gone, and a link to one of its shims elsewhere still finds the operator's version.
    expect(pinned.env.RBENV_VERSION).toBe("3.2.2");
    expect(pinned.env.PYENV_VERSION).toBe("3.11.7");
  });

  it("counts the hooks of every command a shim's run sources (version-name, which), not those of other commands", () => {
    const { rbenvRoot, system, context, env } = layout();
    const ruby = path.join(rbenvRoot, "shims", "ruby");
    const plugin = path.join(rbenvRoot, "plugins", "rbenv-bundler-ruby-version");
    installPluginHook(rbenvRoot, "rbenv", "rbenv-bundler-ruby-version", "version-name", "bundler.bash");
    expect(() => pinVersionManagers(env([system]), ruby, context())).toThrow(/its version-name hook bundler\.bash in the plugin rbenv-bundler-ruby-version/u);
    rmSync(plugin, { recursive: true });
    const which = path.join(rbenvRoot, "rbenv.d", "which", "gemset.bash");
    mkdirSync(path.dirname(which), { recursive: true });
    writeFileSync(which, "# reads .rbenv-gemsets from the working directory\n");
    expect(() => pinVersionManagers(env([system]), ruby, context())).toThrow(/its which hook gemset\.bash in rbenv's own rbenv\.d/u);
    rmSync(path.dirname(which), { recursive: true });
    // `rbenv install` runs its hooks; a shim's run never does.
    installPluginHook(rbenvRoot, "rbenv", "ruby-build", "install", "after.bash");
    expect(pinVersionManagers(env([system]), ruby, context()).env.RBENV_VERSION).toBe("3.2.2");
  });

  it("counts a hook directory named by RBENV_HOOK_PATH in the child's environment, even when the operator's .env pins the version", () => {
    const { top, rbenvRoot, system, context, env } = layout();
    const hooks = path.join(top, "operator-hooks");
    mkdirSync(path.join(hooks, "exec"), { recursive: true });
    writeFileSync(path.join(hooks, "exec", "dotenv.bash"), "# reads .env from the working directory\n");
    const ruby = path.join(rbenvRoot, "shims", "ruby");
    expect(() => pinVersionManagers(env([system], { RBENV_HOOK_PATH: hooks, RBENV_VERSION: "3.2.2" }), ruby, context())).toThrow(
      /its exec hook dotenv\.bash in a directory of `\$RBENV_HOOK_PATH` is none that rbenv ships/u,
    );
    // Without the variable the same directory is none of rbenv's places.
    expect(pinVersionManagers(env([system]), ruby, context()).env.RBENV_VERSION).toBe("3.2.2");
  });

  it("refuses a hook directory the agent can write to, even empty: RBENV_HOOK_PATH in the working directory, or relative", () => {
    const { project, rbenvRoot, system, context, env } = layout();
    const ruby = path.join(rbenvRoot, "shims", "ruby");
    const inProject = env([system], { RBENV_HOOK_PATH: path.join(project, "hooks") });
    expect(() => pinVersionManagers(inProject, ruby, context())).toThrow(
      /a directory of `\$RBENV_HOOK_PATH`, where rbenv looks for hooks, does not exist and could be created by another: at or below the working directory/u,
    );
    expect(() => pinVersionManagers(env([system], { RBENV_HOOK_PATH: "hooks" }), ruby, context())).toThrow(/names a relative directory/u);
  });
});

posixOnly("hooks the manager ships itself", () => {
  /** pyenv's own exec hook, as installed on this machine (read at test time: Torii's tree holds no copy of pyenv's code). */
  const installedPipRehash = path.join(os.homedir(), ".pyenv", "pyenv.d", "exec", "pip-rehash.bash");

  it.runIf(existsSync(installedPipRehash))("a plain pyenv with its own pip-rehash hook is still pinned, as the program and on PATH", () => {
    const { pyenvRoot, system, context, env } = layout();
    const shipped = path.join(pyenvRoot, "pyenv.d", "exec", "pip-rehash.bash");
    mkdirSync(path.dirname(shipped), { recursive: true });
    copyFileSync(installedPipRehash, shipped);
    const shims = path.join(pyenvRoot, "shims");
    const pinned = pinVersionManagers(env([shims, system]), path.join(shims, "python3"), context());
    expect(pinned.env.PYENV_VERSION).toBe("3.11.7");
    expect(pinned.env.PATH).toBe(`${shims}:${system}`);
  });

  it("refuses a file of any other content under a shipped hook's name (content, not names)", () => {
    const { pyenvRoot, system, context, env } = layout();
    const impostor = path.join(pyenvRoot, "pyenv.d", "exec", "pip-rehash.bash");
    mkdirSync(path.dirname(impostor), { recursive: true });
    writeFileSync(impostor, "# reads .python-env from the working directory\n");
    expect(() => pinVersionManagers(env([system]), path.join(pyenvRoot, "shims", "python3"), context())).toThrow(
      /its exec hook pip-rehash\.bash in pyenv's own pyenv\.d is none that pyenv ships/u,
    );
  });
});

posixOnly("a remembered look at the hooks", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sees a plugin installed after a look was remembered: the next call refuses the manager", () => {
    const { rbenvRoot, system, context, env } = layout();
    mkdirSync(path.join(rbenvRoot, "plugins"));
    const ruby = path.join(rbenvRoot, "shims", "ruby");
    // The files were just written: with the clock a minute ahead their times count as settled, so the look is kept.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 60_000 });
    expect(pinVersionManagers(env([system]), ruby, context()).env.RBENV_VERSION).toBe("3.2.2");
    expect(pinVersionManagers(env([system]), ruby, context()).env.RBENV_VERSION).toBe("3.2.2");
    installPluginHook(rbenvRoot, "rbenv", "rbenv-vars", "exec", "rbenv-vars.bash");
    expect(() => pinVersionManagers(env([system]), ruby, context())).toThrow(/the plugin rbenv-vars/u);
  });

  it("sees a hook added to an existing plugin's hook directory after a look was remembered", () => {
    const { rbenvRoot, system, context, env } = layout();
    const exec = path.dirname(installPluginHook(rbenvRoot, "rbenv", "rbenv-vars", "install", "x.bash"));
    mkdirSync(path.join(path.dirname(exec), "exec"));
    const ruby = path.join(rbenvRoot, "shims", "ruby");
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 60_000 });
    expect(pinVersionManagers(env([system]), ruby, context()).env.RBENV_VERSION).toBe("3.2.2");
    writeFileSync(path.join(path.dirname(exec), "exec", "late.bash"), "# reads the working directory\n");
    expect(() => pinVersionManagers(env([system]), ruby, context())).toThrow(/its exec hook late\.bash in the plugin rbenv-vars/u);
  });

  it("sees the operator's trusted directories narrowed after a look was remembered: a group-writable hook place they accepted is refused", () => {
    const { rbenvRoot, project, top, system, env } = layout();
    // The manager's own hook place, writable by a group that is not the user's private one: only `path.trusted_directories` accepts it.
    const place = path.join(rbenvRoot, "rbenv.d");
    mkdirSync(place);
    chmodSharedGroup(place, 0o775);
    const ruby = path.join(rbenvRoot, "shims", "ruby");
    const trusting = (trustedDirectories: readonly string[]): SearchPathContext => ({
      platform: "linux",
      cwd: project,
      selfDir: path.join(top, "torii"),
      trust: searchTrust("linux", { trustedDirectories }),
    });
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 60_000 });
    expect(pinVersionManagers(env([system]), ruby, trusting([place])).env.RBENV_VERSION).toBe("3.2.2");
    expect(pinVersionManagers(env([system]), ruby, trusting([place])).env.RBENV_VERSION).toBe("3.2.2");

    expect(() => pinVersionManagers(env([system]), ruby, trusting([]))).toThrow(/rbenv's own rbenv\.d, where rbenv looks for hooks, is refused/u);
  });
});

posixOnly("hook places behind links, not there yet, or named by a pattern (review 15)", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("refuses a plugin linked to a place that does not exist: the link could be completed later (in the project, or anywhere)", () => {
    const { top, project, rbenvRoot, system, context, env } = layout();
    mkdirSync(path.join(rbenvRoot, "plugins"));
    const ruby = path.join(rbenvRoot, "shims", "ruby");
    symlinkSync(path.join(project, "rbenv-vars"), path.join(rbenvRoot, "plugins", "rbenv-vars"));
    expect(() => pinVersionManagers(env([system]), ruby, context())).toThrow(
      /the plugin rbenv-vars, where rbenv looks for hooks, lies behind a link that leads nowhere/u,
    );
    rmSync(path.join(rbenvRoot, "plugins", "rbenv-vars"));
    symlinkSync(path.join(top, "checkouts", "not-yet"), path.join(rbenvRoot, "plugins", "rbenv-vars"));
    expect(() => pinVersionManagers(env([system]), ruby, context())).toThrow(/lies behind a link that leads nowhere/u);
  });

  it("never keeps a look that passed a link: a linked plugin checkout whose directory others may now write is refused by the next call", () => {
    const { top, rbenvRoot, system, context, env } = layout();
    const checkouts = path.join(top, "checkouts");
    mkdirSync(path.join(checkouts, "rbenv-vars", "etc", "rbenv.d", "install"), { recursive: true });
    mkdirSync(path.join(rbenvRoot, "plugins"));
    symlinkSync(path.join(checkouts, "rbenv-vars"), path.join(rbenvRoot, "plugins", "rbenv-vars"));
    const ruby = path.join(rbenvRoot, "shims", "ruby");
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 60_000 });
    expect(pinVersionManagers(env([system]), ruby, context()).env.RBENV_VERSION).toBe("3.2.2");
    // Nothing on the plugin's own path changes: only the directory above the link's target.
    chmodSync(checkouts, 0o777);
    expect(() => pinVersionManagers(env([system]), ruby, context())).toThrow(/the plugin rbenv-vars, where rbenv looks for hooks, is refused/u);
  });

  it("refuses a RBENV_HOOK_PATH directory that does not exist yet behind a link into the project", () => {
    const { top, project, rbenvRoot, system, context, env } = layout();
    symlinkSync(project, path.join(top, "link"));
    const ruby = path.join(rbenvRoot, "shims", "ruby");
    const throughLink = env([system], { RBENV_HOOK_PATH: path.join(top, "link", "hooks") });
    expect(() => pinVersionManagers(throughLink, ruby, context())).toThrow(/could be created by another: at or below the working directory/u);
  });

  it("refuses a RBENV_HOOK_PATH item holding a pattern, which the manager's unquoted split expands", () => {
    const { top, rbenvRoot, system, context, env } = layout();
    const ruby = path.join(rbenvRoot, "shims", "ruby");
    for (const item of ["hook*", "hook?", "hook[s]"]) {
      expect(() => pinVersionManagers(env([system], { RBENV_HOOK_PATH: path.join(top, item) }), ruby, context())).toThrow(/holds a pattern/u);
    }
  });

  it("still pins the version of an installed manager with an unknown hook that is neither the program nor on PATH", () => {
    const { rbenvRoot, system, context, env } = layout();
    installPluginHook(rbenvRoot, "rbenv", "rbenv-vars", "exec", "rbenv-vars.bash");
    const pinned = pinVersionManagers(env([system]), path.join(system, "kubectl"), context());
    expect(pinned.env.RBENV_VERSION).toBe("3.2.2");
  });
});
