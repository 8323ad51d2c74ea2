/**
 * Argv grammars: a model of how each CLI's own parser reads its argument vector.
 *
 * Rules, grants and the launcher all work on one canonical spelling of an
 * invocation, so `-nkube-system`, `-n=kube-system` and `--namespace kube-system`
 * decide alike and the process receives exactly what the policy saw.
 */

/** The parser families Torii models. */
export type ParserFamily = "pflag" | "argparse" | "plain";

/** How an option consumes a value. */
export type ValueArity =
  /** a boolean switch: `--flag` (pflag also accepts `--flag=true|false`) */
  | "none"
  /** `--opt=value` or `--opt value` */
  | "required"
  /** pflag `NoOptDefVal`: `--opt` alone or `--opt=value`, never the next token */
  | "optional";

/** One row of a CLI's option table, as declared in `provider.yaml` `argv.options`. */
export interface OptionSpec {
  /** Long name including the leading dashes, e.g. `--namespace`. */
  readonly name: string;
  /** Single-letter alias including the dash, e.g. `-n`. */
  readonly short?: string;
  readonly value: ValueArity;
  /** The option may be given more than once (pflag slices, argparse `append`). */
  readonly repeatable: boolean;
}

/**
 * Options that exist only under one command path (`kubectl logs`: `-f` is
 * `--follow`, a switch, while elsewhere `-f` is `--filename`, which takes a value).
 */
export interface CommandScope {
  /** The positional command path, e.g. `["rollout", "status"]`. */
  readonly path: readonly string[];
  readonly options: readonly OptionSpec[];
}

/** The `argv:` section of `provider.yaml`, after validation. */
export interface GrammarSpec {
  readonly parser: ParserFamily;
  /** Global options: valid anywhere, before or after the command path. */
  readonly options: readonly OptionSpec[];
  /** Command-local options; the longest matching path wins. */
  readonly commands: readonly CommandScope[];
  /** Values starting with one of these (case-insensitively) are rejected: `file://`, `@`. */
  readonly forbiddenValuePrefixes: readonly string[];
  /** Values the CLI downloads or clones before it runs (absent: none). */
  readonly fetchedValues?: FetchedValueSpec;
  /** Arguments with which the CLI writes a local file the caller names (absent: none). */
  readonly fileWrites?: readonly FileWriteSpec[];
  /** Arguments whose value the CLI reads as a local file or directory, with no prefix Torii refuses (absent: none). */
  readonly fileReads?: readonly FileReadSpec[];
  /**
   * An unknown command word (or an unknown word after a command group) runs a
   * plugin program from PATH (`kubectl foo` runs `kubectl-foo`); absent: false.
   */
  readonly plugins?: boolean;
  /** Options the broker owns under one command path only (absent: none). */
  readonly lockedCommandOptions?: readonly LockedCommandOptions[];
  /** Options of commands whose sub-commands may follow them, by arity (command-path.ts; absent: none). */
  readonly parentOptions?: readonly ParentOptions[];
  /** Values that do what a locked option does, in any argument (absent: none). */
  readonly lockedValues?: readonly LockedValue[];
  /**
   * What `--` means to the CLI. `separates` (absent): the tokens after it are
   * arguments, never options. `ignored`: the CLI's parsers drop every `--` and
   * read on (the AWS CLI: before the service, after it, after the operation,
   * repeated), so canonicalisation drops it too and every check reads one call.
   */
  readonly doubleDash?: "separates" | "ignored";
  /**
   * Whether the CLI reads a long option by an unambiguous prefix (argparse's
   * `allow_abbrev`). `prefix` (absent): `--prof` is `--profile` (aws, az).
   * `none`: only the full name counts, and a prefix is another token for the
   * command's own parser (gcloud turns argparse's prefix matching off, so
   * `builds submit --config=x` is the command's `--config`, not `--configuration`).
   */
  readonly abbreviations?: "prefix" | "none";
  /**
   * Options the CLI finds by scanning the whole argv before it parses it
   * (gcloud's `--configuration` and `--flags-file`): a token spelling one
   * (`--name` or `--name=value`) takes effect at any position, as an option's
   * value, among operands and after `--`. Each must be a locked option; such a
   * token is refused wherever it stands (absent: none).
   */
  readonly prescannedOptions?: readonly string[];
  /** Arguments the CLI hands to another machine, never opened locally (absent: none). */
  readonly remoteArguments?: readonly RemoteArgumentSpec[];
}

/**
 * Arguments of one command that the CLI sends elsewhere and never reads as a
 * local path: the `--` tail of `kubectl exec POD -- ls /` (a command run in
 * the container), the value of `kubectl get --raw /` (an API path). The
 * credential-places check leaves them out (policy/grammar/credential-places.ts):
 * a `/` there is the container's or the API server's, not this machine's.
 */
export interface RemoteArgumentSpec {
  /** The command path (a prefix of the call's positionals), e.g. `["exec"]`. */
  readonly command: readonly string[];
  /** Every token after `--`. */
  readonly tail?: boolean;
  /** An option whose value is remote (its full name). */
  readonly option?: string;
}

