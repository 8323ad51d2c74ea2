/** `torii config-dir`: prints the configuration root in force. */
import { configRoot } from "../shared/operator-context.js";

export function runConfigDir(): number {
  process.stdout.write(`${configRoot()}\n`);
  return 0;
}
