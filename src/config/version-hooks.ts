/**
 * The rbenv family's hooks: bash files a manager sources inside every run of
 * a shim, in the child's working directory, which `<NAME>_VERSION` does not
 * bind. The rbenv-vars plugin's `exec` hook reads `.rbenv-vars` from the
 * working directory and its parents and exports every variable it names into
 * the program (`RUBYOPT=-r./x.rb`: code run with the operator's credentials).
 * A manager with a hook Torii does not know is therefore one it cannot pin
 * (version-pin.ts refuses it as the program and drops its shims from PATH).
 *
 * Where the hooks come from, as rbenv 1.3, nodenv 1.6 and pyenv 2.6 build
 * `<NAME>_HOOK_PATH` in `libexec/<name>` (goenv and plenv are copies; jenv
 * keeps only the first and the last item, so looking at all of them only errs
 * on the closed side): the operator's `$<NAME>_HOOK_PATH`, `<root>/<name>.d`,
 * the install's own `<name>.d` (beside the `libexec` of the program the shim
 * runs, links resolved), `/usr/etc/<name>.d`, `/usr/local/etc/<name>.d`,
 * `/etc/<name>.d`, `/usr/lib/<name>/hooks`, and `<root>/plugins/<plugin>/etc/<name>.d`.
 * In each, `<command>/*.bash` is sourced by `<name> hooks <command>`.
 *
 * Which commands: a shim runs `<name> exec`, which sources the `exec` hooks and
 * runs `<name>-which` (`which` hooks) and `<name>-version-name` (`version-name`
 * hooks; `version-origin` on its error path); pyenv's own `exec` hook runs
 * `pyenv rehash` after `pip install` (`rehash` hooks). Any other command's
 * hooks (`install`, `init`, …) do not run in a shim's run.
 *
 * The rule (fail closed): every `*.bash` file in those places must be, byte for
 * byte, a hook the manager or pyenv-virtualenv shipped for that command in a
 * release (sha256 below; each was read and reads nothing relative to the
 * working directory), and every place that exists, and every one the operator's
 * variable names even before it exists, must pass the trust rule of PATH
 * entries (outside the working directory, owned by the operator or root, not
 * writable by others): else a hook could appear there after the look. A place
 * or hook that cannot be listed or read counts as unknown. Content, not names:
 * a plugin can name its file `pip-rehash.bash`.
 *
 * Cost: listing a dozen places, resolving and reading each hook takes about a
 * millisecond of CPU (pyenv with pyenv-virtualenv), once per manager and search
 * trust. Not remembered on its own from one call to the next: a call's pins as a
 * whole are (version-pin.ts), with every path this look read (observed-trust.ts),
 * and a paired measurement found a cache of the look saved only on a miss of that
 * memo, a handful of times in a server's life.
 */
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { readFailed, reliesOn } from "./observed-trust.js";
import { agentReach, MISSING_ENTRY, type SearchPathContext, type SearchTrust } from "../runtime/search-path.js";
import type { EnvFamilyManager } from "../runtime/version-shim-detect.js";

/** The hook commands a shim's run sources (the module header says how each is reached). */
const SHIM_RUN_COMMANDS = ["exec", "which", "version-name", "version-origin", "rehash"] as const;

/**
 * The sha256 of every hook each manager shipped for those commands in a release, by manager and command.
 * Collected from the projects' git histories (every file `<name>.d/<command>/*.bash` or
 * `etc/<name>.d/<command>/*.bash` at a release tag, and at the newest commit): pyenv from 2.0.0,
 * pyenv-virtualenv from 1.0.0 (its hooks name pyenv), rbenv from 1.0.0, nodenv from 1.0.0. Older
 * releases' versions are not listed: such an install is refused until it is upgraded.
 */
