/**
 * Reading configuration files from disk, with failures turned into
 * ConfigErrors that name the file.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { ConfigError } from "./errors.js";
import { checkTrustedPath, type ConfigTrust } from "./trusted-path.js";

/** O_NONBLOCK where the platform has it (Node leaves it undefined on Windows). */
const NON_BLOCK = (constants as Partial<typeof constants>).O_NONBLOCK ?? 0;

/**
 * Reads a configuration file as UTF-8 text.
 *
 * @throws ConfigError naming the file when it is missing, a directory or unreadable.
 */
export function readConfigText(file: string): string {
  const text = readConfigTextIfExists(file);
  if (text === undefined) throw new ConfigError(file, "file not found");
  return text;
}

/**
 * Reads a configuration file as UTF-8 text, or returns undefined when it does
 * not exist. Any other failure (a directory, no permission) is still an error:
 * only absence means "not configured".
 *
 * @throws ConfigError naming the file when it exists but cannot be read.
 */
export function readConfigTextIfExists(file: string): string | undefined {
  return withRegularFile(file, (fd) => readFileSync(fd, "utf8"));
}

/**
 * The first `bytes` bytes of a configuration file as UTF-8 text (fewer when it
 * is shorter), or undefined when it does not exist; read as readConfigTextIfExists
 * reads, without blocking on a named pipe.
 *
 * @throws ConfigError naming the file when it exists but is not a regular file or cannot be read.
 */
export function readConfigHeadIfExists(file: string, bytes: number): string | undefined {
  return withRegularFile(file, (fd) => {
    const head = Buffer.alloc(bytes);
    const read = readSync(fd, head, 0, bytes, 0);
    return head.toString("utf8", 0, read);
  });
}

/** Opens `file` without blocking, checks it is a regular file and hands its descriptor to `read`; undefined when absent. */
function withRegularFile<T>(file: string, read: (fd: number) => T): T | undefined {
  try {
    // Without blocking: a named pipe at a configuration path opens at once and is refused below, instead of waiting
    // for a writer and freezing the server's synchronous start or call (a regular file ignores the flag).
    const fd = openSync(file, constants.O_RDONLY | NON_BLOCK);
    try {
      const stats = fstatSync(fd);
      if (stats.isDirectory()) throw new ConfigError(file, "is a directory, expected a file");
      if (!stats.isFile()) throw new ConfigError(file, "is not a regular file (a named pipe, a device or a socket)");
      return read(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if (hasErrorCode(error, "ENOENT")) return undefined;
    throw new ConfigError(file, describeReadFailure(error));
  }
}

/**
 * Reads a configuration file below `trust.root` once the trust rule holds for
 * it and every directory above it (trusted-path.ts); undefined when it does not exist.
 *
 * @throws ConfigError naming the untrusted path and the command that fixes it,
 *   or the file when it cannot be read.
 */
export function readTrustedConfigText(trust: ConfigTrust, file: string): string | undefined {
  return checkTrustedPath(trust, file, "file") ? readConfigTextIfExists(file) : undefined;
}

/** True when `error` is a file-system error with the given code (`ENOENT`, …). */
export function hasErrorCode(error: unknown, code: string): boolean {
  return error instanceof Error && "code" in error && error.code === code;
}

function describeReadFailure(error: unknown): string {
  if (hasErrorCode(error, "EISDIR")) return "is a directory, expected a file";
  return `cannot be read: ${error instanceof Error ? error.message : String(error)}`;
}
