/**
 * The user's private group (src/config/private-group.ts): group write by it is
 * the user's own only when nobody else can write with that group.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { privateGroupOf } from "../../../src/config/private-group.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const PASSWD = "root:x:0:0:root:/root:/bin/bash\nann:x:1000:1000:Ann:/home/ann:/bin/bash\nbob:x:1001:1001:Bob:/home/bob:/bin/bash\n";

function files(passwd: string, group: string): { passwd: string; group: string } {
  const dir = tempDirectory("torii-private-group-");
  writeFileSync(path.join(dir, "passwd"), passwd);
  writeFileSync(path.join(dir, "group"), group);
  return { passwd: path.join(dir, "passwd"), group: path.join(dir, "group") };
}

describe("privateGroupOf", () => {
  test("a group named after the user, its primary group, with no other member, is private", () => {
    expect(privateGroupOf(1000, files(PASSWD, "root:x:0:\nann:x:1000:\nbob:x:1001:\n"))).toBe(1000);
    expect(privateGroupOf(1000, files(PASSWD, "ann:x:1000:ann\n"))).toBe(1000);
  });

  test.each([
    ["another member", PASSWD, "ann:x:1000:bob\n"],
    ["another account's primary group too", `${PASSWD}eve:x:1002:1000::/home/eve:/bin/sh\n`, "ann:x:1000:\n"],
    ["a name that is not the user's", PASSWD, "staff:x:1000:\n"],
    ["no group entry", PASSWD, "bob:x:1001:\n"],
    ["two entries for the gid", PASSWD, "ann:x:1000:\nann2:x:1000:\n"],
  ])("%s: none", (_what, passwd, group) => {
    expect(privateGroupOf(1000, files(passwd, group))).toBeUndefined();
  });

  test("a database that cannot be read: none", () => {
    const dir = tempDirectory("torii-private-group-");
    expect(privateGroupOf(1000, { passwd: path.join(dir, "absent"), group: path.join(dir, "absent") })).toBeUndefined();
  });
});