const SHIPPED_HOOKS: Readonly<Record<string, Readonly<Record<string, ReadonlySet<string>>>>> = {
  rbenv: {
    // gem-rehash.bash (1.0.0 to 1.3.2): puts its own rubygems plugin on RUBYLIB.
    exec: new Set(["e045d6d999ab9f8c009d7d0357c87f7a976b9953541415f60a5461ca4f8b7588"]),
  },
  nodenv: {
    // npx.bash (1.3.0 to 1.6.2): takes nodenv's shims off PATH for npx.
    exec: new Set(["ddf6203a3243a839dd51ff898d4dbb4ecd0b7e9781dd9249b606d1375a8f1744"]),
  },
  pyenv: {
    exec: new Set([
      // pip-rehash.bash: to 2.6.7, and from 2.6.8 (runs pip through its own wrapper, which rehashes after an install).
      "66a32a60c36fb9caa0f6ee337fe50ed0a4ead32f82b21e43af62795f9c18b731",
      "5c9bbfd89e90fd6f97bd5cfd5bfcf547514b989037ec42dc540790830ba6b126",
    ]),
    which: new Set([
      // pyenv-virtualenv's conda.bash (1.1.4 to 1.4.0), python-config.bash (1.0.0 to 1.1.1, 1.1.2 to 1.4.0),
      // system-site-packages.bash (1.0.0 to 1.4.0): each looks only below `$PYENV_ROOT/versions`.
      "7b2d31d9b9570ccd6cfce46ea29f61ac87deb372f84a8d93e30f4007693ab104",
      "b726aea248b8dfadac2d8f2eba0bef6141f51dc09830345f5792183bd84df85d",
      "e5b7db4fb65b3d5fecc872d0d5a1386427049d35a5be5c43eb6a3ee6c08e6f1d",
      "66a033c9d090f0bf7bed9354d83d360703a7359cddf797c4db9a6fdd77c9ff80",
    ]),
    rehash: new Set([
      // conda.bash: 2.0.0 to 2.0.5, 2.0.6 to 2.3.25, 2.3.26 to 2.5.2, from 2.5.3 (reads its own conda.d list).
      "193096acaa230a3628b10f514e843273783c47986881ebdc2af3e52dfbdc3bc4",
      "86b9a68fbef8ac3f1b570edbaed360000049c65cf7baaeeda8c59bd3f5d5e0db",
      "84101790501bd552b48595d207ef021f832306ec6b6413b64673d6869b7e4608",
      "a23b9a822e291dc4aa85cd81bd1b15c80badd74f421d998fbc33fb92323395b4",
      // source.bash: to 2.6.25, and from 2.6.26 (reads its own source.d lists).
      "b49732968e4b4e4f9036c58579a7501c2f600834155f1beeb55f3725875c254a",
      "3d4765d6130718314fa00d2d8da924fffff7101494407aa3293db2f0722412c2",
      // pyenv-virtualenv's envs.bash (1.0.0 to 1.4.0): shims for the virtualenvs below `$PYENV_ROOT/versions`.
      "5d04966908857b7f1c8aa89c0b37b74188a867ad523ae9884744a3f6527c068a",
    ]),
  },
};

/** A directory the manager looks for hooks in, and how a message names it (never by a path that came from PATH). */
interface HookPlace {
  readonly directory: string;
  readonly label: string;
}

/**
 * Why `manager` runs a hook Torii does not know in a shim's run, or undefined
 * when every hook it would source is one it ships. `env` is the child's (its
 * `<NAME>_HOOK_PATH` counts). Looked at once per manager and search trust; the
 * pins it is part of are remembered from one call to the next (version-pin.ts).
 */
