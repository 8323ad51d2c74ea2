/**
 * Where a path leads on disk, even when its last parts do not exist yet. A
 * configuration root is often not created until Torii first runs, so
 * `realpath` on it fails; yet a link on the way (`~/work` to the project) or a
 * case that differs on a case-insensitive disk decides where it will be
 * created. Resolving the nearest part that exists and keeping the rest by
 * name answers "is this inside that folder?" for what the kernel will do, not
 * for how the path is spelt.
 */
import { realpathSync } from "node:fs";
import path from "node:path";

/** The kernel's answer (`realpath(3)`), which on macOS and Windows also spells each name as the disk does. */
const kernelRealpath = process.platform === "win32" ? realpathSync : realpathSync.native;

/**
 * `target` with every link and `..` resolved as the kernel would: the real path
 * of its nearest existing ancestor, then the parts below it that do not exist,
 * in order. `..` is never tidied away by text before a link is followed
 * (`<link>/../cfg` is the link target's parent's `cfg`, not the link's
 * sibling), and a name reached again through `..` that exists is resolved
 * again. Bounded by the path's depth; a link loop stops the climb there (its
 * ancestor is tried instead).
 */
export function physicalPath(target: string): string {
  const missing: string[] = [];
  let current = path.isAbsolute(target) ? target : path.join(process.cwd(), target);
  let real: string;
  for (;;) {
    try {
      real = kernelRealpath(current);
      break;
    } catch {
      if (path.dirname(current) === current) return path.resolve(target);
      missing.push(path.basename(current));
      current = path.dirname(current);
    }
  }
  for (const part of missing.reverse()) {
    if (part === "" || part === ".") continue;
    const next = part === ".." ? path.dirname(real) : path.join(real, part);
    try {
      real = kernelRealpath(next);
    } catch {
      real = next;
    }
  }
  return real;
}

/** Whether two paths name one file or folder, as written or once links are resolved (a linked checkout is the same). */
export function samePlace(a: string, b: string): boolean {
  if (path.resolve(a) === path.resolve(b)) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
