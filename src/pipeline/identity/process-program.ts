/**
 * What a profile's `credential_process` line runs, judged before it runs: the
 * argument vector the AWS CLI makes of it (botocore splits it with
 * `shlex.split` and starts the first word without a shell, through the PATH
 * of its own environment, in its own working directory: the child's), with the
 * program held to the rule of any program Torii starts (runtime/resolve-executable.ts:
 * found through the child's PATH, or absolute, and then neither at or below
 * the working directory nor writable by others, by real path).
 *
 * The working directory is the agent's project, and a program is not the only
 * thing a line can take from there:
 *
 * - an interpreter (`python3 creds.py`, `node x.js`, `bash x.sh`) reads its
 *   script by the path it is given: a relative script is the project's file,
 *   and interpreter options read code too (`-c`, `-m`, `-r ./x`, and Python
 *   puts the working directory first on its module path for `-c` and `-m`).
 *   So an interpreter's first argument must be its script, by absolute path,
 *   and that script is held to the program's rule (the same trust check, by
 *   real path);
 * - a program that runs another one (`env`, `nice`, `timeout`, `sudo`, …) or
 *   reads its work from the working directory (`make`, `npx`, `uv run`,
 *   `go run`, `cargo`, …) is refused: name the real program directly;
 * - any argument spelt as a relative path (`./x`, `../x`, `~/x`, `--config=./x`)
 *   is refused: whatever reads it reads the project's file.
 *
 * Windows lines run through cmd.exe (as the SDK ran them) after the relative
 * program check of process-line.ts; the rules above are for POSIX.
 */
import { lstatSync, realpathSync, statSync, type Stats } from "node:fs";
import path from "node:path";
import { searchTrust } from "../../config/search-trust.js";
import { ExecutableNotFoundError, ExecutableRefusedError, resolveExecutable } from "../../runtime/resolve-executable.js";
import { agentReach } from "../../runtime/search-path.js";
import type { ProcessPlace } from "./aws-call-plan.js";
import { ProbeRefusal } from "./probe-refusal.js";
import { processLineRunsFromWorkingDirectory, shlexWords } from "./process-line.js";

/** How the probe runs a credential_process: an argument vector without a shell (POSIX), or the line through cmd.exe (Windows). */
export type CredentialProcessPlan =
  { readonly kind: "argv"; readonly file: string; readonly args: readonly string[] } | { readonly kind: "shell"; readonly line: string };

/**
 * Interpreters: their first argument is a script they read by the path given. Version suffixes count
 * (`python3.12`, `ruby-3.3`), and so do build tags after them (`python3.13t` free-threaded, `python3.12-dbg`,
 * `python3m`, `pythonw`) and a Windows `.exe`.
 */
const INTERPRETER =
  /^(?:python|pypy|ipython|jython|node|nodejs|bun|deno|ruby|jruby|irb|perl|php|php-cgi|lua|luajit|tclsh|wish|expect|rscript|r|osascript|pwsh|powershell|sh|bash|rbash|dash|zsh|ksh|oksh|mksh|yash|ash|posh|fish|csh|tcsh|rc|nu|xonsh|elvish|awk|gawk|mawk|nawk|java|groovy|kotlin|scala|julia|swift|elixir|escript|guile|racket|sbcl|gjs|qjs|ts-node|tsx)(?:-?[0-9][0-9.]*)?(?:t|m|d|u|w|-dbg|-debug)?(?:\.exe)?$/iu;

/**
 * Programs that run another program (wrappers, tracers, debuggers, namespace and sandbox launchers), or read
 * what to run from the working directory (build tools, git's repository configuration, version managers
 * and their shims, which pick a version by the directory's `.tool-versions` or `.python-version`): refused.
 * A list cannot be complete: an argument naming a file of the working directory is refused for any program
 * (namesWorkingDirectoryFile).
 */
const INDIRECT =
  /^(?:env|nice|nohup|timeout|stdbuf|sudo|doas|su|runuser|pkexec|sg|xargs|command|exec|time|setsid|chrt|ionice|taskset|numactl|prlimit|setpriv|capsh|runcon|flock|watch|script|busybox|toybox|strace|ltrace|valgrind|gdb|lldb|unshare|nsenter|chroot|fakeroot|fakechroot|faketime|firejail|bwrap|systemd-run|flatpak-spawn|proxychains|proxychains4|torsocks|catchsegv|arch|sandbox-exec|nix|nix-shell|docker|podman|git|asdf|mise|rtx|volta|volta-shim|pyenv|rbenv|nodenv|goenv|jenv|plenv|phpenv|direnv|fnm|proto|make|gmake|just|npx|npm|pnpm|yarn|bunx|uv|uvx|poetry|pipenv|pipx|go|cargo|dotnet|mvn|gradle|rake|bundle)(?:-?[0-9][0-9.]*)?$/iu;

/** A word that names a path relative to the working directory, alone or as an option's value (`--config=./x`). */
const RELATIVE_PATH_WORD = /(?:^|=)(?:\.\.?|~[^/]*)(?:\/|$)/u;

