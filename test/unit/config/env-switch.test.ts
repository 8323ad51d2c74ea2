/**
 * The safeguards' on/off variables fail closed: a spelling other than the one
 * Torii documents (`TORII_NO_GUI=true`, `TORII_OPEN_BROWSER=false`, a typo)
 * counts as the safe side, never silently as the unsafe default.
 */
import { describe, expect, it } from "vitest";
import { approvalsEnabled } from "../../../src/approval/create-approver.js";
import { browserWanted } from "../../../src/approval/open-browser.js";
import { envSwitch } from "../../../src/config/env-switch.js";
import { DEFAULT_SETTINGS } from "../../../src/config/settings.js";

describe("envSwitch", () => {
  it("reads unset, blank, on and off spellings (trimmed, any case) and names anything else unknown", () => {
    expect(envSwitch({}, "X")).toBe("unset");
    expect(envSwitch({ X: "  " }, "X")).toBe("unset");
    for (const value of ["1", "true", "TRUE", " yes ", "On"]) expect(envSwitch({ X: value }, "X")).toBe("on");
    for (const value of ["0", "false", "No", "OFF "]) expect(envSwitch({ X: value }, "X")).toBe("off");
    for (const value of ["2", "ture", "disable", "y"]) expect(envSwitch({ X: value }, "X")).toBe("unknown");
  });
});

describe("TORII_NO_GUI: any value but unset or an off spelling makes the server headless", () => {
  it("true, yes, on, a typo and a padded 1 are headless, as 1 is", () => {
    for (const value of ["1", "true", "TRUE", "yes", "on", " 1", "ture"]) {
      expect(approvalsEnabled({ TORII_NO_GUI: value }, DEFAULT_SETTINGS), value).toBe(false);
    }
  });

  it("unset, empty and the off spellings still ask the operator", () => {
    expect(approvalsEnabled({}, DEFAULT_SETTINGS)).toBe(true);
    for (const value of ["", "0", "false", "no", "off"]) expect(approvalsEnabled({ TORII_NO_GUI: value }, DEFAULT_SETTINGS), value).toBe(true);
  });

  it("approval.mode: off stays headless whatever the variable says", () => {
    expect(approvalsEnabled({ TORII_NO_GUI: "0" }, { ...DEFAULT_SETTINGS, approvalMode: "off" })).toBe(false);
  });
});

describe("TORII_OPEN_BROWSER: only unset or an on spelling opens a browser with the one-time link", () => {
  it("false, no, off and a typo keep the link out of a browser, as 0 does", () => {
    for (const value of ["0", "false", "FALSE", "no", "off", "nope"]) {
      expect(browserWanted({ TORII_OPEN_BROWSER: value, DISPLAY: ":0" }, "linux"), value).toBe(false);
      expect(browserWanted({ TORII_OPEN_BROWSER: value }, "darwin"), value).toBe(false);
    }
  });

  it("unset, empty and the on spellings open one where there is a display", () => {
    for (const env of [{}, { TORII_OPEN_BROWSER: "" }, { TORII_OPEN_BROWSER: "1" }, { TORII_OPEN_BROWSER: "true" }]) {
      expect(browserWanted({ ...env, DISPLAY: ":0" }, "linux")).toBe(true);
      expect(browserWanted(env, "linux")).toBe(false);
    }
  });
});