export function unknownHookProblem(manager: EnvFamilyManager, env: Readonly<Record<string, string>>, context: SearchPathContext): string | undefined {
  const hookPathName = `${manager.name.toUpperCase()}_HOOK_PATH`;
  const hookPath = Object.hasOwn(env, hookPathName) ? env[hookPathName] : undefined;
  // The working directory and Torii's own are in the key: whether a place is in the agent's reach depends on them.
  const key = JSON.stringify([manager.name, manager.root, manager.program, hookPath ?? null, context.cwd, context.selfDir]);
  let seen = problemsSeen.get(context.trust);
  if (seen === undefined) problemsSeen.set(context.trust, (seen = new Map<string, string | undefined>()));
  if (!seen.has(key)) {
    // The install's hooks sit beside the manager's real program: a link repointed to another install changes it.
    const realProgram = context.trust.realPath(manager.program) ?? manager.program;
    seen.set(key, findUnknownHook(manager, hookPathName, hookPath, realProgram, context));
  }
  return seen.get(key);
}

/** What each manager was found to run, per search trust: one computation. */
const problemsSeen = new WeakMap<SearchTrust, Map<string, string | undefined>>();

/**
 * The look itself. It tells the search trust's observer (observed-trust.ts) each path before it looks at it (a call
 * whose pins are remembered relies on what each place lists and each hook holds), and each listing or read that failed
 * for a reason the lstats do not show, such as too many open files (that verdict answers this call only).
 */
function findUnknownHook(
  manager: EnvFamilyManager,
  hookPathName: string,
  hookPath: string | undefined,
  realProgram: string,
  context: SearchPathContext,
): string | undefined {
  const { trust } = context;
  const places = hookPlaces(manager, hookPathName, hookPath, realProgram, trust);
  if (typeof places === "string") return places;
  const reach = agentReach(context);
  const shipped = SHIPPED_HOOKS[manager.name] ?? {};
  for (const { directory, label } of places) {
    reliesOn(trust, directory, true);
    const listed = entriesOf(directory);
    if (listed === undefined) {
      readFailed(trust);
      return `${label} cannot be listed, so Torii cannot tell which hooks ${manager.name} runs`;
    }
    // A place the agent can write to (in the working directory, or open to others) could gain a hook after this
    // look. The default places that do not exist lie in the operator's root or the system's directories; one the
    // operator named may not exist yet and still lie in the working directory.
    if (listed === NOTHING_THERE) {
      // Whoever can create it could put a hook there after this look: the nearest directory (or link) above it
      // that exists must pass the trust rule outside the agent's reach, and a link there must lead somewhere.
      const creator = nearestExisting(directory);
      const creatorReason = reach(creator, "directory");
      if (creatorReason === MISSING_ENTRY)
        return `${label}, where ${manager.name} looks for hooks, lies behind a link that leads nowhere, which could be completed later`;
      if (creatorReason !== undefined)
        return `${label}, where ${manager.name} looks for hooks, does not exist and could be created by another: ${creatorReason}`;
      continue;
    }
    const placeReason = reach(directory, "directory");
    if (placeReason !== undefined) return `${label}, where ${manager.name} looks for hooks, is refused: ${placeReason}`;
    // Each command's directory by its own name, as the manager opens it (a listing compared by name would miss
    // `Exec/` on a filesystem that ignores case).
    for (const command of SHIM_RUN_COMMANDS) {
      reliesOn(trust, path.join(directory, command), true);
      const hooks = entriesOf(path.join(directory, command));
      if (hooks === undefined) {
        readFailed(trust);
        return `the ${command} hooks of ${label} cannot be listed, so Torii cannot tell which hooks ${manager.name} runs`;
      }
      if (hooks === NOTHING_THERE) continue;
      for (const name of hooks.filter((each) => each.endsWith(".bash"))) {
        const file = path.join(directory, command, name);
        reliesOn(trust, file, true);
        const digest = sha256Of(file);
        if (digest === undefined) readFailed(trust);
        const known = reach(file, "file") === undefined && shipped[command]?.has(digest ?? "") === true;
        if (!known) {
          return (
            `its ${command} hook ${name} in ${label} is none that ${manager.name} ships: ${manager.name} sources it in every run of a shim, ` +
            `in the working directory, and ${manager.versionVariable} does not bind it (the rbenv-vars plugin's hook exports every variable a ` +
            `.rbenv-vars there names); remove ${label.startsWith("the plugin") ? "the plugin" : "the hook"}, or run the real program by its absolute path instead, as the provider's command`
          );
        }
      }
    }
  }
  return undefined;
}

