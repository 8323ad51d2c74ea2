/**
 * Broker-owned options per target mode. The broker injects the target's
 * context, profile or region itself, so any agent spelling of an option that
 * would switch cluster, identity, endpoint or trust is refused. A provider's
 * `targeting.locked_options` can add to this floor, never remove from it.
 */
import type { FileReadSpec, FileWriteSpec, GrammarSpec, LockedCommand, LockedCommandOptions } from "../policy/grammar/types.js";
import type { ProviderConfig, TargetMode } from "./provider-schema.js";
import { rowsPerTrack } from "./release-tracks.js";

/** The options every provider of a mode locks, whatever its `locked_options` say. */
export const LOCKED_OPTION_FLOOR: Readonly<Record<TargetMode, readonly string[]>> = Object.freeze({
  kubectl_context: Object.freeze([
    "--context",
    "--kubeconfig",
    "--cluster",
    "--user",
    "--token",
    "--server",
    "--username",
    "--password",
    "--client-key",
    "--client-certificate",
    "--certificate-authority",
    "--insecure-skip-tls-verify",
    "--tls-server-name",
    "--as",
    "--as-group",
    "--as-uid",
    "--as-user-extra",
    // Write a local file at any path (`--profile` alone writes ./profile.pprof): no rule should allow them.
    "--cache-dir",
    "--profile",
    "--profile-output",
    "--log-file",
    "--log-dir",
  ]),
  aws_profile: Object.freeze(["--profile", "--region", "--endpoint-url", "--no-sign-request", "--ca-bundle", "--no-verify-ssl"]),
  // credentials mode injects nothing; the provider's locked_options must name what redirects credentials.
  credentials: Object.freeze([]),
});

/**
 * The options the broker owns for this provider: its mode's floor plus its
 * `targeting.locked_options`, deduplicated and sorted.
 */
export function effectiveLockedOptions(provider: ProviderConfig): string[] {
  const mode = provider.targeting?.mode;
  const floor = mode === undefined ? [] : LOCKED_OPTION_FLOOR[mode];
  return [...new Set([...floor, ...(provider.targeting?.locked_options ?? [])])].sort();
}

const KUBECONFIG_WRITE = "they can rewrite the kubeconfig that defines the target (its server, credentials or current context)";
const STS_CREDENTIALS =
  "they issue temporary credentials (another role's, possibly in another account, or the target's own) and print them to the caller, outside the broker";
const KUBECONFIG_PRINT =
  "it prints the kubeconfig: kubectl leaves an auth-provider's config (OIDC refresh tokens, client secrets) and an exec plugin's env unredacted even without --raw, usable outside Torii after the target's lease ends";
const AWS_FILES_WRITE = "they can rewrite or print the profile that defines the target (its endpoint, credential_process, keys or region)";
const AWS_HISTORY =
  "it prints the CLI's recorded requests and responses of earlier commands of every profile (~/.aws/cli/history), credentials an earlier call received included";
const AWS_SIGN_IN =
  "it writes or deletes the cached credentials or sign-in token the target's profile uses (and, for login, the profile's login_session): the operator signs in outside Torii";

const CODEDEPLOY_INSTALL = "it downloads and runs the CodeDeploy agent installer on this machine";
const CODEDEPLOY_UNINSTALL = "it runs the CodeDeploy agent uninstaller on this machine";

const CODEDEPLOY_REGISTER =
  "it prints a credential usable outside Torii, which outlives the target's lease: a new IAM user's access key, printed and saved to codedeploy.onpremises.yml in the working directory";

/** Every command path awscli attaches CodeDeploy's commands to (building-command-table.deploy). */
const CODEDEPLOY_PATHS: readonly (readonly string[])[] = [["deploy"], ["cloudformation", "deploy"], ["ecs", "deploy"]];

/** CodeDeploy's install, uninstall and register under each command path awscli attaches them to. */
function codeDeployLocalCommands(): LockedCommand[] {
  return CODEDEPLOY_PATHS.flatMap((parent) => [
    { command: [...parent, "install"], except: [], why: CODEDEPLOY_INSTALL },
    { command: [...parent, "uninstall"], except: [], why: CODEDEPLOY_UNINSTALL },
    { command: [...parent, "register"], except: [], why: CODEDEPLOY_REGISTER },
  ]);
}

