import { describe, expect, it } from "vitest";
import { mayTuneV8 } from "../../../src/mcp/v8-flags.js";

describe("mayTuneV8", () => {
  it("allows a flag nobody set", () => {
    expect(mayTuneV8(["--turbofan"], {})).toBe(true);
  });

  it.each(["--jitless", "--max-opt=1", "--max_opt=2", "--no-turbofan", "--turbofan", "--no_opt"])(
    "leaves the flags alone when NODE_OPTIONS has %s",
    (option) => {
      expect(mayTuneV8(["--turbofan", "--opt", "--max-opt", "--jitless"], { NODE_OPTIONS: `--max-old-space-size=512 ${option}` })).toBe(false);
    },
  );

  it("is not fooled by a longer flag that starts with the same words", () => {
    expect(mayTuneV8(["--opt"], { NODE_OPTIONS: "--optimize-for-size" })).toBe(true);
  });
});
