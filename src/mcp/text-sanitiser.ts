/**
 * The agent's free-text `description` is shown to humans, so control
 * characters, line breaks and bidirectional or zero-width marks (which can
 * reorder or hide text on screen) become spaces, and runs of spaces collapse.
 */
// eslint-disable-next-line no-control-regex -- control characters are what this removes
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu;

/** Returns the sanitised text, or undefined when nothing but blanks remains. */
export function sanitiseDescription(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const clean = text.replace(UNSAFE, " ").replace(/\s+/gu, " ").trim();
  return clean === "" ? undefined : clean;
}