/**
 * The commands every provider of a mode refuses, whatever its rules say: an
 * allowed call must never change the files that define a target or an
 * identity, nor install software on this machine. A command is matched on
 * its words (options aside), so sub-command aliases and spellings not listed
 * in `except` are refused too, as are writers a later CLI version adds.
 */
export const LOCKED_COMMAND_FLOOR: Readonly<Record<TargetMode, readonly LockedCommand[]>> = Object.freeze({
  kubectl_context: Object.freeze([
    // Every writer (set*, unset, use-context, rename-context, delete-*) is refused; the listing sub-commands print names only.
    { command: ["config"], except: ["view", "get-contexts", "current-context", "get-clusters", "get-users"], why: KUBECONFIG_WRITE },
    // `view` in every form: --raw/--flatten print everything, and even the plain form redacts only the
    // token, password and *-data fields, not an auth-provider's config (OIDC refresh tokens, client
    // secrets) nor an exec plugin's env (red team 12a).
    { command: ["config", "view"], except: [], why: KUBECONFIG_PRINT },
  ]),
  aws_profile: Object.freeze([
    // `configure get` and `export-credentials` print secrets; set, import, sso, add-model and the bare wizard write the files.
    { command: ["configure"], except: ["list", "list-profiles"], why: AWS_FILES_WRITE },
    // assume-role* switches to another role (of any account that trusts it), get-session-token and
    // get-federation-token mint the target's own: either way fresh credentials reach the caller.
    { command: ["sts"], except: ["get-caller-identity", "get-access-key-info", "decode-authorization-message"], why: STS_CREDENTIALS },
    // CLI v2's `login`/`logout` (awscli.customizations.login, top level) write the profile's
    // login_session and its cached credentials, or delete them; `sso login|logout` write or delete
    // the SSO token cache (v1 has `sso logout`). A v1 CLI without `login` refuses it anyway.
    { command: ["login"], except: [], why: AWS_SIGN_IN },
    { command: ["logout"], except: [], why: AWS_SIGN_IN },
    { command: ["sso", "login"], except: [], why: AWS_SIGN_IN },
    { command: ["sso", "logout"], except: [], why: AWS_SIGN_IN },
    // With cli_history enabled the CLI records every command's request and response
    // (~/.aws/cli/history/history.db, every profile, runs outside Torii included): `history show`
    // prints them, the Authorization header and an earlier `sts get-session-token`'s keys with them.
    { command: ["history"], except: [], why: AWS_HISTORY },
    // Writes the kubeconfig (an exec entry running aws), which defines kubectl targets.
    { command: ["eks", "update-kubeconfig"], except: [], why: "it rewrites a kubeconfig, which defines kubectl targets" },
    // awscli attaches CodeDeploy's local commands to every command named `deploy`
    // (building-command-table.deploy), so `cloudformation deploy ... install` runs the agent
    // installer too; an operator tree keeps the provider.yaml it was installed with, so these are here.
    ...codeDeployLocalCommands(),
  ]),
  credentials: Object.freeze([]),
});

/** The commands the broker refuses for this provider: its mode's floor plus its `targeting.locked_commands`. */
export function lockedCommandsOf(provider: ProviderConfig): readonly LockedCommand[] {
  const mode = provider.targeting?.mode;
  const floor = mode === undefined ? [] : LOCKED_COMMAND_FLOOR[mode];
  return [...floor, ...rowsPerTrack(provider.targeting?.locked_commands ?? [])];
}

const KUSTOMIZE_RUNS_PROGRAM = "it makes kustomize run a local program (helm, an exec or container KRM function) the call or its kustomization chooses";
const TEMPLATE_FILE_READ = "its template file is a local file of the call's choice, printed into the output";
const KUSTOMIZE_READS_OUTSIDE_ROOT = "it lets a kustomization read local files outside its own directory";
const SERVES_BEYOND_CALL = "it serves local files, or offers the cluster API or a pod's ports with the target's credentials beyond this machine's loopback";

/**
 * Command options every provider of a mode locks, whatever its table says: an
 * operator tree keeps the provider.yaml it was installed with, so the options
 * known to redirect signed requests or leave the pinned region are owned here
 * too (the bundled table, generated from the CLI, may list more).
 */
