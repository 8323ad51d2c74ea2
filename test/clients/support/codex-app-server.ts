/**
 * A minimal client of `codex app-server`: JSON-RPC, one JSON object per line on
 * its stdio. Enough to start a thread and reach its MCP servers without a
 * model: `mcpServerStatus/list` (each server's tools) and
 * `mcpServer/tool/call` (a direct tool call).
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import readline from "node:readline";

interface Reply {
  readonly result?: unknown;
  readonly error?: { readonly message: string };
}

export class CodexAppServer {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<number, (reply: Reply) => void>();
  private nextId = 0;
  stderr = "";

  constructor(codex: string, home: string) {
    this.child = spawn(codex, ["app-server"], { cwd: home, env: { PATH: process.env.PATH ?? "", HOME: home }, shell: false });
    this.child.stderr.on("data", (chunk: Buffer) => (this.stderr += chunk.toString("utf8")));
    readline.createInterface({ input: this.child.stdout }).on("line", (line) => {
      const message = JSON.parse(line) as Reply & { id?: number };
      if (message.id === undefined) return;
      this.waiting.get(message.id)?.(message);
      this.waiting.delete(message.id);
    });
  }

  /** Sends a request and resolves with its result; rejects with the server's error. */
  request<T>(method: string, params: unknown): Promise<T> {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, (reply) => {
        if (reply.error !== undefined) reject(new Error(`${method}: ${reply.error.message}`));
        else resolve(reply.result as T);
      });
      this.child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  }

  notify(method: string): void {
    this.child.stdin.write(`${JSON.stringify({ method })}\n`);
  }

  /** Closes stdin and waits for the process to exit. */
  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.stdin.end();
    if (this.child.exitCode === null) this.child.kill("SIGTERM");
    await exited;
  }
}