/**
 * The options of a command that has sub-commands after them (awscli's
 * `cloudformation deploy`, under which CodeDeploy's `install` runs): the
 * command-path matcher skips the value of each option in `values`, so a value
 * equal to a sub-command's name (`--stack-name install`) is not read as it.
 */
export interface ParentOptions {
  /** The parent command's path, e.g. `["cloudformation", "deploy"]`. */
  readonly command: readonly string[];
  /** Full names of its options that take a value (the next token, unless glued with `=`). */
  readonly values: readonly string[];
  /** Full names of its switches: known so that an abbreviation resolves as argparse resolves it. */
  readonly switches: readonly string[];
}

/**
 * An argument of one command that makes the CLI write a local file at the path
 * the caller gives: an AWS streaming operation's positional `outfile`
 * (`s3api get-object ... /path`) or an option (`--private-key-outfile /path`).
 */
export interface FileWriteSpec {
  /** The command path, e.g. `["s3api", "get-object"]`. */
  readonly command: readonly string[];
  /** A positional argument, named as the CLI's help names it (`outfile`): every call writes. */
  readonly operand?: string;
  /** An option's full name: a call writes when it gives the option. */
  readonly option?: string;
  /** The option's short form (az `-f`), when it has one. */
  readonly short?: string;
  /**
   * Where the command writes with no argument naming a place (`az aks get-credentials`:
   * `~/.kube/config`). Without `option`, every call writes there; with it, a call giving
   * the option does (`vm create --generate-ssh-keys`: `~/.ssh/id_rsa`). Table words, so a
   * reason may quote it.
   */
  readonly defaultPath?: string;
}

/**
 * An argument of one command whose value the CLI reads as a local path with no
 * marker (`s3api put-object --body PATH`, az `--tags ./f.json`, gcloud
 * `secrets versions add --data-file PATH`, `builds submit SOURCE`): the same row
 * shape as a file write (src/policy/file-reads.ts). An option row's `defaultPath`
 * is what the CLI reads when the option is left out (`deploy push --source`
 * defaults to `.`, the working directory): such a row holds every call.
 */
export type FileReadSpec = FileWriteSpec;

/**
 * Options of one command that do what a locked global option does: send the
 * call's signed requests elsewhere (`emr create-default-roles --iam-endpoint`)
 * or leave the pinned region (`s3 cp --source-region`). Every spelling the
 * command's own parser reads as one of them is refused.
 */
export interface LockedCommandOptions {
  /** The command path, e.g. `["s3", "cp"]`; empty: every command. */
  readonly command: readonly string[];
  readonly options: readonly string[];
  /**
   * Refuse any `--` tail under the command path too: the CLI hands it to a
   * local program as that program's own arguments (gcloud `compute ssh VM --
   * -oProxyCommand=…` runs ssh with them).
   */
  readonly tail?: boolean;
  /**
   * Refuse only when a value given to the option contains this text (compared
   * case-insensitively): az `--ids` naming `/subscriptions/…`, while `--id <guid>`
   * of a Graph command stays up to the policy. Absent: every value.
   */
  readonly valueContains?: string;
  /**
   * Values the option may still take (compared exactly): gcloud `--image-project
   * debian-cloud` reads a public image, any other project is refused. Only the
   * value glued after `=` or the next word counts (a single-value option).
   */
  readonly allowedValues?: readonly string[];
  /**
   * The option's value (glued after `=`, else the next word) must start with
   * this text, else the call is refused: az `rest --url` without `://` is
   * appended to the ARM endpoint, so only a value starting with `/` stays on
   * that host (`.evil.example/x` makes it `management.azure.com.evil.example`).
   */
  readonly valuePrefix?: string;
  /**
   * The option names an address the CLI listens on (gcloud `--local-host-port`,
   * emulators' `--host-port`): refused unless its value (glued after `=`, else
   * the next word) keeps the listener on loopback (loopback-listener.ts).
   */
  readonly loopbackOnly?: boolean;
  /**
   * The option takes one value: `valueContains` reads the glued value or the
   * next word only, not the operands after it (`acr build -r reg ./src`).
   * Absent: every word up to the next option (az `--ids a b`).
   */
  readonly singleValue?: boolean;
  /**
   * The CLI reads the option only by its full name (gcloud refuses abbreviated
   * flags), so a prefix is another option (`--topic` is not `--topic-project`).
   * Absent: any prefix counts, as argparse expands one.
   */
  readonly exact?: boolean;
  /**
   * Why no rule may allow it, when it is not a target setting (`kustomize
   * --helm-command` runs a program of the caller's choice). Absent: it would
   * leave the target's endpoint, region or scope.
   */
  readonly why?: string;
}

/**
 * A value that does, in any argument of any command, what a locked global
 * option does: a full Azure resource ID names its subscription
 * (`/subscriptions/…`, what `--subscription` picks), a full Google Cloud
 * resource name or URI names its project (`projects/…`, what `--project`
 * picks). The CLI sends the request where the value says, whatever option
 * (or positional) carries it, so the check is keyed on the value.
 */
