/**
 * The operator's `path.trusted_directories` for what the operator CLI looks up
 * on PATH itself (the editor, a provider's CLI for `setup` and `provider`, the
 * child of `target add`), so that it finds what the server would. Read from
 * the configuration root's `settings.yaml`, never from the environment.
 */
import { loadSettings } from "../../config/settings.js";
import { configRoot } from "./operator-context.js";

/**
 * The trusted directories of this configuration root. A settings file that
 * does not load trusts none: the search is then as strict as without the
 * setting (the server, for its part, does not start with such a file).
 */
export function operatorTrustedDirectories(root: string = configRoot()): readonly string[] {
  try {
    return loadSettings(root).pathTrustedDirectories;
  } catch {
    return [];
  }
}