export const LOCKED_COMMAND_OPTION_FLOOR: Readonly<Record<TargetMode, readonly LockedCommandOptions[]>> = Object.freeze({
  kubectl_context: Object.freeze([
    // Every spelling kubectl reads (pflag has no abbreviations); the generated table may list more.
    { command: ["kustomize"], options: ["--enable-alpha-plugins", "--enable-helm", "--helm-command"], why: KUSTOMIZE_RUNS_PROGRAM },
    { command: ["kustomize"], options: ["--load-restrictor", "--mount"], why: KUSTOMIZE_READS_OUTSIDE_ROOT },
    { command: ["proxy"], options: ["--accept-hosts", "--address", "--disable-filter", "--reject-paths", "--www"], why: SERVES_BEYOND_CALL },
    { command: ["port-forward"], options: ["--address"], why: SERVES_BEYOND_CALL },
    // -o jsonpath-file=, go-template-file, custom-columns-file, templatefile: a template file with no action prints as it is.
    { command: [], options: ["--output"], valueContains: "-file", why: TEMPLATE_FILE_READ },
    { command: [], options: ["--output"], valueContains: "templatefile", why: TEMPLATE_FILE_READ },
  ]),
  aws_profile: Object.freeze([
    { command: ["dlm", "create-default-role"], options: ["--iam-endpoint"] },
    { command: ["emr", "create-default-roles"], options: ["--iam-endpoint"] },
    { command: ["emr-containers", "update-role-trust-policy"], options: ["--iam-endpoint"] },
    { command: ["s3", "cp"], options: ["--source-region"] },
    { command: ["s3", "mv"], options: ["--source-region"] },
    { command: ["s3", "sync"], options: ["--source-region"] },
    // botocore sends Predict's signed request to the host PredictEndpoint names; either carrier (v2 has the YAML one) sets it too.
    { command: ["machinelearning", "predict"], options: ["--cli-input-json", "--cli-input-yaml", "--predict-endpoint"] },
  ]),
  credentials: Object.freeze([]),
});

/** The rows of a per-mode floor table for this provider's target mode (none without a mode). */
function floorRows<T>(table: Readonly<Record<TargetMode, readonly T[]>>, provider: ProviderConfig): readonly T[] {
  const mode = provider.targeting?.mode;
  return mode === undefined ? [] : table[mode];
}

/** The provider's grammar with its mode's command-option floor added to its own `locked_command_options`. */
export function withLockedCommandOptionFloor(grammar: GrammarSpec, provider: ProviderConfig): GrammarSpec {
  const floor = floorRows(LOCKED_COMMAND_OPTION_FLOOR, provider);
  if (floor.length === 0) return grammar;
  return { ...grammar, lockedCommandOptions: [...floor, ...(grammar.lockedCommandOptions ?? [])] };
}

/**
 * File writes every provider of a mode lists, whatever its `argv.file_writes`
 * say (an operator tree keeps the provider.yaml it was installed with): a call
 * with one is accepted only by a rule naming its command path
 * (policy/file-writes.ts). kubectl also runs plugins for unknown command words.
 */
export const FILE_WRITE_FLOOR: Readonly<Record<TargetMode, { readonly writes: readonly FileWriteSpec[]; readonly plugins: boolean }>> = Object.freeze({
  kubectl_context: Object.freeze({
    writes: Object.freeze([
      // `cp pod:/f ~/.kube/config` overwrites the kubeconfig that defines the target.
      { command: ["cp"], operand: "file-spec-dest" },
      { command: ["kustomize"], option: "--output" },
      { command: ["cluster-info", "dump"], option: "--output-directory" },
      { command: ["proxy"], option: "--unix-socket" },
    ]),
    plugins: true,
  }),
  aws_profile: Object.freeze({
    // session-manager-plugin creates a Unix socket at the port-forwarding document's
    // localUnixSocket, set by --parameters or by the defaults of the document named
    // (scripts/providers/aws_file_writes.py); --cli-input-json carries both.
    writes: Object.freeze(["--document-name", "--parameters", "--cli-input-json"].map((option) => ({ command: ["ssm", "start-session"], option }))),
    plugins: false,
  }),
  credentials: Object.freeze({ writes: Object.freeze([]), plugins: false }),
});

/** The provider's grammar with its mode's file-write floor added to its own `file_writes` (and `plugins`). */
export function withFileWriteFloor(grammar: GrammarSpec, provider: ProviderConfig): GrammarSpec {
  const mode = provider.targeting?.mode;
  const floor = mode === undefined ? undefined : FILE_WRITE_FLOOR[mode];
  if (floor === undefined || (floor.writes.length === 0 && !floor.plugins)) return grammar;
  return { ...grammar, fileWrites: [...floor.writes, ...(grammar.fileWrites ?? [])], plugins: floor.plugins || grammar.plugins === true };
}

