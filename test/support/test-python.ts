/**
 * The python the tests run (the differential oracles, the AWS CLI's own python,
 * the pseudo-terminal helper): TORII_TEST_PYTHON, which .ci/run sets to a
 * python that can import awscli, else `python3` on PATH.
 *
 * The global setup resolves it once per run to the interpreter itself
 * (`sys.executable`): through a version manager's shim (pyenv) every `python3`
 * costs about thirty bash processes before python starts, and the suite starts
 * python a few dozen times.
 */
import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import path from "node:path";

/** The python a test runs: the interpreter the global setup resolved, or `python3` when none was. */
export function testPython(): string {
  return process.env.TORII_TEST_PYTHON ?? "python3";
}

/** The interpreter `python` runs as (`sys.executable`), or undefined when it does not start. */
export function interpreterOf(python: string): string | undefined {
  const run = spawnSync(python, ["-c", "import sys; print(sys.executable)"], { encoding: "utf8", shell: false });
  const executable = run.status === 0 ? run.stdout.trim() : "";
  return path.isAbsolute(executable) ? executable : undefined;
}

/** testPython()'s interpreter: without a spawn when the global setup resolved it; undefined when it does not start. */
export function testInterpreter(): string | undefined {
  const python = testPython();
  return path.isAbsolute(python) ? python : interpreterOf(python);
}

/** The directory of the interpreter's own file (symlinks resolved), where the scripts of its packages (`aws`) are installed. */
export function testPythonDirectory(): string {
  const executable = testInterpreter();
  if (executable === undefined) throw new Error(`cannot locate python: ${testPython()} does not start`);
  return path.dirname(realpathSync(executable));
}