/**
 * Whether `arg` (or the value of `--option=value`) names an existing file of the working directory by a
 * relative path: a bare `creds.sed` (a file, or a link to one or to nothing), or `sub/creds` whose first
 * part is there. A program on no list
 * (`sed -f`, `gdb -x`, `vim -S`, `m4`) may read code from it. A bare word naming a directory passes (a
 * profile name such as `prod` beside a `prod/` directory of the project); ARNs and URLs (a `:` before the
 * first `/`) are no paths.
 */
function namesWorkingDirectoryFile(arg: string, cwd: string): boolean {
  // An option names a file by its `=` value only; a bare option's value is the next argument, judged as one.
  const value = !arg.startsWith("-") ? arg : arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : "";
  if (value === "" || path.posix.isAbsolute(value)) return false;
  const slash = value.indexOf("/");
  if (slash === -1) return kindOf(path.resolve(cwd, value)) === "file";
  const first = value.slice(0, slash);
  return !first.includes(":") && kindOf(path.resolve(cwd, first)) !== undefined;
}

/**
 * What is at `file`: a directory ("other"), anything else that is there ("file"), or nothing. A symbolic
 * link counts as what it points to, and as a file when that is not there yet: whoever wrote the link can
 * create its target after the check.
 */
function kindOf(file: string): "file" | "other" | undefined {
  let entry: Stats;
  try {
    entry = lstatSync(file);
  } catch {
    return undefined;
  }
  if (!entry.isSymbolicLink()) return entry.isDirectory() ? "other" : "file";
  try {
    return statSync(file).isDirectory() ? "other" : "file";
  } catch {
    return "file";
  }
}

function refused(label: string, reason: string): ProbeRefusal {
  return new ProbeRefusal("CredentialProcessRefused", `the credential_process of ${label} ${reason}`);
}

/**
 * How `line` (the credential_process of the profile `label` names) runs in the
 * child's `env` at `place`, or a refusal saying what to change (never the
 * line's words: an argument may hold a value).
 *
 * @throws ProbeRefusal RelativeCredentialProcess, CredentialProcessRefused.
 */
export function planCredentialProcess(line: string, label: string, env: Readonly<Record<string, string>>, place: ProcessPlace): CredentialProcessPlan {
  if (processLineRunsFromWorkingDirectory(line, place.platform)) {
    throw new ProbeRefusal(
      "RelativeCredentialProcess",
      `the credential_process of ${label} names its program by a relative path (./x, dir/x, ~/x), or holds shell syntax (; & | < > ( ) $ \` or a line break), which the AWS CLI and a shell read differently: name the program by its absolute path, or by a bare name found on the call's PATH, with no shell syntax`,
    );
  }
  if (place.platform === "win32") return { kind: "shell", line };
  const words = shlexWords(line);
  const [program, ...args] = words ?? [];
  if (program === undefined || program === "") throw refused(label, "cannot be split into a program and its arguments");
  const trust = searchTrust(place.platform, { trustedDirectories: place.trustedDirectories });
  const context = { cwd: place.cwd, selfDir: place.selfDir, platform: place.platform, trust };
  let file: string;
  try {
    file = resolveExecutable(program, { pathEnv: env.PATH, ...context }).path;
  } catch (error) {
    if (error instanceof ExecutableRefusedError) throw refused(label, `runs a program that may not run: ${error.reason}`);
    if (error instanceof ExecutableNotFoundError) throw refused(label, "runs a program not found on the call's PATH (absolute, trusted directories only)");
    throw error;
  }
  const real = realPathOf(file);
  if ([file, real].some((where) => where.split("/").includes("shims"))) {
    throw refused(
      label,
      "runs a version manager's shim (asdf, pyenv, rbenv, mise, …), which picks the program it runs by files of the working directory, the agent's project (.tool-versions, .python-version): name the real program by its absolute path (asdf which, pyenv which, mise which)",
    );
  }
  const names = [path.basename(program), path.basename(real)];
  if (names.some((name) => INDIRECT.test(name))) {
    throw refused(
      label,
      "runs a program that starts another one or reads its work from the working directory (env, make, npx, uv, …): name the real program directly",
    );
  }
  if (args.some((arg) => RELATIVE_PATH_WORD.test(arg))) {
    throw refused(label, "has an argument spelt as a relative path, which would be read in the working directory, the agent's project: write it absolute");
  }
  if (args.some((arg) => namesWorkingDirectoryFile(arg, place.cwd))) {
    throw refused(
      label,
      "has an argument naming a file of the working directory, the agent's project, by a relative path (what reads it could run the project's code): write it absolute, outside the project",
    );
  }
  if (names.some((name) => INTERPRETER.test(name))) {
    const script = args[0];
    if (script === undefined || script.startsWith("-") || !path.posix.isAbsolute(script)) {
      throw refused(
        label,
        "runs an interpreter without an absolute script as its first argument (a relative script, or options such as -c or -m, read code from the working directory, the agent's project): write the script's absolute path right after the interpreter",
      );
    }
    const reason = agentReach(context)(path.posix.normalize(script), "file");
    if (reason !== undefined) throw refused(label, `runs a script that may not run: ${reason}`);
  }
  return { kind: "argv", file, args };
}

function realPathOf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}
