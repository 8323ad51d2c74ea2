/**
 * A SearchTrust for tests of the PATH search's rules on paths that do not
 * exist here (`/srv/work`, `C:\work`, a Windows platform injected on Linux):
 * every path exists, is trusted, and is its own real path unless `links` maps
 * it (a prefix) to another. Tests of the filesystem side use the real one
 * (src/config/search-trust.ts) on real directories.
 */
import type { SearchTrust } from "../../src/runtime/search-path.js";

/**
 * The filesystem as the paths spell it; `links` maps a path prefix to what it
 * resolves to, `untrusted` names paths the trust rule refuses, `sharedTemporary`
 * the shared temporary directories (none unless given).
 */
export function lexicalTrust(
  links: Readonly<Record<string, string>> = {},
  untrusted: readonly string[] = [],
  sharedTemporary: readonly string[] = [],
): SearchTrust {
  const real = (target: string): string => {
    for (const [link, resolved] of Object.entries(links)) {
      if (target === link || target.startsWith(link + "/") || target.startsWith(link + "\\")) return resolved + target.slice(link.length);
    }
    return target;
  };
  return {
    realPath: real,
    inspect: (target) => (untrusted.includes(target) ? { problem: `${target}: is writable by group or others` } : { real: real(target) }),
    sharedTemporary,
    trustedDirectories: [],
  };
}
