import { describe, expect, it } from "vitest";
import { combineConfigErrors, ConfigError } from "../../../src/config/errors.js";

describe("ConfigError", () => {
  it("formats file:line:column: detail and keeps the parts", () => {
    const error = new ConfigError("/cfg/provider.yaml", "unknown field", { line: 4, column: 3 });
    expect(error.message).toBe("/cfg/provider.yaml:4:3: unknown field");
    expect([error.file, error.line, error.column, error.detail]).toEqual(["/cfg/provider.yaml", 4, 3, "unknown field"]);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("ConfigError");
  });

  it("leaves line and column undefined for a whole-file problem", () => {
    const error = new ConfigError("/cfg/rules.yaml", "file not found");
    expect(error.message).toBe("/cfg/rules.yaml: file not found");
    expect(error.line).toBeUndefined();
    expect(error.column).toBeUndefined();
  });
});

describe("combineConfigErrors", () => {
  it("returns undefined for no errors and the error itself for one", () => {
    const only = new ConfigError("a", "x", { line: 1, column: 1 });
    expect(combineConfigErrors([])).toBeUndefined();
    expect(combineConfigErrors([only])).toBe(only);
  });

  it("lists every problem, flattened, each with its own location", () => {
    const nested = new ConfigError("b", "two", { line: 2, column: 5 }, [new ConfigError("c", "three")]);
    const combined = combineConfigErrors([new ConfigError("a", "one", { line: 1, column: 2 }), nested]);
    expect(combined?.message).toBe("a:1:2: one\nb:2:5: two\nc: three");
    expect(combined?.file).toBe("a");
    expect(combined?.line).toBe(1);
    expect(combined?.related.map((error) => error.detail)).toEqual(["two", "three"]);
    expect(combined?.related[0]?.related).toEqual([]);
  });
});