/** The places `manager` sources hooks from, in its order, or why they cannot be known (the plugins listing told to `trust`'s observer). */
function hookPlaces(
  manager: EnvFamilyManager,
  hookPathName: string,
  hookPath: string | undefined,
  realProgram: string,
  trust: SearchTrust,
): readonly HookPlace[] | string {
  const { name, root } = manager;
  const places: HookPlace[] = [];
  // The manager prepends the operator's value and a `:`: an empty item is then `/`, as bash joins `"$dir/exec"`.
  for (const item of hookPath === undefined || hookPath === "" ? [] : hookPath.split(":")) {
    const directory = item === "" ? "/" : item;
    if (!path.isAbsolute(directory)) return `\`$${hookPathName}\` names a relative directory, which ${name} would read from the working directory`;
    // The manager splits the value unquoted, so bash expands a pattern in an item to whatever matches it then.
    if (/[*?[]/u.test(directory))
      return `\`$${hookPathName}\` holds a pattern (\`*\`, \`?\` or \`[\`), which ${name} expands to whatever matches it when it runs`;
    places.push({ directory, label: `a directory of \`$${hookPathName}\`` });
  }
  places.push({ directory: path.join(root, `${name}.d`), label: `${name}'s own ${name}.d` });
  const install = path.dirname(path.dirname(realProgram));
  if (install !== root) places.push({ directory: path.join(install, `${name}.d`), label: `the ${name}.d of ${name}'s install` });
  for (const directory of [`/usr/etc/${name}.d`, `/usr/local/etc/${name}.d`, `/etc/${name}.d`, `/usr/lib/${name}/hooks`]) {
    places.push({ directory, label: directory });
  }
  const pluginsDirectory = path.join(root, "plugins");
  reliesOn(trust, pluginsDirectory, true);
  const plugins = entriesOf(pluginsDirectory);
  if (plugins === undefined) {
    readFailed(trust);
    return `${name}'s plugins directory cannot be listed, so Torii cannot tell which hooks ${name} runs`;
  }
  for (const plugin of plugins === NOTHING_THERE ? [] : plugins) {
    places.push({ directory: path.join(pluginsDirectory, plugin, "etc", `${name}.d`), label: `the plugin ${plugin}` });
  }
  return places;
}

/**
 * The nearest path at or above `missing` that is a directory or a link (lstat): what has to change for `missing`
 * to appear. A regular file on the way (pyenv's `plugins/.gitignore`) is passed: only its directory can replace it.
 */
function nearestExisting(missing: string): string {
  for (let current = path.dirname(missing); ; current = path.dirname(current)) {
    let stats;
    try {
      stats = lstatSync(current, { throwIfNoEntry: false });
    } catch {
      // ENOTDIR (a file on the way) or unreadable: look further up.
      stats = undefined;
    }
    if (stats !== undefined && (stats.isDirectory() || stats.isSymbolicLink())) return current;
    if (path.dirname(current) === current) return current;
  }
}

/** No directory there (nothing, or a file such as pyenv's `plugins/.gitignore`): the manager's glob matches nothing in it. */
const NOTHING_THERE = Symbol("nothing there");

/** The names in `directory`, sorted; NOTHING_THERE when it is no directory; undefined when it cannot be listed. */
function entriesOf(directory: string): string[] | typeof NOTHING_THERE | undefined {
  try {
    return readdirSync(directory).sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? NOTHING_THERE : undefined;
  }
}

function sha256Of(file: string): string | undefined {
  try {
    return createHash("sha256").update(readFileSync(file)).digest("hex");
  } catch {
    return undefined;
  }
}