export interface LockedValue {
  /** Refused when a token holds this text, compared case-insensitively after percent-decoding. */
  readonly contains: string;
  /** The locked option the value stands in for, e.g. `--subscription`. */
  readonly option: string;
  /** What such a value names, for the denial (`a subscription (a full resource ID)`). */
  readonly names: string;
}

/**
 * A command the broker refuses for every target of a mode, whatever the rules
 * say, because it rewrites the files that define the target or its identity
 * (`kubectl config set-cluster`, `aws configure set`).
 */
export interface LockedCommand {
  readonly command: readonly string[];
  /** Sub-commands that stay up to the policy (read-only ones); empty: the whole command is refused. */
  readonly except: readonly string[];
  /** Why, for the denial: what the command would rewrite. */
  readonly why: string;
}

/** A parameter whose URL value the CLI passes on literally (it does not download it). */
export interface LiteralUrlParameter {
  /** The command path it belongs to, e.g. `["sqs", "receive-message"]`. */
  readonly command: readonly string[];
  /** The parameter's full option name, e.g. `--queue-url`. */
  readonly option: string;
  /** A list parameter: every value after the option, up to the next option, is literal. */
  readonly list: boolean;
}

/**
 * Values a CLI fetches client-side (SSRF into the output): AWS CLI v1 downloads
 * any parameter value starting with `http://`/`https://`; kubectl downloads
 * `-f https://…` and kustomize clones remote `-k` targets.
 */
export interface FetchedValueSpec {
  /** Options whose `http(s)://` values are downloaded; `"*"`: every value (AWS CLI v1). */
  readonly urlOptions: readonly string[];
  /** Options whose values kustomize may clone as a remote git repository. */
  readonly gitOptions: readonly string[];
  /** Command paths whose operands kustomize may clone (`kubectl kustomize <target>`). */
  readonly gitOperandsOf: readonly (readonly string[])[];
  /** With `urlOptions: ["*"]`: the parameters the CLI itself passes on literally. */
  readonly literal: readonly LiteralUrlParameter[];
}

/**
 * One invocation in canonical form. Flattened (see `flattenCanonical`) it is
 * `[...positionals, ...options, "--", ...tail]` (the `--` only when `hasTail`).
 *
 * - `positionals`: the command path and operands, in order. For argparse CLIs the
 *   options Torii does not model (an AWS operation's own options) stay here, in
 *   the order given, because only the CLI knows whether they take a value.
 * - `options`: every option the table knows, spelled `--long` or `--long=value`,
 *   sorted stably by name (flag order is irrelevant to these parsers except
 *   between repeats of one option, whose relative order is kept).
 * - `tail`: the tokens after `--`, opaque: never parsed as options.
 */
export interface CanonicalArgv {
  readonly positionals: readonly string[];
  readonly options: readonly string[];
  readonly hasTail: boolean;
  readonly tail: readonly string[];
}

/** Why an argv was refused before any rule was read. */
export type RejectionKind =
  /** a spelling the CLI would read as a locked (broker-owned) option */
  | "locked-option"
  /** a command that rewrites what the target means (the target mode's command floor) */
  | "locked-command"
  /** a value that would make the CLI read a local file or fetch a URL */
  | "forbidden-value"
  /** malformed, ambiguous, non-ASCII or unknown where it could hide a locked option */
  | "argv-rejected";

export interface ArgvRejection {
  readonly kind: RejectionKind;
  /** The offending token as the agent sent it. */
  readonly token: string;
  /** Zero-based index of the token in the agent's argv. */
  readonly index: number;
  /** For locked options: the canonical option the CLI would have read; for locked commands: the command path. */
  readonly option?: string;
  /** A sentence for the agent and the operator. */
  readonly reason: string;
}

export type CanonicaliseResult =
  | {
      readonly ok: true;
      readonly canonical: CanonicalArgv;
      /** Indexes of agent arguments the grammar proves are read on another machine (GrammarSpec.remoteArguments); absent: none. */
      readonly remoteArguments?: readonly number[];
    }
  | { readonly ok: false; readonly rejection: ArgvRejection };

/**
 * The one reading of a call's body that every body check consumes (file
 * writes, parameter carriers, forbidden abbreviations, locked commands): the
 * positionals, then the `--` tail. A CLI that hands the tail to the command's
 * own parser reads it as body; for one that does not, reading more words can
 * only find more, so a `--` never hides a body token from a check.
 */
export function commandBody<T>(canonical: { readonly positionals: readonly T[]; readonly tail: readonly T[] }): readonly T[] {
  return canonical.tail.length === 0 ? canonical.positionals : [...canonical.positionals, ...canonical.tail];
}

/** Returns the canonical argv as the single token list that is matched and spawned. */
export function flattenCanonical(canonical: CanonicalArgv): string[] {
  const tokens = [...canonical.positionals, ...canonical.options];
  if (canonical.hasTail) tokens.push("--", ...canonical.tail);
  return tokens;
}
