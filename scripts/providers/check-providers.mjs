#!/usr/bin/env node
// Checks the bundled provider packages under providers/ until src/config has the
// real schema: strict keys, option-table rules, empty base rules, parseable presets.
//
//   node scripts/providers/check-providers.mjs            # from the repository root
//
// Exits non-zero and lists every problem found.

import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { parse, parseDocument } from "yaml";
import { checkProviderJson } from "./provider-json.mjs";

const root = "providers";
const problems = [];
const fail = (where, msg) => problems.push(`${where}: ${msg}`);

function strictKeys(where, obj, required, optional = []) {
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
    fail(where, "must be a mapping");
    return false;
  }
  for (const k of required) if (!(k in obj)) fail(where, `missing ${k}`);
  for (const k of Object.keys(obj)) if (!required.includes(k) && !optional.includes(k)) fail(where, `unknown field ${k}`);
  return true;
}

const isStringList = (v) => Array.isArray(v) && v.every((x) => typeof x === "string");
const LONG = /^--[A-Za-z0-9][A-Za-z0-9-]*$/;
const SHORT = /^-[A-Za-z0-9]$/;

function checkOptions(where, list, parser, globals) {
  if (!Array.isArray(list)) return fail(where, "options must be a list");
  const names = new Set();
  const shorts = new Set();
  for (const [i, o] of list.entries()) {
    const at = `${where}[${i}]`;
    if (!strictKeys(at, o, ["name", "value"], ["short", "repeatable"])) continue;
    if (typeof o.name !== "string" || !LONG.test(o.name)) fail(at, `bad name ${o.name}`);
    if (parser === "pflag" && String(o.name).includes("_")) fail(at, `pflag name with _: ${o.name}`);
    if (!["none", "required", "optional"].includes(o.value)) fail(at, `bad value ${o.value}`);
    if (o.value === "optional" && parser !== "pflag") fail(at, "value optional is pflag-only");
    if (o.short !== undefined && (typeof o.short !== "string" || !SHORT.test(o.short))) fail(at, `bad short ${o.short}`);
    if (o.repeatable !== undefined && typeof o.repeatable !== "boolean") fail(at, "repeatable must be boolean");
    if (names.has(o.name)) fail(at, `duplicate name ${o.name}`);
    names.add(o.name);
    if (o.short) {
      if (shorts.has(o.short)) fail(at, `duplicate short ${o.short}`);
      shorts.add(o.short);
    }
    if (globals) {
      if (globals.names.has(o.name)) fail(at, `redeclares global ${o.name}`);
      if (o.short && globals.shorts.has(o.short)) fail(at, `redeclares global short ${o.short}`);
    }
  }
  return { names, shorts };
}

/** `argv.fetched_values`: options that exist in the table, literal rows only with "*". */
function checkFetchedValues(where, argv) {
  const f = argv.fetched_values;
  if (!strictKeys(where, f, [], ["url_options", "git_options", "git_operands_of", "literal"])) return;
  const declared = new Set([...(argv.options ?? []), ...(argv.commands ?? []).flatMap((c) => c.options ?? [])].map((o) => o.name));
  for (const key of ["url_options", "git_options"]) {
    const list = f[key] ?? [];
    if (!isStringList(list)) fail(where, `${key} must be strings`);
    // argparse CLIs: the command's own options are not in the table (they are matched in the body).
    for (const name of list) if (name !== "*" && argv.parser === "pflag" && !declared.has(name)) fail(where, `${key}: ${name} is not in the option table`);
  }
  for (const path of f.git_operands_of ?? []) if (!isStringList(path) || path.length === 0) fail(where, "git_operands_of: each entry is a command path");
  const literal = f.literal ?? [];
  if (literal.length > 0 && !(f.url_options ?? []).includes("*")) fail(where, 'literal needs url_options: ["*"]');
  const seen = new Set();
  for (const [i, row] of literal.entries()) {
    const at = `${where}.literal[${i}]`;
    if (!strictKeys(at, row, ["command", "option"], ["list"])) continue;
    if (!isStringList(row.command) || row.command.length === 0) fail(at, "command must be a non-empty list of words");
    if (!/^--[a-z0-9][a-z0-9-]*$/.test(row.option)) fail(at, `bad option ${row.option}`);
    if (row.list !== undefined && typeof row.list !== "boolean") fail(at, "list must be a boolean");
    const key = JSON.stringify([row.command, row.option]);
    if (seen.has(key)) fail(at, "duplicate literal parameter");
    seen.add(key);
  }
}

