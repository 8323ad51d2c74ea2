/**
 * Release tracks in generated tables (a Torii TS extension of `provider.yaml`).
 * gcloud has one command tree per release track: `gcloud alpha compute scp`,
 * `gcloud beta compute scp` and the generally available `gcloud compute scp`
 * are three command paths, and most rows of its generated tables
 * (`argv.file_reads`, `argv.file_writes`, `targeting.locked_commands`) existed
 * once per track, differing only in the first word. A row may instead name its
 * path without the track word and list the tracks it holds in:
 *
 *     {command: [compute, scp], operand: destination, tracks: [ga, alpha, beta]}
 *
 * is the three rows `[compute, scp]`, `[alpha, compute, scp]` and
 * `[beta, compute, scp]`. `ga` is the path as written; any other track is the
 * word put before it. The policy engine only ever sees the rows one per track
 * (`rowsPerTrack`), so a folded table decides exactly as the rows it stands for.
 * Folding halved gcloud's generated data, which every server start reads.
 */

/** The track whose command path has no track word (gcloud's GA). */
export const GENERAL_AVAILABILITY = "ga";

/** A table row that may list its release tracks. */
export interface TrackedRow {
  readonly command: readonly string[];
  readonly tracks?: readonly string[] | undefined;
}

/** What is wrong with a row's `tracks` value, if anything (it is optional: undefined is fine). */
export function tracksProblem(tracks: unknown, isTrackWord: (word: string) => boolean): string | undefined {
  if (tracks === undefined) return undefined;
  if (!Array.isArray(tracks) || tracks.length === 0) return "tracks must list at least one release track";
  const seen = new Set<string>();
  for (const track of tracks) {
    if (typeof track !== "string" || !isTrackWord(track)) return `a release track must be ${GENERAL_AVAILABILITY} or a command word`;
    if (seen.has(track)) return `release track ${track} is listed twice`;
    seen.add(track);
  }
  return undefined;
}

/**
 * The rows one per release track, in table order and, within a row, in the
 * order of its `tracks`; a row without `tracks` is kept as it is (without the field).
 */
export function rowsPerTrack<T extends TrackedRow>(rows: readonly T[]): Omit<T, "tracks">[] {
  const out: Omit<T, "tracks">[] = [];
  for (const row of rows) {
    const { tracks, ...rest } = row;
    if (tracks === undefined) {
      out.push(rest);
      continue;
    }
    for (const track of tracks) out.push({ ...rest, command: track === GENERAL_AVAILABILITY ? rest.command : [track, ...rest.command] });
  }
  return out;
}
