/** What the server tells the agent about using it (MCP `instructions`). */
export const SERVER_INSTRUCTIONS = [
  "Torii runs command-line tools (one MCP tool per installed CLI) only through a policy the human operator owns.",
  "- Never run these CLIs through a shell or another tool: use the Torii tool for that CLI.",
  "- Pass the arguments as a JSON array of strings, one element per argument, without the program name.",
  "- Call torii_policy first (with `args` to explain a specific call) to see what the policy allows.",
  "- A denied call comes back as a result saying why; do not try other spellings of the same arguments.",
  "- Target aliases are chosen by the operator. An alias may be listed but inactive: if a call is denied with",
  "  target-inactive, ask the operator to activate it; never retry with another alias.",
  "- Options that pick the context, profile, region, identity or endpoint are owned by the operator and refused.",
  "- There is no tool to log in or re-authenticate: if a session is invalid, ask the human to log in natively.",
].join("\n");