function checkRules(where, text, mustBeEmpty) {
  let doc;
  try {
    doc = parse(text);
  } catch (e) {
    return fail(where, `YAML: ${e.message}`);
  }
  if (!strictKeys(where, doc, ["version", "deny", "accept"])) return;
  if (doc.version !== "1") fail(where, 'version must be the string "1"');
  for (const list of ["deny", "accept"]) {
    if (!isStringList(doc[list])) {
      fail(where, `${list} must be a list of strings`);
      continue;
    }
    if (mustBeEmpty && doc[list].length > 0) fail(where, `base rules must be empty (${list})`);
    const seen = new Set();
    for (const rule of doc[list]) {
      if (seen.has(rule)) fail(where, `duplicate ${list} rule ${rule}`);
      seen.add(rule);
      if (rule.trim() === "") fail(where, `empty ${list} rule`);
      if (!/^[\x20-\x7e]+$/.test(rule)) fail(where, `non-ASCII or control character in ${rule}`);
      const m = /^\/(.*)\/([a-z]*)$/s.exec(rule);
      if (m) {
        if (!/^[imsx]*$/.test(m[2])) fail(where, `regex flags must be from imsx: ${rule}`);
        if (/\(\?[=!<]/.test(m[1])) fail(where, `lookaround is not portable (Rust regex): ${rule}`);
        try {
          new RegExp(m[1], m[2].replace("x", ""));
        } catch (e) {
          fail(where, `bad regex ${rule}: ${e.message}`);
        }
      } else if (/^\s|\s$|\s\s/.test(rule)) {
        fail(where, `literal rule with stray whitespace: "${rule}"`);
      }
    }
  }
}

for (const name of readdirSync(root, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort()) {
  const dir = join(root, name);
  const where = join(dir, "provider.yaml");
  const text = readFileSync(where, "utf8");
  const document = parseDocument(text, { uniqueKeys: true });
  if (document.errors.length > 0) {
    for (const e of document.errors) fail(where, e.message);
    continue;
  }
  const p = document.toJS();
  strictKeys(where, p, ["version", "name", "tool", "description", "command", "args_prefix", "policy", "auth", "argv"], ["targeting"]);
  if (p.version !== "1") fail(where, 'version must be the string "1"');
  if (p.name !== name) fail(where, `name ${p.name} differs from the directory ${name}`);
  if (!/^[A-Za-z0-9_.-]{1,128}$/.test(p.tool ?? "")) fail(where, `bad tool ${p.tool}`);
  if (!isStringList(p.args_prefix)) fail(where, "args_prefix must be a list of strings");

  let locked = [];
  if (p.targeting !== undefined && strictKeys(`${where} targeting`, p.targeting, ["mode"], ["locked_options", "locked_commands", "locked_values"])) {
    if (!["kubectl_context", "aws_profile", "credentials"].includes(p.targeting.mode)) fail(where, `bad mode ${p.targeting.mode}`);
    locked = p.targeting.locked_options ?? [];
    if (!isStringList(locked)) fail(where, "locked_options must be a list of strings");
    for (const o of locked) if (!/^--[^= ]+$/.test(o)) fail(where, `bad locked option ${o}`);
    if (new Set(locked).size !== locked.length) fail(where, "duplicate locked option");
    for (const [i, row] of (p.targeting.locked_values ?? []).entries()) {
      if (!strictKeys(`${where} targeting.locked_values[${i}]`, row, ["contains", "option", "names"])) continue;
      // The option it stands in for must itself be locked, or the value would lock more than the option does.
      if (!locked.includes(row.option)) fail(where, `locked_values[${i}] stands in for ${row.option}, which is not a locked option`);
    }
  }

  if (
    strictKeys(
      `${where} policy`,
      p.policy,
      ["minimum_accept_tokens", "forbidden_args", "ignore_args"],
      ["parameter_carriers", "resource_types", "scope_options"],
    )
  ) {
    for (const [i, scope] of (p.policy.scope_options ?? []).entries()) {
      if (strictKeys(`${where} policy.scope_options[${i}]`, scope, ["option"], ["every"])) {
        for (const o of [scope.option, ...(scope.every ?? [])]) if (!LONG.test(o)) fail(where, `bad scope option ${o}`);
      }
    }
    if (!Number.isInteger(p.policy.minimum_accept_tokens) || p.policy.minimum_accept_tokens < 1) fail(where, "bad minimum_accept_tokens");
    if (!isStringList(p.policy.forbidden_args)) fail(where, "forbidden_args must be a list of strings");
    if (strictKeys(`${where} policy.ignore_args`, p.policy.ignore_args, ["leading", "flags"])) {
      if (!isStringList(p.policy.ignore_args.leading) || !isStringList(p.policy.ignore_args.flags)) fail(where, "ignore_args lists");
    }
  }

  if (strictKeys(`${where} auth`, p.auth, ["strategy"], ["identity", "removed_env", "profile_env"])) {
    if (!["environment", "inherited"].includes(p.auth.strategy)) fail(where, `bad strategy ${p.auth.strategy}`);
    if (p.targeting?.mode === "aws_profile" && p.auth.strategy !== "inherited") fail(where, "aws_profile requires inherited");
    if (p.auth.identity !== undefined && strictKeys(`${where} auth.identity`, p.auth.identity, ["command", "args", "field"])) {
      if (!isStringList(p.auth.identity.args)) fail(where, "identity.args must be strings");
    }
    const env = p.auth.removed_env ?? [];
    if (!isStringList(env)) fail(where, "removed_env must be a list of strings");
    // A variable name, or NAME_* for every variable starting with NAME_ (src/runtime/child-env.ts).
    for (const v of env) if (!/^[A-Za-z_][A-Za-z0-9_]*(?:_\*)?$/.test(v)) fail(where, `bad removed_env entry ${v}`);
    if (new Set(env).size !== env.length) fail(where, "duplicate removed_env name");
  }

  const a = p.argv;
  if (
    strictKeys(
      `${where} argv`,
      a,
      ["parser", "forbidden_value_prefixes", "options", "commands"],
      ["fetched_values", "locked_command_options", "file_writes", "file_reads", "plugins", "double_dash"],
    )
  ) {
    if (!["pflag", "argparse", "plain"].includes(a.parser)) fail(where, `bad parser ${a.parser}`);
    if (!isStringList(a.forbidden_value_prefixes)) fail(where, "forbidden_value_prefixes must be strings");
    const globals = checkOptions(`${where} argv.options`, a.options, a.parser);
    const paths = new Set();
    if (!Array.isArray(a.commands)) fail(where, "commands must be a list");
    for (const [i, c] of (a.commands ?? []).entries()) {
      const at = `${where} argv.commands[${i}]`;
      if (!strictKeys(at, c, ["path", "options"])) continue;
      if (!isStringList(c.path) || c.path.length === 0) fail(at, "path must be a non-empty list of strings");
      const key = JSON.stringify(c.path);
      if (paths.has(key)) fail(at, `duplicate path ${c.path.join(" ")}`);
      paths.add(key);
      checkOptions(`${at} ${c.path.join(" ")}`, c.options, a.parser, globals);
    }
    if (a.fetched_values !== undefined) checkFetchedValues(`${where} argv.fetched_values`, a);
    for (const o of locked) {
      if (globals && !globals.names.has(o)) console.error(`note: ${name}: locked ${o} is not in this table (older/newer CLI versions only)`);
    }
    for (const f of p.policy?.forbidden_args ?? []) {
      if (f.startsWith("--") && globals && !globals.names.has(f)) fail(where, `forbidden arg ${f} is not a global option`);
    }
  }
  // Tab, newline and carriage return are the only control characters a provider file may hold.
  // eslint-disable-next-line no-control-regex
  if (!/^[\x09\x0a\x0d\x20-\x7e]*$/.test(text)) fail(where, "non-ASCII characters");

  const rulesPath = join(dir, "rules.yaml");
  if (!existsSync(rulesPath)) fail(rulesPath, "missing");
  else checkRules(rulesPath, readFileSync(rulesPath, "utf8"), true);
  const presets = join(dir, "presets");
  if (existsSync(presets)) {
    for (const f of readdirSync(presets).sort()) checkRules(join(presets, f), readFileSync(join(presets, f), "utf8"), false);
  }
  const c = p.argv?.commands?.length ?? 0;
  console.error(
    `${name}: ${p.argv?.options?.length ?? 0} global options, ${c} command scopes, ${locked.length} locked, ` +
      `${p.policy?.forbidden_args?.length ?? 0} forbidden, ${p.auth?.removed_env?.length ?? 0} removed_env`,
  );
}

// The JSON the server reads instead of the YAML must be made from the current provider.yaml.
problems.push(...checkProviderJson(root));

if (problems.length > 0) {
  for (const pr of problems) console.error(`ERROR ${pr}`);
  process.exit(1);
}
console.error("providers: ok");
