/**
 * One reading of the AWS config and credentials files per account check. The
 * probe used to read each file two or three times (the SDK's loader for the
 * chain walk, the dialect check, `fromIni` again, the SSO provider again): a
 * file changed between those reads let the dialect check pass one text while
 * the SDK resolved the profile from another. Now each file is read once, and
 * that text is what the checks judge and what every SDK reader gets: the SDK's
 * INI loader takes a file's content from `externalDataInterceptor`'s file record
 * when the path is there (@smithy/core, `readFile`), so the snapshot is put
 * there for the time of the probe.
 *
 * The record is process-wide and keyed by path. Two probes that read the same
 * text share an entry; a probe whose text differs (the file changed between
 * two checks running at once) waits until the other's entry is gone. Paths are
 * taken in sorted order, so two probes never wait on each other.
 */
import { readFileSync } from "node:fs";
import { externalDataInterceptor } from "@smithy/core/config";

interface Held {
  readonly text: string;
  count: number;
  readonly released: Promise<void>;
  readonly release: () => void;
}

const held = new Map<string, Held>();

/** A file's text as read once, "" when it cannot be read (the SDK reads an absent file as no profiles, as the CLI does). */
export function readOnce(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

async function acquire(file: string, text: string): Promise<void> {
  for (;;) {
    const entry = held.get(file);
    if (entry === undefined) {
      let release = (): void => undefined;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      held.set(file, { text, count: 1, released, release });
      externalDataInterceptor.interceptFile(file, text);
      return;
    }
    if (entry.text === text) {
      entry.count += 1;
      return;
    }
    await entry.released;
  }
}

function releaseOne(file: string): void {
  const entry = held.get(file);
  if (entry === undefined) return;
  entry.count -= 1;
  if (entry.count > 0) return;
  held.delete(file);
  Reflect.deleteProperty(externalDataInterceptor.getFileRecord(), file);
  entry.release();
}

/**
 * Runs `work` while every SDK read of a path of `snapshot` returns its text.
 * `bound` wraps the wait for the snapshot to be in place (it may wait for
 * another probe's), so that the probe's abort and time bound end it too.
 */
export async function withFileSnapshot<T>(
  snapshot: ReadonlyMap<string, string>,
  bound: (placing: Promise<void>) => Promise<void>,
  work: () => Promise<T>,
): Promise<T> {
  const taken: string[] = [];
  const state = { ended: false };
  const placing = (async (): Promise<void> => {
    for (const file of [...snapshot.keys()].sort()) {
      await acquire(file, snapshot.get(file) ?? "");
      // Placed after the probe gave up waiting: nothing will run under it.
      if (state.ended) {
        releaseOne(file);
        return;
      }
      taken.push(file);
    }
  })();
  try {
    await bound(placing);
    return await work();
  } finally {
    state.ended = true;
    for (const file of taken) releaseOne(file);
  }
}