/** `options` of each command path as file-read rows. */
function readRows(commands: readonly (readonly string[])[], options: readonly string[]): FileReadSpec[] {
  return commands.flatMap((command) => options.map((option) => ({ command, option })));
}

/**
 * File reads every provider of a mode lists, whatever its `argv.file_reads`
 * say (an operator tree keeps the provider.yaml it was installed with): the
 * uploads of a whole local directory or of a file the call names, held like a
 * file write (policy/file-reads.ts). The bundled tables, generated, list more.
 */
export const FILE_READ_FLOOR: Readonly<Record<TargetMode, readonly FileReadSpec[]>> = Object.freeze({
  kubectl_context: Object.freeze([
    // -f DIR sends every manifest of a directory (its tree with -R), -k DIR a kustomization's files.
    ...readRows([["apply"], ["create"], ["replace"], ["diff"], ["delete"]], ["--filename", "--kustomize"]),
    // A directory given to --from-file is read whole: each file becomes a key of the object.
    ...readRows(
      [
        ["create", "secret", "generic"],
        ["create", "configmap"],
        ["create", "cm"],
      ],
      ["--from-file", "--from-env-file"],
    ),
  ]),
  aws_profile: Object.freeze([
    // CodeDeploy's push zips and uploads a local directory under every command named `deploy`,
    // the working directory when --source is left out (its ARG_TABLE default is `.`).
    ...CODEDEPLOY_PATHS.map((parent) => ({ command: [...parent, "push"], option: "--source", defaultPath: "." })),
    ...readRows([["ecs", "deploy"]], ["--task-definition", "--codedeploy-appspec"]),
  ]),
  credentials: Object.freeze([]),
});

/** The provider's grammar with its mode's file-read floor added to its own `file_reads`. */
export function withFileReadFloor(grammar: GrammarSpec, provider: ProviderConfig): GrammarSpec {
  const floor = floorRows(FILE_READ_FLOOR, provider);
  if (floor.length === 0) return grammar;
  return { ...grammar, fileReads: [...floor, ...(grammar.fileReads ?? [])] };
}

/** How a CLI's own parser reads its argv, whatever the provider.yaml of an operator tree says. */
interface ParserFloor {
  /** The CLI reads no abbreviated long option (GrammarSpec.abbreviations). */
  readonly abbreviations: "none";
  /** Options the CLI reads at any position, `--` tail included (GrammarSpec.prescannedOptions; each is locked). */
  readonly prescannedOptions: readonly string[];
}

/**
 * Parser facts keyed by the executable a provider runs (its `command`'s file
 * name), not by target mode: gcloud runs in `credentials` mode like az, whose
 * parser differs, and the executable, not the provider's name, is what reads
 * the argv. An operator tree keeps the provider.yaml it was installed with, so
 * a tree from before `prescanned_options` would let `… -- --configuration=other`
 * switch gcloud's configuration under a broad rule (named_configs._FindFlagValue
 * and cli._ApplyFlagsFile scan the whole argv).
 */
export const PARSER_FLOOR: Readonly<Record<string, ParserFloor>> = Object.freeze({
  gcloud: Object.freeze({ abbreviations: "none", prescannedOptions: Object.freeze(["--configuration", "--flags-file"]) }),
});

/** The executable's name a command runs: its last path segment, without a Windows launcher's extension. */
export function executableName(command: string): string {
  const base = command.split(/[\\/]/u).at(-1) ?? command;
  return base.replace(/\.(cmd|exe|bat|ps1)$/iu, "").toLowerCase();
}

/** The provider's grammar with the parser floor of the executable it runs (none for other CLIs) applied. */
export function withParserFloor(grammar: GrammarSpec, provider: ProviderConfig): GrammarSpec {
  const floor = PARSER_FLOOR[executableName(provider.command)];
  // Both facts are argparse's (the schema models abbreviations for argparse only); another parser is another CLI.
  if (floor === undefined || grammar.parser !== "argparse") return grammar;
  return {
    ...grammar,
    abbreviations: floor.abbreviations,
    prescannedOptions: [...new Set([...floor.prescannedOptions, ...(grammar.prescannedOptions ?? [])])],
  };
}
