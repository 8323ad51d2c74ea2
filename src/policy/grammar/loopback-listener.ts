/**
 * Whether a listener address an agent gives keeps the listener on this
 * machine's loopback interface. A tunnel or proxy that Torii starts for an
 * allowed call (gcloud `compute start-iap-tunnel --local-host-port`, an
 * emulator's `--host-port`) carries the target's credentials or reach: bound to
 * `0.0.0.0`, a LAN address or a host name, it offers them to every machine
 * that can reach this one, beyond the call and the lease.
 *
 * Only spellings that name loopback without a lookup are accepted: `localhost`,
 * a dotted-quad `127.a.b.c`, `::1` or `[::1]`, each with an optional `:PORT` of
 * digits; a comma list (kubectl's `--address a,b`) when every element is one.
 * An empty host (`:8080`, where a CLI may pick its default or bind every
 * interface), an abbreviated or hex IPv4 (`127.1`, `0x7f.0.0.1`) and any other
 * name are refused: fail closed, the caller can always write `localhost:PORT`.
 */

const PORT = "(?::[0-9]{1,5})?";
const OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
const LOOPBACK_LISTENER = new RegExp(`^(?:localhost${PORT}|127\\.${OCTET}\\.${OCTET}\\.${OCTET}${PORT}|::1|\\[::1\\]${PORT})$`, "iu");

/** Whether every address in `value` (a comma list) is a loopback listener address. */
export function isLoopbackListener(value: string): boolean {
  return value.split(",").every((address) => LOOPBACK_LISTENER.test(address));
}
