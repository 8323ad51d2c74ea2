/**
 * What the server does when its configuration fails to load: it starts
 * nothing that runs commands, but serves an MCP server whose only tool
 * (`torii_config_error`) explains the failure, so the operator sees why from
 * the client instead of "connection closed". The same text goes to stderr, to
 * `<root>/torii-server.log`, into the server instructions and, once the client
 * has initialised, to an MCP logging notification (level error).
 */
import { appendServerLog } from "../config/server-log.js";
import { DEFAULT_SETTINGS } from "../config/settings.js";
import { renderStartupFailure, type ConfigurationLoad, type StartupFailure } from "../pipeline/server-configuration.js";
import { configErrorTool, CONFIG_ERROR_TOOL_NAME } from "./config-error-tool.js";
import { createServer } from "./server.js";
import { logToStderr, serveUntilClosed } from "./serve-lifecycle.js";

/** The exit code of a server that only reported a start-up failure. */
export const STARTUP_FAILURE_EXIT_CODE = 1;

/** Reports `failure` everywhere the operator may look and serves the error tool until the client goes away. */
export async function serveConfigurationError(version: string, failure: StartupFailure, recheck: () => ConfigurationLoad): Promise<number> {
  const text = renderStartupFailure(failure);
  logToStderr(text);
  if (failure.root !== undefined) {
    const notWritten = appendServerLog(failure.root, `start-up failed: ${text}`);
    if (notWritten !== undefined) logToStderr(`the server log was not written: ${notWritten}`);
  }
  const instructions = `${text}\nCall ${CONFIG_ERROR_TOOL_NAME} to see the current state of the problem. Do not run the command-line tools another way.`;
  const created = createServer([configErrorTool(recheck)], version, { instructions, logging: true });
  created.server.oninitialized = () => {
    created.server.sendLoggingMessage({ level: "error", logger: "torii", data: text }).catch((error: unknown) => {
      logToStderr(`the logging notification could not be sent: ${error instanceof Error ? error.message : String(error)}`);
    });
  };
  // The settings did not load (or were not reached): the transport uses the default bound.
  await serveUntilClosed(created, { maxMessageBytes: DEFAULT_SETTINGS.maxMessageBytes });
  return STARTUP_FAILURE_EXIT_CODE;
}
