/** `torii config-dir`: prints the configuration root in force. */
import { configRoot } from "../shared/operator-context.js";
import { emit, type JsonOption } from "../shared/operator-output.js";

export function runConfigDir(options: JsonOption = {}): number {
  const root = configRoot();
  emit(options, { root }, [root]);
  return 0;
}
