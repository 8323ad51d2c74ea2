import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, loadSettings } from "../../../src/config/settings.js";
import { catchConfigError, expectConfigErrorAt, tempDir, writeTree, yaml } from "./temp-tree.js";

function rootWithSettings(text: string): { root: string; file: string } {
  const root = tempDir();
  writeTree(root, { "settings.yaml": text });
  return { root, file: path.join(root, "settings.yaml") };
}

describe("loadSettings", () => {
  it("returns the defaults when settings.yaml is missing", () => {
    expect(loadSettings(tempDir())).toEqual({
      maxOutputBytes: 262_144,
      defaultGrantMinutes: 2,
      defaultTargetMinutes: 15,
      timeoutSeconds: 120,
      maxConcurrentCalls: 8,
      maxMessageBytes: 1_048_576,
      approvalMode: "page",
      approvalTimeoutSeconds: 120,
      approvalSettleSeconds: 5,
      approvalAddress: "loopback-random",
      pathTrustedDirectories: [],
    });
    expect(loadSettings(tempDir())).toEqual(DEFAULT_SETTINGS);
  });

  it("returns the defaults for a file with only comments", () => {
    expect(loadSettings(rootWithSettings("# defaults\n").root)).toEqual(DEFAULT_SETTINGS);
  });

  it("applies the fields that are set and defaults the rest", () => {
    const { root } = rootWithSettings(
      yaml(
        'version: "1"',
        "max_output_bytes: 1024",
        "default_grant_minutes: 5",
        "timeout_seconds: 30",
        "max_concurrent_calls: 2",
        "max_message_bytes: 4096",
        "approval:",
        "  timeout_seconds: 9",
        "  settle_seconds: 0",
        '  address: "127.0.0.1"',
      ),
    );
    expect(loadSettings(root)).toEqual({
      maxOutputBytes: 1024,
      defaultGrantMinutes: 5,
      defaultTargetMinutes: 15,
      timeoutSeconds: 30,
      maxConcurrentCalls: 2,
      maxMessageBytes: 4096,
      approvalMode: "page",
      approvalTimeoutSeconds: 9,
      approvalSettleSeconds: 0,
      approvalAddress: "127.0.0.1",
      pathTrustedDirectories: [],
    });
  });

  it("reads approval.mode off and refuses an unknown approval mode at its line", () => {
    expect(loadSettings(rootWithSettings(yaml('version: "1"', "approval:", '  mode: "off"')).root)).toMatchObject({
      approvalMode: "off",
      approvalTimeoutSeconds: 120,
    });
    const { root, file } = rootWithSettings(yaml('version: "1"', "approval:", "  mode: ask"));
    expectConfigErrorAt(() => loadSettings(root), file, 3, 9, /page|off/);
  });

  it("refuses an unknown field at its line and column", () => {
    const { root, file } = rootWithSettings(yaml('version: "1"', "max_output_bytes: 1024", "", "max_output: 5"));
    expectConfigErrorAt(() => loadSettings(root), file, 4, 1, /unknown field "max_output"/);
  });

  it.each([
    ["max_output_bytes", 0],
    ["max_output_bytes", 1024 * 1024 * 1024 + 1],
    ["default_grant_minutes", 1441],
    ["default_target_minutes", 0],
    ["default_target_minutes", 2.5],
    ["timeout_seconds", 86_401],
    ["max_concurrent_calls", 257],
  ])("refuses %s: %s out of range at the value", (field, value) => {
    const { root, file } = rootWithSettings(yaml("# limits", `${field}: ${String(value)}`));
    expectConfigErrorAt(() => loadSettings(root), file, 2, field.length + 3, new RegExp(`${field}: must be a whole number from 1 to \\d+`));
  });

  it.each([1023, 64 * 1024 * 1024 + 1, 4096.5])("refuses max_message_bytes: %s out of 1 KiB .. 64 MiB", (value) => {
    const { root, file } = rootWithSettings(yaml(`max_message_bytes: ${String(value)}`));
    expectConfigErrorAt(() => loadSettings(root), file, 1, 20, /max_message_bytes: must be a whole number from 1024 to 67108864/);
  });

  it("refuses approval.settle_seconds above 60 at the value", () => {
    const { root, file } = rootWithSettings(yaml("approval:", "  settle_seconds: 61"));
    expectConfigErrorAt(() => loadSettings(root), file, 2, 19, /settle_seconds: must be a whole number from 0 to 60/);
  });

  it("accepts the bounds", () => {
    const { root } = rootWithSettings(yaml(`max_output_bytes: ${1024 * 1024 * 1024}`, "default_grant_minutes: 1440", "max_concurrent_calls: 256"));
    expect(loadSettings(root).maxOutputBytes).toBe(1024 * 1024 * 1024);
  });

  it("reads path.trusted_directories, absolute directories in normal form", () => {
    const { root } = rootWithSettings(yaml("path:", "  trusted_directories:", "    - /usr/local/bin", "    - /home/linuxbrew/.linuxbrew/"));
    expect(loadSettings(root).pathTrustedDirectories).toEqual(["/usr/local/bin", "/home/linuxbrew/.linuxbrew/"]);
  });

  it.each([
    ["bin", "must be an absolute path"],
    ["~/.local/bin", "must be an absolute path"],
    ["/usr/local/../bin", "normal form"],
    ["/usr//local/bin", "normal form"],
    ["/usr/./local", "normal form"],
    ["/", "must not be a filesystem root"],
    ['""', "must not be empty"],
    ["7", "must be a string"],
  ])("refuses path.trusted_directories entry %s at its line and column, never trusting more", (entry, detail) => {
    const { root, file } = rootWithSettings(yaml("path:", "  trusted_directories:", "    - /usr/local/bin", `    - ${entry}`));
    expectConfigErrorAt(() => loadSettings(root), file, 4, 7, new RegExp(`path\\.trusted_directories\\[1\\]: .*${detail.replace(/[.*]/gu, "\\$&")}`, "u"));
  });

  it("refuses a path.trusted_directories that is not a list, an unknown path field, and more than 32 entries", () => {
    const scalar = rootWithSettings(yaml("path:", "  trusted_directories: /usr/local/bin"));
    expectConfigErrorAt(() => loadSettings(scalar.root), scalar.file, 2, 24, /must be a list of absolute paths/u);
    const unknown = rootWithSettings(yaml("path:", "  trusted: [/usr/local/bin]"));
    expectConfigErrorAt(() => loadSettings(unknown.root), unknown.file, 2, 3, /unknown field "trusted"/u);
    const many = rootWithSettings(yaml("path:", `  trusted_directories: [${Array.from({ length: 33 }, (_, index) => `/opt/d${index}`).join(", ")}]`));
    expect(catchConfigError(() => loadSettings(many.root)).message).toMatch(/must list at most 32 directories/u);
  });

  it("refuses a version other than 1", () => {
    const { root, file } = rootWithSettings(yaml('version: "2"'));
    expectConfigErrorAt(() => loadSettings(root), file, 1, 10, /version: must be "1"$/);
  });

  it("refuses a settings.yaml that is not valid YAML rather than using defaults", () => {
    const { root, file } = rootWithSettings(yaml("max_output_bytes: 1", "max_output_bytes: 2"));
    expectConfigErrorAt(() => loadSettings(root), file, 2, 1, /Map keys must be unique/);
  });

  it("refuses a settings.yaml that is a directory", () => {
    const root = tempDir();
    writeTree(root, { "settings.yaml/x": "" });
    expect(catchConfigError(() => loadSettings(root)).file).toBe(path.join(root, "settings.yaml"));
  });
});
