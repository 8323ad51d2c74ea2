/**
 * Windows final paths in the spelling the rest of the search compares.
 *
 * `fs.realpathSync.native` (GetFinalPathNameByHandle) and `readlink` of a
 * junction or symbolic link may answer in the Win32 file namespace:
 * `\\?\C:\tools` or `\\?\UNC\server\share\tools`. Compared as strings with the
 * working directory (`C:\work`) such a path is never "at or below" it, so a
 * link into the project would pass. The ordinary spelling of the same file is
 * `C:\tools` and `\\server\share\tools`. What has no ordinary spelling (a
 * volume GUID path `\\?\Volume{…}\`, the device namespace `\\.\`, a
 * namespaced path that is not drive-rooted) cannot be compared at all, and the
 * caller must refuse it.
 */
/**
 * `candidate` without its Win32 file namespace prefix: `\\?\C:\x` -> `C:\x`,
 * `\\?\UNC\server\share\x` -> `\\server\share\x`; any other path unchanged.
 * Either slash is accepted in the prefix, as Windows does after `\\?\` only
 * for the prefix itself (`//?/C:/x` reaches the same file).
 */
export function withoutWin32FilePrefix(candidate: string): string {
  const namespaced = /^[\\/]{2}\?[\\/](.*)$/su.exec(candidate);
  if (namespaced === null) return candidate;
  const rest = namespaced[1] ?? "";
  if (/^[A-Za-z]:(?:[\\/]|$)/u.test(rest)) return rest.length === 2 ? `${rest}\\` : rest;
  const unc = /^UNC[\\/]([^\\/]+[\\/][^\\/]+.*)$/isu.exec(rest);
  if (unc !== null) return `\\\\${unc[1] ?? ""}`;
  return candidate;
}

/**
 * Whether `candidate` (after withoutWin32FilePrefix) is neither drive-rooted
 * nor UNC: still a namespace or device path (`\\?\Volume{…}`, `\\.\`,
 * `\??\`) or rooted on the current drive, so it has no spelling to compare
 * with the working directory and is refused.
 */
export function isUncomparableWindowsPath(candidate: string): boolean {
  return !/^(?:[A-Za-z]:[\\/]|[\\/]{2}[^\\/?.])/u.test(candidate);
}
